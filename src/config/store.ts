import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type Conf from 'conf';
import type { Env } from '../deps.js';
import { PixError } from '../errors.js';
import type { ConfigStore, ProfileData } from './types.js';

/**
 * The profile store: one JSON file, `<dir>/config.json`, written by `conf` with file mode 0600 in a
 * directory created 0700.
 *
 * Reads do not go through conf. Measured on Node 20: `node -e "import('conf')"` takes ~130 ms against
 * ~50 ms for a bare `node -e 0` (conf pulls in ajv, atomically, dot-prop, env-paths …: ~70 ms of module
 * loading), while reading and JSON.parse-ing the file costs well under 5 ms. Most commands only read
 * the profile (statement, keys, auth status, config get), so reads parse the file conf writes (plain
 * JSON, conf's default serialisation) and conf is imported only when something is written (login,
 * logout, config set, profile use, caching a minted token). That is also why the write methods are
 * async. Reads never create the directory or the file: a fresh machine stays untouched until login.
 */

interface StoreShape {
  currentProfile?: string;
  profiles?: Record<string, ProfileData>;
}

/** `PIX_CONFIG_DIR`, else `$XDG_CONFIG_HOME/pix`, else `~/.config/pix`. */
export function configDir(env: Env): string {
  if (env.PIX_CONFIG_DIR) return env.PIX_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) return join(env.XDG_CONFIG_HOME, 'pix');
  return join(env.HOME || homedir(), '.config', 'pix');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function openConfigStore(env: Env): ConfigStore {
  const dir = configDir(env);
  const path = join(dir, 'config.json');
  let conf: Conf<StoreShape> | undefined;

  function read(): StoreShape {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new PixError('usage', `cannot read the config file ${path}: ${(error as Error).message}`);
    }
    let data: unknown;
    try {
      data = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      throw new PixError('usage', `the config file ${path} is not valid JSON`, {
        hint: 'fix it by hand, or move it away and run `pix login` again',
      });
    }
    if (!isRecord(data)) {
      throw new PixError('usage', `the config file ${path} does not hold a JSON object`);
    }
    const profiles = isRecord(data.profiles) ? (data.profiles as Record<string, ProfileData>) : undefined;
    const current = typeof data.currentProfile === 'string' ? data.currentProfile : undefined;
    return { ...data, currentProfile: current, profiles };
  }

  async function write(update: (data: StoreShape) => void): Promise<void> {
    if (!conf) {
      ensureDirectory(dir);
      const { default: ConfClass } = await import('conf');
      conf = new ConfClass<StoreShape>({
        projectName: 'pix',
        cwd: dir,
        configName: 'config',
        configFileMode: 0o600,
        // Profile names are keys; a dot in one must not become a nested path.
        accessPropertiesByDotNotation: false,
      });
    }
    const data = read();
    update(data);
    ensureDirectory(dir);
    // conf writes JSON.stringify(data): keys left undefined (an unset setting, a cleared current
    // profile) are not written.
    conf.store = data;
    // conf writes a new file with the mode, but an older file made by hand keeps its own: tighten it.
    tightenFile(path);
  }

  return {
    dir,
    path,
    currentProfile: () => read().currentProfile,
    setCurrentProfile: (name) =>
      write((data) => {
        data.currentProfile = name;
      }),
    listProfiles: () => Object.keys(read().profiles ?? {}).sort(),
    getProfile(name) {
      const profiles = read().profiles ?? {};
      const profile = Object.hasOwn(profiles, name) ? profiles[name] : undefined;
      return isRecord(profile) ? { ...profile } : undefined;
    },
    setProfile: (name, profile) =>
      write((data) => {
        data.profiles = { ...data.profiles, [name]: profile };
      }),
    deleteProfile: (name) =>
      write((data) => {
        const { [name]: _removed, ...rest } = data.profiles ?? {};
        data.profiles = rest;
        if (data.currentProfile === name) data.currentProfile = undefined;
      }),
  };
}

/** The directory holds secrets: created 0700 (with any missing parents). */
function ensureDirectory(dir: string): void {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask; say it exactly.
  chmodSync(dir, 0o700);
}

function tightenFile(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch {
    // Nothing to tighten (a platform without POSIX modes).
  }
}
