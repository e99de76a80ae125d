/**
 * Appending one line to a file of pix's own (the journal, the sandbox state's log, pix listen's event log):
 * one write(2) on a descriptor opened O_APPEND|O_NOFOLLOW, fsync'd, so concurrent writers interleave whole
 * lines and a writer's death leaves at most a torn last line, which the next append steps over.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { fileIdentity, fileStamp, type PrivateTail, readAt } from './files.js';

const { O_CREAT, O_APPEND, O_NOFOLLOW, O_RDWR } = constants;

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
