/**
 * The spill file (docs/team.md): `<config dir>/ledger-spill.jsonl`, where an outcome goes when the shared
 * ledger was lost after the transfer left. Each line names the database it belongs to (host, port,
 * database: never a credential) and the change it carries; it is appended with fsync (storage/append.ts),
 * and written to that database by the next command that reaches it, before anything else, then removed.
 * A transfer whose outcome is here is never sent again: its claim is in the database already.
 */
import { join } from 'node:path';
import { appendPrivateLine } from '../../storage/append.js';
import { ensurePrivateDir } from '../../storage/dirs.js';
import { readPrivateFile, writeFileAtomic } from '../../storage/files.js';
import { type LockHost, withFileLock } from '../../storage/locks.js';

export const SPILL_FILE = 'ledger-spill.jsonl';

export interface SpilledChange {
  /** The database, as describeLedger names it. */
  db: string;
  op: 'finish' | 'resolve' | 'match';
  id: string;
  /** The line the file store would append (entries.ts), with its `at`. */
  line: Record<string, unknown>;
}

export function spillPath(dir: string): string {
  return join(dir, SPILL_FILE);
}

export function spill(dir: string, change: SpilledChange): string {
  ensurePrivateDir(dir);
  const path = spillPath(dir);
  appendPrivateLine(path, JSON.stringify(change), { torn: 'keep' });
  return path;
}

/** The changes waiting for database `db`, oldest first (lines of other databases and torn lines skipped). */
export function waiting(dir: string, db: string): SpilledChange[] {
  return parseSpill(readPrivateFile(spillPath(dir)) ?? '').filter((change) => change.db === db);
}

function parseSpill(text: string): SpilledChange[] {
  const changes: SpilledChange[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as SpilledChange;
      if (typeof value.db === 'string' && typeof value.id === 'string' && typeof value.line === 'object')
        changes.push(value);
    } catch {
      // A line torn by a crash mid-write: its outcome was never reported as kept, and the lease stopping
      // makes the entry unknown, never unpaid.
    }
  }
  return changes;
}

/**
 * Writes database `db`'s changes through `apply` (oldest first) and removes them, under the spill file's
 * lock: two commands of this machine never write one twice (writing one twice would be harmless too).
 * Returns how many were written. A failure leaves the rest in the file.
 */
export async function drain(
  dir: string,
  db: string,
  host: LockHost,
  apply: (change: SpilledChange) => Promise<void>,
): Promise<number> {
  const path = spillPath(dir);
  if (readPrivateFile(path) === undefined) return 0;
  return withFileLock(path, 'the ledger spill file', host, async () => {
    const all = parseSpill(readPrivateFile(path) ?? '');
    const mine = all.filter((change) => change.db === db);
    let done = 0;
    try {
      for (const change of mine) {
        await apply(change);
        done++;
      }
    } finally {
      if (done > 0) {
        const written = new Set(mine.slice(0, done));
        const left = all.filter((change) => !written.has(change));
        writeFileAtomic(path, left.map((change) => `${JSON.stringify(change)}\n`).join(''));
      }
    }
    return done;
  });
}
