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
import type { OutputTarget, OutputWriter, Pager } from './output.js';
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

/** What one writer holds: where bytes go, what is held and in flight, and how writing ended. */
interface WriterState {
  readonly io: IOStreams;
  readonly random: () => number;
  readonly canPage: boolean;
  sink: OutStream;
  where: string;
  file: FileTarget | undefined;
  startPager: (() => Pager) | undefined;
  pager: Pager | undefined;
  transform: OutputTransform | undefined;
  /** What the command wrote while a transform holds its output. */
  captured: string[];
  readonly decoder: InstanceType<typeof TextDecoder>;
  parts: string[];
  held: number;
  heldRecords: number;
  scheduled: boolean;
  inFlight: number;
  written: number;
  failure: unknown;
  closed: boolean;
  list: { total: number | undefined; open: boolean } | undefined;
  readonly lost: string[];
  /** Resolved when nothing is in flight or writing has stopped (failure, EPIPE). */
  settled: Array<() => void>;
  /** The last chunk handed out: records counted just after their text was written belong to it. */
  last: { records: number; answered: boolean; ok: boolean } | undefined;
}

function wake(s: WriterState): void {
  if (s.inFlight > 0 && s.failure === undefined && !s.closed) return;
  const waiting = s.settled;
  s.settled = [];
  for (const resolve of waiting) resolve();
}

function stop(s: WriterState, error: Error): void {
  if (READER_GONE.has(String((error as NodeJS.ErrnoException).code))) s.closed = true;
  else s.failure ??= error;
  s.parts = [];
  s.held = 0;
  s.heldRecords = 0;
  wake(s);
}

/** Where bytes go now: the pager is started by the first of them. */
function destination(s: WriterState): OutStream {
  if (s.startPager && !s.pager) {
    s.pager = s.startPager();
    s.sink = s.pager.input;
  }
  return s.sink;
}

/** Hands `text` to the destination, counting `records` as written once it is out. */
function send(s: WriterState, text: string | Uint8Array, records: number): boolean {
  s.inFlight++;
  const chunk = { records, answered: false, ok: false };
  s.last = chunk;
  return destination(s).write(text, (error) => {
    s.inFlight--;
    chunk.answered = true;
    chunk.ok = !error;
    if (error) stop(s, error);
    else s.written += chunk.records;
    wake(s);
  });
}

/** `added` records whose text was just written: held with it, or in the chunk it went out with. */
function countRecords(s: WriterState, added: number): void {
  if (s.held > 0 || !s.last) s.heldRecords += added;
  else if (!s.last.answered) s.last.records += added;
  else if (s.last.ok) s.written += added;
}

/** Hands what is held to the destination; false when it is full (await `drained`) or writing stopped. */
function push(s: WriterState): boolean {
  if (s.failure !== undefined || s.closed) return false;
  if (s.held === 0) return true;
  const text = s.parts.length === 1 ? s.parts[0]! : s.parts.join('');
  const records = s.heldRecords;
  s.parts = [];
  s.held = 0;
  s.heldRecords = 0;
  return send(s, text, records);
}

function schedule(s: WriterState): void {
  if (s.scheduled) return;
  s.scheduled = true;
  setImmediate(() => {
    s.scheduled = false;
    push(s);
  });
}

function stopped(s: WriterState): Error | undefined {
  if (s.failure !== undefined) return writeFailure(s.failure, s.where);
  if (s.closed) return new OutputClosed();
  return undefined;
}

/** Waits until every write handed out has been answered (or writing stopped). */
function idle(s: WriterState): Promise<void> {
  return s.inFlight === 0 || s.failure !== undefined || s.closed
    ? Promise.resolve()
    : new Promise<void>((resolve) => s.settled.push(resolve));
}

function paging(s: WriterState): boolean {
  return s.pager !== undefined && !s.closed;
}

function writeThrough(s: WriterState, chunk: string | Uint8Array): boolean {
  if (typeof chunk !== 'string') {
    push(s);
    return send(s, chunk, 0);
  }
  if (chunk === '') return true;
  s.parts.push(chunk);
  s.held += chunk.length;
  if (s.held >= CHUNK) return push(s);
  schedule(s);
  return true;
}

async function drainedThrough(s: WriterState): Promise<void> {
  const full = !push(s);
  const reason = stopped(s);
  if (reason) throw reason;
  if (full) {
    await Promise.race([s.sink.drained(), new Promise<void>((resolve) => s.settled.push(resolve))]);
    const after = stopped(s);
    if (after) throw after;
  }
}

/** The commands' stdout: held by a transform (--jq/--fields) while one is open, else written through. */
function stdoutOf(s: WriterState): OutStream {
  const { io } = s;
  return {
    get isTTY() {
      return io.stdout.isTTY && !s.file && !s.transform;
    },
    get columns() {
      return io.stdout.columns;
    },
    get rows() {
      return io.stdout.rows;
    },
    write(chunk) {
      if (s.failure !== undefined || s.closed) return false;
      if (s.transform) {
        s.captured.push(typeof chunk === 'string' ? chunk : s.decoder.decode(chunk, { stream: true }));
        return true;
      }
      return writeThrough(s, chunk);
    },
    drained: () => (s.transform ? Promise.resolve() : drainedThrough(s)),
  };
}

/** stdout as it reaches its destination whatever the capture (a list cut to --fields as it is written). */
function directOf(s: WriterState): OutStream {
  const { io } = s;
  return {
    get isTTY() {
      return io.stdout.isTTY && !s.file;
    },
    get columns() {
      return io.stdout.columns;
    },
    get rows() {
      return io.stdout.rows;
    },
    write: (chunk) => (s.failure !== undefined || s.closed ? false : writeThrough(s, chunk)),
    drained: () => drainedThrough(s),
  };
}

function stderrOf(s: WriterState): OutStream {
  const { io } = s;
  const wrapForPeople = createWordWrapper(() => io.stderr.columns);
  return {
    get isTTY() {
      // Inside the pager stderr is no terminal: no progress lines, no cursor movement.
      return paging(s) ? false : io.stderr.isTTY;
    },
    get columns() {
      return io.stderr.columns;
    },
    get rows() {
      return io.stderr.rows;
    },
    write(chunk, done) {
      // What was said on stdout before comes first: both may be the same terminal.
      push(s);
      if (paging(s) && io.stderr.isTTY) return s.pager!.input.write(chunk, () => done?.());
      // Said to a person on a terminal: broken at word boundaries to its width (scripts reading a
      // piped stderr get every `error:` line whole).
      if (io.stderr.isTTY && typeof chunk === 'string') return io.stderr.write(wrapForPeople(chunk), done);
      return io.stderr.write(chunk, done);
    },
    drained: () => io.stderr.drained(),
  };
}

async function openTarget(
  s: WriterState,
  target: OutputTarget,
  streams: { captured: OutStream; direct: OutStream },
): Promise<void> {
  s.transform = target.capture?.(streams);
  if (target.file !== undefined) {
    s.file = await openOutputFile(target.file, target.replace, s.random, CHUNK);
    s.sink = s.file.sink;
    s.where = target.file;
    return;
  }
  if (target.pager && s.canPage && s.io.stdout.isTTY) s.startPager = target.pager;
}

async function commit(s: WriterState, stdout: OutStream): Promise<void> {
  if (s.transform) {
    // One string, once: the parts are let go before it is parsed (jq holds its own copy, parsed).
    const document = s.captured.join('') + s.decoder.decode();
    s.captured = [];
    const shown = await s.transform(document, s.io.stdout.isTTY && !s.file);
    s.transform = undefined;
    stdout.write(shown);
  }
  push(s);
  await idle(s);
  const reason = s.failure === undefined ? undefined : writeFailure(s.failure, s.where);
  if (reason) throw reason;
  if (s.file) {
    const target = s.file;
    try {
      await putInPlace(target);
    } catch (error) {
      s.failure ??= error;
      await target.fs.unlink(target.temp).catch(() => {});
      throw writeFailure(error, s.where);
    }
    s.file = undefined;
    await syncDirectoryOf(target);
  }
  if (s.pager) await s.pager.close();
}

/** What stderr says of a list the failed or interrupted command left partial; none when nothing was lost. */
function partialOf(s: WriterState, signal: 'SIGINT' | 'SIGTERM' | undefined): string | undefined {
  // A write that failed leaves the list partial even when the command had handed over all of it.
  if (!s.list || !(s.list.open || s.failure !== undefined)) return undefined;
  const of = s.list.total === undefined ? '' : ` of ${count(s.list.total)}`;
  const records = `${count(s.written)}${of} records`;
  if (s.file) {
    return signal
      ? `interrupted after ${records}: ${s.file.shown} was not changed`
      : `${s.file.shown} was not changed (stopped after ${records})`;
  }
  if (s.closed) return undefined;
  return signal ? `interrupted: wrote ${records}` : `the output is incomplete: wrote ${records}`;
}

async function abort(
  s: WriterState,
  signal: 'SIGINT' | 'SIGTERM' | undefined,
): Promise<{ partial?: string; lost: string[] }> {
  // What --jq/--fields held is not written: a failed command has no document to filter.
  s.captured = [];
  s.transform = undefined;
  if (s.file) {
    await discardOutputFile(s.file);
  } else {
    // Whole records only are held: they are written, so the count below is what the reader got.
    push(s);
    await idle(s);
  }
  if (s.pager) {
    if (signal === 'SIGTERM') s.pager.kill();
    else await s.pager.close();
  }
  const partial = partialOf(s, signal);
  const outputLost = s.failure !== undefined || (s.file !== undefined && !s.closed);
  return { ...(partial === undefined ? {} : { partial }), lost: outputLost ? s.lost : [] };
}

function discardNow(s: WriterState): void {
  if (!s.file) return;
  try {
    s.file.unlinkSync(s.file.temp);
  } catch {
    // Never made, or already gone.
  }
}

/** `random`: names the temporary file of `--output-file` (the context's, src/wiring.ts). */
export function createOutputWriter(
  io: IOStreams,
  options: { random: () => number; canPage?: boolean },
): OutputWriter {
  const s: WriterState = {
    io,
    random: options.random,
    canPage: options.canPage ?? false,
    sink: io.stdout,
    where: 'output',
    file: undefined,
    startPager: undefined,
    pager: undefined,
    transform: undefined,
    captured: [],
    decoder: new TextDecoder(),
    parts: [],
    held: 0,
    heldRecords: 0,
    scheduled: false,
    inFlight: 0,
    written: 0,
    failure: undefined,
    closed: false,
    list: undefined,
    lost: [],
    settled: [],
    last: undefined,
  };
  const stdout = stdoutOf(s);
  const direct = directOf(s);
  const writer: OutputWriter = {
    stdout,
    stderr: stderrOf(s),
    get closed() {
      return s.closed;
    },
    get paging() {
      return paging(s);
    },
    open: (target) => openTarget(s, target, { captured: stdout, direct }),
    records(total) {
      const current = { total, open: true };
      s.list = current;
      return {
        add: (added = 1) => countRecords(s, added),
        done: () => {
          current.open = false;
        },
      };
    },
    ifLost: (note) => {
      s.lost.push(note);
    },
    keep: () => writer.commit(),
    commit: () => commit(s, stdout),
    abort: (signal) => abort(s, signal),
    discardNow: () => discardNow(s),
  };
  return writer;
}
