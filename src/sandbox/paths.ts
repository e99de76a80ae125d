import { join } from 'node:path';
import { ensureConfigDir } from '../config/store.js';
import type { Env } from '../context.js';

/**
 * Where the sandbox keeps its account: `<config dir>/sandbox-state.json` (config dir as for profiles).
 * Called by what is about to use the file, so the config directory is made here when missing (0700), and
 * refused when others can write to it, as for every file of pix's own.
 */
export function defaultStateFile(env: Env): string {
  return join(ensureConfigDir(env), 'sandbox-state.json');
}
