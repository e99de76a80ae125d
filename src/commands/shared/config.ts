import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { Argument } from 'commander';
import {
  checkProfileName,
  checkTimeZone,
  isLedgerUrl,
  resolveProfileName,
  unknownProfileError,
} from '../../config/resolve.js';
import {
  CONFIG_KEYS,
  type ConfigKey,
  type ConfigStore,
  type ProfileData,
  SANDBOX_PROFILE,
} from '../../config/types.js';
import type { Deps } from '../../context.js';
import { InvalidValue } from '../../domain/invalid.js';
import { formatDecimal, parseAmount } from '../../domain/money.js';
import { normalizeBaseUrl } from '../../domain/url.js';
import { usageError } from '../../errors.js';
import * as z from '../../zod.js';
import { fromDomain } from './flags.js';
import { completionValues } from './help.js';

/** What the built-in sandbox profile may set: nothing about where or how to connect. */
export const SANDBOX_KEYS: readonly ConfigKey[] = [
  'time-zone',
  'max-amount',
  'default-key',
  'policy',
  'ledger',
];

const SECRET_KEYS = new Set([
  'token',
  'client-secret',
  'clientsecret',
  'secret',
  'cachedtoken',
  'tokenbaseurl',
]);

function readableFile(path: string): string {
  const absolute = resolve(path);
  try {
    accessSync(absolute, constants.R_OK);
  } catch {
    throw new InvalidValue(`cannot read ${absolute}`);
  }
  return absolute;
}

function oneWord(what: string, max: number) {
  return (text: string): string => {
    const value = text.trim();
    if (!/^[\x21-\x7e\u00a0-\uffff]+$/.test(value))
      throw new InvalidValue(`${what} must be one word, without spaces`);
    if (value.length > max) throw new InvalidValue(`${what} is at most ${max} characters`);
    return value;
  };
}

/** Each key's check, returning the form stored. */
export const VALIDATORS: Record<ConfigKey, (text: string) => string> = {
  'base-url': normalizeBaseUrl,
  'time-zone': (text) => checkTimeZone(text.trim()),
  'max-amount': (text) => formatDecimal(parseAmount(text)),
  // A PIX key (at most 77 characters, an e-mail) or a key id.
  'default-key': oneWord('a PIX key', 77),
  'tls-cert': readableFile,
  'tls-key': readableFile,
  'client-key': oneWord('a client key', 200),
  policy: readableFile,
  // A database URL is a secret: it never comes from argv (`pix ledger init --url-stdin`, docs/team.md).
  ledger: (text) => {
    const value = text.trim();
    if (value === 'file') return value;
    throw new InvalidValue(
      isLedgerUrl(value)
        ? 'a database URL is a secret and is never taken from the command line: give it to `pix ledger init` on stdin (--url-stdin) or in a file (--url-file), or set PIX_LEDGER_URL'
        : 'the ledger is `file`, or a database set with `pix ledger init --url-stdin`',
    );
  },
  'require-plan': (text) => {
    const value = text.trim().toLowerCase();
    if (value !== 'true' && value !== 'false') throw new InvalidValue(`"${text}" is not true or false`);
    return value;
  },
};

const keySchema = fromDomain((text): ConfigKey => {
  const key = text.trim().toLowerCase();
  if (SECRET_KEYS.has(key)) {
    throw new InvalidValue(`"${text}" is a secret and cannot be read or set here; use \`pix login\``);
  }
  if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
    throw new InvalidValue(`unknown key "${text}" (keys: ${CONFIG_KEYS.join(', ')})`);
  }
  return key as ConfigKey;
});

export const keyOptionsSchema = z.object({ key: keySchema });
export const setOptionsSchema = z.object({ key: keySchema, value: z.string() });

/**
 * The profile `pix config` works on: -p > PIX_PROFILE > the current profile > sandbox. `set` may name a
 * profile that does not exist yet (it creates it); the others need one that exists (or sandbox).
 */
export function targetProfile(deps: Deps, store: ConfigStore, creating: boolean): string {
  const { value: name, source } = resolveProfileName(deps.globals, deps.env, store);
  const where = source === 'env' ? 'PIX_PROFILE' : '--profile';
  if (store.listProfiles().includes(name)) return name;
  if (name === SANDBOX_PROFILE || creating) {
    try {
      return checkProfileName(name);
    } catch (error) {
      throw usageError(where, (error as Error).message);
    }
  }
  throw unknownProfileError(where, name, store);
}

/** The profile with `key` set to `value` (removed when undefined). */
function withSetting(data: ProfileData, key: ConfigKey, value: string | undefined): ProfileData {
  const next: ProfileData = { ...data };
  if (value === undefined) delete next[key];
  else next[key] = value;
  if (key === 'client-key' && value !== data['client-key']) {
    // The stored secret and the token minted with it belong to the old key.
    delete next.clientSecret;
    delete next.cachedToken;
  }
  return next;
}

/** Changes one key of one profile under the config file's lock, on the profile as it is now. */
export function changeSetting(
  store: ConfigStore,
  name: string,
  key: ConfigKey,
  value: string | undefined,
): Promise<ProfileData | undefined> {
  return store.update((document) => {
    const stored = Object.hasOwn(document.profiles, name) ? document.profiles[name] : undefined;
    // A profile a hand edit broke (not an object) is replaced: setting a key is how it gets repaired.
    const before: ProfileData = typeof stored === 'object' && stored !== null ? stored : {};
    if (value === undefined && before[key] === undefined) return before;
    document.profiles[name] = withSetting(before, key, value);
    return before;
  });
}

/** KEY, completed in the shell from CONFIG_KEYS. */
export function keyArgument(): Argument {
  return completionValues(new Argument('<key>'), CONFIG_KEYS);
}
