import { join } from 'node:path';
import { configDir } from '../config/store.js';
import type { Env } from '../deps.js';

/** Where the sandbox keeps its account: `<config dir>/sandbox-state.json` (config dir as for profiles). */
export function defaultStateFile(env: Env): string {
  return join(configDir(env), 'sandbox-state.json');
}
