/**
 * The shared types every layer may import (Env, Clock, Processes, GlobalOptions, Deps) and their defaults. A
 * leaf: it imports nothing of ours at run time (type-only imports are erased), so any module can use it without
 * an import cycle. The composition root, src/wiring.ts, makes the real Deps.
 */
import type { ApiClient } from './api/client.js';
import type { ApiTransport } from './api/transport.js';
import type { ApprovalStores } from './approvals/remembered.js';
import type { ConfigStore, Settings } from './config/types.js';
import type { EventFiles } from './events/log.js';
import type { EventStore } from './events/stores.js';
import type { AccountDirectory } from './journal/accounts.js';
import type { JournalEntry } from './journal/entries.js';
import type { ScheduleStore } from './journal/schedules.js';
import type { JournalStore } from './journal/stores.js';
import type { IOStreams } from './output/iostreams.js';
import type { Output } from './output/output.js';
import type { Prompter } from './output/prompt.js';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The `PIX_*` variables a process pix starts may see: settings that are never a credential. Every other
 * `PIX_*` variable is left out, by a list of what is allowed rather than of what is not, so a credential
 * pix reads now (`PIX_TOKEN`, `PIX_CLIENT_KEY`, `PIX_CLIENT_SECRET`) or later (a `PIX_LEDGER_URL` with a
 * password in it) never reaches a pager or an `--exec` command.
 */
const CHILD_PIX_VARIABLES: ReadonlySet<string> = new Set([
  'PIX_PROFILE',
  'PIX_BASE_URL',
  'PIX_CONFIG_DIR',
  'PIX_PAGER',
  'PIX_QR_THEME',
]);

/**
 * The environment of every child process pix spawns (the pager, `pix listen --exec`, ssh-keygen, git): the
 * user's, without pix's secrets (contract §5, architecture rule 10), and without libpq's variables (`PG*`:
 * PGPASSWORD, PGPASSFILE, PGHOST, PGUSER, …), so a handler pix starts is never handed the credentials or the
 * address of a database the user's shell knows, the shared ledger's among them. One function, so no spawn
 * site forgets it.
 */
export function childEnv(env: Env): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (name.toUpperCase().startsWith('PIX_') && !CHILD_PIX_VARIABLES.has(name)) continue;
    if (name.toUpperCase().startsWith('PG')) continue;
    result[name] = value;
  }
  return result;
}

export type OutputFormat = 'table' | 'json' | 'ndjson' | 'csv' | 'csv-br' | 'xlsx' | 'ofx' | 'pdf' | 'html';

/** The global flags of the contract, valid on every command. */
export interface GlobalOptions {
  profile: string | undefined;
  baseUrl: string | undefined;
  json: boolean;
  output: OutputFormat | undefined;
  color: boolean;
  timeoutMs: number;
  verbose: boolean;
  yes: boolean;
  /** `--force`: an existing file named by `--output-file` or `--qr-png` may be replaced. */
  force: boolean;
  input: boolean;
  /** `--wide`: tables show every column in full, whatever the terminal's width. */
  wide: boolean;
  /** `--no-pager` turns it off. */
  pager: boolean;
  /** `--output-file FILE`: stdout's data goes to FILE, written whole or not at all. */
  outputFile: string | undefined;
  /** `--jq EXPR`: the JSON output goes through jq (output/jq.ts); implies `--json`. */
  jq: string | undefined;
  /** `--fields a,b.c`: only those fields of each record (output/fields.ts), written as `fieldsFormat`. */
  fields: string[] | undefined;
  fieldsFormat: 'json' | 'ndjson' | 'csv' | undefined;
  /** `--fields help`: the command lists the names `--fields` takes, one a line, and does nothing else. */
  fieldsHelp: boolean;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

export function defaultGlobals(): GlobalOptions {
  return {
    profile: undefined,
    baseUrl: undefined,
    json: false,
    output: undefined,
    color: true,
    timeoutMs: DEFAULT_TIMEOUT_MS,
    verbose: false,
    yes: false,
    force: false,
    input: true,
    wide: false,
    pager: true,
    outputFile: undefined,
    jq: undefined,
    fields: undefined,
    fieldsFormat: undefined,
    fieldsHelp: false,
  };
}

export interface Clock {
  now(): Date;
}

/** This process and the others on the machine: a journal entry names the pix process that sent it. */
export interface Processes {
  pid: number;
  /** Whether a process with this id is running. */
  alive(pid: number): boolean;
}

/**
 * The stores of the profile's ledger (docs/team.md): the config directory's files, or the shared
 * PostgreSQL ledger the profile's `ledger` names. The wiring (src/wiring-stores.ts) chooses once and
 * opens each on first use; what a database store holds open is closed by `Deps.close()`. No other
 * module asks which the ledger is.
 */
export interface Stores {
  /**
   * The journal (journal/stores.ts), and through it the charge ledger and the books' closed days. `only`:
   * the entries a file store holds in memory (journal/store.ts openJournal); a database's is one per run.
   */
  journal(only?: (entry: JournalEntry) => boolean): Promise<JournalStore>;
  /** Which bank account credentials reach (journal/accounts.ts): the shared ledger's on a database. */
  accounts(): Promise<AccountDirectory>;
  /** The scheduled and recurring payments (journal/schedules.ts). */
  schedules(): Promise<ScheduleStore>;
  /** The approvals' verdicts seen and policies in force (approvals/stores.ts, approvals/postgres.ts). */
  approvals(): Promise<ApprovalStores>;
  /** `pix listen`'s state for the account whose files are `files` (events/stores.ts, events/postgres.ts). */
  events(files: EventFiles): Promise<EventStore>;
}

/**
 * Everything a command may touch, made whole by src/wiring.ts before the command line is parsed and never
 * reassigned (readonly). Tests give their own parts to run(): captured streams, a fixed clock, a temporary
 * PIX_CONFIG_DIR, an undici MockAgent.
 */
export interface Deps {
  readonly io: IOStreams;
  readonly env: Env;
  readonly clock: Clock;
  readonly processes: Processes;
  /** Waits `ms`; ends at once when `signal` aborts (a stopped process has no timer left to wait on). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Waits `ms` unless the command's `signal` comes first: true when the time passed, false when the
   * command was stopped (a poll's interval, a standby's look at a lock).
   */
  pause(ms: number): Promise<boolean>;
  /** In [0, 1): backoff jitter. */
  random(): number;
  /** Overrides the API client's transport (tests inject an undici MockAgent, or an in-process one). */
  readonly dispatcher: ApiTransport | undefined;
  /** The global flags, read from argv before the command line is parsed (cli/globals.ts). */
  readonly globals: GlobalOptions;
  /**
   * The writer behind `io.stdout` (output/writer.ts): count the records of a list (`records`) and say
   * what a lost output would lose (`ifLost`). main.ts commits or aborts it when the command ends.
   */
  readonly output: Output;
  readonly prompter: Prompter;
  config(): Promise<ConfigStore>;
  settings(): Promise<Settings>;
  /** The API client for the resolved profile; starts the embedded sandbox when that is the profile. */
  api(): Promise<ApiClient>;
  /** An API client for other settings than the resolved ones (`pix login` checks credentials it has not stored). */
  apiFor(settings: Settings): Promise<ApiClient>;
  /** The stores of the profile's ledger, chosen by the wiring (Stores). */
  readonly stores: Stores;
  /** Registers work to do when the command ends (close the pools, stop the embedded sandbox). */
  defer(cleanup: () => unknown): void;
  close(): Promise<void>;
  /**
   * Aborted at the first SIGINT or SIGTERM, with the signal's name as its reason (main.ts; a second
   * signal ends the process at once). Requests are cancelled through it; long work (exports, waits,
   * `sandbox serve`) ends on it; a command stopped by it exits 130 or 143.
   */
  readonly signal: AbortSignal;
  /** Resolves with the signal's name at the first SIGINT or SIGTERM (long-running `pix sandbox serve`). */
  waitForShutdown(): Promise<string>;
}

export type DepsOverrides = Partial<
  Pick<
    Deps,
    | 'io'
    | 'env'
    | 'clock'
    | 'processes'
    | 'sleep'
    | 'random'
    | 'dispatcher'
    | 'prompter'
    | 'signal'
    | 'waitForShutdown'
  >
> & { io: IOStreams; env: Env };
