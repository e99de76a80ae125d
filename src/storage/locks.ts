/**
 * The locks on pix's own files.
 *
 * - Read-modify-write runs under a lock file (`<file>.lock`, O_EXCL, holding the pid); a lock whose
 *   process is dead, or that is older than 30 s, is taken over. withFileLockSync takes the same lock for
 *   short synchronous work (the journal's appends). A lock held for a whole run (holdLock: one listener
 *   per account) has no age limit: only its process's death frees it.
 */
import { closeSync, constants, lstatSync, openSync, readFileSync, type Stats, unlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Clock, Processes } from '../context.js';
import { PixError } from '../errors.js';
import { writeAll } from './files.js';

/**
 * What locking needs of the world, given by the caller (a command's Deps is one): the time a wait started and
 * a lock's age, the jitter between attempts, this process's id (written in the lock) and whether another's
 * is alive. This module reads none of them itself (architecture rule 2).
 */
export interface LockHost {
  clock: Clock;
  random(): number;
  processes: Processes;
}
const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** How long a writer waits for a lock before giving up, and when a lock is stale whatever its pid. */
export const LOCK_WAIT_MS = 20_000;
export const LOCK_STALE_MS = 30_000;

/** A lock whose process is gone, or that is older than LOCK_STALE_MS, is removed; true when it is free now. */
function removeIfStale(lockFile: string, host: LockHost): boolean {
  const now = host.clock.now().getTime();
  let text: string;
  let stats: Stats;
  try {
    stats = lstatSync(lockFile);
    text = readFileSync(lockFile, 'utf8');
  } catch {
    return true; // released meanwhile: try again at once
  }
  let pid: number | undefined;
  try {
    pid = (JSON.parse(text) as { pid?: number }).pid;
  } catch {
    // Half-written by a process killed between open and write: judged by its age alone.
  }
  const age = now - stats.mtimeMs;
  const dead = pid !== undefined && pid !== host.processes.pid && !host.processes.alive(pid);
  const old = age > LOCK_STALE_MS || (pid === undefined && age > 2_000);
  if (!dead && !old) return false;
  try {
    if (readFileSync(lockFile, 'utf8') !== text) return false; // someone else took it over meanwhile
    unlinkSync(lockFile);
  } catch {
    // Someone else removed it first.
  }
  return true;
}

/** What a lock held for a process's whole run says about its holder (its pid, and what it is doing). */
export interface LockHolder {
  pid: number;
  /** When it was taken (ISO 8601). */
  at: string;
  [detail: string]: unknown;
}

/** A lock held for a process's whole run: released by `release`, or by the holder's death. */
export type HeldLock = { held: true; release(): void } | { held: false; holder: LockHolder };

/** The run-long locks this process holds (a lock naming our pid that is not among them is a dead run's). */
const heldHere = new Set<string>();

/**
 * Takes `lockFile` (O_EXCL|O_NOFOLLOW, 0600, holding `holder` as JSON) for as long as this process runs,
 * or says who holds it. Unlike withFileLock's locks, it has no age limit (a listener runs for months): a
 * lock is taken over only when its process is dead (`host.processes.alive`), names this very process (a container
 * restarted with the same pid), or was left half-written more than 2 s ago. `release` removes it only while
 * it is still ours.
 */
export function holdLock(lockFile: string, holder: LockHolder, host: Omit<LockHost, 'random'>): HeldLock {
  const now = host.clock.now().getTime();
  const text = JSON.stringify(holder);
  for (;;) {
    try {
      const fd = openSync(lockFile, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      try {
        writeAll(fd, Buffer.from(text));
      } finally {
        closeSync(fd);
      }
      heldHere.add(resolve(lockFile));
      return {
        held: true,
        release() {
          heldHere.delete(resolve(lockFile));
          try {
            if (readFileSync(lockFile, 'utf8') === text) unlinkSync(lockFile);
          } catch {
            // Gone already: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const found = readLock(lockFile);
    if (found === undefined) continue; // released meanwhile
    const { pid } = found.holder;
    const stale =
      pid === undefined
        ? now - found.mtimeMs > 2_000
        : pid === host.processes.pid
          ? !heldHere.has(resolve(lockFile))
          : !host.processes.alive(pid);
    if (!stale) return { held: false, holder: found.holder as LockHolder };
    try {
      if (readFileSync(lockFile, 'utf8') === found.text) unlinkSync(lockFile);
    } catch {
      // Someone else took it over first: try again.
    }
  }
}

function readLock(
  lockFile: string,
): { text: string; mtimeMs: number; holder: Partial<LockHolder> } | undefined {
  try {
    const { mtimeMs } = lstatSync(lockFile);
    const text = readFileSync(lockFile, 'utf8');
    let holder: Partial<LockHolder> = {};
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'object' && value !== null && typeof (value as LockHolder).pid === 'number') {
        holder = value as LockHolder;
      }
    } catch {
      // Half-written by a process killed between open and write: judged by its age alone.
    }
    return { text, mtimeMs, holder };
  } catch {
    return undefined;
  }
}

/** Another live process held the lock for all of LOCK_WAIT_MS. */
export class LockTimeoutError extends PixError {
  constructor(describe: string, lockFile: string) {
    super('unavailable', `${describe} stayed locked for ${LOCK_WAIT_MS / 1000} s`, {
      hint: `another pix is using it; if none is running, remove ${lockFile}`,
    });
  }
}

/** One attempt at taking `lockFile` (O_EXCL|O_NOFOLLOW, 0600, holding `{pid, at}`): true when taken. */
function tryLock(lockFile: string, host: LockHost): boolean {
  let fd: number;
  try {
    fd = openSync(lockFile, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  }
  try {
    writeAll(
      fd,
      Buffer.from(JSON.stringify({ pid: host.processes.pid, at: host.clock.now().toISOString() })),
    );
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * After a failed attempt: 0 to try again at once (the lock was stale and is gone), else how many ms to
 * wait before the next one (growing with the attempts up to `cap`, jittered). Throws once the wait has
 * lasted LOCK_WAIT_MS.
 */
function lockBackoff(
  host: LockHost,
  lockFile: string,
  describe: string,
  started: number,
  attempt: number,
  cap: number,
): number {
  if (removeIfStale(lockFile, host)) return 0;
  if (host.clock.now().getTime() - started > LOCK_WAIT_MS) throw new LockTimeoutError(describe, lockFile);
  return Math.min(1 + attempt, cap) * (0.5 + host.random());
}

function unlock(lockFile: string): void {
  try {
    unlinkSync(lockFile);
  } catch {
    // Already gone (taken over as stale): nothing to release.
  }
}

/**
 * Runs `work` holding `<file>.lock` (O_EXCL|O_NOFOLLOW, 0600, holding `{pid, at}`), waiting up to
 * LOCK_WAIT_MS for another holder. The directory must exist. `describe` names what is locked in the
 * error a person sees when the wait runs out.
 */
export async function withFileLock<T>(
  file: string,
  describe: string,
  host: LockHost,
  work: () => T | Promise<T>,
): Promise<T> {
  const lockFile = `${file}.lock`;
  const started = host.clock.now().getTime();
  for (let attempt = 0; !tryLock(lockFile, host); attempt++) {
    const delay = lockBackoff(host, lockFile, describe, started, attempt, 25);
    if (delay > 0) await new Promise((resolveDelay) => setTimeout(resolveDelay, delay));
  }
  try {
    return await work();
  } finally {
    unlock(lockFile);
  }
}

/** What a synchronous waiter sleeps on (Atomics.wait on a value that never changes: a plain sleep). */
let sleeper: Int32Array | undefined;

/**
 * withFileLock for work that is synchronous and short (the journal's append: a read of what was
 * appended since, one write, the checkpoint): the same lock file, the same takeover of a stale lock.
 * The wait for another holder blocks the thread, which is what the caller's synchronous work does anyway.
 */
export function withFileLockSync<T>(file: string, describe: string, host: LockHost, work: () => T): T {
  const lockFile = `${file}.lock`;
  const started = host.clock.now().getTime();
  for (let attempt = 0; !tryLock(lockFile, host); attempt++) {
    // Its holders hold it for a write and an fsync: waiting longer than a few ms only loses time.
    const delay = lockBackoff(host, lockFile, describe, started, attempt, 4);
    sleeper ??= new Int32Array(new SharedArrayBuffer(4));
    if (delay > 0) Atomics.wait(sleeper, 0, 0, delay);
  }
  try {
    return work();
  } finally {
    unlock(lockFile);
  }
}
