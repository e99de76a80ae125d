/**
 * THE writer of pix's output (architecture rule 11). main.ts makes one per run and gives its `stdout`
 * and `stderr` to the commands as `deps.io.stdout`/`deps.io.stderr`; commands write to those as to any
 * stream and never learn where the bytes go:
 *
 * - to the process's stdout, gathered into 64 KB writes (100,000 ndjson lines are ~1,500 write calls);
 * - to a pager (`less -FRX`, PIX_PAGER, PAGER) started at the first byte, when stdout is a terminal and
 *   the command's output can be long; stderr then goes through the pager too, in order with the data;
 * - to `--output-file FILE`: a temporary file beside FILE, fsynced and renamed over FILE only when the
 *   command succeeded, so FILE is the complete output or untouched.
 *
 * Every write is checked (Node reports a full disk or a broken device asynchronously, in write callbacks):
 * `commit()` returns only once the last byte is out, and throws `cannot write output: no space left on
 * device` (exit 1) instead. EPIPE — the reader went away: `| head`, `q` in the pager — is not an error:
 * writing stops and pix ends quietly. Through `deps.output` a command also tells the writer what a lost
 * output would lose (`ifLost`: a created charge) and counts the records of a list (`records`), so an
 * interrupted or failed export says how many records were written of how many.
 */
import type { FileHandle } from 'node:fs/promises';
import { describeSystemError, PixError, usageError } from '../errors.js';
import type { OutputCapture, OutputTransform } from './capture.js';
import type { IOStreams, OutStream } from './iostreams.js';
import { createWordWrapper } from './wrap.js';

/** Data is handed to the destination in chunks of about this size. */
const CHUNK = 64 * 1024;

/**
 * Write errors that mean the reader went away: EPIPE, and Node's refusals of the writes that follow it
 * on the same stream (a pager that exited: its stdin is destroyed).
 */
const READER_GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

/** The reader of stdout went away (EPIPE: a closed pipe, the pager quit): stop writing, end quietly. */
class OutputClosed extends Error {
  constructor() {
    super('output closed by its reader');
    this.name = 'OutputClosed';
  }
}

/** Counts the records of a list as they are handed to stdout. */
export interface RecordTally {
  /** `count` (default 1) more records were written to stdout, whole: call it just after writing their text. */
  add(count?: number): void;
  /** The list is complete: a later failure of the command no longer makes it partial. */
  done(): void;
}

/** What commands ask of the writer, besides writing (deps.output). */
export interface Output {
  /**
   * A list of `total` records (undefined: not known) starts on stdout. If the command then fails or is
   * interrupted before `done()`, stderr says `interrupted: wrote 12,300 of 100,000 records` (or, on a
   * failure, `the output is incomplete: …`), counting only the records that reached the destination.
   */
  records(total?: number): RecordTally;
  /**
   * Something exists now whose only record was the output (`the charge was created: id …`): said on
   * stderr if the output cannot be written.
   */
  ifLost(note: string): void;
  /** Points stdout at its destination once the command is known (cli/program.ts, before it runs). */
  open(target: OutputTarget): Promise<void>;
  /**
   * What was written is the output even though the command ends by a signal (a live view's Ctrl-C): an
   * `--output-file` is put in place now, as on success (commit).
   */
  keep(): Promise<void>;
}

/** A running pager (output/pager.ts). */
export interface Pager {
  /** The pager's stdin. */
  input: OutStream;
  /** Ends its input and resolves when the person has quit it. */
  close(): Promise<void>;
  /** Stops it at once (SIGTERM ended pix). */
  kill(): void;
}

/**
 * Where the output goes, decided once the command is known (cli/program.ts). A `file` that cannot be
 * created is exit 2, before the command runs.
 */
export interface OutputTarget {
  /** `--output-file`: the path as the user gave it. */
  file?: string | undefined;
  /** `--force`: FILE may exist and is replaced; without it an existing FILE is exit 2, as for `--qr-png`. */
  replace?: boolean;
  /** Starts the pager; given only when stdout is a terminal and the command's output can be long. */
  pager?: (() => Pager) | undefined;
  /**
   * `--jq`/`--fields` (output/capture.ts): what the command writes is kept, and on `commit()` what the
   * transform made from the writer's streams makes of it is written instead; a failed command writes nothing.
   */
  capture?: OutputCapture | undefined;
}

export interface OutputWriter extends Output {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /**
   * The command succeeded: writes what is held, waits for every byte to be out, replaces FILE, waits
   * for the pager to be quit. Throws the write error (PixError, exit 1) when the output was lost.
   */
  commit(): Promise<void>;
  /**
   * The command failed: writes the whole records held (stdout), throws the temporary file away, ends
   * the pager (waits for it to be quit; kills it on SIGTERM). Returns the lines to say on stderr after
   * the error: the partial count, what was lost with the output.
   */
  abort(signal?: 'SIGINT' | 'SIGTERM'): Promise<{ partial?: string; lost: string[] }>;
  /** True once the reader went away (EPIPE): the run ends quietly. */
  readonly closed: boolean;
  /** A pager holds the terminal: a second Ctrl-C must not end pix under it. */
  readonly paging: boolean;
  /** Removes the temporary file at once (the process is about to exit on a second signal). */
  discardNow(): void;
}

interface FileTarget {
  path: string;
  shown: string;
  temp: string;
  handle: FileHandle;
  stream: import('node:fs').WriteStream;
  sink: OutStream;
  fs: typeof import('node:fs/promises');
  unlinkSync: (path: string) => void;
}

/** `12300` → `12,300`. */
function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** The one-line error of a failed write: `cannot write output: no space left on device` (exit 1). */
function writeFailure(error: unknown, where: string): PixError {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const described = describeSystemError({ code, syscall: 'write', path: where });
  if (described) return new PixError('internal', described.message, { hint: described.hint, cause: error });
  // A code pix has no words for (EBADF, EFBIG, …): Node's own words, without the code and syscall.
  const words =
    typeof message === 'string'
      ? message.replace(/^[A-Z0-9_]+: /, '').replace(/, \w+$/, '')
      : String(code ?? error);
  return new PixError('internal', `cannot write ${where}: ${words}`, { cause: error });
}

/** `random`: names the temporary file of `--output-file` (the context's, src/wiring.ts). */
export function createOutputWriter(
  io: IOStreams,
  options: { random: () => number; canPage?: boolean },
): OutputWriter {
  const { random } = options;
  let sink: OutStream = io.stdout;
  let where = 'output';
  let file: FileTarget | undefined;
  let startPager: (() => Pager) | undefined;
  let pager: Pager | undefined;
  let transform: OutputTransform | undefined;
  /** What the command wrote while a transform holds its output. */
  let captured: string[] = [];
  const decoder = new TextDecoder();

  let parts: string[] = [];
  let held = 0;
  let heldRecords = 0;
  let scheduled = false;
  let inFlight = 0;
  let written = 0;
  let failure: unknown;
  let closed = false;
  let list: { total: number | undefined; open: boolean } | undefined;
  const lost: string[] = [];
  /** Resolved when nothing is in flight or writing has stopped (failure, EPIPE). */
  let settled: Array<() => void> = [];
  const wake = () => {
    if (inFlight > 0 && failure === undefined && !closed) return;
    const waiting = settled;
    settled = [];
    for (const resolve of waiting) resolve();
  };

  const stop = (error: Error) => {
    if (READER_GONE.has(String((error as NodeJS.ErrnoException).code))) closed = true;
    else failure ??= error;
    parts = [];
    held = 0;
    heldRecords = 0;
    wake();
  };

  /** Where bytes go now: the pager is started by the first of them. */
  const destination = (): OutStream => {
    if (startPager && !pager) {
      pager = startPager();
      sink = pager.input;
    }
    return sink;
  };

  /** The last chunk handed out: records counted just after their text was written belong to it. */
  let last: { records: number; answered: boolean; ok: boolean } | undefined;

  /** Hands `text` to the destination, counting `records` as written once it is out. */
  const send = (text: string | Uint8Array, records: number): boolean => {
    inFlight++;
    const chunk = { records, answered: false, ok: false };
    last = chunk;
    return destination().write(text, (error) => {
      inFlight--;
      chunk.answered = true;
      chunk.ok = !error;
      if (error) stop(error);
      else written += chunk.records;
      wake();
    });
  };

  /** `added` records whose text was just written: held with it, or in the chunk it went out with. */
  const countRecords = (added: number) => {
    if (held > 0 || !last) heldRecords += added;
    else if (!last.answered) last.records += added;
    else if (last.ok) written += added;
  };

  /** Hands what is held to the destination; false when it is full (await `drained`) or writing stopped. */
  const push = (): boolean => {
    if (failure !== undefined || closed) return false;
    if (held === 0) return true;
    const text = parts.length === 1 ? parts[0]! : parts.join('');
    const records = heldRecords;
    parts = [];
    held = 0;
    heldRecords = 0;
    return send(text, records);
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      push();
    });
  };

  const stopped = (): Error | undefined => {
    if (failure !== undefined) return writeFailure(failure, where);
    if (closed) return new OutputClosed();
    return undefined;
  };

  /** Waits until every write handed out has been answered (or writing stopped). */
  const idle = () =>
    inFlight === 0 || failure !== undefined || closed
      ? Promise.resolve()
      : new Promise<void>((resolve) => settled.push(resolve));

  const paging = () => pager !== undefined && !closed;

  function writeThrough(chunk: string | Uint8Array): boolean {
    if (typeof chunk !== 'string') {
      push();
      return send(chunk, 0);
    }
    if (chunk === '') return true;
    parts.push(chunk);
    held += chunk.length;
    if (held >= CHUNK) return push();
    schedule();
    return true;
  }

  async function drainedThrough(): Promise<void> {
    const full = !push();
    const reason = stopped();
    if (reason) throw reason;
    if (full) {
      await Promise.race([sink.drained(), new Promise<void>((resolve) => settled.push(resolve))]);
      const after = stopped();
      if (after) throw after;
    }
  }

  const stdout: OutStream = {
    get isTTY() {
      return io.stdout.isTTY && !file && !transform;
    },
    get columns() {
      return io.stdout.columns;
    },
    get rows() {
      return io.stdout.rows;
    },
    write(chunk) {
      if (failure !== undefined || closed) return false;
      if (transform) {
        captured.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
        return true;
      }
      return writeThrough(chunk);
    },
    drained: () => (transform ? Promise.resolve() : drainedThrough()),
  };

  /** stdout as it reaches its destination whatever the capture (a list cut to --fields as it is written). */
  const direct: OutStream = {
    get isTTY() {
      return io.stdout.isTTY && !file;
    },
    get columns() {
      return io.stdout.columns;
    },
    get rows() {
      return io.stdout.rows;
    },
    write: (chunk) => (failure !== undefined || closed ? false : writeThrough(chunk)),
    drained: () => drainedThrough(),
  };

  const wrapForPeople = createWordWrapper(() => io.stderr.columns);
  const stderr: OutStream = {
    get isTTY() {
      // Inside the pager stderr is no terminal: no progress lines, no cursor movement.
      return paging() ? false : io.stderr.isTTY;
    },
    get columns() {
      return io.stderr.columns;
    },
    get rows() {
      return io.stderr.rows;
    },
    write(chunk, done) {
      // What was said on stdout before comes first: both may be the same terminal.
      push();
      if (paging() && io.stderr.isTTY) return pager!.input.write(chunk, () => done?.());
      // Said to a person on a terminal: broken at word boundaries to its width (scripts reading a
      // piped stderr get every `error:` line whole).
      if (io.stderr.isTTY && typeof chunk === 'string') return io.stderr.write(wrapForPeople(chunk), done);
      return io.stderr.write(chunk, done);
    },
    drained: () => io.stderr.drained(),
  };

  const discardFile = async () => {
    if (!file) return;
    const { handle, temp, fs } = file;
    file.stream.destroy();
    await handle.close().catch(() => {});
    await fs.unlink(temp).catch(() => {});
  };

  const writer: OutputWriter = {
    stdout,
    stderr,
    get closed() {
      return closed;
    },
    get paging() {
      return paging();
    },

    async open(target) {
      transform = target.capture?.({ captured: stdout, direct });
      if (target.file !== undefined) {
        const [fs, path, { unlinkSync }] = await Promise.all([
          import('node:fs/promises'),
          import('node:path'),
          import('node:fs'),
        ]);
        const absolute = path.resolve(target.file);
        const existing = await fs.stat(absolute).catch(() => undefined);
        if (existing?.isDirectory()) throw usageError('--output-file', `${target.file} is a directory`);
        // One rule for every file pix writes: an existing one is replaced only when asked (--force).
        if (existing && !target.replace) {
          throw usageError('--output-file', `${target.file} already exists; add --force to replace it`);
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
            `cannot write ${target.file}: ${described ? described.message.replace(/^cannot \w+( \S+)?: /, '') : String(error)}`,
          );
        }
        const stream = handle.createWriteStream({ autoClose: false, highWaterMark: CHUNK });
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
        file = { path: absolute, shown: target.file, temp, handle, stream, sink: fileSink, fs, unlinkSync };
        sink = fileSink;
        where = target.file;
        return;
      }
      if (target.pager && options.canPage && io.stdout.isTTY) startPager = target.pager;
    },

    records(total) {
      const current = { total, open: true };
      list = current;
      return {
        add(added = 1) {
          countRecords(added);
        },
        done() {
          current.open = false;
        },
      };
    },

    ifLost(note) {
      lost.push(note);
    },

    keep() {
      return writer.commit();
    },

    async commit() {
      if (transform) {
        // One string, once: the parts are let go before it is parsed (jq holds its own copy, parsed).
        const document = captured.join('') + decoder.decode();
        captured = [];
        const shown = await transform(document, io.stdout.isTTY && !file);
        transform = undefined;
        stdout.write(shown);
      }
      push();
      await idle();
      const reason = failure === undefined ? undefined : writeFailure(failure, where);
      if (reason) throw reason;
      if (file) {
        const target = file;
        try {
          await new Promise<void>((resolve, reject) => {
            target.stream.once('error', reject);
            target.stream.end(() => resolve());
          });
          await target.handle.sync();
          // The stream holds the handle until destroyed (autoClose is off, so that it can be fsynced first).
          target.stream.destroy();
          await target.handle.close();
          await target.fs.rename(target.temp, target.path);
        } catch (error) {
          failure ??= error;
          await target.fs.unlink(target.temp).catch(() => {});
          throw writeFailure(error, where);
        }
        file = undefined;
        // The rename is durable once the directory is: best effort (some file systems refuse it).
        const { dirname } = await import('node:path');
        const directory = await target.fs.open(dirname(target.path), 'r').catch(() => undefined);
        await directory
          ?.sync()
          .catch(() => {})
          .finally(() => directory.close());
      }
      if (pager) await pager.close();
    },

    async abort(signal) {
      let partial: string | undefined;
      // What --jq/--fields held is not written: a failed command has no document to filter.
      captured = [];
      transform = undefined;
      if (file) {
        await discardFile();
      } else {
        // Whole records only are held: they are written, so the count below is what the reader got.
        push();
        await idle();
      }
      if (pager) {
        if (signal === 'SIGTERM') pager.kill();
        else await pager.close();
      }
      // A write that failed leaves the list partial even when the command had handed over all of it.
      if (list && (list.open || failure !== undefined)) {
        const of = list.total === undefined ? '' : ` of ${count(list.total)}`;
        const records = `${count(written)}${of} records`;
        if (file) {
          partial = signal
            ? `interrupted after ${records}: ${file.shown} was not changed`
            : `${file.shown} was not changed (stopped after ${records})`;
        } else if (!closed) {
          partial = signal ? `interrupted: wrote ${records}` : `the output is incomplete: wrote ${records}`;
        }
      }
      const outputLost = failure !== undefined || (file !== undefined && !closed);
      return { ...(partial === undefined ? {} : { partial }), lost: outputLost ? lost : [] };
    },

    discardNow() {
      if (!file) return;
      try {
        file.unlinkSync(file.temp);
      } catch {
        // Never made, or already gone.
      }
    },
  };
  return writer;
}
