/**
 * Which account a record belongs to: the account as the API says it is, never as a URL, a profile or a key
 * is spelled — the bank account (participant, branch, number) the DICT answers for one of the account's own
 * keys (API §4.6), or, for an account that lists no key, the one an operator named (`pix account bind`).
 * commands/shared/account.ts learns it; this file keeps what was learned.
 *
 * `<config dir>/accounts.json` (or the shared ledger's tables) remembers, 0600 and replaced atomically under
 * its lock:
 *
 * - each account by its bank details, its owner as the DICT names it, and how it was learned;
 * - which credentials were last seen to reach which account (a digest of base URL and credentials, never
 *   a secret), so a command with the same credentials asks the DICT again only once a day, and a bank
 *   account other than theirs is held until an operator confirms it (`pending`);
 * - the names records were written under before accounts were known by their bank details (`formerIds`,
 *   `legacy` base URLs), so a payment recorded by an older pix still holds the same payment now.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { PixError } from '../errors.js';
import { ensurePrivateDir } from '../storage/dirs.js';
import { readPrivateFile, writeFileAtomic } from '../storage/files.js';
import { type LockHost, withFileLock } from '../storage/locks.js';

export const ACCOUNTS_FILE = 'accounts.json';

/** How long credentials are believed to reach the account they reached, before the DICT is asked again. */
export const RECHECK_AFTER_MS = 24 * 60 * 60 * 1000;

/** Records written before accounts were known carry a base URL (or only a host): this names them. */
export interface LegacyClaim {
  baseUrl: string;
  host: string;
}

/** A bank account as the DICT answers it (API §2.7 `account`). */
export interface BankAccount {
  participant: string;
  branch: string;
  number: string;
}

export interface AccountOwner {
  name: string;
  document?: string | undefined;
}

export interface AccountRecord {
  id: string;
  bank: BankAccount;
  owner?: AccountOwner | undefined;
  /** `dict`: the DICT's answer for one of its keys; `bound`: named by an operator (it lists no key). */
  basis: 'dict' | 'bound';
  learnedAt: string;
  /** Names records were written under before accounts were known by their bank details. */
  formerIds: string[];
  legacy: LegacyClaim[];
}

/** What a set of credentials was last seen to reach. */
export interface CredentialRecord {
  fingerprint: string;
  /** The credential's id: its client key or its token, digested with the base URL (credentialIds). */
  credential: string;
  account: string;
  keyIds: string[];
  checkedAt: string;
  /** Another bank account these credentials reached since, until an operator confirms it. */
  pending?: PendingAccount | undefined;
}

/** A bank account credentials reached other than theirs, and when: what `pix account confirm` takes. */
export interface PendingAccount {
  id: string;
  bank: BankAccount;
  owner?: AccountOwner | undefined;
  at: string;
}

/** What a command learned, for the directory to keep. */
export interface Learning {
  account: Omit<AccountRecord, 'formerIds' | 'legacy' | 'learnedAt'>;
  fingerprint: string;
  credential: string;
  keyIds: readonly string[];
  /** Names and base URLs this machine's records were written under for it (formerNames). */
  formerIds: readonly string[];
  legacy: readonly LegacyClaim[];
  /** Claims the base URL's records of before accounts were known, unless another account has. */
  baseUrl?: LegacyClaim | undefined;
  now: Date;
}

export interface Recorded {
  account: AccountRecord;
  /** Former names attached by this record (none were before): their records are the account's now. */
  attached: string[];
  /** Other accounts that claim one of those names too (attached to each: pix refuses rather than pays). */
  shared: Array<{ name: string; accounts: string[] }>;
  /** The journal entries written under the names attached now, when the directory counts them (a database). */
  counted?: { payments: number; entries: number };
}

/** Where accounts are kept: the config directory's file, or the shared ledger. */
export interface AccountDirectory {
  /** For people: the file's path, or `postgres://HOST/DATABASE`. */
  readonly where: string;
  /** These credentials' record: by fingerprint, else the latest of the credential id's. */
  credential(fingerprint: string, credential: string): Promise<CredentialRecord | undefined>;
  account(id: string): Promise<AccountRecord | undefined>;
  /** Every account kept here. */
  accounts(): Promise<AccountRecord[]>;
  record(learning: Learning): Promise<Recorded>;
  /** Records that the credentials of `known` now reach `pending`, their account unchanged. */
  hold(known: CredentialRecord, fingerprint: string, pending: PendingAccount): Promise<void>;
}

const digest = (...parts: string[]) =>
  createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 24);

/** A part of bank details as compared: no punctuation or spaces, upper case, no leading zeros. */
function normalPart(text: string): string {
  const plain = text.replace(/[\s.\-/]/g, '').toUpperCase();
  return plain.replace(/^0+(?=.)/, '');
}

/**
 * THE id of a bank account: the same on every machine that learns it (the DICT answers the same details
 * to each), whatever profile, URL spelling, credentials or keys reached it. `0001` and `1`, `12345-6` and
 * `123456` are one branch and one account.
 */
export function bankAccountId(bank: BankAccount): string {
  return `acct_${digest('pix bank account', normalPart(bank.participant), normalPart(bank.branch), normalPart(bank.number))}`;
}

/** `participant 99999999, branch 0001, account 7123456`, for people (callers make it safe to show). */
export function describeBank(bank: BankAccount): string {
  return `participant ${bank.participant}, branch ${bank.branch}, account ${bank.number}`;
}

/** The digest credentials are remembered by: base URL, and the client key or token with its secret. */
export function credentialFingerprint(baseUrl: string, ...credential: string[]): string {
  return digest('pix account credential', baseUrl, ...credential);
}

/**
 * The credential's id, which stays while its secret is rotated: the client key (a token is its own id),
 * with the base URL. Never a secret: a digest.
 */
export function credentialId(baseUrl: string, kind: string, id: string): string {
  return digest('pix account credential id', baseUrl, kind, id);
}

// ---------------------------------------------------------------------------------------------
// Earlier versions' names

/** accounts.json as versions before bank details kept it. */
export interface FormerRegistry {
  accounts: Record<
    string,
    { basis?: string; keyIds?: string[]; baseUrls?: string[]; legacy?: LegacyClaim[] }
  >;
  credentials: Record<string, { account: string; at: string }>;
}

/**
 * The names this machine wrote records under for the account these credentials reach, by what earlier
 * versions remembered: the account these credentials were seen to reach, else (credentials rotated since)
 * the one that listed one of the keys listed now. With the base URLs whose records it had claimed.
 */
export function formerNames(
  former: FormerRegistry | undefined,
  fingerprint: string,
  keyIds: readonly string[],
): { ids: string[]; legacy: LegacyClaim[] } {
  if (former === undefined) return { ids: [], legacy: [] };
  const listed = new Set(keyIds);
  let ids: string[] = [];
  const seen = former.credentials[fingerprint]?.account;
  if (seen !== undefined) ids = [seen];
  else if (listed.size > 0) {
    ids = Object.entries(former.accounts)
      .filter(([, record]) => (record.keyIds ?? []).some((key) => listed.has(key)))
      .map(([id]) => id);
  }
  const legacy = ids.flatMap((id) => former.accounts[id]?.legacy ?? []);
  return { ids, legacy };
}

// ---------------------------------------------------------------------------------------------
// The config directory's file

interface Registry {
  version: 2;
  accounts: Record<string, AccountRecord>;
  credentials: Record<string, CredentialRecord>;
  /** The account each profile of this directory last reached (a change is said once). */
  profiles: Record<string, string>;
  former?: FormerRegistry;
}

function emptyRegistry(): Registry {
  return { version: 2, accounts: {}, credentials: {}, profiles: {} };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A damaged accounts file is the operator's to repair (exit 2, as a damaged config.json), never "a bug in
 * pix": nothing is paid while pix cannot tell which account a profile is.
 */
function damagedRegistry(path: string, what: string): PixError {
  return new PixError('usage', `the accounts file ${path} ${what}`, {
    hint: 'repair it, or move it away: pix learns each account again from the DICT (one you bound with `pix account bind`, bind it again)',
  });
}

export function parseRegistry(text: string | undefined, path: string): Registry {
  if (text === undefined || text.trim() === '') return emptyRegistry();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw damagedRegistry(path, 'is not JSON');
  }
  if (!isObject(value) || !isObject(value.accounts)) {
    throw damagedRegistry(path, 'is not an accounts file');
  }
  if (value.version !== 2) {
    // An earlier version's file: its names are kept for the records written under them.
    return {
      ...emptyRegistry(),
      former: {
        accounts: value.accounts as FormerRegistry['accounts'],
        credentials: isObject(value.credentials) ? (value.credentials as FormerRegistry['credentials']) : {},
      },
    };
  }
  return {
    version: 2,
    accounts: value.accounts as Registry['accounts'],
    credentials: isObject(value.credentials) ? (value.credentials as Registry['credentials']) : {},
    profiles: isObject(value.profiles) ? (value.profiles as Registry['profiles']) : {},
    ...(isObject(value.former) ? { former: value.former as unknown as FormerRegistry } : {}),
  };
}

/** The latest record of credential id `credential` among `records`. */
export function latestOf<T extends { credential: string; checkedAt: string }>(
  records: Iterable<T>,
  credential: string,
): T | undefined {
  let latest: T | undefined;
  for (const record of records) {
    if (record.credential !== credential) continue;
    if (latest === undefined || record.checkedAt > latest.checkedAt) latest = record;
  }
  return latest;
}

/**
 * `learning` kept in `accounts` (pure, the file's and the database's rule alike): the account made or
 * brought up to date (its owner as last answered, its basis, its former names and legacy claims joined),
 * and which former names are new to it. `claimed`: whether another account took the base URL's records.
 */
export function mergeAccount(
  known: AccountRecord | undefined,
  learning: Learning,
  claimed: boolean,
): { record: AccountRecord; attached: string[] } {
  const record: AccountRecord = known
    ? { ...known, formerIds: [...known.formerIds], legacy: [...known.legacy] }
    : { ...learning.account, learnedAt: learning.now.toISOString(), formerIds: [], legacy: [] };
  if (learning.account.owner !== undefined) record.owner = learning.account.owner;
  if (learning.account.basis === 'dict') record.basis = 'dict';
  const attached: string[] = [];
  for (const id of learning.formerIds) {
    if (id === record.id || record.formerIds.includes(id)) continue;
    record.formerIds.push(id);
    attached.push(id);
  }
  const claims = [...learning.legacy, ...(claimed || !learning.baseUrl ? [] : [learning.baseUrl])];
  for (const claim of claims) {
    if (!record.legacy.some((mine) => mine.baseUrl === claim.baseUrl)) record.legacy.push(claim);
  }
  return { record, attached };
}

export interface FileAccounts extends AccountDirectory {
  /** Every set of credentials seen here (what `pix ledger migrate --from file` takes to the ledger). */
  credentials(): CredentialRecord[];
  /** What earlier versions of pix remembered in this directory. */
  former(): FormerRegistry | undefined;
  /** Records that `profile` reached `account`; returns the account it reached before, if another. */
  reached(profile: string, account: string): Promise<string | undefined>;
}

/**
 * The accounts file of config directory `dir` (0600, replaced atomically under its lock).
 * `host`: the clock, randomness and pids its lock runs by (storage/locks.ts), a command's Deps.
 */
export function openAccounts(dir: string, host: LockHost): FileAccounts {
  const path = join(dir, ACCOUNTS_FILE);
  const read = () => parseRegistry(readPrivateFile(path), path);
  const change = <T>(work: (registry: Registry) => T): Promise<T> => {
    ensurePrivateDir(dir);
    return withFileLock(path, 'the accounts file', host, () => {
      const registry = read();
      const result = work(registry);
      writeFileAtomic(path, `${JSON.stringify(registry, null, 2)}\n`);
      return result;
    });
  };
  return {
    where: path,
    async credential(fingerprint, credential) {
      const { credentials } = read();
      return credentials[fingerprint] ?? latestOf(Object.values(credentials), credential);
    },
    account: async (id) => read().accounts[id],
    accounts: async () => Object.values(read().accounts),
    record: (learning) =>
      change((registry) => {
        const id = learning.account.id;
        const claimed = Object.values(registry.accounts).some(
          (other) =>
            other.id !== id && other.legacy.some((claim) => claim.baseUrl === learning.baseUrl?.baseUrl),
        );
        const { record, attached } = mergeAccount(registry.accounts[id], learning, claimed);
        registry.accounts[id] = record;
        registry.credentials[learning.fingerprint] = {
          fingerprint: learning.fingerprint,
          credential: learning.credential,
          account: id,
          keyIds: [...learning.keyIds],
          checkedAt: learning.now.toISOString(),
        };
        return { account: record, attached, shared: sharedNames(Object.values(registry.accounts), attached) };
      }),
    hold: (known, fingerprint, pending) =>
      change((registry) => {
        registry.credentials[fingerprint] = { ...known, fingerprint, pending };
      }),
    former: () => read().former,
    credentials: () => Object.values(read().credentials),
    async reached(profile, account) {
      if (read().profiles[profile] === account) return undefined;
      return change((registry) => {
        const before = registry.profiles[profile];
        registry.profiles[profile] = account;
        return before === account ? undefined : before;
      });
    },
  };
}

/** Among `accounts`, those that hold one of `names` as a former name too (two claimants of one name). */
export function sharedNames(
  accounts: readonly Pick<AccountRecord, 'id' | 'formerIds'>[],
  names: readonly string[],
): Array<{ name: string; accounts: string[] }> {
  const shared: Array<{ name: string; accounts: string[] }> = [];
  for (const name of names) {
    const holders = accounts.filter((account) => account.formerIds.includes(name)).map((a) => a.id);
    if (holders.length > 1) shared.push({ name, accounts: holders });
  }
  return shared;
}
