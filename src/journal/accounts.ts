/**
 * Which account a record belongs to: the account as the API says it is, never as a URL or a profile is
 * spelled. The API names no account, but it lists the account's PIX keys (API §4.7) and a key belongs to
 * one account, so the set of key ids is the account's fingerprint: two profiles, a renamed or re-created
 * profile, or two spellings of one host that list the same keys are one account; other credentials on the
 * same URL that list other keys are another.
 *
 * `<config dir>/accounts.json` remembers what was learned (0600, replaced atomically under its lock):
 *
 * - each account's key ids (a key added later joins the account that lists it beside a known one);
 * - which credentials were last seen to reach which account (a digest of base URL and credentials, never
 *   a secret), so a command with the same credentials asks the API again only once a day;
 * - which base URLs' records written before accounts were known belong to it (`legacy`): the first
 *   account learned on a URL takes them, so a payment recorded by an older pix still holds the same
 *   payment now (pix refuses rather than pays when it cannot tell).
 *
 * An account that lists no key cannot be told apart this way: it is known by its normalised base URL and
 * the client credential's id instead (commands/shared/account.ts says so once), never by a profile's name.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ensurePrivateDir } from '../storage/dirs.js';
import { readPrivateFile, writeFileAtomic } from '../storage/files.js';
import { type LockHost, withFileLock } from '../storage/locks.js';

export const ACCOUNTS_FILE = 'accounts.json';

/** How long credentials are believed to reach the account they reached, before the keys are asked again. */
export const RECHECK_AFTER_MS = 24 * 60 * 60 * 1000;

/** Records written before accounts were known carry a base URL (or only a host): this names them. */
export interface LegacyClaim {
  baseUrl: string;
  host: string;
}

export interface AccountRecord {
  /** `keys`: known by its PIX keys; `credential`: it listed none, known by base URL and credential id. */
  basis: 'keys' | 'credential';
  keyIds: string[];
  /** The base URLs it was reached through (for people: `pix auth status`). */
  baseUrls: string[];
  legacy: LegacyClaim[];
  learnedAt: string;
}

interface Registry {
  version: 1;
  accounts: Record<string, AccountRecord>;
  /** Credential digest → the account those credentials reached, and when that was seen. */
  credentials: Record<string, { account: string; at: string }>;
}

/** What the API and the settings say, at the moment an account is learned. */
export interface AccountFacts {
  /** The ids of the keys the API listed (API §2.9). */
  keyIds: readonly string[];
  /** Normalised (api/url.ts). */
  baseUrl: string;
  host: string;
  /** The client key (client credentials), the one id of a credential that is not a secret. */
  credentialId?: string | undefined;
  /** The digest the credentials are remembered by (undefined: never remembered, e.g. the sandbox). */
  fingerprint?: string | undefined;
  now: Date;
}

export interface LearnedAccount {
  id: string;
  record: AccountRecord;
}

const digest = (...parts: string[]) =>
  createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 24);

/**
 * The id of an account never seen before: from its smallest key id (the same on every machine that learns
 * it, so two config directories, or a shared ledger, name it alike), else from base URL and credential id.
 */
export function newAccountId(facts: Pick<AccountFacts, 'keyIds' | 'baseUrl' | 'credentialId'>): string {
  if (facts.keyIds.length > 0) return `acct_${digest('pix account by key', [...facts.keyIds].sort()[0]!)}`;
  return `acct_${digest('pix account by credential', facts.baseUrl, facts.credentialId ?? '')}`;
}

function emptyRegistry(): Registry {
  return { version: 1, accounts: {}, credentials: {} };
}

function parseRegistry(text: string | undefined, path: string): Registry {
  if (text === undefined || text.trim() === '') return emptyRegistry();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not JSON: repair it, or move it away to learn the accounts again`);
  }
  const registry = value as Partial<Registry>;
  if (typeof registry !== 'object' || registry === null || typeof registry.accounts !== 'object') {
    throw new Error(
      `${path} is not an accounts file: repair it, or move it away to learn the accounts again`,
    );
  }
  return {
    version: 1,
    accounts: registry.accounts ?? {},
    credentials: typeof registry.credentials === 'object' && registry.credentials ? registry.credentials : {},
  };
}

/**
 * The registry with `facts` learned (pure): the account whose known keys the API listed (the oldest, should
 * two share a key: a key belongs to one account), else a new one; its keys, URLs and legacy claim updated.
 */
export function learn(registry: Registry, facts: AccountFacts): LearnedAccount {
  const listed = new Set(facts.keyIds);
  let id: string | undefined;
  if (listed.size > 0) {
    id = Object.entries(registry.accounts)
      .filter(([, record]) => record.basis === 'keys' && record.keyIds.some((key) => listed.has(key)))
      .sort(([, a], [, b]) => a.learnedAt.localeCompare(b.learnedAt))[0]?.[0];
  }
  id ??= newAccountId(facts);
  const known = registry.accounts[id];
  const record: AccountRecord = known ?? {
    basis: listed.size > 0 ? 'keys' : 'credential',
    keyIds: [],
    baseUrls: [],
    legacy: [],
    learnedAt: facts.now.toISOString(),
  };
  for (const key of listed) if (!record.keyIds.includes(key)) record.keyIds.push(key);
  if (!record.baseUrls.includes(facts.baseUrl)) record.baseUrls.push(facts.baseUrl);
  const claimed = Object.values(registry.accounts).some((other) =>
    other.legacy.some((claim) => claim.baseUrl === facts.baseUrl),
  );
  if (!claimed) record.legacy.push({ baseUrl: facts.baseUrl, host: facts.host });
  registry.accounts[id] = record;
  if (facts.fingerprint !== undefined) {
    registry.credentials[facts.fingerprint] = { account: id, at: facts.now.toISOString() };
  }
  return { id, record };
}

export interface AccountStore {
  /** The account these credentials reached less than RECHECK_AFTER_MS ago, if any. */
  cached(fingerprint: string, now: Date): LearnedAccount | undefined;
  /** Records what the API said (under the file's lock, on a fresh read) and returns the account. */
  learn(facts: AccountFacts): Promise<LearnedAccount>;
  /** Every account known here, by id. */
  all(): Record<string, AccountRecord>;
}

/** The accounts file of config directory `dir`. */
/** `host`: the clock, randomness and pids its lock runs by (storage/locks.ts), a command's Deps. */
export function openAccounts(dir: string, host: LockHost): AccountStore {
  const path = join(dir, ACCOUNTS_FILE);
  const read = () => parseRegistry(readPrivateFile(path), path);
  return {
    cached(fingerprint, now) {
      const registry = read();
      const seen = registry.credentials[fingerprint];
      if (!seen || now.getTime() - Date.parse(seen.at) > RECHECK_AFTER_MS) return undefined;
      const record = registry.accounts[seen.account];
      return record && { id: seen.account, record };
    },
    async learn(facts) {
      ensurePrivateDir(dir);
      return withFileLock(path, 'the accounts file', host, () => {
        const registry = read();
        const learned = learn(registry, facts);
        writeFileAtomic(path, `${JSON.stringify(registry, null, 2)}\n`);
        return learned;
      });
    },
    all: () => read().accounts,
  };
}

/** The digest credentials are remembered by: base URL, and the client key or token with its secret. */
export function credentialFingerprint(baseUrl: string, ...credential: string[]): string {
  return digest('pix account credential', baseUrl, ...credential);
}
