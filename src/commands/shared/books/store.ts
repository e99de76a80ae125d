/**
 * What `pix reconcile` and `pix close` remember, per account, in the config directory:
 * `<config dir>/books/<account>/` (0700), through storage/ only —
 *
 * - `decisions.jsonl`: a person's `pix reconcile match|unmatch`, one line each, appended (one write,
 *   fsync'd); the latest about a pair counts, so nothing is ever rewritten;
 * - `closes.jsonl`: each close of a day (domain/books.ts ClosedDay), appended under a lock (two closes
 *   at once would both read the same previous balance); the latest line of a day is its close;
 * - `days/<YYYY-MM-DD>/`: a day's pack, unless `--dir` put it elsewhere.
 *
 * The account is the one the pay commands pay from (accountOf, as the API identifies it); booksKey() alone
 * turns it into the directory's name.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Deps } from '../../../context.js';
import { type ClosedDay, closeOf, foldCloses } from '../../../domain/books.js';
import type { Decision } from '../../../domain/reconcile.js';
import type { Account } from '../../../journal/rules.js';
import { appendPrivateLine } from '../../../storage/append.js';
import { checkPrivateDir, ensurePrivateDir } from '../../../storage/dirs.js';
import { readPrivateFile } from '../../../storage/files.js';
import { withFileLock } from '../../../storage/locks.js';
import { accountOf } from '../account.js';

/**
 * THE name of an account's books directory: a digest of the account's id (commands/shared/account.ts), so
 * every profile of one account, and every spelling of its URL, keeps one set of books.
 */
export function booksKey(account: Pick<Account, 'id'>): string {
  return createHash('sha256').update(account.id).digest('hex').slice(0, 16);
}

export interface Books {
  account: Account;
  dir: string;
  decisions(): Decision[];
  addDecision(decision: Decision): void;
  /** Each closed day's close, oldest day first. */
  closes(): ClosedDay[];
  /** Runs `work` holding the closes' lock (a close reads the previous balance and appends its own). */
  locked<T>(work: () => Promise<T>): Promise<T>;
  addClose(close: ClosedDay): void;
  /** Where a day's pack goes by default. */
  dayDir(day: string): string;
}

/** Lines of a JSON-lines file that parse and that `take` accepts; a damaged one is skipped with a warning. */
function readLines<T>(
  path: string,
  take: (value: unknown) => T | undefined,
  warn: (line: string) => void,
): T[] {
  const text = readPrivateFile(path);
  if (text === undefined) return [];
  const found: T[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: T | undefined;
    try {
      value = take(JSON.parse(line));
    } catch {
      value = undefined;
    }
    if (value === undefined) warn(`warning: ${path} line ${index + 1} cannot be read: left out`);
    else found.push(value);
  });
  return found;
}

function decisionOf(value: unknown): Decision | undefined {
  const v = value as Partial<Decision> | null;
  if (typeof v !== 'object' || v === null) return undefined;
  if (typeof v.expectation !== 'string' || typeof v.entry !== 'string' || typeof v.at !== 'string')
    return undefined;
  if (v.decision !== 'match' && v.decision !== 'unmatch') return undefined;
  return { expectation: v.expectation, entry: v.entry, decision: v.decision, at: v.at };
}

/** The books of the resolved profile's account. */
export async function openBooks(deps: Deps): Promise<Books> {
  const [store, account] = await Promise.all([deps.config(), accountOf(deps)]);
  checkPrivateDir(store.dir);
  const dir = join(store.dir, 'books', booksKey(account));
  const warn = (line: string) => deps.io.stderr.write(`${line}\n`);
  const decisionsFile = join(dir, 'decisions.jsonl');
  const closesFile = join(dir, 'closes.jsonl');
  return {
    account,
    dir,
    decisions: () => readLines(decisionsFile, decisionOf, warn),
    addDecision(decision) {
      ensurePrivateDir(dir);
      appendPrivateLine(decisionsFile, JSON.stringify(decision));
    },
    closes: () => foldCloses(readLines(closesFile, closeOf, warn)),
    locked(work) {
      ensurePrivateDir(dir);
      return withFileLock(closesFile, 'the closed days', deps, work);
    },
    addClose(close) {
      ensurePrivateDir(dir);
      appendPrivateLine(closesFile, JSON.stringify(close));
    },
    dayDir: (day) => join(dir, 'days', day),
  };
}
