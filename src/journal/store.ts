/**
 * The journal file (contract §7.6, §8): `<config dir>/journal.jsonl`, opened only through
 * storage/files.ts — the directory 0700, the file 0600, opened O_NOFOLLOW (a symbolic link planted at
 * journal.jsonl is refused, never followed), each line appended with ONE write(2) on an O_APPEND
 * descriptor and fsync'd before the call returns, so concurrent writers interleave whole lines. A line
 * torn by a write cut short is marked by the next writer (entries.ts TORN_MARK); any other line the
 * reader cannot take is damage, and a damaged journal stops every command that moves money
 * (checkSound) until the operator has looked (`pix journal verify`).
 *
 * Reads are incremental and indexed: each read parses only the lines appended since the last one, and
 * the guard's questions (by batch row, by payee) go to the index (indexes.ts), not over every entry.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Clock, Processes } from '../context.js';
import { PixError } from '../errors.js';
import { appendPrivateLine, ensurePrivateDir, readPrivateFrom } from '../storage/files.js';
import {
  type ChargeMatchRecord,
  createJournalParser,
  type FinishFields,
  JOURNAL_FILE,
  type JournalDamage,
  type JournalEntry,
  type JournalParser,
  type Resolution,
  type StartFields,
  startLine,
  TORN_MARK,
} from './entries.js';
import { createJournalIndex, type JournalIndex } from './indexes.js';
import {
  type Account,
  type Blocker,
  type DuplicateQuery,
  findBlocking,
  rowBlocker,
  type Scope,
} from './rules.js';

export interface Journal {
  readonly path: string;
  /** Every entry in the order they started, each with its latest outcome and resolution. */
  read(): JournalEntry[];
  /** The lines the reader could not take (after reading what is on disk now), and the torn ones. */
  verify(): { damage: JournalDamage[]; torn: number[] };
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
  /** The live pix process, other than this one, that is still sending this entry, if any. */
  inFlightElsewhere(entry: JournalEntry): number | undefined;
}

/** Scope with `before` as an entry id. */
export interface JournalScope extends Omit<Scope, 'before'> {
  before?: string;
}

/** How many bytes of the journal are read, decoded and parsed at a time. */
const READ_BYTES = 1 << 20;

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
export function openJournal(
  dir: string,
  clock: Clock,
  processes?: Processes,
  only?: (entry: JournalEntry) => boolean,
): Journal {
  const path = join(dir, JOURNAL_FILE);
  const append = (record: object) => {
    ensurePrivateDir(dir);
    appendPrivateLine(path, JSON.stringify(record), { tornMark: TORN_MARK });
  };
  // The journal only grows: each read parses just the whole lines appended since the last one, and
  // starts over if the file was replaced or cut.
  let parsed: { identity: string; offset: number; parser: JournalParser; index: JournalIndex } | undefined;
  const fresh = (identity: string) => {
    const index = createJournalIndex();
    return { identity, offset: 0, parser: createJournalParser((entry) => index.add(entry), only), index };
  };
  const load = (): NonNullable<typeof parsed> | undefined => {
    // A piece at a time: a journal of 100,000 lines (40 MB) is never one buffer, one string or one array
    // of all its lines.
    for (;;) {
      let tail = readPrivateFrom(path, parsed?.offset ?? 0, READ_BYTES);
      if (tail === undefined) {
        parsed = undefined;
        return undefined;
      }
      if (parsed === undefined || tail.identity !== parsed.identity || tail.size < parsed.offset) {
        if (parsed !== undefined)
          tail = readPrivateFrom(path, 0, READ_BYTES) ?? { ...tail, bytes: Buffer.alloc(0) };
        parsed = fresh(tail.identity);
      }
      let whole = tail.bytes.lastIndexOf(0x0a) + 1;
      const full = tail.bytes.length === READ_BYTES;
      if (whole === 0 && full) {
        // One line longer than a piece (no journal line is): read it whole, so it is seen as damage.
        tail = readPrivateFrom(path, parsed.offset) ?? tail;
        whole = tail.bytes.lastIndexOf(0x0a) + 1;
      }
      parsed.parser.feed(tail.bytes.toString('utf8', 0, whole));
      parsed.offset += whole;
      if (!full || whole === 0) return parsed;
    }
  };
  const seqOf = (loaded: NonNullable<typeof parsed>, scope: JournalScope): Scope => {
    const { before, ...rest } = scope;
    if (before === undefined) return rest;
    return { ...rest, before: loaded.parser.get(before)?.seq ?? Number.POSITIVE_INFINITY };
  };
  const journal: Journal = {
    path,
    read: () => load()?.parser.entries() ?? [],
    verify() {
      const loaded = load();
      return { damage: loaded?.parser.damage() ?? [], torn: loaded?.parser.torn() ?? [] };
    },
    checkSound() {
      const { damage } = journal.verify();
      if (damage.length === 0) return;
      throw new PixError(
        'declined',
        `the journal is damaged: ${describeDamage(path, damage)}; nothing was sent`,
        {
          hint: 'a damaged line may be the record of a payment: `pix journal verify` lists every damaged line; repair or remove each by hand (keep a copy of the file), checking `pix statement` for the payments it may have recorded, then run this again',
        },
      );
    },
    begin(fields) {
      const entry: JournalEntry = {
        ...fields,
        ...(processes === undefined ? {} : { pid: processes.pid }),
        id: randomUUID(),
        seq: Number.POSITIVE_INFINITY,
        at: clock.now().toISOString(),
        state: 'sending',
      };
      append(startLine(entry));
      return entry;
    },
    finish(id, outcome) {
      append({ id, at: clock.now().toISOString(), ...outcome });
    },
    resolve(id, resolution) {
      append({ id, at: clock.now().toISOString(), resolution });
    },
    match(id, match) {
      append({ id, at: clock.now().toISOString(), match });
    },
    findBlocking(query, account, scope = {}) {
      const loaded = load();
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
      const loaded = load();
      if (loaded === undefined) return undefined;
      return rowBlocker(loaded.index.byRow(row), account, seqOf(loaded, scope));
    },
    rowEntries: (row) => load()?.index.byRow(row) ?? [],
    inFlightElsewhere(entry) {
      const { pid } = entry;
      if (processes === undefined || pid === undefined || pid === processes.pid) return undefined;
      if (entry.state !== 'sending' || entry.resolution !== undefined) return undefined;
      return processes.alive(pid) ? pid : undefined;
    },
  };
  return journal;
}
