import { CommanderError } from 'commander';
import { commandOutput, loadCommands } from './cli/load.js';
import { createProgram } from './cli/program.js';
import { explainUnknownOption, usageHint } from './cli/teach.js';
import type { Deps, DepsOverrides } from './context.js';
import {
  describeSystemError,
  type ErrorKind,
  EXIT_CODES,
  PixError,
  SIGNAL_EXIT_CODES,
  type StopSignal,
  stopSignalOf,
} from './errors.js';
import { processIOStreams } from './output/iostreams.js';
import type { OutputWriter } from './output/output.js';
import { escapeUnsafe } from './output/sanitize.js';
import { createContext } from './wiring.js';

interface ErrorReport {
  kind: ErrorKind;
  message: string;
  status?: number;
  serverMessage?: string;
  hint?: string;
  server?: unknown;
  stack?: string;
  /** The user's own doing (Ctrl-C, no at a y/N): said plainly, not as `error:`. */
  ownChoice?: boolean;
}

/** The Commander pieces error reporting needs. */
interface CommanderKit {
  CommanderError: typeof CommanderError;
  usageHint: typeof usageHint;
  explainUnknownOption: typeof explainUnknownOption;
}

function toReport(error: unknown, commander: CommanderKit): ErrorReport {
  if (error instanceof PixError) {
    return {
      kind: error.kind,
      message: error.message,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.serverMessage === undefined ? {} : { serverMessage: error.serverMessage }),
      ...(error.hint === undefined ? {} : { hint: error.hint }),
      ...(error.server === undefined ? {} : { server: error.server }),
      ...(error.stack === undefined ? {} : { stack: error.stack }),
      ...(error.ownChoice ? { ownChoice: true } : {}),
    };
  }
  if (error instanceof commander.CommanderError) {
    // Commander's text is "error: unknown command 'x'\n(Did you mean y?)": keep one line, move the rest to a hint.
    const [first = '', ...rest] = error.message.replace(/^error: /, '').split('\n');
    const suggestion = rest
      .join(' ')
      .replace(/^\((.*)\)$/, '$1')
      .trim();
    const hint = suggestion ? suggestion.replace(/^Did/, 'did') : commander.usageHint(error);
    return { kind: 'usage', message: first, ...(hint ? { hint } : {}) };
  }
  const system = describeSystemError(error);
  if (system) {
    // A full disk or a read-only directory is the machine's state, not a bug: exit 1, named, no stack hint.
    return {
      kind: 'internal',
      ...system,
      ...(error instanceof Error && error.stack !== undefined ? { stack: error.stack } : {}),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    kind: 'internal',
    message: `internal error: ${message.split('\n')[0]}`,
    hint: 'this is a bug in pix; rerun with --verbose for the stack trace',
    ...(error instanceof Error && error.stack !== undefined ? { stack: error.stack } : {}),
  };
}

/** A value echoed inside quotes is cut to this many characters: a pasted megabyte stays one readable line. */
const MAX_ECHOED = 80;

/**
 * Keeps an error message on one line whatever the user typed or the server sent: control characters
 * (newlines, ESC of terminal escape sequences) are shown escaped, and a long quoted value is shortened.
 */
function oneLine(text: string): string {
  const escaped = escapeUnsafe(text);
  const shorten = (whole: string, inner: string, quote: string) => {
    const chars = Array.from(inner);
    if (chars.length <= MAX_ECHOED) return whole;
    return `${quote}${chars.slice(0, MAX_ECHOED - 20).join('')}…${quote} (${chars.length} characters)`;
  };
  return escaped
    .replace(/"([^"]+)"/g, (whole, inner: string) => shorten(whole, inner, '"'))
    .replace(/(?<![\p{L}\d])'([^']+)'(?![\p{L}\d])/gu, (whole, inner: string) => shorten(whole, inner, "'"));
}

/**
 * Writes the error of a failed command on stderr, then `notes`: what the output lost (a partial count,
 * a created charge). `json` writes one JSON object instead (the notes in its `notes`).
 */
function writeError(
  deps: Deps,
  unsafe: ErrorReport,
  json: boolean,
  verbose: boolean,
  notes: string[] = [],
): void {
  const { stderr } = deps.io;
  const report: ErrorReport = {
    ...unsafe,
    message: oneLine(unsafe.message),
    ...(unsafe.serverMessage === undefined ? {} : { serverMessage: oneLine(unsafe.serverMessage) }),
    ...(unsafe.hint === undefined ? {} : { hint: oneLine(unsafe.hint) }),
  };
  if (json) {
    const body = {
      error: {
        kind: report.kind,
        ...(report.status === undefined ? {} : { status: report.status }),
        message: report.serverMessage ? `${report.message}: ${report.serverMessage}` : report.message,
        ...(report.hint === undefined ? {} : { hint: report.hint }),
        ...(report.server === undefined ? {} : { server: report.server }),
        ...(notes.length === 0 ? {} : { notes }),
      },
    };
    stderr.write(`${JSON.stringify(body)}\n`);
    return;
  } else if (report.kind === 'interrupted' || report.ownChoice) {
    // Ctrl-C, or "no" at a question, is the user's own doing: say what stopped, not "error:".
    if (report.message) stderr.write(`${report.message}\n`);
    if (report.hint) stderr.write(`hint: ${report.hint}\n`);
  } else {
    const status = report.status === undefined ? '' : ` (${report.status})`;
    const server = report.serverMessage ? `: ${report.serverMessage}` : '';
    stderr.write(`error: ${report.message}${status}${server}\n`);
    if (report.hint) stderr.write(`hint: ${report.hint}\n`);
  }
  for (const note of notes) stderr.write(`${oneLine(note)}\n`);
  if (verbose && report.stack) stderr.write(`${report.stack}\n`);
}

/** Flags main must know even when parsing failed before the globals were read. */
function scanFlag(argv: readonly string[], ...names: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((token) => names.includes(token));
}

/**
 * The process's SIGINT and SIGTERM as one AbortSignal (deps.signal), aborted with the signal's name. The
 * command sees it and ends cleanly (an export says how much it wrote, a transfer in flight is journaled
 * unknown); a second signal ends the process at once, with 128 + the signal's number.
 */
function processSignal(writer: () => OutputWriter | undefined): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = (name: StopSignal) => {
    if (controller.signal.aborted) {
      const output = writer();
      // Under a pager, Ctrl-C belongs to the pager (less uses it); pix ends when the pager is quit.
      if (output?.paging && name === 'SIGINT') return;
      output?.discardNow();
      process.exit(SIGNAL_EXIT_CODES[name]);
    }
    controller.abort(name);
  };
  const onInt = () => stop('SIGINT');
  const onTerm = () => stop('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/**
 * The exit code of a failed command: the kind's (contract §4), except that a command a signal stopped
 * exits 130 (SIGINT) or 143 (SIGTERM) whatever it was doing when it stopped.
 */
function exitCodeOf(report: ErrorReport, error: unknown, signal: AbortSignal): number {
  if (error instanceof PixError && error.signal) return SIGNAL_EXIT_CODES[error.signal];
  if (report.kind === 'interrupted' || signal.aborted) return SIGNAL_EXIT_CODES[stopSignalOf(signal)];
  return EXIT_CODES[report.kind];
}

/**
 * How a command that threw is reported: its error (the message replaced by the partial count when a
 * signal stopped an export), and the lines that say what the output lost.
 */
async function reportFailure(
  error: unknown,
  deps: Deps,
  output: OutputWriter,
  argv: readonly string[],
  commander: CommanderKit,
): Promise<number> {
  const report = toReport(error, commander);
  const signal =
    error instanceof PixError && error.signal
      ? error.signal
      : report.kind === 'interrupted' || deps.signal.aborted
        ? stopSignalOf(deps.signal)
        : undefined;
  const { partial, lost } = await output.abort(signal);
  // The reader went away (`| head`, `q` in the pager): the output was taken as far as it was wanted.
  if (output.closed && !deps.signal.aborted) return 0;
  const notes = [...lost];
  if (partial !== undefined) {
    if (report.kind === 'interrupted') {
      report.message = partial;
      delete report.hint;
    } else notes.unshift(partial);
  }
  writeError(
    deps,
    report,
    scanFlag(argv, '--json') || deps.globals.json,
    scanFlag(argv, '-v', '--verbose'),
    notes,
  );
  return exitCodeOf(report, error, deps.signal);
}

/** Runs pix with argv (without node and the script) and returns the exit code. The ONE place errors become exit codes. */
export async function run(argv: readonly string[], overrides?: Partial<DepsOverrides>): Promise<number> {
  const commander: CommanderKit = { CommanderError, usageHint, explainUnknownOption };
  const io = overrides?.io ?? processIOStreams();
  // A second signal ends the process at once, and the writer must know (its temporary file, the pager).
  let writer: OutputWriter | undefined;
  const signals = overrides?.signal ? undefined : processSignal(() => writer);
  const { deps, output, globalsError } = createContext({
    ...(signals ? { signal: signals.signal } : {}),
    ...overrides,
    io,
    env: overrides?.env ?? process.env,
    argv,
    command: commandOutput(argv),
    // A pager only on the process's own terminal.
    canPage: !overrides?.io,
  });
  writer = output;
  let exitCode = 0;
  try {
    let failure: { error: unknown } | undefined;
    try {
      const program = createProgram(deps, globalsError);
      await loadCommands(program, deps, argv);
      // `pix` alone is its help, on stdout, exit 0 (as gh): not a mistake to report.
      await program.parseAsync(argv.length === 0 ? ['--help'] : [...argv], { from: 'user' });
    } catch (error) {
      if (error instanceof CommanderError && error.exitCode === 0) {
        exitCode = 0;
      } else if (error instanceof CommanderError && error.code === 'commander.help') {
        exitCode = EXIT_CODES.usage; // a group run without its subcommand: the help was shown on stderr
      } else {
        if (error instanceof CommanderError) await commander.explainUnknownOption(error, deps);
        failure = { error };
      }
    }
    if (!failure) {
      try {
        // Success is only success once the output is out (a full disk reports late).
        await output.commit();
      } catch (error) {
        failure = { error };
      }
    }
    if (failure) exitCode = await reportFailure(failure.error, deps, output, argv, commander);
  } finally {
    try {
      await deps.close();
    } catch {
      // Closing a pool or the embedded sandbox must not turn a result into a failure.
    }
    signals?.dispose();
  }
  return exitCode;
}
