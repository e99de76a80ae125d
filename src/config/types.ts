import type { Centavos } from '../domain/money.js';

/** Where a resolved value came from (contract §5: flag > env > profile > default). */
export type Source = 'flag' | 'env' | 'profile' | 'default';

export interface Sourced<T> {
  value: T;
  source: Source;
}

/** The built-in profile: the embedded sandbox, no credentials, used when nothing else is configured. */
export const SANDBOX_PROFILE = 'sandbox';
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';
/**
 * Settings.baseUrl of the embedded sandbox before it starts: a placeholder. The composition root
 * (src/wiring.ts) gives the API client the address the sandbox gives once started (sandbox/embedded.ts: `http://sandbox.localhost` in-process, a
 * free loopback port with PIX_SANDBOX_FAULTS).
 */
export const EMBEDDED_SANDBOX_URL = 'http://127.0.0.1:0';
/**
 * The embedded sandbox as an account, in the journal and in what pix says: the host its answers name
 * (sandbox/embedded.ts), whichever way it runs (in-process, or on a free loopback port with faults on).
 */
export const EMBEDDED_SANDBOX_HOST = 'sandbox.localhost';
export const EMBEDDED_SANDBOX_ACCOUNT = `http://${EMBEDDED_SANDBOX_HOST}`;

/**
 * The account a base URL stands for, as the journal records and compares it: the embedded sandbox's own
 * name for its placeholder (journal lines of earlier versions recorded the placeholder: read, they name the
 * same account), else the URL itself.
 */
export function accountBaseUrl(baseUrl: string): string {
  return baseUrl === EMBEDDED_SANDBOX_URL ? EMBEDDED_SANDBOX_ACCOUNT : baseUrl;
}

/** The host requests of an account go to, as pix names it: the embedded sandbox's own, else the client's. */
export function accountHost(baseUrl: string, clientBaseUrl: string): string {
  return baseUrl === EMBEDDED_SANDBOX_URL ? EMBEDDED_SANDBOX_HOST : new URL(clientBaseUrl).host;
}
/**
 * The key charges use on the built-in sandbox profile when no default-key is set: its account has four
 * keys, and trying `pix charge immediate` should not first need `pix config set default-key`.
 */
export const SANDBOX_DEFAULT_KEY = 'loja@sandbox.pix.local';

/** The settings of a profile that `pix config` reads and writes. Secrets are not among them (`pix login`). */
export const CONFIG_KEYS = [
  'base-url',
  'time-zone',
  'max-amount',
  'default-key',
  'tls-cert',
  'tls-key',
  'client-key',
  'policy',
  'require-plan',
  'ledger',
] as const;

export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** A token minted from client credentials, cached with its expiry and the base URL it belongs to. */
export interface CachedToken {
  value: string;
  /** ISO 8601 instant. */
  expiresAt: string;
  baseUrl: string;
}

/** What one profile keeps in the conf store. Keys the user sets with `pix config set` are kebab-case. */
export interface ProfileData {
  'base-url'?: string;
  'time-zone'?: string;
  'max-amount'?: string;
  'default-key'?: string;
  'tls-cert'?: string;
  'tls-key'?: string;
  'client-key'?: string;
  /** The payment policy file (`pix plan`): who approves what. */
  policy?: string;
  /** `true`: `pix pay` pays only through an approved plan. */
  'require-plan'?: string;
  /**
   * The ledger: `file` (the default: the journal, charge ledger and event log of the config directory), or
   * a `postgres://` URL — a secret, never printed or taken from argv (docs/team.md).
   */
  ledger?: string;
  /** Secrets: never printed; only sent to the base URL they were stored with. */
  token?: string;
  /** The base URL the stored secrets (token, clientSecret) were stored with; they are sent nowhere else. */
  tokenBaseUrl?: string;
  clientSecret?: string;
  cachedToken?: CachedToken;
  /**
   * The names this profile had before `pix profile rename`: the journal records payments by profile
   * name, so they are still this profile's (never paid twice under a new name).
   */
  formerNames?: string[];
}

export type Credentials =
  | { kind: 'none' }
  | { kind: 'sandbox' }
  | { kind: 'token'; token: Sourced<string> }
  | { kind: 'client'; clientKey: Sourced<string>; clientSecret: Sourced<string> };

/**
 * Where the journal, the charge ledger and the event log are kept (docs/team.md): the config directory's
 * files, or a PostgreSQL database shared by every machine that pays from the account. PIX_LEDGER_URL >
 * the profile's `ledger` > file.
 */
export type LedgerSetting = { kind: 'file'; source: Source } | { kind: 'postgres'; url: Sourced<string> };

/** Everything a command needs to know about where and how to talk, with the source of each value. */
export interface Settings {
  profile: Sourced<string>;
  /** The profile's names before a rename: its journal entries carry them. */
  formerNames: readonly string[];
  baseUrl: Sourced<string>;
  /** True for the built-in sandbox profile: the CLI runs the sandbox server in-process. */
  sandbox: boolean;
  credentials: Credentials;
  timeZone: Sourced<string>;
  maxAmount: Centavos | undefined;
  defaultKey: string | undefined;
  tls: { cert: string; key: string } | undefined;
  /** The payment policy file, absolute (`pix config set policy FILE`). */
  policy?: string | undefined;
  /** `pix pay` without `--plan` is refused (never on the built-in sandbox). */
  requirePlan?: boolean;
  ledger: LedgerSetting;
  /** Things to say on stderr once (a flag overriding the environment, …). */
  warnings: string[];
}

/** config.json as pix reads and changes it. Keys pix does not know are kept as they are. */
export interface ConfigDocument {
  currentProfile?: string | undefined;
  profiles: Record<string, ProfileData>;
}

/**
 * The store of profiles: `<config dir>/config.json` (0600 in a 0700 directory, moved by PIX_CONFIG_DIR),
 * and the cache of tokens minted from client credentials that are no profile's own. Reads are
 * synchronous and never create anything. Every change goes through `update`: under the file's lock, on a
 * fresh read, written atomically, so concurrent pix processes never lose each other's changes.
 */
export interface ConfigStore {
  /** Directory holding the config file, the journal and the sandbox state. */
  readonly dir: string;
  /** Full path of the config file. */
  readonly path: string;
  currentProfile(): string | undefined;
  listProfiles(): string[];
  /** The profile, its values checked for type (a hand-edited wrong type is an error naming file and key). */
  getProfile(name: string): ProfileData | undefined;
  /**
   * Locks config.json, reads it afresh, lets `change` edit that document, and writes it back atomically
   * (nothing is written when `change` changed nothing or threw). Returns what `change` returns. Never
   * change a profile from a copy read earlier: that would undo what another process did meanwhile.
   */
  update<T>(change: (document: ConfigDocument) => T): Promise<T>;
  /** Replaces one profile whole, under the lock (for a profile made from nothing, as tests do). */
  setProfile(name: string, data: ProfileData): Promise<void>;
  setCurrentProfile(name: string): Promise<void>;
  /**
   * A token minted from client credentials that are not a profile's own (the environment's), cached under
   * a digest of base URL, client key and secret (never the secret itself); undefined when there is none.
   */
  cachedToken(digest: string): CachedToken | undefined;
  /** Caches (or with undefined, forgets) such a token; tokens expired at `now` are dropped meanwhile. */
  cacheToken(digest: string, token: CachedToken | undefined, now: Date): Promise<void>;
  /**
   * The largest page of `list` (`statement`, `keys`) the server at `baseUrl` took, learned within
   * PAGE_LIMIT_TTL_MS of `now` (api/pager.ts); undefined when none was learned.
   */
  pageLimit(baseUrl: string, list: string, now: Date): number | undefined;
  /** Keeps what the pager learned of `baseUrl`; learned limits older than PAGE_LIMIT_TTL_MS are dropped. */
  rememberPageLimit(baseUrl: string, list: string, limit: number, now: Date): Promise<void>;
}

/**
 * How long a learned page size is kept: past it, the pager asks its own page size again (a server that
 * raised its cap is then read in fewer requests), and learns once more if it is refused.
 */
export const PAGE_LIMIT_TTL_MS = 7 * 86_400_000;
