import type { InStream, IOStreams, OutStream } from '../../src/output/iostreams.js';

export interface TestIOOptions {
  /** Everything stdin will give to readAll() (default: nothing). */
  stdin?: string | Buffer;
  /** Pretend stdin, stdout and stderr are terminals (default false: piped, as in CI). */
  tty?: boolean;
  /** Per-stream overrides of `tty`. */
  stdinTTY?: boolean;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  /** Terminal width reported by stdout and stderr (default 80). */
  columns?: number;
  /** Lines typed at the terminal, returned by readLine() in order; readLine() fails when they run out. */
  answers?: string[];
  /**
   * Lines typed at the controlling terminal (`/dev/tty`) while stdin is piped; absent: the process has
   * no controlling terminal (CI).
   */
  terminalAnswers?: string[];
}

export interface TestIO {
  io: IOStreams;
  /** Everything written to stdout so far, as text. */
  stdout(): string;
  /** Everything written to stdout so far, as bytes (a workbook). */
  stdoutBytes(): Buffer;
  /** Everything written to stderr so far, as text. */
  stderr(): string;
  /** The readLine() calls made (prompts), with whether echo was off and where the answer came from. */
  readLines: Array<{ hidden: boolean; from: 'stdin' | 'terminal' }>;
}

function captureOut(isTTY: boolean, columns: number): { stream: OutStream; text(): string; bytes(): Buffer } {
  const chunks: Buffer[] = [];
  return {
    stream: {
      isTTY,
      columns,
      write(chunk, done) {
        chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
        // As a Node stream does: the callback comes after the write, never inside it.
        if (done) queueMicrotask(() => done());
        return true;
      },
      drained: () => Promise.resolve(),
    },
    text: () => bytes().toString('utf8'),
    bytes,
  };
  /** The chunks joined once and kept joined (a 100,000-entry statement is read as text and as bytes). */
  function bytes(): Buffer {
    if (chunks.length !== 1) chunks.splice(0, chunks.length, Buffer.concat(chunks));
    return chunks[0]!;
  }
}

/** In-memory IOStreams for in-process command tests: `run(argv, { io, env })`. */
export function createTestIO(options: TestIOOptions = {}): TestIO {
  const tty = options.tty ?? false;
  const columns = options.columns ?? 80;
  const stdout = captureOut(options.stdoutTTY ?? tty, columns);
  const stderr = captureOut(options.stderrTTY ?? tty, columns);
  const input =
    options.stdin === undefined
      ? Buffer.alloc(0)
      : Buffer.isBuffer(options.stdin)
        ? options.stdin
        : Buffer.from(options.stdin, 'utf8');
  const answers = [...(options.answers ?? [])];
  const readLines: Array<{ hidden: boolean; from: 'stdin' | 'terminal' }> = [];
  const typed = (from: 'stdin' | 'terminal', lines: string[]) => (hidden: boolean) => {
    readLines.push({ hidden, from });
    const answer = lines.shift();
    if (answer === undefined) return Promise.reject(new Error('test: no more answers for readLine()'));
    return Promise.resolve(answer);
  };
  const stdin: InStream = {
    isTTY: options.stdinTTY ?? tty,
    readAll: () => Promise.resolve(input),
    readLine: typed('stdin', answers),
  };
  const terminalAnswers = options.terminalAnswers;
  const terminal: InStream | undefined = terminalAnswers && {
    isTTY: true,
    readAll: () => Promise.reject(new Error('test: the terminal is for answers')),
    readLine: typed('terminal', terminalAnswers),
  };
  return {
    io: { stdout: stdout.stream, stderr: stderr.stream, stdin, terminal: () => terminal },
    stdout: stdout.text,
    stdoutBytes: stdout.bytes,
    stderr: stderr.text,
    readLines,
  };
}

/** The `id` of each line of an ndjson output, in order. */
export function ndjsonIds(ndjson: string): string[] {
  return ndjson
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { id: string }).id);
}
