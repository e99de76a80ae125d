/**
 * The journal file (contract §7.6, §8): `<config dir>/journal.jsonl`, opened only through
 * storage/ — the directory 0700, the file 0600, opened O_NOFOLLOW (a symbolic link planted at
 * journal.jsonl is refused, never followed), each line appended with ONE write(2) on an O_APPEND
 * descriptor and fsync'd before the call returns. A line torn by a write cut short is marked by the next
 * writer (parser.ts TORN_MARK); any other line the reader cannot take is damage, and a damaged journal
 * stops every command that moves money (checkSound) until the operator has looked (`pix journal verify`).
 *
 * The chain (chain.ts): writers append under the journal's lock (`journal.jsonl.lock`, storage/locks.ts),
 * each reading what was appended since its last read, so its line names the true last line as `prev`;
 * then it replaces the checkpoint (`journal.jsonl.checkpoint`) with where the journal now ends. A writer
 * killed between the two leaves the checkpoint one line behind, which is not damage; a journal shorter
 * than its checkpoint, or whose last line is not the one it names, is. The checkpoint is one small record
 * written in place (storage/files.ts overwritePrivateFile), not fsync'd: the line is the durable record,
 * and the next append brings the checkpoint up to date. While the end is damaged, writers leave the
 * checkpoint as it is: it is the evidence, until `pix journal verify --accept` records that the operator
 * has looked.
 *
 * Reads are incremental and indexed: each read parses only the lines appended since the last one, and
 * the guard's questions (by batch row, by payee) go to the index (indexes.ts), not over every entry.
 */
import { randomUUID } from 'node:crypto';
import { PixError } from '../errors.js';
import type { LockHost } from '../storage/locks.js';
import { append, appendLocked } from './append.js';
import type { Checkpoint } from './chain.js';
import {
  type ChargeMatchRecord,
  type FinishFields,
  type JournalEntry,
  type Resolution,
  type StartFields,
  startLine,
} from './entries.js';
import { judgeEnd, locked, type OpenedJournal, openedJournal, type Parsed, tailOf } from './opened.js';
import { type Acceptance, type AcceptedDamage, acceptLine, type JournalDamage } from './parser.js';
import { keepIndex, loadFor } from './resume.js';
import {
  type Account,
  type Blocker,
  DUPLICATE_WINDOW_MS,
  type DuplicateQuery,
  findBlocking,
  rowBlocker,
  type Scope,
} from './rules.js';

export interface Journal {
  readonly path: string;
  /** Every entry in the order they started, each with its latest outcome and resolution. */
  read(): JournalEntry[];
  /**
   * The lines the reader could not take (after reading what is on disk now), the torn ones, and the
   * chain: where it starts, what the checkpoint says, the acceptances recorded.
   */
  verify(): { damage: JournalDamage[]; torn: number[]; chain: ChainReport };
  /**
   * Records that the operator has looked at every damaged line (`pix journal verify --accept`): appends
   * one acceptance line naming them and brings the checkpoint up to date. Returns what it accepted
   * (nothing, and nothing appended, when the journal is sound).
   */
  accept(): AcceptedDamage[];
  /**
   * Throws (exit 8, nothing sent) when a line of the journal is damaged: what it said is unknown, and
   * it may be the record of a payment that would otherwise be paid again. Every money-moving command
   * calls this before it sends anything.
   */
  checkSound(): void;
  /** Appends the `sending` line (on disk before this returns) and returns the entry. */
  begin(fields: StartFields & { account: string }): JournalEntry;
  /** Appends the outcome of entry `id`. */
  finish(id: string, outcome: FinishFields): void;
  /** Appends the operator's finding about entry `id`. */
  resolve(id: string, resolution: Resolution): void;
  /** Appends the statement entry that paid charge entry `id` (the charge ledger). */
  match(id: string, match: ChargeMatchRecord): void;
  /**
   * The earlier payment to the same payee on `account`'s API that stops this one, if any (rules.ts).
   * With `before` (an entry's id), only entries started before it count: used after appending our own
   * line, to close the race between two processes.
   */
  findBlocking(query: DuplicateQuery, account: Account, scope?: JournalScope): Blocker | undefined;
  /** What stops batch row id `row` on `account` (rules.ts rowBlocker). */
  rowBlocker(row: string, account: Account, scope?: JournalScope): Blocker | undefined;
  /** The payments of batch rows with this id, oldest first (every account). */
  rowEntries(row: string): readonly JournalEntry[];
  /** Payments of this amount started at or after `since`. */
  payments(amount: number, since: Date): JournalEntry[];
  /** The live pix process, other than this one, that is still sending this entry, if any. */
  inFlightElsewhere(entry: JournalEntry): number | undefined;
}

/** The chain as `pix journal verify` reports it. */
export interface ChainReport {
  /** The first line with a `prev` (lines before it were written by a pix without the chain). */
  start?: number;
  /** The checkpoint as read, if there is one. */
  checkpoint?: Checkpoint;
  /** Lines the checkpoint is behind (1: a writer killed between its line and its checkpoint). */
  lag: number;
  acceptances: Acceptance[];
}

/** Scope with `before` as an entry id. */
export interface JournalScope extends Omit<Scope, 'before'> {
  before?: string;
}

/** `journal.jsonl line 12: not JSON (and 2 more damaged lines)`. */
export function describeDamage(path: string, damage: readonly JournalDamage[]): string {
  const first = damage[0]!;
  const more =
    damage.length > 1 ? ` (and ${damage.length - 1} more damaged line${damage.length > 2 ? 's' : ''})` : '';
  return `${path} line ${first.line}: ${first.reason}${more}`;
}

/**
 * The warning, for a command that only reads the journal, that money-moving commands are stopped by a
 * damaged line; undefined when there is none.
 */
export function damageWarning(journal: Journal): string | undefined {
  const { damage } = journal.verify();
  if (damage.length === 0) return undefined;
  return `warning: the journal is damaged (${describeDamage(journal.path, damage)}): payments and charges are stopped; see \`pix journal verify\``;
}

/**
 * The journal in `dir` (created 0700 when missing). `only`: the entries to hold in memory (a batch holds
 * those of its rows and payees: a journal of a million lines then costs what its relevant lines cost);
 * every line is still read and checked, and `read()` returns only the entries held.
 */
export function openJournal(dir: string, host: LockHost, only?: (entry: JournalEntry) => boolean): Journal {
  const journal = openedJournal(dir, host, only);
  return { path: journal.path, ...checks(journal), ...lines(journal), ...questions(journal) };
}

/** The damage a reader is told of (`whole`: every line read, as `pix journal verify` reports). */
function report(journal: OpenedJournal, whole: boolean) {
  loadFor(journal, whole ? 'all' : journal.clock.now().getTime() - DUPLICATE_WINDOW_MS);
  const end = judgeEnd(journal, false);
  const loaded = journal.tail.current();
  const damage = loaded?.parser.damage() ?? [];
  if (end.kind === 'damaged') damage.push({ line: end.line, reason: end.reason });
  return { end, loaded, damage };
}

/** The whole journal read, and its soundness: what `pix journal verify` and every money-moving command ask. */
function checks(journal: OpenedJournal): Pick<Journal, 'read' | 'verify' | 'accept' | 'checkSound'> {
  const { clock, path } = journal;
  return {
    read: () => loadFor(journal, 'all')?.parser.entries() ?? [],
    verify() {
      const { end, loaded, damage } = report(journal, true);
      const { checkpoint } = end;
      const { start } = tailOf(loaded);
      return {
        damage,
        torn: loaded?.parser.torn() ?? [],
        chain: {
          ...(start === undefined ? {} : { start }),
          ...(checkpoint === undefined ? {} : { checkpoint }),
          lag: end.kind === 'ok' ? end.lag : 0,
          acceptances: loaded?.parser.acceptances() ?? [],
        },
      };
    },
    accept() {
      loadFor(journal, 'all');
      return locked(journal, () => {
        const end = judgeEnd(journal, true);
        const found: AcceptedDamage[] = journal.tail.current()?.parser.damageToAccept() ?? [];
        if (end.kind === 'damaged') found.push({ line: end.line, reason: end.reason });
        if (found.length === 0) return [];
        appendLocked(journal, acceptLine(clock.now().toISOString(), found), true);
        return found;
      });
    },
    checkSound() {
      // What a payment asks: the journal read on from its index file, when that holds (indexfile.ts).
      const { end, damage } = report(journal, false);
      if (damage.length === 0) {
        keepIndex(journal, end);
        return;
      }
      throw new PixError(
        'declined',
        `the journal is damaged: ${describeDamage(path, damage)}; nothing was sent`,
        {
          hint: 'a damaged or missing line may be the record of a payment: `pix journal verify` lists each; check `pix statement` for the payments they may have recorded (keep a copy of the file), then `pix journal verify --accept` records that you have looked, and run this again',
        },
      );
    },
  };
}

/** The lines an entry's life appends: its start, its outcome, the operator's finding, its match. */
function lines(journal: OpenedJournal): Pick<Journal, 'begin' | 'finish' | 'resolve' | 'match'> {
  const { clock, processes } = journal;
  return {
    begin(fields) {
      const entry: JournalEntry = {
        ...fields,
        ...(processes === undefined ? {} : { pid: processes.pid }),
        id: randomUUID(),
        seq: Number.POSITIVE_INFINITY,
        at: clock.now().toISOString(),
        state: 'sending',
      };
      append(journal, startLine(entry));
      return entry;
    },
    finish(id, outcome) {
      append(journal, { id, at: clock.now().toISOString(), ...outcome });
    },
    resolve(id, resolution) {
      append(journal, { id, at: clock.now().toISOString(), resolution });
    },
    match(id, match) {
      append(journal, { id, at: clock.now().toISOString(), match });
    },
  };
}

function seqOf(loaded: Parsed, scope: JournalScope): Scope {
  const { before, ...rest } = scope;
  if (before === undefined) return rest;
  return { ...rest, before: loaded.parser.get(before)?.seq ?? Number.POSITIVE_INFINITY };
}

/** The guard's questions (rules.ts), asked of the index (indexes.ts). */
function questions(
  journal: OpenedJournal,
): Pick<Journal, 'findBlocking' | 'rowBlocker' | 'rowEntries' | 'payments' | 'inFlightElsewhere'> {
  const { clock, processes } = journal;
  return {
    findBlocking(query, account, scope = {}) {
      // What the rules find blocking started within the duplicate window, or still matters (rules.ts).
      const loaded = loadFor(journal, clock.now().getTime() - DUPLICATE_WINDOW_MS);
      if (loaded === undefined) return undefined;
      return findBlocking(
        loaded.index.byPayee(query, query.amountCentavos),
        query,
        clock.now(),
        account,
        seqOf(loaded, scope),
      );
    },
    rowBlocker(row, account, scope = {}) {
      // A batch row's payments, however old: the whole journal.
      const loaded = loadFor(journal, 'all');
      if (loaded === undefined) return undefined;
      return rowBlocker(loaded.index.byRow(row), account, seqOf(loaded, scope));
    },
    rowEntries: (row) => loadFor(journal, 'all')?.index.byRow(row) ?? [],
    payments(amount, since) {
      const from = since.getTime();
      const loaded = loadFor(journal, from);
      return (loaded?.index.byAmount(amount) ?? []).filter(
        (entry) => entry.kind === 'payment' && Date.parse(entry.at) >= from,
      );
    },
    inFlightElsewhere(entry) {
      const { pid } = entry;
      if (processes === undefined || pid === undefined || pid === processes.pid) return undefined;
      if (entry.state !== 'sending' || entry.resolution !== undefined) return undefined;
      return processes.alive(pid) ? pid : undefined;
    },
  };
}
