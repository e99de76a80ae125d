/**
 * What `pix reconcile` and `pix close` remember, per account:
 *
 * - `decisions.jsonl`, in the config directory's `books/<account>/` (0700): a person's `pix reconcile
 *   match|unmatch`, one line each, appended (one write, fsync'd); the latest about a pair counts;
 * - the closed days (domain/books.ts ClosedDay), WHERE THE JOURNAL IS: the shared ledger's pix_closes when
 *   the profile's ledger is a database (every machine sees the days another closed), else `closes.jsonl`
 *   in the books directory; appended under a lock (two closes at once would both read the same previous
 *   balance: on a shared ledger, an advisory lock every machine takes); the latest line of a day is its
 *   close. A machine's closes.jsonl is moved to the shared ledger the first time it is read there;
 * - `days/<YYYY-MM-DD>/`: a day's pack, unless `--dir` put it elsewhere.
 *
 * The account is the one the pay commands pay from (accountOf, as the API identifies it); booksKey() alone
 * turns it into the directory's name, and a directory of one of its former names is adopted.
 */
import { createHash } from 'node:crypto';
import { renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Deps } from '../../../context.js';
import { type ClosedDay, closeOf, foldCloses } from '../../../domain/books.js';
import type { Decision } from '../../../domain/reconcile.js';
import type { Account } from '../../../journal/rules.js';
import type { ClosesStore } from '../../../journal/stores.js';
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
  /** Where the closed days are, for people: the closes file, or the shared ledger. */
  where: string;
  decisions(): Decision[];
  addDecision(decision: Decision): void;
  /** Each closed day's close, oldest day first, and the lines that could not be read. */
  closes(): Promise<{ closes: ClosedDay[]; unreadable: string[] }>;
  /** Runs `work` holding the closes' lock (a close reads the previous balance and appends its own). */
  locked<T>(work: () => Promise<T>): Promise<T>;
  addClose(close: ClosedDay): Promise<void>;
  /** Where a day's pack goes by default. */
  dayDir(day: string): string;
}

/** Lines of a JSON-lines text that parse and that `take` accepts; `bad` is told of each one that does not. */
function readLines<T>(
  text: string | undefined,
  take: (value: unknown) => T | undefined,
  bad: (line: number) => void,
): T[] {
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
    if (value === undefined) bad(index + 1);
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

/** A books directory of one of the account's former names, adopted under its id (unless it has one). */
function adoptFormer(root: string, account: Account, dir: string): void {
  if (statSync(dir, { throwIfNoEntry: false }) !== undefined) return;
  for (const former of account.formerIds) {
    const from = join(root, booksKey({ id: former }));
    if (statSync(from, { throwIfNoEntry: false }) === undefined) continue;
    renameSync(from, dir);
    return;
  }
}

/** The books of the resolved profile's account. */
export async function openBooks(deps: Deps): Promise<Books> {
  const [store, account] = await Promise.all([deps.config(), accountOf(deps)]);
  checkPrivateDir(store.dir);
  const root = join(store.dir, 'books');
  const dir = join(root, booksKey(account));
  adoptFormer(root, account, dir);
  const warn = (line: string) => deps.io.stderr.write(`${line}\n`);
  const decisionsFile = join(dir, 'decisions.jsonl');
  const closesFile = join(dir, 'closes.jsonl');
  const shared = (await deps.stores.journal()).closes?.();
  const names = [account.id, ...account.formerIds];
  /** This machine's closed days, taken to the shared ledger the first time it is read there. */
  const moveToLedger = async (ledger: ClosesStore) => {
    const local = readPrivateFile(closesFile);
    const lines = (local ?? '').split('\n').filter((line) => line.trim() !== '');
    if (lines.length === 0 || (await ledger.lines(names)).length > 0) return;
    for (const line of lines) {
      const day =
        closeOf(
          (() => {
            try {
              return JSON.parse(line);
            } catch {
              return undefined;
            }
          })(),
        )?.day ?? 'unreadable';
      await ledger.append(account.id, day, line);
    }
    renameSync(closesFile, `${closesFile}.moved-to-ledger`);
    warn(
      `note: ${lines.length} closed day line(s) of ${closesFile} moved to the shared ledger ${ledger.where}`,
    );
  };
  return {
    account,
    dir,
    where: shared?.where ?? closesFile,
    decisions: () =>
      readLines(readPrivateFile(decisionsFile), decisionOf, (line) =>
        warn(`warning: ${decisionsFile} line ${line} cannot be read: left out`),
      ),
    addDecision(decision) {
      ensurePrivateDir(dir);
      appendPrivateLine(decisionsFile, JSON.stringify(decision));
    },
    async closes() {
      const unreadable: string[] = [];
      if (shared !== undefined) {
        await moveToLedger(shared);
        const lines = await shared.lines(names);
        const closes = readLines(`${lines.join('\n')}\n`, closeOf, (line) =>
          unreadable.push(`${shared.where} close ${line}`),
        );
        return { closes: foldCloses(closes), unreadable };
      }
      const closes = readLines(readPrivateFile(closesFile), closeOf, (line) =>
        unreadable.push(`${closesFile} line ${line}`),
      );
      return { closes: foldCloses(closes), unreadable };
    },
    locked(work) {
      if (shared !== undefined) return shared.locked(account.id, work);
      ensurePrivateDir(dir);
      return withFileLock(closesFile, 'the closed days', deps, work);
    },
    async addClose(close) {
      if (shared !== undefined) return shared.append(account.id, close.day, JSON.stringify(close));
      ensurePrivateDir(dir);
      appendPrivateLine(closesFile, JSON.stringify(close));
    },
    dayDir: (day) => join(dir, 'days', day),
  };
}
