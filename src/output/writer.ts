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
 *
 * What is asked of it is declared in `output.ts`; the temporary file of `--output-file` is handled by
 * `outputfile.ts`.
 */
import { describeSystemError, PixError } from '../errors.js';
import type { OutputTransform } from './capture.js';
import type { IOStreams, OutStream } from './iostreams.js';
import type { OutputWriter, Pager } from './output.js';
import {
  discardOutputFile,
  type FileTarget,
  openOutputFile,
  putInPlace,
  syncDirectoryOf,
} from './outputfile.js';
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
        file = await openOutputFile(target.file, target.replace, random, CHUNK);
        sink = file.sink;
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
          await putInPlace(target);
        } catch (error) {
          failure ??= error;
          await target.fs.unlink(target.temp).catch(() => {});
          throw writeFailure(error, where);
        }
        file = undefined;
        await syncDirectoryOf(target);
      }
      if (pager) await pager.close();
    },

    async abort(signal) {
      let partial: string | undefined;
      // What --jq/--fields held is not written: a failed command has no document to filter.
      captured = [];
      transform = undefined;
      if (file) {
        await discardOutputFile(file);
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
