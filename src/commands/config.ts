import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { Argument, type Command } from 'commander';
import { normalizeBaseUrl } from '../api/url.js';
import {
  checkProfileName,
  checkTimeZone,
  configValues,
  resolveProfileName,
  unknownProfileError,
} from '../config/resolve.js';
import {
  CONFIG_KEYS,
  type ConfigKey,
  type ConfigStore,
  type ProfileData,
  SANDBOX_PROFILE,
  type Sourced,
} from '../config/types.js';
import type { Deps } from '../context.js';
import { InvalidValue } from '../domain/invalid.js';
import { formatDecimal, parseAmount } from '../domain/money.js';
import { usageError } from '../errors.js';
import { jsonDocument } from '../output/format.js';
import { asUsage } from '../usage.js';
import * as z from '../zod.js';
import { fromDomain, parseOptions } from './shared/flags.js';
import { addExamples, completionValues } from './shared/help.js';

/** What the built-in sandbox profile may set: nothing about where or how to connect. */
const SANDBOX_KEYS: readonly ConfigKey[] = ['time-zone', 'max-amount', 'default-key'];

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
const VALIDATORS: Record<ConfigKey, (text: string) => string> = {
  'base-url': normalizeBaseUrl,
  'time-zone': (text) => checkTimeZone(text.trim()),
  'max-amount': (text) => formatDecimal(parseAmount(text)),
  // A PIX key (at most 77 characters, an e-mail) or a key id.
  'default-key': oneWord('a PIX key', 77),
  'tls-cert': readableFile,
  'tls-key': readableFile,
  'client-key': oneWord('a client key', 200),
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

const keyOptionsSchema = z.object({ key: keySchema });
const setOptionsSchema = z.object({ key: keySchema, value: z.string() });

export type ConfigAction =
  | { action: 'list' }
  | { action: 'get'; key: ConfigKey }
  | { action: 'set'; key: ConfigKey; value: string }
  | { action: 'unset'; key: ConfigKey };

/**
 * The profile `pix config` works on: -p > PIX_PROFILE > the current profile > sandbox. `set` may name a
 * profile that does not exist yet (it creates it); the others need one that exists (or sandbox).
 */
function targetProfile(deps: Deps, store: ConfigStore, creating: boolean): string {
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
function changeSetting(
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

export async function runConfig(request: ConfigAction, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { stdout, stderr } = deps.io;
  const json = deps.globals.json;
  const name = targetProfile(deps, store, request.action === 'set');

  switch (request.action) {
    case 'list': {
      const values = configValues(deps.globals, deps.env, name, store.getProfile(name) ?? {});
      const entries = CONFIG_KEYS.flatMap((key) => {
        const value = values[key];
        return value === undefined ? [] : [[key, value] as [ConfigKey, Sourced<string>]];
      });
      if (json) {
        stdout.write(
          jsonDocument(Object.fromEntries(entries.map(([key, { value }]) => [key, value])), stdout.isTTY),
        );
      } else if (stdout.isTTY) {
        const width = Math.max(...entries.map(([key]) => key.length)) + 2;
        for (const [key, { value, source }] of entries)
          stdout.write(`${key.padEnd(width)}${value} (${source})\n`);
      } else {
        for (const [key, { value, source }] of entries) stdout.write(`${key}\t${value}\t${source}\n`);
      }
      return;
    }
    case 'get': {
      const found = configValues(deps.globals, deps.env, name, store.getProfile(name) ?? {})[request.key];
      if (json) {
        const document = { key: request.key, value: found?.value ?? null, source: found?.source ?? null };
        stdout.write(jsonDocument(document, stdout.isTTY));
      } else if (found !== undefined) {
        // The value alone, for $(pix config get KEY); a person at a terminal also sees where it comes from.
        stdout.write(stdout.isTTY ? `${found.value} (${found.source})\n` : `${found.value}\n`);
      }
      return;
    }
    case 'set': {
      const { key } = request;
      if (name === SANDBOX_PROFILE && !SANDBOX_KEYS.includes(key)) {
        throw usageError(
          key,
          'the built-in sandbox profile cannot set it',
          `keys it can set: ${SANDBOX_KEYS.join(', ')}`,
        );
      }
      const value = asUsage(key, () => VALIDATORS[key](request.value));
      const before = await changeSetting(store, name, key, value);
      if (key === 'base-url' && before?.tokenBaseUrl !== undefined && before.tokenBaseUrl !== value) {
        stderr.write(
          `warning: the credentials stored in profile ${name} are for ${before.tokenBaseUrl} and will not be sent to ${value}; run \`pix login\` again\n`,
        );
      }
      if (key === 'client-key' && before?.clientSecret !== undefined && before['client-key'] !== value) {
        stderr.write(
          `warning: the client secret stored for the old key is removed; run \`pix login --client-key ${value}\`\n`,
        );
      }
      return;
    }
    case 'unset': {
      await changeSetting(store, name, request.key, undefined);
      return;
    }
  }
}

/** KEY, completed in the shell from CONFIG_KEYS. */
function keyArgument(): Argument {
  return completionValues(new Argument('<key>'), CONFIG_KEYS);
}

export function register(command: Command, deps: Deps): void {
  command.description(`${command.description()} (keys: ${CONFIG_KEYS.join(', ')})`);
  const list = command
    .command('list')
    .description('the settings in effect, with their source: `key<TAB>value<TAB>source` per line')
    .action(async () => {
      await runConfig({ action: 'list' }, deps);
    });
  addExamples(list, ['pix config list', 'pix config list --profile prod'], ['usage']);
  const get = command
    .command('get')
    .description('the value in effect for one setting (default included); nothing when there is none')
    .addArgument(keyArgument())
    .action(async (key: string) => {
      await runConfig({ action: 'get', ...parseOptions(keyOptionsSchema, { key }, { key: 'KEY' }) }, deps);
    });
  addExamples(
    get,
    ['pix config get time-zone', 'TZ_NAME=$(pix config get time-zone --profile prod)'],
    ['usage'],
  );
  const set = command
    .command('set')
    .description('change a setting (checked first)')
    .addArgument(keyArgument())
    .argument('<value>')
    .action(async (key: string, value: string) => {
      const parsed = parseOptions(setOptionsSchema, { key, value }, { key: 'KEY', value: 'VALUE' });
      await runConfig({ action: 'set', ...parsed }, deps);
    });
  addExamples(
    set,
    ['pix config set time-zone America/Manaus', 'pix config set max-amount 500 --profile prod'],
    ['usage'],
  );
  const unset = command
    .command('unset')
    .description('remove a setting')
    .addArgument(keyArgument())
    .action(async (key: string) => {
      await runConfig({ action: 'unset', ...parseOptions(keyOptionsSchema, { key }, { key: 'KEY' }) }, deps);
    });
  addExamples(
    unset,
    ['pix config unset default-key', 'pix config unset max-amount --profile prod'],
    ['usage'],
  );
  addExamples(
    command,
    [
      'pix config list',
      'pix config set time-zone America/Manaus',
      'pix config set max-amount 500 --profile prod',
      'pix config get base-url',
      'pix config unset default-key',
    ],
    ['usage'],
  );
}
