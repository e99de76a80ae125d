import { isAbsolute, join } from 'node:path';
import type { Env } from '../context.js';
import { describeSystemError, PixError } from '../errors.js';
import { checkPrivateDir, ensurePrivateDir } from '../storage/dirs.js';
import { readPrivateFile, writeFileAtomic } from '../storage/files.js';
import { type LockHost, withFileLock } from '../storage/locks.js';
import {
  type CachedToken,
  CONFIG_KEYS,
  type ConfigDocument,
  type ConfigStore,
  PAGE_LIMIT_TTL_MS,
  type ProfileData,
} from './types.js';

/**
 * The profile store: `<dir>/config.json`, JSON, `<dir>/token-cache.json` for tokens minted from client
 * credentials given in the environment, and `<dir>/page-limits.json`, the largest page each server took
 * (api/pager.ts), by base URL. Every file goes through storage/: read refusing
 * symbolic links, changed under a lock on a fresh read, replaced atomically (temporary file, fsync,
 * rename), 0600 in a directory made 0700.
 *
 * This used to be written by the `conf` library. conf cannot be made correct here: its writer
 * (`atomically`) resolves a symbolic link at config.json and replaces the file it points to, its
 * directory creation is a recursive mkdir (which spins forever under /proc and makes 0755 directories),
 * and it reads the file itself, following links, outside any lock of ours. What it did for pix (parse and
 * write a JSON object) is a few lines over storage/.
 *
 * Reads never create the directory or a file: a fresh machine stays untouched until something is stored.
 */

/** `PIX_CONFIG_DIR`, else `$XDG_CONFIG_HOME/pix`, else `~/.config/pix`. */
export function configDir(env: Env): string {
  if (env.PIX_CONFIG_DIR) return env.PIX_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) return join(env.XDG_CONFIG_HOME, 'pix');
  // node:os only when HOME is unset: loading it costs every command start-up a few ms.
  return join(env.HOME || process.getBuiltinModule('node:os').homedir(), '.config', 'pix');
}

/**
 * Makes the config directory (0700; refused when others can write to it) for whatever first needs it:
 * a login, a setting, the journal, the sandbox state, a cached token. A directory that cannot be made is
 * named with what to do instead.
 */
export function ensureConfigDir(env: Env): string {
  const dir = configDir(env);
  try {
    ensurePrivateDir(dir);
  } catch (error) {
    const system = describeSystemError(error);
    if (!system) throw error;
    throw new PixError('internal', system.message, {
      hint: `${system.hint}, or set PIX_CONFIG_DIR to another directory (the config directory is ${dir})`,
      cause: error,
    });
  }
  return dir;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'text';
  return `a ${typeof value}`;
}

/** Secrets held as text besides the CONFIG_KEYS (cachedToken is checked apart). */
const SECRET_TEXT_KEYS = ['token', 'tokenBaseUrl', 'clientSecret'] as const;

export function isCachedToken(value: unknown): value is CachedToken {
  return (
    isRecord(value) &&
    typeof value.value === 'string' &&
    typeof value.expiresAt === 'string' &&
    !Number.isNaN(Date.parse(value.expiresAt)) &&
    typeof value.baseUrl === 'string'
  );
}

/** A hand-edited file with a wrong type: one line naming the file and the key, and how to repair it. */
function malformed(path: string, what: string, found: unknown, expected: string, hint: string): PixError {
  return new PixError('usage', `the config file ${path}: ${what} is ${typeName(found)}, not ${expected}`, {
    hint,
  });
}

/** The JSON object of config.json; only its two top-level keys are checked here. */
function parseDocument(path: string, text: string): ConfigDocument {
  let data: unknown;
  try {
    data = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new PixError('usage', `the config file ${path} is not valid JSON`, {
      hint: 'fix it by hand, or move it away and run `pix login` again',
    });
  }
  if (!isRecord(data)) {
    throw malformed(path, 'the whole file', data, 'an object', 'fix it by hand, or move it away');
  }
  if (data.profiles !== undefined && data.profiles !== null && !isRecord(data.profiles)) {
    throw malformed(path, '"profiles"', data.profiles, 'an object', 'fix it by hand, or move it away');
  }
  return { ...data, profiles: isRecord(data.profiles) ? (data.profiles as Record<string, ProfileData>) : {} };
}

/** One profile with its values' types checked; undefined when there is no such profile. */
function checkedProfile(path: string, name: string, raw: unknown): ProfileData | undefined {
  if (raw === undefined) return undefined;
  const where = `profile "${name}"`;
  if (!isRecord(raw)) {
    throw malformed(path, where, raw, 'an object', 'fix it by hand, or move it away');
  }
  const profile: Record<string, unknown> = { ...raw };
  for (const key of [...CONFIG_KEYS, ...SECRET_TEXT_KEYS]) {
    const value = profile[key];
    if (value === null)
      delete profile[key]; // a hand edit that meant "not set"
    else if (value !== undefined && typeof value !== 'string') {
      const secret = (SECRET_TEXT_KEYS as readonly string[]).includes(key);
      throw malformed(
        path,
        `"${key}" of ${where}`,
        value,
        'text',
        secret
          ? `run \`pix login --profile ${name}\` again, or fix the file by hand`
          : `run \`pix config set ${key} VALUE --profile ${name}\` (or \`pix config unset ${key} --profile ${name}\`), or fix the file by hand`,
      );
    }
  }
  // Only a cache: one that cannot be used is as good as none.
  if (profile.cachedToken !== undefined && !isCachedToken(profile.cachedToken)) delete profile.cachedToken;
  return profile as ProfileData;
}

/** The config directory's files and whether the directory was checked (the store's steps below; rule 14). */
interface ConfigFiles {
  readonly env: Env;
  readonly host: LockHost;
  readonly dir: string;
  readonly path: string;
  readonly cachePath: string;
  readonly limitsPath: string;
  dirChecked: boolean;
}

/** The text of one of our files; the directory is checked once (refused when others can write to it). */
function readOwn(files: ConfigFiles, file: string): string | undefined {
  if (!files.dirChecked) {
    checkPrivateDir(files.dir);
    files.dirChecked = true;
  }
  return readPrivateFile(file);
}

function readDocument(files: ConfigFiles): ConfigDocument {
  const text = readOwn(files, files.path);
  return text === undefined ? { profiles: {} } : parseDocument(files.path, text);
}

/** Locks `file`, reads it afresh, applies `edit`, writes it back when it changed. */
async function change<D, T>(
  files: ConfigFiles,
  file: string,
  describe: string,
  parse: (text: string | undefined) => D,
  edit: (data: D) => T,
): Promise<T> {
  ensureConfigDir(files.env);
  files.dirChecked = true;
  return withFileLock(file, describe, files.host, () => {
    const data = parse(readPrivateFile(file));
    const before = JSON.stringify(data);
    const result = edit(data);
    if (JSON.stringify(data) !== before) writeFileAtomic(file, `${JSON.stringify(data, undefined, '\t')}\n`);
    return result;
  });
}

function currentProfile(files: ConfigFiles): string | undefined {
  const current = (readDocument(files) as { currentProfile?: unknown }).currentProfile;
  if (current === undefined || current === null) return undefined;
  if (typeof current !== 'string') {
    throw malformed(
      files.path,
      '"currentProfile"',
      current,
      'text',
      'run `pix profile use NAME` (e.g. `pix profile use sandbox`), or fix the file by hand',
    );
  }
  return current;
}

/** Keeps `list`'s page size for `baseUrl`, and drops every learned size that is no longer fresh. */
function rememberPageLimit(files: ConfigFiles, baseUrl: string, list: string, limit: number, now: Date) {
  const { limitsPath } = files;
  return change(files, limitsPath, `the page-size cache ${limitsPath}`, parseLimits, (limits) => {
    for (const [url, lists] of Object.entries(limits)) {
      if (!isRecord(lists)) delete limits[url];
      else {
        for (const name of Object.keys(lists))
          if (limitOf(lists, name, now) === undefined) delete lists[name];
        if (Object.keys(lists).length === 0) delete limits[url];
      }
    }
    const lists = isRecord(limits[baseUrl]) ? limits[baseUrl] : {};
    lists[list] = { limit, learnedAt: now.toISOString() };
    limits[baseUrl] = lists;
  });
}

/** Keeps (or forgets, with none) the token of `digest`, and drops every expired one. */
function cacheToken(
  files: ConfigFiles,
  digest: string,
  token: Parameters<ConfigStore['cacheToken']>[1],
  now: Date,
) {
  const { cachePath } = files;
  return change(files, cachePath, `the token cache ${cachePath}`, parseTokenCache, (tokens) => {
    for (const [key, entry] of Object.entries(tokens)) {
      if (!isCachedToken(entry) || Date.parse(entry.expiresAt) <= now.getTime()) delete tokens[key];
    }
    if (token === undefined) delete tokens[digest];
    else tokens[digest] = token;
  });
}

/** `host`: the clock, randomness and pids the store's lock runs by (storage/locks.ts), a command's Deps. */
export function openConfigStore(env: Env, host: LockHost): ConfigStore {
  const dir = configDir(env);
  const files: ConfigFiles = {
    env,
    host,
    dir,
    path: join(dir, 'config.json'),
    cachePath: join(dir, 'token-cache.json'),
    limitsPath: join(dir, 'page-limits.json'),
    dirChecked: false,
  };
  const { path } = files;
  const store: ConfigStore = {
    dir,
    path,
    currentProfile: () => currentProfile(files),
    listProfiles: () => Object.keys(readDocument(files).profiles).sort(),
    getProfile(name) {
      const { profiles } = readDocument(files);
      return checkedProfile(path, name, Object.hasOwn(profiles, name) ? profiles[name] : undefined);
    },
    update: (edit) =>
      change(
        files,
        path,
        `the config file ${path}`,
        (text) => (text === undefined ? { profiles: {} } : parseDocument(path, text)),
        edit,
      ),
    setProfile: (name, data) =>
      store.update((document) => {
        document.profiles[name] = data;
      }),
    setCurrentProfile: (name) =>
      store.update((document) => {
        document.currentProfile = name;
      }),
    cachedToken(digest) {
      const tokens = parseTokenCache(readOwn(files, files.cachePath));
      const token = Object.hasOwn(tokens, digest) ? tokens[digest] : undefined;
      return isCachedToken(token) ? token : undefined;
    },
    pageLimit(baseUrl, list, now) {
      try {
        return limitOf(parseLimits(readOwn(files, files.limitsPath))[baseUrl], list, now);
      } catch {
        return undefined; // only a cache: one that cannot be read is none
      }
    },
    rememberPageLimit: (baseUrl, list, limit, now) => rememberPageLimit(files, baseUrl, list, limit, now),
    cacheToken: (digest, token, now) => cacheToken(files, digest, token, now),
  };
  return store;
}

/** token-cache.json: digest → cached token. A broken cache is an empty one (it is rebuilt as tokens are minted). */
function parseTokenCache(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const data: unknown = JSON.parse(text);
    return isRecord(data) ? data : {};
  } catch {
    return {};
  }
}

/** page-limits.json: base URL → list → {limit, learnedAt}. A broken cache is an empty one. */
function parseLimits(text: string | undefined): Record<string, Record<string, unknown>> {
  return parseTokenCache(text) as Record<string, Record<string, unknown>>;
}

/** A learned page size of `list` in one base URL's record, while it is fresh (PAGE_LIMIT_TTL_MS). */
function limitOf(lists: unknown, list: string, now: Date): number | undefined {
  if (!isRecord(lists) || !Object.hasOwn(lists, list)) return undefined;
  const learned = lists[list];
  if (!isRecord(learned)) return undefined;
  const { limit, learnedAt } = learned;
  const age = now.getTime() - Date.parse(String(learnedAt));
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) return undefined;
  return age >= 0 && age < PAGE_LIMIT_TTL_MS ? limit : undefined;
}
