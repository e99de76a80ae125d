/**
 * The journal file (contract §7.6, §8): `<config dir>/journal.jsonl`, opened only through
 * storage/ — the directory 0700, the file 0600, opened O_NOFOLLOW (a symbolic link planted at
 * journal.jsonl is refused, never followed), each line appended with ONE write(2) on an O_APPEND
 * descriptor and fsync'd before the call returns. A line torn by a write cut short is marked by the next
 * writer (entries.ts TORN_MARK); any other line the reader cannot take is damage, and a damaged journal
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
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock, Processes } from '../context.js';
import { PixError } from '../errors.js';
import { appendPrivateLine } from '../storage/append.js';
import { ensurePrivateDir } from '../storage/dirs.js';
import {
  overwritePrivateFile,
  type PrivateTail,
  readPrivateFile,
  readPrivateFrom,
  stampOf,
} from '../storage/files.js';
import { type LockHost, LockTimeoutError, withFileLockSync } from '../storage/locks.js';
import { SYSTEM } from '../system.js';
import {
  CHECKPOINT_SUFFIX,
  type ChainTail,
  type Checkpoint,
  cutDamage,
  formatCheckpoint,
  GENESIS,
  type Judgement,
  judgeCheckpoint,
  lineDigest,
  parseCheckpoint,
  stampDigest,
} from './chain.js';
import {
  type Acceptance,
  type AcceptedDamage,
  acceptLine,
  type ChargeMatchRecord,
  createJournalParser,
  type FinishFields,
  HistoryNeeded,
  JOURNAL_FILE,
  type JournalDamage,
  type JournalEntry,
  type JournalParser,
  type JournalWatch,
  type Resolution,
  type StartFields,
  startLine,
  TORN_MARK,
} from './entries.js';
import { createJournalIndex, type JournalIndex } from './indexes.js';
import {
  digestOfLineEndingAt,
  INDEX_SUFFIX,
  INDEX_WINDOW_MS,
  readIndexFile,
  writeIndexFile,
} from './indexfile.js';
import {
  type Account,
  type Blocker,
  DUPLICATE_WINDOW_MS,
  type DuplicateQuery,
  findBlocking,
  mattersBeyondWindow,
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

/** How many bytes of the journal are read, decoded and parsed at a time. */
const READ_BYTES = 1 << 20;
/**
 * The same for a follower, which reads the journal once whole and then lives on: smaller pieces leave a
 * smaller heap behind (pix listen with a 100,000-line journal: 111 MB of RSS once idle with 1 MB pieces,
 * 82 MB with these), for a few hundred more reads of a file the page cache holds.
 */
const FOLLOW_BYTES = 1 << 16;

/** A payment that read this many bytes past the index file writes it anew. */
const INDEX_LAG_BYTES = 256 * 1024;

const NO_TAIL: ChainTail = { lines: 0, bytes: 0, chained: 0 };

/** The end of the journal judged (chain.ts), with the checkpoint it was judged against. */
type End = Exclude<Judgement, { kind: 'ahead' }> & { checkpoint: Checkpoint | undefined };

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

/** Reads `limit` bytes of the journal from `offset` (the file, or the descriptor an append holds). */
type PieceSource = (offset: number, limit?: number) => PrivateTail | undefined;

/** What has been read of the journal file: its identity, how far, and the parser that holds it. */
interface Loaded {
  identity: string;
  offset: number;
  parser: JournalParser;
}

/**
 * The journal file read as it grows: each `load` parses just the whole lines appended since the last one
 * (up to `until`, a line's end, when given), a piece at a time (a journal of 100,000 lines, 40 MB, is never
 * one buffer, one string or one array of all its lines), and starts over with what `fresh` makes when the
 * file was replaced or cut.
 */
function journalTail<T extends Loaded>(
  path: string,
  fresh: (identity: string, stamp: string | undefined) => T,
  pieceBytes = READ_BYTES,
) {
  let loaded: T | undefined;
  const fromFile: PieceSource = (offset, limit) => readPrivateFrom(path, offset, limit);
  return {
    current: () => loaded,
    /** Starts from `state` (resumed from the journal's index file), or from nothing. */
    set(state: T | undefined) {
      loaded = state;
    },
    load(source: PieceSource = fromFile, until = Number.POSITIVE_INFINITY): T | undefined {
      for (;;) {
        // Read from its start, the file's stamp before the first byte: unchanged after the last, what was
        // read is the journal there (store.ts keepIndex vouches for it).
        const stamp = loaded === undefined && source === fromFile ? stampOf(path)?.stamp : undefined;
        const limitFrom = (offset: number) => Math.max(0, Math.min(pieceBytes, until - offset));
        let limit = limitFrom(loaded?.offset ?? 0);
        let piece = source(loaded?.offset ?? 0, limit);
        if (piece === undefined) {
          loaded = undefined;
          return undefined;
        }
        if (loaded === undefined || piece.identity !== loaded.identity || piece.size < loaded.offset) {
          if (loaded !== undefined) {
            limit = limitFrom(0);
            piece = source(0, limit) ?? { ...piece, bytes: Buffer.alloc(0) };
          }
          loaded = fresh(piece.identity, stamp);
        }
        let whole = piece.bytes.lastIndexOf(0x0a) + 1;
        const full = limit > 0 && piece.bytes.length === limit;
        if (whole === 0 && full && limit === pieceBytes) {
          // One line longer than a piece (no journal line is): read it whole, so it is seen as damage.
          piece = source(loaded.offset) ?? piece;
          whole = piece.bytes.lastIndexOf(0x0a) + 1;
        }
        try {
          loaded.parser.feed(piece.bytes.toString('utf8', 0, whole));
        } catch (error) {
          // Resumed from the index, a line names an entry it let go of: the history is read after all.
          if (!(error instanceof HistoryNeeded)) throw error;
          loaded = undefined;
          continue;
        }
        loaded.offset += whole;
        if (!full || whole === 0) return loaded;
      }
    },
  };
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
  // The lock's clock and pids are the command's (a reader given no processes, a test, locks as this process);
  // its jitter is this machine's randomness (src/system.ts).
  const host: LockHost = { clock, random: SYSTEM.random, processes: processes ?? SYSTEM.processes };
  const checkpointPath = `${path}${CHECKPOINT_SUFFIX}`;
  const locked = <T>(work: () => T): T => {
    ensurePrivateDir(dir);
    return withFileLockSync(path, `the journal ${path}`, host, work);
  };
  const indexPath = `${path}${INDEX_SUFFIX}`;
  // The journal only grows: each read parses just the whole lines appended since the last one, and
  // starts over if the file was replaced or cut. Read from its start, it holds every entry; resumed from
  // the index file (indexfile.ts), those started at or after `since` and those that still matter before
  // it (rules.ts mattersBeyondWindow).
  interface Parsed extends Loaded {
    index: JournalIndex;
    /** Resumed from the index file: entries started before this (ms) that no longer matter are not held. */
    since?: number;
    /** Where it was resumed (the index file's length). */
    resumedAt?: number;
    /** Read from the start: the file's stamp then. */
    stamp?: string;
  }
  const tail = journalTail(path, (identity, stamp): Parsed => {
    const index = createJournalIndex();
    return {
      identity,
      offset: 0,
      parser: createJournalParser((entry) => index.add(entry), only),
      index,
      ...(stamp === undefined ? {} : { stamp }),
    };
  });
  /** Reads and parses what was appended since the last read, from the file, or through `source`. */
  const load = (source?: PieceSource): Parsed | undefined => tail.load(source);
  const tailOf = (loaded: Parsed | undefined): ChainTail => loaded?.parser.tail(loaded.offset) ?? NO_TAIL;
  const readCheckpoint = (): Checkpoint | undefined => {
    const text = readPrivateFile(checkpointPath);
    return text === undefined ? undefined : parseCheckpoint(text);
  };
  /**
   * Where the journal ended (its identity and length) when its end was last found sound, by a judgement
   * or by this process's own append: found so again with no line added since, the checkpoint need not be
   * read again (a batch asks before every row).
   */
  let sound:
    | { identity: string; offset: number; checkpoint: Checkpoint | undefined; lag: number }
    | undefined;
  /** Reads the journal to its end, then the checkpoint, and judges the one against the other (chain.ts). */
  const judgeOnce = (loaded = load()): { judgement: Judgement; checkpoint: Checkpoint | undefined } => {
    if (sound !== undefined && loaded?.identity === sound.identity && loaded.offset === sound.offset)
      return { judgement: { kind: 'ok', lag: sound.lag }, checkpoint: sound.checkpoint };
    sound = undefined;
    const checkpoint = readCheckpoint();
    const judgement = judgeCheckpoint(checkpoint, tailOf(loaded), checkpointPath);
    if (judgement.kind === 'ok' && loaded !== undefined)
      sound = { identity: loaded.identity, offset: loaded.offset, checkpoint, lag: judgement.lag };
    return { judgement, checkpoint };
  };
  /**
   * The end of the journal judged. Under the lock (`quiet`) no writer is at work: a checkpoint past the
   * end is a cut. Without it, a writer may append and replace the checkpoint meanwhile: read after the
   * lines, the checkpoint is then past them, or (once read on) at most one line behind; and it may be
   * read while it is being written. So anything but a sound end is judged again under the lock before it
   * is believed (a read-only config directory, where no lock can be taken, keeps the first judgement).
   */
  const judgeEnd = (quiet: boolean): End => {
    let once = judgeOnce();
    if (once.judgement.kind === 'ahead' && !quiet) once = judgeOnce();
    const { judgement, checkpoint } = once;
    if (judgement.kind !== 'ok' && !quiet) {
      try {
        return locked(() => judgeEnd(true));
      } catch (error) {
        // Only a lock that cannot be made (EACCES, EROFS) leaves the judgement as it is.
        if (error instanceof LockTimeoutError || !(error instanceof Error && 'code' in error)) throw error;
      }
    }
    if (judgement.kind === 'ahead')
      return { kind: 'damaged', ...cutDamage(judgement.checkpoint, tailOf(tail.current())), checkpoint };
    return { ...judgement, checkpoint };
  };
  /**
   * Resumes from the index file when the journal is the one it was made from: the checkpoint vouches for
   * the journal as it is (its stamp: untouched by anyone but pix since a pix found it sound), the index
   * names this file at a length within it, and the line ending there is the one it names. Else undefined
   * (the journal is read from its start).
   */
  const resume = (): Parsed | undefined => {
    const now = stampOf(path);
    const checkpoint = readCheckpoint();
    if (now === undefined || checkpoint?.seen !== stampDigest(now.stamp) || checkpoint.bytes !== now.size)
      return undefined;
    const found = readIndexFile(indexPath);
    if (found === undefined || found.identity !== now.identity || found.bytes > now.size) return undefined;
    if (digestOfLineEndingAt(path, now.identity, found.bytes) !== found.state.chain.last?.digest)
      return undefined;
    const index = createJournalIndex();
    return {
      identity: now.identity,
      offset: found.bytes,
      parser: createJournalParser((entry) => index.add(entry), undefined, undefined, found.state),
      index,
      since: found.since,
      resumedAt: found.bytes,
    };
  };
  /**
   * The journal loaded for a payment's questions: resumed from the index file when it holds, as long as
   * what is held covers entries started since `from` (ms); else (and for any other question) read whole.
   */
  const loadFor = (from: number | 'all'): Parsed | undefined => {
    const current = tail.current();
    if (current?.since !== undefined && (from === 'all' || from < current.since)) tail.set(undefined);
    if (tail.current() === undefined && from !== 'all' && only === undefined) {
      const resumed = resume();
      tail.set(resumed?.since !== undefined && from < resumed.since ? undefined : resumed);
    }
    return load();
  };
  /**
   * After a payment found the journal sound: a journal read from its start, unchanged since (its stamp),
   * is vouched for in the checkpoint (under the lock), and the index file is written anew when there was
   * none to resume from or the lines read past it are many. Nothing here is needed for the payment:
   * whatever fails, the next one reads the history.
   */
  const keepIndex = (end: End): void => {
    const loaded = tail.current();
    if (loaded === undefined || end.kind !== 'ok' || end.lag !== 0) return;
    if (loaded.since !== undefined && loaded.offset - (loaded.resumedAt ?? 0) < INDEX_LAG_BYTES) return;
    try {
      if (loaded.since === undefined) {
        const { stamp } = loaded;
        const checkpoint = end.checkpoint;
        if (stamp === undefined || checkpoint === undefined || checkpoint.bytes !== loaded.offset) return;
        const vouched = locked(() => {
          if (stampOf(path)?.stamp !== stamp) return false;
          if (checkpoint.seen === stampDigest(stamp)) return true;
          // Vouched for anew (it was not, or was changed by someone else): an index made before is of the
          // journal as it was then, and is dropped whatever comes next.
          rmSync(indexPath, { force: true });
          overwritePrivateFile(checkpointPath, formatCheckpoint({ ...checkpoint, seen: stampDigest(stamp) }));
          // The checkpoint as judged is no longer the one on disk: the next append reads it again.
          sound = undefined;
          return true;
        });
        // A reader holding some entries (a batch) makes no index.
        if (!vouched || only !== undefined) return;
      }
      const since = Math.max(
        loaded.since ?? Number.NEGATIVE_INFINITY,
        clock.now().getTime() - INDEX_WINDOW_MS,
      );
      const state = loaded.parser.state(
        (entry) => Date.parse(entry.at) >= since || mattersBeyondWindow(entry),
      );
      if (state === undefined) return;
      locked(() => {
        // Written only of the journal as it is now, vouched for.
        const now = stampOf(path);
        if (
          now === undefined ||
          now.size !== loaded.offset ||
          readCheckpoint()?.seen !== stampDigest(now.stamp)
        )
          return;
        writeIndexFile(indexPath, { identity: loaded.identity, bytes: loaded.offset, since, state });
      });
    } catch {
      // A cache: a read-only directory or a full disk leaves the payments reading the history.
    }
  };
  /** Appends `record` naming the last line as `prev`, then records it in the checkpoint; under the lock. */
  const appendLocked = (record: object, accepting: boolean) => {
    let end: End | undefined;
    let read = NO_TAIL;
    let text = '';
    /** The journal as a vouched-for pix left it (its checkpoint names its stamp): so is it after this line. */
    let vouched = false;
    // What was appended since the last read is read through the descriptor the line is appended on.
    const written = appendPrivateLine(
      path,
      (file) => {
        const loaded = load((offset, limit) => file.readFrom(offset, limit));
        const { judgement, checkpoint } = judgeOnce(loaded);
        end =
          judgement.kind === 'ahead'
            ? { kind: 'damaged', ...cutDamage(judgement.checkpoint, tailOf(loaded)), checkpoint }
            : { ...judgement, checkpoint };
        read = tailOf(loaded);
        vouched = !accepting && end.kind === 'ok' && checkpoint?.seen === stampDigest(file.stamp);
        const { last } = read;
        if (end.kind === 'ok' && last !== undefined && checkpoint?.last !== last.digest) {
          // A writer was killed between its line and its checkpoint: the checkpoint is brought up to
          // its line first, so that killed here too, this writer leaves it one line behind, never two.
          try {
            overwritePrivateFile(
              checkpointPath,
              formatCheckpoint({ lines: last.line, bytes: read.bytes, last: last.digest }),
            );
          } catch {
            // Said below: the checkpoint after this line is written, or readers find it behind.
          }
        }
        text = JSON.stringify({ ...record, prev: loaded?.parser.head() ?? GENESIS });
        return text;
      },
      { tornMark: TORN_MARK },
    );
    // A damaged end keeps its checkpoint: it is the evidence, until the operator accepts it.
    if (end?.kind === 'damaged' && !accepting) return;
    // The line's number: after the lines read, or after a torn line and its mark (storage/append.ts).
    const line = read.lines + (written.tornBefore ? 3 : 1);
    const checkpoint: Checkpoint = {
      lines: line,
      bytes: written.size,
      last: lineDigest(text),
      ...(vouched ? { seen: stampDigest(written.stamp) } : {}),
    };
    sound = undefined;
    try {
      overwritePrivateFile(checkpointPath, formatCheckpoint(checkpoint));
      sound = { identity: written.identity, offset: written.size, checkpoint, lag: 0 };
    } catch (error) {
      if (accepting) throw error;
      // The line is written and durable; the checkpoint one line behind is not damage, and the next
      // append replaces it. Behind by more (it keeps failing: a full disk), readers say so.
    }
  };
  const append = (record: object) => {
    // A payment's lines: the journal read on from its index file, when that holds.
    if (tail.current() === undefined) loadFor(clock.now().getTime() - DUPLICATE_WINDOW_MS);
    locked(() => appendLocked(record, false));
  };
  const seqOf = (loaded: Parsed, scope: JournalScope): Scope => {
    const { before, ...rest } = scope;
    if (before === undefined) return rest;
    return { ...rest, before: loaded.parser.get(before)?.seq ?? Number.POSITIVE_INFINITY };
  };
  /** The damage a reader is told of (`whole`: every line read, as `pix journal verify` reports). */
  const report = (whole: boolean) => {
    loadFor(whole ? 'all' : clock.now().getTime() - DUPLICATE_WINDOW_MS);
    const end = judgeEnd(false);
    const loaded = tail.current();
    const damage = loaded?.parser.damage() ?? [];
    if (end.kind === 'damaged') damage.push({ line: end.line, reason: end.reason });
    return { end, loaded, damage };
  };
  const journal: Journal = {
    path,
    read: () => loadFor('all')?.parser.entries() ?? [],
    verify() {
      const { end, loaded, damage } = report(true);
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
      loadFor('all');
      return locked(() => {
        const end = judgeEnd(true);
        const found: AcceptedDamage[] = tail.current()?.parser.damageToAccept() ?? [];
        if (end.kind === 'damaged') found.push({ line: end.line, reason: end.reason });
        if (found.length === 0) return [];
        appendLocked(acceptLine(clock.now().toISOString(), found), true);
        return found;
      });
    },
    checkSound() {
      // What a payment asks: the journal read on from its index file, when that holds (indexfile.ts).
      const { end, damage } = report(false);
      if (damage.length === 0) {
        keepIndex(end);
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
      // What the rules find blocking started within the duplicate window, or still matters (rules.ts).
      const loaded = loadFor(clock.now().getTime() - DUPLICATE_WINDOW_MS);
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
      const loaded = loadFor('all');
      if (loaded === undefined) return undefined;
      return rowBlocker(loaded.index.byRow(row), account, seqOf(loaded, scope));
    },
    rowEntries: (row) => loadFor('all')?.index.byRow(row) ?? [],
    payments(amount, since) {
      const from = since.getTime();
      const loaded = loadFor(from);
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
  return journal;
}

/** A reader of the journal for a process that runs for long and follows it (pix listen). */
export interface JournalFollower {
  readonly path: string;
  /**
   * Reads the lines appended since the last read, telling the watch of each change. Lines up to
   * `quietUntil` (a line's end), and every line of a journal found replaced or cut (it is read again from
   * its start), are read quietly: their entries are held and let go as usual, but no change is told. Returns
   * where the reading got to, or undefined when there is no journal.
   */
  read(quietUntil?: number): { identity: string; offset: number } | undefined;
  /** The entries held now: those `keep` took that the watch has not found settled, in the order they started. */
  entries(): JournalEntry[];
  /**
   * The lines the reader could not read so far (they stop money-moving commands: `pix journal verify`,
   * which also finds lines whose entry has no start, which a follower passes over).
   */
  damage(): JournalDamage[];
}

/**
 * The journal of `dir` for a follower: it holds only the entries `keep` takes, and lets each go once
 * `watch` finds it settled, so what it holds does not grow with the journal (pix listen's memory: the
 * unresolved payments and unpaid charges, not a year of paid batches).
 */
export function followJournal(
  dir: string,
  keep: (entry: JournalEntry) => boolean,
  watch: JournalWatch,
): JournalFollower {
  const path = join(dir, JOURNAL_FILE);
  let quiet = false;
  let started = false;
  const told: JournalWatch = {
    changed: (entry, line) => {
      if (!quiet) watch.changed(entry, line);
    },
    settled: (entry) => watch.settled(entry),
  };
  const tail = journalTail(
    path,
    (identity) => {
      // A journal read before and found replaced or cut: what it holds now is taken as old.
      if (started) quiet = true;
      started = true;
      return { identity, offset: 0, parser: createJournalParser(undefined, keep, told) };
    },
    FOLLOW_BYTES,
  );
  let last: Loaded | undefined;
  return {
    path,
    read(quietUntil) {
      try {
        if (quietUntil !== undefined) {
          quiet = true;
          last = tail.load(undefined, quietUntil);
          quiet = false;
        }
        last = tail.load();
      } finally {
        quiet = false;
      }
      return last && { identity: last.identity, offset: last.offset };
    },
    entries: () => last?.parser.entries() ?? [],
    damage: () => last?.parser.damage() ?? [],
  };
}
