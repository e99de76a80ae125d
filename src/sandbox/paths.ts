import { homedir } from 'node:os';
import { join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** The config directory: `PIX_CONFIG_DIR`, else `~/.config/pix`. */
export function configDir(env: Env): string {
  const dir = env.PIX_CONFIG_DIR;
  if (dir !== undefined && dir !== '') return dir;
  return join(env.HOME && env.HOME !== '' ? env.HOME : homedir(), '.config', 'pix');
}

/** Where the sandbox keeps its account: `<config dir>/sandbox-state.json`. */
export function defaultStateFile(env: Env): string {
  return join(configDir(env), 'sandbox-state.json');
}
