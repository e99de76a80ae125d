/**
 * The journal file (contract §7.6, §8): `<config dir>/journal.jsonl`, opened only through
 * config/files.ts — the directory 0700, the file 0600, opened O_NOFOLLOW (a symbolic link planted at
 * journal.jsonl is refused, never followed), each line appended with ONE write(2) on an O_APPEND
 * descriptor and fsync'd before the call returns, so concurrent writers interleave whole lines and a
 * line torn by a crash is skipped by the reader (entries.ts).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { appendPrivateLine, ensurePrivateDir, readPrivateFrom } from '../config/files.js';
import type { Clock } from '../deps.js';
import {
  type ChargeMatchRecord,
  createJournalParser,
  type FinishFields,
  JOURNAL_FILE,
  type JournalEntry,
  type JournalParser,
  type Resolution,
  type StartFields,
  startLine,
} from './entries.js';
import { type Blocker, type DuplicateQuery, entriesBefore, findBlocking } from './rules.js';

export interface Journal {
  readonly path: string;
  /** Every entry in the order they started, each with its latest outcome and resolution. */
  read(): JournalEntry[];
  /** Appends the `sending` line (on disk before this returns) and returns the entry. */
  begin(fields: StartFields): JournalEntry;
  /** Appends the outcome of entry `id`. */
  finish(id: string, outcome: FinishFields): void;
  /** Appends the operator's finding about entry `id`. */
  resolve(id: string, resolution: Resolution): void;
  /** Appends the statement entry that paid charge entry `id` (the charge ledger). */
  match(id: string, match: ChargeMatchRecord): void;
  /**
   * The earlier payment that stops this one, if any (rules.ts). With `before`, only entries started
   * before that id count: used after appending our own line, to close the race between two processes.
   */
  findBlocking(query: DuplicateQuery, before?: string): Blocker | undefined;
}

/** The journal in `dir` (created 0700 when missing). */
export function openJournal(dir: string, clock: Clock): Journal {
  const path = join(dir, JOURNAL_FILE);
  const append = (record: object) => {
    ensurePrivateDir(dir);
    appendPrivateLine(path, JSON.stringify(record));
  };
  // The journal only grows: each read parses just the whole lines appended since the last one (a batch
  // reads it once per row), and starts over if the file was replaced or cut.
  let parsed: { identity: string; offset: number; parser: JournalParser } | undefined;
  const read = (): JournalEntry[] => {
    let tail = readPrivateFrom(path, parsed?.offset ?? 0);
    if (tail === undefined) {
      parsed = undefined;
      return [];
    }
    if (parsed === undefined || tail.identity !== parsed.identity || tail.size < parsed.offset) {
      if (parsed !== undefined) tail = readPrivateFrom(path, 0) ?? { ...tail, bytes: Buffer.alloc(0) };
      parsed = { identity: tail.identity, offset: 0, parser: createJournalParser() };
    }
    const whole = tail.bytes.lastIndexOf(0x0a) + 1;
    parsed.parser.feed(tail.bytes.subarray(0, whole).toString('utf8'));
    parsed.offset += whole;
    return parsed.parser.entries();
  };
  const journal: Journal = {
    path,
    read,
    begin(fields) {
      const entry: JournalEntry = {
        ...fields,
        id: randomUUID(),
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
    findBlocking(query, before) {
      const entries = journal.read();
      return findBlocking(
        before === undefined ? entries : entriesBefore(entries, before),
        query,
        clock.now(),
      );
    },
  };
  return journal;
}
