/**
 * The only module (with main.ts) that touches the process's streams. Everything else gets an
 * IOStreams through deps, so tests can capture output and pretend to be a terminal.
 */
import { openSync } from 'node:fs';
import type { ReadStream } from 'node:tty';

export interface OutStream {
  readonly isTTY: boolean;
  readonly columns: number;
  /** Lines of the terminal, when it says (a terminal); undefined: no height limit (a file, a pipe). */
  readonly rows?: number | undefined;
  /**
   * Returns false when the stream's buffer is full; await `drained()` before writing more. `done` is
   * called once the chunk was handed to the operating system, or with the error that stopped it (ENOSPC,
   * EPIPE, …), as Node's streams do.
   */
  write(chunk: string | Uint8Array, done?: (error?: Error | null) => void): boolean;
  drained(): Promise<void>;
}

export interface InStream {
  readonly isTTY: boolean;
  /** The whole of stdin (for `--with-token`, `--body -`, `pay qr -`). */
  readAll(): Promise<Buffer>;
  /** One line typed at the terminal; `hidden` turns echo off (secrets). */
  /**
   * One line typed at the terminal (`hidden`: raw mode, no echo). Fails with Error('interrupted') on
   * Ctrl-C typed in raw mode, or when `signal` aborts (a SIGINT the terminal sent in cooked mode), and
   * then stops reading stdin, so the process can end.
   */
  readLine(hidden: boolean, signal?: AbortSignal): Promise<string>;
}

export interface IOStreams {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  /**
   * Where a person's answers come from when stdin is not a terminal but one is there
   * (`pbpaste | pix pay qr -`): the controlling terminal, opened on first use; undefined when there is
   * none (CI, cron, a detached process). Absent means stdin is the only input.
   */
  terminal?: () => InStream | undefined;
}

type NodeWritable = NodeJS.WritableStream & {
  readonly writableNeedDrain: boolean;
  readonly isTTY?: boolean;
  readonly columns?: number;
  readonly rows?: number;
};

const watched = new WeakSet<object>();

/**
 * Any Node writable (the process's stdout, a pager's stdin, a file) as an OutStream. Write errors reach
 * the writer through the `done` callbacks (output/writer.ts); the 'error' event Node emits as well is
 * listened to here, so it never becomes an uncaught exception.
 */
export function nodeOut(get: () => NodeWritable): OutStream {
  const stream = () => {
    const value = get();
    if (!watched.has(value)) {
      watched.add(value);
      value.on('error', () => {});
    }
    return value;
  };
  return {
    get isTTY() {
      return get().isTTY === true;
    },
    get columns() {
      // A terminal that does not say its size (a pty never sized: some CI wrappers, serial consoles) reports
      // 0; every table, chart and QR code is then laid out for 80 columns rather than squeezed into none.
      return get().columns || 80;
    },
    get rows() {
      return get().rows || undefined;
    },
    write: (chunk, done) => stream().write(chunk, done),
    drained: () => {
      const value = stream();
      return value.writableNeedDrain
        ? new Promise((resolve) => {
            const settle = () => {
              value.off('drain', settle);
              value.off('close', settle);
              resolve();
            };
            value.on('drain', settle);
            value.on('close', settle);
          })
        : Promise.resolve();
    },
  };
}

function wrapIn(get: () => NodeJS.ReadStream, echo: OutStream): InStream {
  return {
    get isTTY() {
      return get().isTTY === true;
    },
    async readAll() {
      const stream = get();
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      return Buffer.concat(chunks);
    },
    readLine(hidden, signal) {
      const stream = get();
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(new Error('interrupted'));
        let line = '';
        const raw = hidden && stream.isTTY;
        if (raw) stream.setRawMode(true);
        stream.setEncoding('utf8');
        stream.resume();
        const finish = (error?: Error) => {
          stream.off('data', onData);
          stream.off('end', onEnd);
          signal?.removeEventListener('abort', onAbort);
          if (raw) stream.setRawMode(false);
          stream.pause();
          if (error) reject(error);
          else resolve(line);
        };
        const onEnd = () => finish();
        const onAbort = () => finish(new Error('interrupted'));
        const onData = (data: string) => {
          for (const char of data) {
            if (char === '\u0003') return finish(new Error('interrupted'));
            if (char === '\r' || char === '\n') {
              if (raw) echo.write('\n');
              return finish();
            }
            if (char === '\u007f' || char === '\b') line = line.slice(0, -1);
            else line += char;
          }
        };
        stream.on('data', onData);
        stream.on('end', onEnd);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}

/** The controlling terminal (`/dev/tty`), or undefined when the process has none. */
function controllingTerminal(echo: OutStream): InStream | undefined {
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r');
  } catch {
    return undefined;
  }
  let stream: ReadStream | undefined;
  const open = () => {
    // node:tty is loaded only when a person is asked something through /dev/tty.
    const tty = new (process.getBuiltinModule('node:tty').ReadStream)(fd);
    // Between questions the terminal must not keep pix alive (Node does the same for process.stdin).
    tty.on('pause', () => tty.unref());
    tty.on('resume', () => tty.ref());
    return tty;
  };
  return wrapIn(() => {
    stream ??= open();
    return stream as unknown as NodeJS.ReadStream;
  }, echo);
}

export function processIOStreams(): IOStreams {
  const stderr = nodeOut(() => process.stderr);
  let terminal: { input: InStream | undefined } | undefined;
  return {
    stdout: nodeOut(() => process.stdout),
    stderr,
    stdin: wrapIn(() => process.stdin, stderr),
    terminal: () => {
      terminal ??= { input: controllingTerminal(stderr) };
      return terminal.input;
    },
  };
}

/**
 * Colour rules of the contract: `--no-color` and `NO_COLOR` turn it off, `CLICOLOR_FORCE` turns it on
 * even when piped, otherwise colour only on a terminal.
 */
export function colorEnabled(
  stream: Pick<OutStream, 'isTTY'>,
  env: Readonly<Record<string, string | undefined>>,
  noColorFlag: boolean,
): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.CLICOLOR_FORCE !== undefined && env.CLICOLOR_FORCE !== '' && env.CLICOLOR_FORCE !== '0')
    return true;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY;
}
