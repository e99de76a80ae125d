/**
 * pix's own files in the config directory (config.json, the journal, the sandbox state, token caches):
 * the ONE place they are read and replaced. Their directory is made by dirs.ts, a line is appended by
 * append.ts, and read-modify-write runs under a lock of locks.ts.
 *
 * - Files are opened with O_NOFOLLOW: a symbolic link planted at config.json or journal.jsonl is
 *   refused (ELOOP), never followed to wherever it points.
 * - Files are replaced atomically: a temporary file beside the target (created O_EXCL, 0600), written,
 *   fsync'd, renamed over the target, and the directory fsync'd; a crash leaves the old file or the
 *   new one, never half of one.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { PixError } from '../errors.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;

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
export function readAt(fd: number, offset: number, length: number): Buffer {
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

export function writeAll(fd: number, bytes: Buffer): void {
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
