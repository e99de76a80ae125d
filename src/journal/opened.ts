/**
 * One open journal (store.ts openJournal): its files (the journal, its checkpoint, its index file), its
 * lock, what has been read of it and where its end was last found sound — the state its steps share
 * (below: the judgement of its end; resume.ts, append.ts).
 */
import { join } from 'node:path';
import type { Clock, Processes } from '../context.js';
import { ensurePrivateDir } from '../storage/dirs.js';
import { readPrivateFile } from '../storage/files.js';
import { type LockHost, LockTimeoutError, withFileLockSync } from '../storage/locks.js';
import {
  CHECKPOINT_SUFFIX,
  type ChainTail,
  type Checkpoint,
  cutDamage,
  type Judgement,
  judgeCheckpoint,
  parseCheckpoint,
} from './chain.js';
import { JOURNAL_FILE, type JournalEntry } from './entries.js';
import { createJournalIndex, type JournalIndex } from './indexes.js';
import { INDEX_SUFFIX } from './indexfile.js';
import { createJournalParser } from './parser.js';
import { type JournalTail, journalTail, type Loaded, type PieceSource } from './tail.js';

// The journal only grows: each read parses just the whole lines appended since the last one, and
// starts over if the file was replaced or cut. Read from its start, it holds every entry; resumed from
// the index file (indexfile.ts), those started at or after `since` and those that still matter before
// it (rules.ts mattersBeyondWindow).
export interface Parsed extends Loaded {
  index: JournalIndex;
  /** Resumed from the index file: entries started before this (ms) that no longer matter are not held. */
  since?: number;
  /** Where it was resumed (the index file's length). */
  resumedAt?: number;
  /** Read from the start: the file's stamp then. */
  stamp?: string;
}

export interface OpenedJournal {
  readonly dir: string;
  readonly path: string;
  readonly checkpointPath: string;
  readonly indexPath: string;
  readonly clock: Clock;
  readonly processes: Processes | undefined;
  /** The entries to hold in memory (openJournal's `only`); every line is still read and checked. */
  readonly only: ((entry: JournalEntry) => boolean) | undefined;
  readonly host: LockHost;
  readonly tail: JournalTail<Parsed>;
  /**
   * Where the journal ended (its identity and length) when its end was last found sound, by a judgement
   * or by this process's own append: found so again with no line added since, the checkpoint need not be
   * read again (a batch asks before every row).
   */
  sound: { identity: string; offset: number; checkpoint: Checkpoint | undefined; lag: number } | undefined;
}

/** The journal in `dir`, nothing read yet. */
export function openedJournal(
  dir: string,
  host: LockHost,
  only: ((entry: JournalEntry) => boolean) | undefined,
): OpenedJournal {
  const path = join(dir, JOURNAL_FILE);
  // The lock's clock, jitter and pids are the command's, handed in (architecture rule 2).
  const { clock, processes } = host;
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
  return {
    dir,
    path,
    checkpointPath: `${path}${CHECKPOINT_SUFFIX}`,
    indexPath: `${path}${INDEX_SUFFIX}`,
    clock,
    processes,
    only,
    host,
    tail,
    sound: undefined,
  };
}

/** Runs `work` under the journal's lock (the directory made first). */
export function locked<T>(journal: OpenedJournal, work: () => T): T {
  ensurePrivateDir(journal.dir);
  return withFileLockSync(journal.path, `the journal ${journal.path}`, journal.host, work);
}

/** Reads and parses what was appended since the last read, from the file, or through `source`. */
export function load(journal: OpenedJournal, source?: PieceSource): Parsed | undefined {
  return journal.tail.load(source);
}

export const NO_TAIL: ChainTail = { lines: 0, bytes: 0, chained: 0 };

export function tailOf(loaded: Parsed | undefined): ChainTail {
  return loaded?.parser.tail(loaded.offset) ?? NO_TAIL;
}

export function readCheckpoint(journal: OpenedJournal): Checkpoint | undefined {
  const text = readPrivateFile(journal.checkpointPath);
  return text === undefined ? undefined : parseCheckpoint(text);
}

// The end of an open journal judged against its checkpoint (chain.ts): read to its end, then the
// checkpoint; anything but a sound end read without the lock is judged again under it before it is believed.

/** The end of the journal judged (chain.ts), with the checkpoint it was judged against. */
export type End = Exclude<Judgement, { kind: 'ahead' }> & { checkpoint: Checkpoint | undefined };

/** Reads the journal to its end, then the checkpoint, and judges the one against the other (chain.ts). */
export function judgeOnce(
  journal: OpenedJournal,
  loaded = load(journal),
): { judgement: Judgement; checkpoint: Checkpoint | undefined } {
  const { sound } = journal;
  if (sound !== undefined && loaded?.identity === sound.identity && loaded.offset === sound.offset)
    return { judgement: { kind: 'ok', lag: sound.lag }, checkpoint: sound.checkpoint };
  journal.sound = undefined;
  const checkpoint = readCheckpoint(journal);
  const judgement = judgeCheckpoint(checkpoint, tailOf(loaded), journal.checkpointPath);
  if (judgement.kind === 'ok' && loaded !== undefined)
    journal.sound = { identity: loaded.identity, offset: loaded.offset, checkpoint, lag: judgement.lag };
  return { judgement, checkpoint };
}

/**
 * The end of the journal judged. Under the lock (`quiet`) no writer is at work: a checkpoint past the
 * end is a cut. Without it, a writer may append and replace the checkpoint meanwhile: read after the
 * lines, the checkpoint is then past them, or (once read on) at most one line behind; and it may be
 * read while it is being written. So anything but a sound end is judged again under the lock before it
 * is believed (a read-only config directory, where no lock can be taken, keeps the first judgement).
 */
export function judgeEnd(journal: OpenedJournal, quiet: boolean): End {
  let once = judgeOnce(journal);
  if (once.judgement.kind === 'ahead' && !quiet) once = judgeOnce(journal);
  const { judgement, checkpoint } = once;
  if (judgement.kind !== 'ok' && !quiet) {
    try {
      return locked(journal, () => judgeEnd(journal, true));
    } catch (error) {
      // Only a lock that cannot be made (EACCES, EROFS) leaves the judgement as it is.
      if (error instanceof LockTimeoutError || !(error instanceof Error && 'code' in error)) throw error;
    }
  }
  if (judgement.kind === 'ahead')
    return {
      kind: 'damaged',
      ...cutDamage(judgement.checkpoint, tailOf(journal.tail.current())),
      checkpoint,
    };
  return { ...judgement, checkpoint };
}
