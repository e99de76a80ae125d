/**
 * pix's own files in the config directory (config.json, the journal, the sandbox state, token caches):
 * the ONE place they are created, opened, replaced and locked.
 *
 * - The directory is made 0700, one level at a time (Node's recursive mkdir spins forever under
 *   /proc), and an existing one that others can write to is refused with the `chmod` that fixes it.
 * - Files are opened with O_NOFOLLOW: a symbolic link planted at config.json or journal.jsonl is
 *   refused (ELOOP), never followed to wherever it points.
 * - Files are replaced atomically: a temporary file beside the target (created O_EXCL, 0600), written,
 *   fsync'd, renamed over the target, and the directory fsync'd; a crash leaves the old file or the
 *   new one, never half of one.
 * - Read-modify-write runs under a lock file (`<file>.lock`, O_EXCL, holding the pid); a lock whose
 *   process is dead, or that is older than 30 s, is taken over. withFileLockSync takes the same lock for
 *   short synchronous work (the journal's appends). A lock held for a whole run (holdLock: one listener
 *   per account) has no age limit: only its process's death frees it.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Clock, Processes } from '../context.js';
import { PixError } from '../errors.js';

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

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW, O_NONBLOCK, O_RDWR } = constants;

/** Deepest directory chain pix will create: no real config path is deeper, and no loop can be longer. */
const MAX_DEPTH = 64;

/** A directory (of pix's own) that others may write to: refused, with the command that fixes it. */
export class UnsafeDirectoryError extends PixError {
  constructor(dir: string, mode: number) {
    super(
      'usage',
      `the config directory ${dir} can be written by others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); pix keeps credentials and the journal there`,
      { hint: `run \`chmod 700 ${dir}\`, or point PIX_CONFIG_DIR at a private directory` },
    );
  }
}

export interface DirOptions {
  /**
   * True (the default) for pix's own directory (the config directory): an existing one that others can
   * write to is refused, one they can only read is tightened to 0700. False for the directory of a file the
   * user named (`pix sandbox serve --state ./ci.json`): missing levels are still made 0700, an existing
   * directory is left as it is.
   */
  own?: boolean;
}

/**
 * Makes `dir` (and its missing parents) a directory, every level it creates 0700 exactly (whatever the
 * umask), one mkdir per level so it cannot loop. An existing `dir` of pix's own that is group- or
 * world-writable is refused; one that is merely readable by others is tightened to 0700 when it is ours.
 */
export function ensurePrivateDir(dir: string, options: DirOptions = {}): void {
  const target = resolve(dir);
  const missing: string[] = [];
  let at = target;
  for (let depth = 0; ; depth++) {
    if (depth > MAX_DEPTH) {
      throw new PixError('usage', `cannot create the directory ${target}: the path is too deep`);
    }
    const stats = statIfExists(at);
    if (stats) {
      if (!stats.isDirectory()) {
        throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${at}'`), {
          code: 'ENOTDIR',
          syscall: 'mkdir',
          path: at,
        });
      }
      break;
    }
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const level of missing) {
    try {
      mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  if (missing.includes(target)) {
    chmodSync(target, 0o700); // mkdir's mode is filtered by the umask: say it exactly
    return;
  }
  if (options.own === false) return;
  const stats = checkPrivateDir(target);
  if (
    stats &&
    (stats.mode & 0o077) !== 0 &&
    typeof process.getuid === 'function' &&
    stats.uid === process.getuid()
  ) {
    chmodSync(target, 0o700);
  }
}

/**
 * For readers, which create nothing: refuses `dir` when it exists and others can write to it (they could
 * have replaced what pix is about to trust). Returns its stats, or undefined when it does not exist.
 */
export function checkPrivateDir(dir: string): Stats | undefined {
  const stats = statIfExists(dir);
  if (stats?.isDirectory() && (stats.mode & 0o022) !== 0) {
    throw new UnsafeDirectoryError(resolve(dir), stats.mode);
  }
  return stats;
}

function statIfExists(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The whole text of `path`, or undefined when it does not exist. A symbolic link is refused (ELOOP), and
 * so is anything but a regular file (a FIFO planted there would otherwise block the read forever).
 */
export function readPrivateFile(path: string): string | undefined {
  return withPrivateFile(path, (fd) => readFileSync(fd, 'utf8'));
}

/** A file's identity (device and inode): the same path holding another identity is another file. */
export function fileIdentity(stats: Stats): string {
  return `${stats.dev}:${stats.ino}`;
}

/**
 * What tells one state of a file from any other without reading it: device, inode, size, and the times of
 * its last modification and last change, to the nanosecond. Every write changes the change time, which no
 * one can set back (touch sets the modification time only), and a kernel with multigrain timestamps (Linux
 * 6.13 onwards) gives the first change after a stat a time of its own; on a coarser clock, a write made
 * within one tick of the last stat keeping the size would go unseen. As git's index trusts a file's stat.
 */
export function fileStamp(fd: number): string {
  const stats = fstatSync(fd, { bigint: true });
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/** fileStamp of `path` with its identity and size, or undefined when it does not exist. */
export function stampOf(path: string): { stamp: string; identity: string; size: number } | undefined {
  return withPrivateFile(path, (fd, stats) => ({
    stamp: fileStamp(fd),
    identity: fileIdentity(stats),
    size: stats.size,
  }));
}

/** What readPrivateFrom found: the bytes from the offset asked for, the file's identity and size. */
export interface PrivateTail {
  bytes: Buffer;
  /** Device and inode: another value means the file was replaced since. */
  identity: string;
  size: number;
}

/**
 * The bytes of `path` from `offset` to its end, or `limit` bytes of them (for an append-only file read
 * again and again, a piece at a time), with the same refusals as readPrivateFile; undefined when it
 * does not exist.
 */
export function readPrivateFrom(
  path: string,
  offset: number,
  limit = Number.POSITIVE_INFINITY,
): PrivateTail | undefined {
  return withPrivateFile(path, (fd, stats) => ({
    bytes: readAt(fd, offset, Math.min(limit, stats.size - offset)),
    identity: fileIdentity(stats),
    size: stats.size,
  }));
}

/** `length` bytes of `fd` from `offset` (fewer if the file ends first). */
function readAt(fd: number, offset: number, length: number): Buffer {
  const bytes = Buffer.alloc(Math.max(0, length));
  let read = 0;
  while (read < bytes.length) {
    const got = readSync(fd, bytes, read, bytes.length - read, offset + read);
    if (got === 0) break;
    read += got;
  }
  return bytes.subarray(0, read);
}

/** How many bytes readLines reads at a time. */
const LINES_PIECE = 1 << 20;

/** What readLines found besides the lines. */
export interface LinesRead {
  /** The text after the last newline: a line being written, or one a kill cut short. */
  tail: string;
  /** The offset just past the last whole line. */
  end: number;
  identity: string;
  size: number;
}

/**
 * Hands each whole line of `path` from `offset` (up to `until`) to `onLine`, without its newline, with
 * the offset it starts at, reading a piece at a time (a file of 40 MB is never one buffer or one string).
 * Undefined when the file does not exist; the same refusals as readPrivateFile.
 */
export function readLines(
  path: string,
  offset: number,
  onLine: (text: string, start: number) => void,
  until = Number.POSITIVE_INFINITY,
): LinesRead | undefined {
  let carry = Buffer.alloc(0);
  let at = offset;
  let found: { identity: string; size: number } | undefined;
  for (;;) {
    const want = Math.max(0, Math.min(LINES_PIECE, until - at));
    const piece = readPrivateFrom(path, at, want);
    if (piece === undefined)
      return found && { ...found, tail: carry.toString('utf8'), end: at - carry.length };
    found ??= { identity: piece.identity, size: piece.size };
    const bytes = carry.length > 0 ? Buffer.concat([carry, piece.bytes]) : piece.bytes;
    const start = at - carry.length;
    let from = 0;
    for (let newline = bytes.indexOf(0x0a); newline >= 0; newline = bytes.indexOf(0x0a, from)) {
      onLine(bytes.toString('utf8', from, newline), start + from);
      from = newline + 1;
    }
    // A copy: the piece (a megabyte) is not kept alive by the few bytes of a line still to come.
    carry = Buffer.from(bytes.subarray(from));
    at += piece.bytes.length;
    if (want === 0 || piece.bytes.length < want || at >= until) {
      return { ...found, tail: carry.toString('utf8'), end: at - carry.length };
    }
  }
}

/** Opens `path` refusing a symbolic link or anything but a regular file, and hands it to `use`. */
function withPrivateFile<T>(path: string, use: (fd: number, stats: Stats) => T): T | undefined {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      throw new PixError('usage', `${path} is not a regular file`, {
        hint: 'pix keeps its own files there: move that away',
      });
    }
    return use(fd, stats);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, O_RDONLY);
    fsyncSync(fd);
  } catch {
    // Some file systems cannot fsync a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

let tempCounter = 0;

/**
 * Creates a temporary file beside `path` (O_EXCL|O_NOFOLLOW, 0600) and returns its descriptor: the first free
 * name of `<path>.<n>.tmp`, so two writers (in this process or another) never share one, without the pid or
 * randomness in the name. `made` hears the name once the file exists.
 */
function createTemp(path: string, made: (name: string) => void): number {
  for (let tries = 0; ; tries++) {
    const name = `${path}.${++tempCounter}.tmp`;
    try {
      const fd = openSync(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      made(name);
      return fd;
    } catch (error) {
      // Taken: by another writer now, or left by one that crashed. Any other error is the directory's.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= 1000) throw error;
    }
  }
}

/**
 * Replaces `path` with `text` (or bytes) atomically (temporary file O_EXCL|O_NOFOLLOW 0600 beside it, fsync,
 * rename, fsync of the directory). A symbolic link at `path` is replaced, never written through. A
 * failure (a full disk, a read-only file system) names `path`, not the temporary file, and leaves no
 * temporary file behind. `durable: false` leaves out the two fsyncs (the replacement is still atomic, but
 * a power cut may lose it): for the sandbox's simulated account, rewritten on every request.
 */
export function writeFileAtomic(path: string, text: string | Uint8Array, { durable = true } = {}): void {
  let temp = '';
  try {
    const fd = createTemp(path, (name) => {
      temp = name;
    });
    try {
      writeAll(fd, typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text));
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    try {
      if (temp !== '') unlinkSync(temp);
    } catch {
      // Already renamed.
    }
    // Whatever step failed (creating, writing, syncing or renaming the temporary file), writing `path` did.
    if (typeof error === 'object' && error !== null && 'code' in error) {
      Object.assign(error, { path, syscall: 'write' });
    }
    throw error;
  }
  if (durable) fsyncDir(dirname(path));
}

/**
 * Writes `text` over the start of `path` in place (created O_NOFOLLOW 0600 when missing) with one
 * pwrite(2) at offset 0, and cuts whatever followed it: for a small record of one length that is
 * replaced after every append of another file (the journal's checkpoint), where writeFileAtomic's
 * rename would make the file system flush the new file's data each time (ext4's auto_da_alloc: a
 * millisecond per call). A write this small lies in one page and one disk sector, so a killed writer
 * leaves the old record or the new one; a reader that may have read it while it was being written
 * reads it again under the writers' lock before it believes anything odd in it. Not fsync'd.
 */
export function overwritePrivateFile(path: string, text: string): void {
  try {
    const fd = openSync(path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0o600);
    try {
      const bytes = Buffer.from(text, 'utf8');
      const written = writeSync(fd, bytes, 0, bytes.length, 0);
      if (written !== bytes.length) {
        throw Object.assign(new Error(`ENOSPC: no space left on device, short write to ${path}`), {
          code: 'ENOSPC',
        });
      }
      // A longer file (edited by hand) loses what followed; truncating costs more than asking.
      if (fstatSync(fd).size !== bytes.length) ftruncateSync(fd, bytes.length);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'code' in error) {
      Object.assign(error, { path, syscall: 'write' });
    }
    throw error;
  }
}

export interface AppendOptions {
  /**
   * False leaves out the fsync: the line may be lost in a power cut (never torn by a process's crash, which
   * the kernel's copy survives). For the sandbox's simulated account; the journal's lines are durable.
   */
  durable?: boolean;
  /**
   * What to do with a torn last line (one without a newline at its end: its writer died mid-write).
   * 'keep' (the default) leaves it and starts this line on a fresh line; 'cut' truncates the file to its
   * last newline first. 'cut' only for a file whose writers all append under withFileLock (it would cut
   * a line another writer is still writing).
   */
  torn?: 'keep' | 'cut';
  /** With 'keep': a line written between the torn line and this one, so a reader can tell torn from damaged. */
  tornMark?: string;
}

/** The file appendPrivateLine holds open, for a line composed from what the file holds (the journal's chain). */
export interface AppendingFile {
  identity: string;
  /** Its size before the line. */
  size: number;
  /** Its fileStamp before the line. */
  stamp: string;
  /** What readPrivateFrom would give, read through the same descriptor. */
  readFrom(offset: number, limit?: number): PrivateTail;
}

/**
 * Appends one line with a single write(2) on a descriptor opened O_APPEND|O_NOFOLLOW (0600), then
 * fsync (unless `durable: false`): concurrent writers interleave whole lines. A line torn by a writer
 * killed mid-write has no newline at its end; the next line then starts on a fresh line (or, with
 * `torn: 'cut'`, replaces it). `line` may be a function of the open file, which composes the line from
 * what the file holds (under a lock the caller holds). Returns the file's identity, size and mtime after
 * the write, from the descriptor, and whether it found a torn last line.
 */
export function appendPrivateLine(
  path: string,
  line: string | ((file: AppendingFile) => string),
  { durable = true, torn = 'keep', tornMark }: AppendOptions = {},
): { identity: string; size: number; mtimeMs: number; stamp: string; tornBefore: boolean } {
  const fd = openSync(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600);
  try {
    const stats = fstatSync(fd); // through the descriptor: the path may have been replaced
    const identity = fileIdentity(stats);
    const readFrom = (offset: number, limit = Number.POSITIVE_INFINITY): PrivateTail => ({
      bytes: readAt(fd, offset, Math.min(limit, stats.size - offset)),
      identity,
      size: stats.size,
    });
    const composed =
      typeof line === 'string' ? line : line({ identity, size: stats.size, stamp: fileStamp(fd), readFrom });
    let text = composed.endsWith('\n') ? composed : `${composed}\n`;
    let tornBefore = false;
    if (stats.size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, stats.size - 1);
      if (last[0] !== 0x0a) {
        tornBefore = true;
        if (torn === 'cut') ftruncateSync(fd, lastLineEnd(fd, stats.size));
        else text = tornMark === undefined ? `\n${text}` : `\n${tornMark}\n${text}`;
      }
    }
    const bytes = Buffer.from(text, 'utf8');
    const written = writeSync(fd, bytes);
    if (written !== bytes.length) {
      // A regular file takes fewer bytes than offered when the device (or the quota) filled during the
      // write: how a full disk shows (the next write would fail with ENOSPC). The part that landed has no
      // newline: a reader skips it as torn, and the next line starts on a fresh line.
      throw Object.assign(
        new Error(
          `ENOSPC: no space left on device, short write to ${path} (${written} of ${bytes.length} bytes)`,
        ),
        { code: 'ENOSPC', syscall: 'write', path },
      );
    }
    if (durable) fsyncSync(fd);
    const after = fstatSync(fd);
    return {
      identity: fileIdentity(after),
      size: after.size,
      mtimeMs: after.mtimeMs,
      stamp: fileStamp(fd),
      tornBefore,
    };
  } catch (error) {
    // write(2) and fsync(2) errors carry no path: every message about them must name the file.
    if (typeof error === 'object' && error !== null && 'code' in error && !('path' in error)) {
      Object.assign(error, { path });
    }
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** The offset just past the last newline before `size` (0 when there is none), reading backwards. */
function lastLineEnd(fd: number, size: number): number {
  const chunk = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const got = readSync(fd, chunk, 0, end - start, start);
    const at = chunk.subarray(0, got).lastIndexOf(0x0a);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}

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
