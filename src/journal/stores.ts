/**
 * The journal's one interface, which both of its stores implement (docs/team.md): the file store of one
 * config directory (store.ts, wrapped here) and the shared PostgreSQL store (postgres/store.ts). The
 * rules (rules.ts) are written once, as pure functions over entries; a store answers the questions they
 * ask (the entries of a row id, of a payee) and CLAIMS a payment: the `sending` entry stands only when no
 * earlier entry blocks it, decided before the transfer is sent. The file store claims by appending first
 * and asking the entries before its own line (the earlier line wins); the PostgreSQL store asks and
 * inserts in one transaction under the account's advisory lock.
 */

import { statSync } from 'node:fs';
import type { LockHost } from '../storage/locks.js';
import type { AccountDirectory } from './accounts.js';
import type { ChargeMatchRecord, FinishFields, JournalEntry, Resolution, StartFields } from './entries.js';
import type { AcceptedDamage, JournalDamage } from './parser.js';
import type { Account, Blocker, DuplicateQuery, Scope } from './rules.js';
import { type ChainReport, damageWarning, type Journal, type JournalScope, openJournal } from './store.js';

/** Who is sending an entry now: a live pix process, on this machine or (PostgreSQL) another. */
export interface Holder {
  host: string;
  pid: number;
  /** Whether it runs on this machine. */
  here: boolean;
}

/** What a claim must not repeat: the earlier entries that stop it (rules.ts). */
export interface ClaimQuestion {
  account: Account;
  /** The payment, for the duplicate guard (findBlocking). */
  query: DuplicateQuery;
  /** A batch row: an earlier payment of this row id stops it first (rowBlocker). */
  row?: string;
  /** Entries the duplicate guard leaves out (a batch's own rows). */
  skip?: Scope['skip'];
  /** `--allow-duplicate`: a `paid` blocker of the duplicate guard does not stop it (an unresolved one does). */
  allowPaid?: boolean;
}

export type Claim =
  | { entry: JournalEntry; blocked?: undefined }
  | { entry?: undefined; blocked: { blocker: Blocker; byRow: boolean } };

/** Closed days kept by a shared store: each close as the line `closes.jsonl` would hold. */
export interface ClosesStore {
  /** For people: `postgres://HOST/DATABASE`. */
  readonly where: string;
  /** The close lines of these account ids (an account's id and its former names), oldest first. */
  lines(accounts: readonly string[]): Promise<string[]>;
  append(account: string, day: string, line: string): Promise<void>;
  /** Runs `work` holding the account's closes lock on every machine (a close reads the last and adds one). */
  locked<T>(account: string, work: () => Promise<T>): Promise<T>;
}

/** What `verify` reports: lines the reader could not take, torn ones, and the file's chain (store.ts). */
export interface StoreReport {
  damage: JournalDamage[];
  torn: number[];
  /** The file store's chain and checkpoint; a database has none (its rows are written by transactions). */
  chain?: ChainReport;
}

export interface JournalStore {
  readonly backend: 'file' | 'postgres';
  /** Where the journal is, for people: a file's path, or `postgres://HOST/DATABASE` (never a credential). */
  readonly where: string;
  /** Every entry (of every account) in the order they started, each with its latest outcome and finding. */
  read(): Promise<JournalEntry[]>;
  /** Payments of this amount started at or after `since` (the statement guard's explanations). */
  payments(amount: number, since: Date): Promise<JournalEntry[]>;
  /** Something that changes whenever the journal does (a poller reads it again only then). */
  version(): Promise<string>;
  verify(): Promise<StoreReport>;
  /** Records that the operator has looked at every damaged line (`pix journal verify --accept`). */
  accept(): Promise<AcceptedDamage[]>;
  /** A warning for readers when money-moving commands are stopped by damage; undefined when sound. */
  damageWarning(): Promise<string | undefined>;
  /** Throws (exit 8 damaged, exit 6 unreachable; nothing sent) unless money may move. */
  checkSound(): Promise<void>;
  /**
   * Begins a `sending` entry unless an earlier one blocks it (by the rules, across every writer of this
   * store): on disk or committed before this returns, so the transfer may then be sent.
   */
  claim(fields: StartFields & { account: string }, question: ClaimQuestion): Promise<Claim>;
  /** Begins an entry no rule stops (a charge: creating one twice asks a customer twice, not pays twice). */
  begin(fields: StartFields & { account: string }): Promise<JournalEntry>;
  /**
   * Called just before the request of entry `id` is sent: throws (exit 8, nothing sent) when its claim may
   * no longer be its own (a shared store's lease: postgres/leases.ts). The file store's claim is its line.
   */
  beforeSend(entry: JournalEntry): Promise<void>;
  /**
   * Until when another process may still send entry `entry` (its claim's send deadline on the shared
   * ledger), with how long that is from now; undefined once it cannot (or on the file store, whose sender
   * is a process of this machine: holder() says whether it lives).
   */
  sendDeadline(entry: JournalEntry): Promise<{ until: Date; remainingMs: number } | undefined>;
  /** Records the outcome of entry `id` (its claim's lease, if any, ends). */
  finish(id: string, outcome: FinishFields): Promise<void>;
  resolve(id: string, resolution: Resolution): Promise<void>;
  match(id: string, match: ChargeMatchRecord): Promise<void>;
  findBlocking(query: DuplicateQuery, account: Account, scope?: JournalScope): Promise<Blocker | undefined>;
  rowBlocker(row: string, account: Account, scope?: JournalScope): Promise<Blocker | undefined>;
  /** The payments of batch rows with this id, oldest first (every account). */
  rowEntries(row: string): Promise<readonly JournalEntry[]>;
  /**
   * The live pix still sending this entry, other than this process, if any. Undefined when none is: the
   * entry is then as it is now (finished or resolved meanwhile, by any writer), for the caller to judge.
   */
  holder(entry: JournalEntry): Promise<Holder | undefined>;
  /** A shared store's accounts (journal/accounts.ts); the file store's are the config directory's file. */
  accounts?(): AccountDirectory;
  /** A shared store's closed days (commands/shared/books/store.ts); the file store's are the books directory's. */
  closes?(): ClosesStore;
  close(): Promise<void>;
}

/**
 * The claim's judgement, as both stores make it (the rules are one): an earlier payment of the row id
 * first, then the duplicate guard (a paid one only unless allowed).
 */
export async function judgeClaim(
  ask: {
    rowBlocker(row: string, account: Account, scope: JournalScope): Promise<Blocker | undefined>;
    findBlocking(query: DuplicateQuery, account: Account, scope: JournalScope): Promise<Blocker | undefined>;
  },
  question: ClaimQuestion,
  before?: string,
): Promise<{ blocker: Blocker; byRow: boolean } | undefined> {
  const scope: JournalScope = before === undefined ? {} : { before };
  if (question.row !== undefined) {
    const byRow = await ask.rowBlocker(question.row, question.account, scope);
    if (byRow) return { blocker: byRow, byRow: true };
  }
  const skip = question.skip === undefined ? {} : { skip: question.skip };
  const same = await ask.findBlocking(question.query, question.account, { ...scope, ...skip });
  if (same === undefined || (same.why === 'paid' && question.allowPaid === true)) return undefined;
  return { blocker: same, byRow: false };
}

/**
 * The file store: the journal of a config directory (store.ts) behind the one interface. A claim appends
 * its line first, then asks the entries started before it: of two writers, the earlier line wins, and
 * the later one records itself `failed` (duplicate) without sending.
 */
export function fileStore(
  dir: string,
  host: LockHost,
  only?: (entry: JournalEntry) => boolean,
): JournalStore {
  const journal: Journal = openJournal(dir, host, only);
  const here = (pid: number): Holder => ({ host: 'this machine', pid, here: true });
  const store: JournalStore = {
    backend: 'file',
    where: journal.path,
    read: async () => journal.read(),
    async payments(amount, since) {
      if (only === undefined) return journal.payments(amount, since);
      // A store holding only some entries (a batch's) reads the file again for these alone.
      const mine = (entry: JournalEntry) =>
        entry.kind === 'payment' &&
        entry.amountCentavos === amount &&
        Date.parse(entry.at) >= since.getTime();
      return openJournal(dir, host, mine).read().filter(mine);
    },
    // The file only grows: its size changes with every line.
    version: async () => String(statSync(journal.path, { throwIfNoEntry: false })?.size ?? 0),
    verify: async () => journal.verify(),
    accept: async () => journal.accept(),
    damageWarning: async () => damageWarning(journal),
    checkSound: async () => journal.checkSound(),
    async claim(fields, question) {
      const entry = journal.begin(fields);
      let blocked: Awaited<ReturnType<typeof judgeClaim>>;
      try {
        journal.checkSound();
        blocked = await judgeClaim(store, question, entry.id);
      } catch (error) {
        journal.finish(entry.id, { state: 'failed', reason: 'journal' });
        throw error;
      }
      if (blocked === undefined) return { entry };
      journal.finish(entry.id, { state: 'failed', reason: 'duplicate' });
      return { blocked };
    },
    begin: async (fields) => journal.begin(fields),
    beforeSend: async () => {},
    sendDeadline: async () => undefined,
    finish: async (id, outcome) => journal.finish(id, outcome),
    resolve: async (id, resolution) => journal.resolve(id, resolution),
    match: async (id, match) => journal.match(id, match),
    findBlocking: async (query, account, scope) => journal.findBlocking(query, account, scope),
    rowBlocker: async (row, account, scope) => journal.rowBlocker(row, account, scope),
    rowEntries: async (row) => journal.rowEntries(row),
    async holder(entry) {
      const pid = journal.inFlightElsewhere(entry);
      return pid === undefined ? undefined : here(pid);
    },
    close: async () => {},
  };
  return store;
}

/**
 * A shared store could not take an outcome after the request left (the database was lost): it is kept in
 * the config directory's spill file, and written to the store by the next command that reaches it.
 */
export class OutcomeSpilled extends Error {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
    this.name = 'OutcomeSpilled';
  }
}
