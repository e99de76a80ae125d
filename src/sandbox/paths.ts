import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The config directory, the same rule as src/config/store.ts (kept here so the embedded sandbox does
 * not load the config store): `PIX_CONFIG_DIR`, else `$XDG_CONFIG_HOME/pix`, else `~/.config/pix`.
 */
export function configDir(env: Env): string {
  if (env.PIX_CONFIG_DIR) return env.PIX_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) return join(env.XDG_CONFIG_HOME, 'pix');
  return join(env.HOME || homedir(), '.config', 'pix');
}

/** Where the sandbox keeps its account: `<config dir>/sandbox-state.json`. */
export function defaultStateFile(env: Env): string {
  return join(configDir(env), 'sandbox-state.json');
}
