/**
 * `--output-file FILE` (output/writer.ts writes to it): a temporary file beside FILE, made with FILE's mode
 * (or 0666 less the umask), fsynced and renamed over FILE only when the command succeeded, so FILE is the
 * complete output or untouched; thrown away when it failed.
 */
import type { FileHandle } from 'node:fs/promises';
import { describeSystemError, usageError } from '../errors.js';
import type { OutStream } from './iostreams.js';

export interface FileTarget {
  path: string;
  shown: string;
  temp: string;
  handle: FileHandle;
  stream: import('node:fs').WriteStream;
  sink: OutStream;
  fs: typeof import('node:fs/promises');
  unlinkSync: (path: string) => void;
}

/**
 * Opens the temporary file of `--output-file FILE` beside FILE (exit 2 when FILE is a directory, exists
 * without `--force`, or cannot be written). `random` names it; writes go to it in pieces of `highWaterMark` bytes.
 */
export async function openOutputFile(
  shown: string,
  replace: boolean | undefined,
  random: () => number,
  highWaterMark: number,
): Promise<FileTarget> {
  const [fs, path, { unlinkSync }] = await Promise.all([
    import('node:fs/promises'),
    import('node:path'),
    import('node:fs'),
  ]);
  const absolute = path.resolve(shown);
  const existing = await fs.stat(absolute).catch(() => undefined);
  if (existing?.isDirectory()) throw usageError('--output-file', `${shown} is a directory`);
  // One rule for every file pix writes: an existing one is replaced only when asked (--force).
  if (existing && !replace) {
    throw usageError('--output-file', `${shown} already exists; add --force to replace it`);
  }
  // The file keeps its mode when replaced; a new one gets the usual 0666 less the umask, like `>`.
  const mode = existing ? existing.mode & 0o777 : 0o666;
  const temp = `${absolute}.${Math.floor(random() * 0x100000000).toString(36)}.tmp`;
  let handle: FileHandle;
  try {
    handle = await fs.open(temp, 'wx', mode);
  } catch (error) {
    const described = describeSystemError(error);
    throw usageError(
      '--output-file',
      `cannot write ${shown}: ${described ? described.message.replace(/^cannot \w+( \S+)?: /, '') : String(error)}`,
    );
  }
  const stream = handle.createWriteStream({ autoClose: false, highWaterMark });
  stream.on('error', () => {});
  const fileSink: OutStream = {
    isTTY: false,
    columns: 80,
    write: (chunk, done) => stream.write(chunk, done),
    drained: () =>
      stream.writableNeedDrain
        ? new Promise((resolve) => stream.once('drain', () => resolve()))
        : Promise.resolve(),
  };
  return { path: absolute, shown, temp, handle, stream, sink: fileSink, fs, unlinkSync };
}

/** Ends the temporary file, fsyncs and closes it, and renames it over FILE: the output is complete. */
export async function putInPlace(target: FileTarget): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    target.stream.once('error', reject);
    target.stream.end(() => resolve());
  });
  await target.handle.sync();
  // The stream holds the handle until destroyed (autoClose is off, so that it can be fsynced first).
  target.stream.destroy();
  await target.handle.close();
  await target.fs.rename(target.temp, target.path);
}

/** Makes FILE's rename durable by syncing its directory. */
export async function syncDirectoryOf(target: FileTarget): Promise<void> {
  // The rename is durable once the directory is: best effort (some file systems refuse it).
  const { dirname } = await import('node:path');
  const directory = await target.fs.open(dirname(target.path), 'r').catch(() => undefined);
  await directory
    ?.sync()
    .catch(() => {})
    .finally(() => directory.close());
}

/** Throws the temporary file away (the command failed: FILE is not changed). */
export async function discardOutputFile(file: FileTarget): Promise<void> {
  const { handle, temp, fs } = file;
  file.stream.destroy();
  await handle.close().catch(() => {});
  await fs.unlink(temp).catch(() => {});
}
