import type { Env, GlobalOptions } from '../context.js';
import { InvalidValue } from '../domain/invalid.js';
import { parseAmount } from '../domain/money.js';
import { isValidTimeZone, meantTimeZone } from '../domain/timezones.js';
import { normalizeBaseUrl } from '../domain/url.js';
import { type PixError, usageError } from '../errors.js';
import { asUsage } from '../usage.js';
import { describeLedgerText } from './ledger.js';
import {
  type ConfigKey,
  type ConfigStore,
  type Credentials,
  DEFAULT_TIME_ZONE,
  EMBEDDED_SANDBOX_URL,
  type LedgerSetting,
  type ProfileData,
  SANDBOX_DEFAULT_KEY,
  SANDBOX_PROFILE,
  type Settings,
  type Sourced,
} from './types.js';

/** A profile name: what `pix login --profile` and `pix profile use` accept. */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Throws InvalidValue unless `name` can name a profile. */
export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new InvalidValue(`"${name}" is not a profile name (letters, digits, - and _, at most 64)`);
  }
  return name;
}

/** Throws InvalidValue unless `zone` is an IANA time zone this Node knows. */
export function checkTimeZone(zone: string): string {
  if (!isValidTimeZone(zone)) {
    throw new InvalidValue(`"${zone}" is not a time zone (e.g. America/Sao_Paulo)`, meantTimeZone(zone));
  }
  return zone;
}

/** How a profile key is named in messages: `base-url (profile "prod")`. */
function profileKey(key: string, profile: string): string {
  return `${key} (profile "${profile}")`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** The profiles a user can name: the stored ones and the built-in sandbox. */
export function knownProfiles(store: ConfigStore): string[] {
  const names = store.listProfiles();
  return names.includes(SANDBOX_PROFILE) ? names : [...names, SANDBOX_PROFILE];
}

export function unknownProfileError(where: string, name: string, store: ConfigStore): PixError {
  return usageError(
    where,
    `no profile named "${name}" (profiles: ${knownProfiles(store).join(', ')})`,
    'create one with `pix login --profile NAME`',
  );
}

/** Which profile is active: --profile > PIX_PROFILE > the current profile > the built-in sandbox. */
export function resolveProfileName(
  globals: Pick<GlobalOptions, 'profile'>,
  env: Env,
  store: ConfigStore,
  warnings: string[] = [],
): Sourced<string> {
  const fromEnv = nonEmpty(env.PIX_PROFILE);
  if (globals.profile !== undefined) {
    if (fromEnv !== undefined && fromEnv !== globals.profile) {
      warnings.push(`--profile ${globals.profile} overrides PIX_PROFILE=${fromEnv}`);
    }
    return { value: globals.profile, source: 'flag' };
  }
  if (fromEnv !== undefined) return { value: fromEnv, source: 'env' };
  const current = store.currentProfile();
  if (current !== undefined) return { value: current, source: 'profile' };
  return { value: SANDBOX_PROFILE, source: 'default' };
}

/** Where each flag-or-environment value is named in errors. */
const SOURCE_NAMES = { flag: '--base-url', env: 'PIX_BASE_URL' } as const;

/**
 * Resolves everything a command needs to talk to the API. Precedence: flag > environment > profile >
 * built-in default, with the source of each value. Secrets stored in a profile are used only with the
 * base URL they were stored with (contract §5).
 */
export function resolveSettings(globals: GlobalOptions, env: Env, store: ConfigStore): Settings {
  const warnings: string[] = [];
  const profile = resolveProfileName(globals, env, store, warnings);
  const name = profile.value;
  const isSandboxProfile = name === SANDBOX_PROFILE;
  const stored = store.getProfile(name);
  if (stored === undefined && !isSandboxProfile) {
    const where =
      profile.source === 'flag' ? '--profile' : profile.source === 'env' ? 'PIX_PROFILE' : 'current profile';
    throw unknownProfileError(where, name, store);
  }
  const data: ProfileData = stored ?? {};

  // Base URL: flag > env > profile; the sandbox profile needs none.
  const envBaseUrl = nonEmpty(env.PIX_BASE_URL);
  let baseUrl: Sourced<string> | undefined;
  if (globals.baseUrl !== undefined) {
    const value = asUsage(SOURCE_NAMES.flag, () => normalizeBaseUrl(globals.baseUrl!));
    if (envBaseUrl !== undefined) {
      let same = false;
      try {
        same = normalizeBaseUrl(envBaseUrl) === value;
      } catch {
        // An invalid PIX_BASE_URL that the flag overrides is only worth the warning.
      }
      if (!same) warnings.push(`--base-url ${value} overrides PIX_BASE_URL=${envBaseUrl}`);
    }
    baseUrl = { value, source: 'flag' };
  } else if (envBaseUrl !== undefined) {
    baseUrl = { value: asUsage(SOURCE_NAMES.env, () => normalizeBaseUrl(envBaseUrl)), source: 'env' };
  } else if (!isSandboxProfile && data['base-url'] !== undefined) {
    const stored = data['base-url'];
    baseUrl = {
      value: asUsage(profileKey('base-url', name), () => normalizeBaseUrl(stored)),
      source: 'profile',
    };
  }
  const sandbox = isSandboxProfile && baseUrl === undefined;
  if (baseUrl === undefined) {
    if (!sandbox) {
      throw usageError(
        profileKey('base-url', name),
        'not set',
        `run \`pix config set base-url URL --profile ${name}\`, or pass --base-url`,
      );
    }
    baseUrl = { value: EMBEDDED_SANDBOX_URL, source: 'default' };
  }

  const credentials = sandbox
    ? sandboxCredentials(env, profile, warnings)
    : resolveCredentials(env, name, data, baseUrl, warnings);

  const zone = data['time-zone'];
  const timeZone: Sourced<string> =
    zone === undefined
      ? { value: DEFAULT_TIME_ZONE, source: 'default' }
      : { value: asUsage(profileKey('time-zone', name), () => checkTimeZone(zone)), source: 'profile' };

  const max = data['max-amount'];
  const maxAmount =
    max === undefined ? undefined : asUsage(profileKey('max-amount', name), () => parseAmount(max));

  const cert = data['tls-cert'];
  const key = data['tls-key'];
  if ((cert === undefined) !== (key === undefined)) {
    throw usageError(
      profileKey(cert === undefined ? 'tls-cert' : 'tls-key', name),
      'tls-cert and tls-key go together',
    );
  }
  const tls = cert !== undefined && key !== undefined && !sandbox ? { cert, key } : undefined;

  return {
    profile,
    formerNames: Array.isArray(data.formerNames) ? data.formerNames.filter((n) => typeof n === 'string') : [],
    baseUrl,
    sandbox,
    credentials,
    timeZone,
    maxAmount,
    defaultKey: data['default-key'] ?? (sandbox ? SANDBOX_DEFAULT_KEY : undefined),
    tls,
    policy: data.policy,
    // The built-in sandbox never requires a plan: it moves no money (README, Payment approvals).
    requirePlan: !sandbox && data['require-plan'] === 'true',
    ledger: resolveLedger(env, name, data),
    warnings,
  };
}

/** The ledger as `pix config` shows it: `file`, or the database's host and name (never the URL). */
function ledgerValue(env: Env, data: ProfileData): Sourced<string> | undefined {
  const fromEnv = nonEmpty(env.PIX_LEDGER_URL);
  const given = fromEnv ?? data.ledger;
  if (given === undefined) return undefined;
  const value = given.trim() === 'file' ? 'file' : describeLedgerText(given);
  return { value, source: fromEnv === undefined ? 'profile' : 'env' };
}

/**
 * The ledger in effect: PIX_LEDGER_URL > the profile's `ledger` > file. A value that is neither `file`
 * nor a PostgreSQL URL is exit 2 naming where it came from, never the value: it may hold a password.
 */
export function resolveLedger(env: Env, name: string, data: ProfileData): LedgerSetting {
  const fromEnv = nonEmpty(env.PIX_LEDGER_URL);
  const [given, source, where] =
    fromEnv !== undefined
      ? [fromEnv, 'env' as const, 'PIX_LEDGER_URL']
      : [data.ledger, 'profile' as const, profileKey('ledger', name)];
  if (given === undefined) return { kind: 'file', source: 'default' };
  if (given.trim() === 'file') return { kind: 'file', source };
  if (!isLedgerUrl(given)) {
    throw usageError(
      where,
      'not `file` nor a postgres:// or postgresql:// URL (the value is not shown: it may hold a password)',
    );
  }
  return { kind: 'postgres', url: { value: given.trim(), source } };
}

/** A PostgreSQL connection URL, as libpq spells one. */
export function isLedgerUrl(text: string): boolean {
  return /^postgres(?:ql)?:\/\/\S*$/.test(text.trim());
}

/**
 * The value in effect for each key of `pix config` on profile `name` (stored as `data`), with its source,
 * by the precedence every command uses: flag > environment > profile > built-in default. Keys with no
 * value in effect are left out. Values are shown as stored; a wrong one is reported by the command that
 * uses it, naming the key.
 */
export function configValues(
  globals: Pick<GlobalOptions, 'baseUrl'>,
  env: Env,
  name: string,
  data: ProfileData,
): Partial<Record<ConfigKey, Sourced<string>>> {
  const values: Partial<Record<ConfigKey, Sourced<string>>> = {};
  const canonical = (url: string) => {
    try {
      return normalizeBaseUrl(url);
    } catch {
      return url;
    }
  };
  const fromProfile = (key: ConfigKey): Sourced<string> | undefined => {
    const value = data[key];
    return value === undefined ? undefined : { value, source: 'profile' };
  };
  const envBaseUrl = nonEmpty(env.PIX_BASE_URL);
  const baseUrl: Sourced<string> | undefined =
    globals.baseUrl !== undefined
      ? { value: canonical(globals.baseUrl), source: 'flag' }
      : envBaseUrl !== undefined
        ? { value: canonical(envBaseUrl), source: 'env' }
        : name === SANDBOX_PROFILE
          ? undefined // the embedded sandbox: no URL until it starts
          : fromProfile('base-url');
  const embedded = name === SANDBOX_PROFILE && baseUrl === undefined;
  const envClientKey = nonEmpty(env.PIX_CLIENT_KEY);
  const candidates: Record<ConfigKey, Sourced<string> | undefined> = {
    'base-url': baseUrl,
    'time-zone': fromProfile('time-zone') ?? { value: DEFAULT_TIME_ZONE, source: 'default' },
    'max-amount': fromProfile('max-amount'),
    'default-key':
      fromProfile('default-key') ??
      (embedded ? { value: SANDBOX_DEFAULT_KEY, source: 'default' } : undefined),
    'tls-cert': embedded ? undefined : fromProfile('tls-cert'),
    'tls-key': embedded ? undefined : fromProfile('tls-key'),
    'client-key': embedded
      ? undefined
      : envClientKey !== undefined
        ? { value: envClientKey, source: 'env' }
        : fromProfile('client-key'),
    policy: fromProfile('policy'),
    'require-plan': name === SANDBOX_PROFILE ? undefined : fromProfile('require-plan'),
    ledger: ledgerValue(env, data),
  };
  for (const [key, value] of Object.entries(candidates) as Array<[ConfigKey, Sourced<string> | undefined]>) {
    if (value !== undefined) values[key] = value;
  }
  return values;
}

function sandboxCredentials(env: Env, profile: Sourced<string>, warnings: string[]): Credentials {
  const given = ['PIX_TOKEN', 'PIX_CLIENT_KEY', 'PIX_CLIENT_SECRET'].filter((name) => nonEmpty(env[name]));
  if (given.length > 0) {
    const why =
      profile.source === 'default'
        ? 'no profile and no base URL are configured, so this runs against the built-in sandbox'
        : 'the built-in sandbox profile needs no credentials';
    warnings.push(
      `${given.join(', ')} ignored: ${why} (set PIX_BASE_URL or PIX_PROFILE to use a real account)`,
    );
  }
  return { kind: 'sandbox' };
}

function resolveCredentials(
  env: Env,
  name: string,
  data: ProfileData,
  baseUrl: Sourced<string>,
  warnings: string[],
): Credentials {
  // Stored secrets belong to the base URL they were stored with, and are sent nowhere else.
  let boundTo: string | undefined;
  try {
    boundTo = data.tokenBaseUrl === undefined ? undefined : normalizeBaseUrl(data.tokenBaseUrl);
  } catch {
    boundTo = undefined;
  }
  const hasStoredSecret = data.token !== undefined || data.clientSecret !== undefined;
  const storedUsable = hasStoredSecret && boundTo !== undefined && boundTo === baseUrl.value;

  const envToken = nonEmpty(env.PIX_TOKEN);
  const envKey = nonEmpty(env.PIX_CLIENT_KEY);
  const envSecret = nonEmpty(env.PIX_CLIENT_SECRET);

  if (envToken !== undefined) {
    if (envKey !== undefined || envSecret !== undefined) {
      warnings.push('PIX_TOKEN and client credentials are both set in the environment: using PIX_TOKEN');
    }
    return { kind: 'token', token: { value: envToken, source: 'env' } };
  }

  const clientKey: Sourced<string> | undefined =
    envKey !== undefined
      ? { value: envKey, source: 'env' }
      : data['client-key'] !== undefined
        ? { value: data['client-key'], source: 'profile' }
        : undefined;
  const clientSecret: Sourced<string> | undefined =
    envSecret !== undefined
      ? { value: envSecret, source: 'env' }
      : storedUsable && data.clientSecret !== undefined
        ? { value: data.clientSecret, source: 'profile' }
        : undefined;
  // A stored secret is never paired with a client key from elsewhere: it was stored for the profile's key.
  const mismatched =
    clientKey?.source === 'env' &&
    clientSecret?.source === 'profile' &&
    clientKey.value !== data['client-key'];
  if (clientKey !== undefined && clientSecret !== undefined && !mismatched) {
    return { kind: 'client', clientKey, clientSecret };
  }
  if (envSecret !== undefined && clientKey === undefined) {
    warnings.push(`PIX_CLIENT_SECRET ignored: no PIX_CLIENT_KEY and no client-key in profile "${name}"`);
  }

  if (storedUsable && data.token !== undefined) {
    return { kind: 'token', token: { value: data.token, source: 'profile' } };
  }
  if (hasStoredSecret && !storedUsable) {
    const where = boundTo === undefined ? 'an unknown base URL' : boundTo;
    warnings.push(
      `the credentials stored in profile "${name}" are for ${where}, not ${baseUrl.value}: not sending them ` +
        '(set PIX_TOKEN, or PIX_CLIENT_KEY and PIX_CLIENT_SECRET, for that URL; or `pix login` again)',
    );
  }
  return { kind: 'none' };
}
