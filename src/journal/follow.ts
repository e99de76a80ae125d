/**
 * The journal for a process that runs for long and follows it (pix listen): the lines appended since the
 * last read, each change told to a watch, holding only the entries not yet settled.
 */
import { join } from 'node:path';
import { JOURNAL_FILE, type JournalEntry } from './entries.js';
import { createJournalParser, type JournalDamage, type JournalWatch } from './parser.js';
import { journalTail, type Loaded } from './tail.js';

/**
 * The same for a follower, which reads the journal once whole and then lives on: smaller pieces leave a
 * smaller heap behind (pix listen with a 100,000-line journal: 111 MB of RSS once idle with 1 MB pieces,
 * 82 MB with these), for a few hundred more reads of a file the page cache holds.
 */
const FOLLOW_BYTES = 1 << 16;

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
