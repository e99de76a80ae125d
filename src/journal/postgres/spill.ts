/**
 * The spill file (docs/team.md): `<config dir>/ledger-spill.jsonl`, where an outcome goes when the shared
 * ledger was lost after the transfer left. Each line names the database it belongs to (host, port,
 * database: never a credential) and the change it carries; it is appended under the file's lock with fsync
 * (storage/append.ts), and written to that database by the next command that reaches it, before anything
 * else. A transfer whose outcome is here is never sent again: its claim is in the database already.
 *
 * It is trusted only as far as it can be checked, as the journal is (journal/chain.ts): every line names the
 * digest of the one before it (`prev`), and a checkpoint beside it (`ledger-spill.jsonl.checkpoint`) records
 * where it ended. A line edited, removed or moved, or lines cut from its end, is damage; so is a spilled
 * outcome the database contradicts (judgeSpilled: an entry resolved the other way, finished otherwise, or
 * not there). Either is never written to the database: commands that move money stop (exit 8) and `pix
 * ledger status` names it (inspectSpill), until the operator has settled it and moved the file aside.
 *
 * Lines written to the database are removed by rewriting the file with the rest (chained afresh): the new
 * checkpoint is written first as `….checkpoint.next`, then the file, then the checkpoint renamed over the
 * old one; a reader finding `.next` believes whichever of the two the file agrees with, so a crash between
 * the steps is never taken for damage.
 */
import { renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { appendPrivateLine } from '../../storage/append.js';
import { ensurePrivateDir } from '../../storage/dirs.js';
import { readPrivateFile, writeFileAtomic } from '../../storage/files.js';
import { type LockHost, withFileLock } from '../../storage/locks.js';
import {
  CHECKPOINT_SUFFIX,
  type ChainTail,
  type Checkpoint,
  createChainFollower,
  cutDamage,
  formatCheckpoint,
  judgeCheckpoint,
  lineDigest,
  parseCheckpoint,
} from '../chain.js';

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

const checkpointPath = (path: string) => `${path}${CHECKPOINT_SUFFIX}`;
const nextPath = (path: string) => `${path}${CHECKPOINT_SUFFIX}.next`;

/** What the file holds: its changes (with their line numbers), its end, and its damage if any. */
export interface SpillRead {
  changes: Array<SpilledChange & { lineNo: number }>;
  tail: ChainTail;
  /** The digest the next line names. */
  head: string;
  damage?: { line: number; reason: string };
}

function isChange(value: unknown): value is SpilledChange {
  const change = value as Partial<SpilledChange> | null;
  return (
    typeof change === 'object' &&
    change !== null &&
    typeof change.db === 'string' &&
    typeof change.id === 'string' &&
    (change.op === 'finish' || change.op === 'resolve' || change.op === 'match') &&
    typeof change.line === 'object' &&
    change.line !== null
  );
}

/** Reads the file and judges its end against the checkpoint (or the one being written: `.next`). */
export function readSpill(path: string): SpillRead {
  const text = readPrivateFile(path) ?? '';
  const follower = createChainFollower();
  const changes: SpillRead['changes'] = [];
  let damage: SpillRead['damage'];
  let lineNo = 0;
  let bytes = 0;
  const pieces = text.split('\n');
  // The last piece follows the last newline: empty, or a line torn by a writer that died mid-write (never
  // counted: the next writer cuts it).
  for (const piece of pieces.slice(0, -1)) {
    lineNo++;
    bytes += Buffer.byteLength(piece) + 1;
    let value: unknown;
    try {
      value = JSON.parse(piece);
    } catch {
      value = undefined;
    }
    // A line that is not JSON is no member of the chain (null); one without `prev` is an earlier pix's.
    const prev = value === undefined ? null : (value as { prev?: unknown } | null)?.prev;
    const broken = follower.follow(lineNo, piece, prev, !isChange(value));
    if (!isChange(value)) damage ??= { line: lineNo, reason: 'not a spilled outcome: edited or damaged' };
    else changes.push({ db: value.db, op: value.op, id: value.id, line: value.line, lineNo });
    if (broken !== undefined) damage ??= { line: lineNo, reason: broken };
  }
  const tail = follower.tail(lineNo, bytes);
  if (damage === undefined) damage = judgeEnd(path, tail);
  return { changes, tail, head: follower.head(), ...(damage === undefined ? {} : { damage }) };
}

function judgeEnd(path: string, tail: ChainTail): SpillRead['damage'] {
  const judge = (checkpoint: Checkpoint | undefined) => {
    if (checkpoint !== undefined && checkpoint.lines > tail.lines) return cutDamage(checkpoint, tail);
    const judged = judgeCheckpoint(checkpoint, tail, checkpointPath(path));
    if (judged.kind === 'ok') return undefined;
    if (judged.kind === 'ahead') return cutDamage(judged.checkpoint, tail);
    return { line: judged.line, reason: judged.reason };
  };
  const checkpointText = readPrivateFile(checkpointPath(path));
  const current = checkpointText === undefined ? undefined : parseCheckpoint(checkpointText);
  if (checkpointText !== undefined && current === undefined && tail.lines > 0) {
    return {
      line: tail.lines,
      reason: `its checkpoint ${checkpointPath(path)} is not one: edited or damaged`,
    };
  }
  const found = judge(current);
  if (found === undefined) return undefined;
  // A rewrite cut short between its steps: the file is the one the next checkpoint describes.
  const next = readPrivateFile(nextPath(path));
  if (next !== undefined && judge(parseCheckpoint(next)) === undefined) return undefined;
  if (tail.lines === 0 && next !== undefined && parseCheckpoint(next) === undefined) return undefined;
  return found;
}

/** `FILE line N: reason`, for people. */
export function describeSpillDamage(path: string, damage: { line: number; reason: string }): string {
  return `${path} line ${damage.line}: ${damage.reason}`;
}

/**
 * Keeps `change` in the spill file (under its lock: the line names the one before it, and the checkpoint
 * follows). A damaged file still takes it: an outcome known here is never dropped.
 */
export async function spill(dir: string, change: SpilledChange, host: LockHost): Promise<string> {
  ensurePrivateDir(dir);
  const path = spillPath(dir);
  await withFileLock(path, 'the ledger spill file', host, () => {
    const read = readSpill(path);
    const text = JSON.stringify({ ...change, prev: read.head });
    appendPrivateLine(path, text, { torn: 'cut' });
    const checkpoint = {
      lines: read.tail.lines + 1,
      bytes: read.tail.bytes + Buffer.byteLength(text) + 1,
      last: lineDigest(text),
    };
    writeFileAtomic(checkpointPath(path), formatCheckpoint(checkpoint));
    rmSync(nextPath(path), { force: true });
  });
  return path;
}

/** Replaces the file with `changes`, chained afresh, and its checkpoint (see the module's comment). */
function rewrite(path: string, changes: readonly SpilledChange[]): void {
  let prev = lineDigest('');
  let bytes = 0;
  const lines: string[] = [];
  for (const change of changes) {
    const text = JSON.stringify({ db: change.db, op: change.op, id: change.id, line: change.line, prev });
    lines.push(text);
    prev = lineDigest(text);
    bytes += Buffer.byteLength(text) + 1;
  }
  if (lines.length === 0) {
    // Nothing left: an empty file needs no checkpoint (and a missing one vouches for an empty file).
    writeFileAtomic(nextPath(path), '');
    writeFileAtomic(path, '');
    rmSync(checkpointPath(path), { force: true });
    rmSync(nextPath(path), { force: true });
    return;
  }
  writeFileAtomic(nextPath(path), formatCheckpoint({ lines: lines.length, bytes, last: prev }));
  writeFileAtomic(path, `${lines.join('\n')}\n`);
  renameSync(nextPath(path), checkpointPath(path));
}

/** What a spilled outcome meets in the database (judgeSpilled). */
export interface SpilledAgainst {
  state: string;
  resolution: string | null;
}

/**
 * Whether a spilled finish may be written over the entry as the database has it now: `apply` while the
 * entry waits for it (sending, or unknown since its lease lapsed) and nobody said otherwise; `done` when
 * the database has it already; else a contradiction, in words — never an unconditional update.
 */
export function judgeSpilled(
  change: SpilledChange,
  row: SpilledAgainst | undefined,
): 'apply' | 'done' | string {
  if (change.op !== 'finish') return 'apply';
  const state = String(change.line.state);
  if (row === undefined) return `journal entry ${change.id} is not in the database`;
  const agrees =
    row.resolution === null ||
    state === 'unknown' ||
    (row.resolution === 'paid' && state === 'done') ||
    (row.resolution === 'not-paid' && state === 'failed');
  if (!agrees) {
    return `journal entry ${change.id} ended ${state} here, but was resolved ${row.resolution} on the ledger`;
  }
  if (row.state === state) return 'done';
  if (row.state === 'sending' || row.state === 'unknown') return 'apply';
  return `journal entry ${change.id} ended ${state} here, but is ${row.state} on the ledger`;
}

/** A spill that cannot be written to the database: the damage or contradiction, and the file. */
export interface SpillProblem {
  file: string;
  message: string;
}

/**
 * Writes database `db`'s changes through `apply` (oldest first) and removes them, under the spill file's
 * lock: two commands of this machine never write one twice. `apply` returns what the database said of it
 * (judgeSpilled's words for a contradiction). A damaged file, or the first contradiction, stops it: the
 * changes it could not write stay, and the problem is returned.
 */
export async function drain(
  dir: string,
  db: string,
  host: LockHost,
  apply: (change: SpilledChange) => Promise<'applied' | 'done' | string>,
): Promise<{ written: number; problem?: SpillProblem }> {
  const path = spillPath(dir);
  if (statSync(path, { throwIfNoEntry: false }) === undefined) return { written: 0 };
  return withFileLock(path, 'the ledger spill file', host, async () => {
    const read = readSpill(path);
    if (read.damage !== undefined) {
      return { written: 0, problem: { file: path, message: describeSpillDamage(path, read.damage) } };
    }
    const mine = read.changes.filter((change) => change.db === db);
    const written = new Set<(typeof mine)[number]>();
    let problem: SpillProblem | undefined;
    try {
      for (const change of mine) {
        const said = await apply(change);
        if (said !== 'applied' && said !== 'done') {
          problem = { file: path, message: `${path} line ${change.lineNo}: ${said}` };
          break;
        }
        written.add(change);
      }
    } finally {
      if (written.size > 0)
        rewrite(
          path,
          read.changes.filter((change) => !written.has(change)),
        );
    }
    return { written: written.size, ...(problem === undefined ? {} : { problem }) };
  });
}

/** What `pix ledger status` shows of the spill: the changes waiting for `db`, and the file's damage. */
export function inspectSpill(dir: string, db: string): { waiting: SpilledChange[]; damage?: string } {
  const path = spillPath(dir);
  if (statSync(path, { throwIfNoEntry: false }) === undefined) return { waiting: [] };
  const read = readSpill(path);
  return {
    waiting: read.changes.filter((change) => change.db === db),
    ...(read.damage === undefined ? {} : { damage: describeSpillDamage(path, read.damage) }),
  };
}

/** The changes waiting for database `db`, oldest first. */
export function waiting(dir: string, db: string): SpilledChange[] {
  return inspectSpill(dir, db).waiting;
}
