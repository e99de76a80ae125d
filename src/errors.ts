/**
 * The error kinds of the contract (§4). Commands throw these; only main.ts turns them into exit codes.
 */
export type ErrorKind =
  | 'internal'
  | 'usage'
  | 'auth'
  | 'not_found'
  | 'rejected'
  | 'unavailable'
  | 'unknown_outcome'
  | 'declined'
  | 'pending'
  | 'interrupted';

export const EXIT_CODES: Readonly<Record<ErrorKind, number>> = {
  internal: 1,
  usage: 2,
  auth: 3,
  not_found: 4,
  rejected: 5,
  unavailable: 6,
  unknown_outcome: 7,
  declined: 8,
  /** A wait ended at its `--timeout` with nothing happened yet (`pix charge wait`). */
  pending: 9,
  /** Ctrl-C (SIGINT): 128 + 2. SIGTERM makes any error 143 (see PixErrorDetails.signal). */
  interrupted: 130,
};

/** The signals that interrupt a command, and the exit code each gives (128 + the signal's number). */
export type StopSignal = 'SIGINT' | 'SIGTERM';
export const SIGNAL_EXIT_CODES: Readonly<Record<StopSignal, number>> = { SIGINT: 130, SIGTERM: 143 };

export interface PixErrorDetails {
  /** HTTP status of the answer that caused it, when there was one. */
  status?: number;
  /** A second line telling the user what to do next. */
  hint?: string;
  /** The raw error body of the server, kept for `--json` errors. */
  server?: unknown;
  /** The server's own message, shown after the status. */
  serverMessage?: string;
  /**
   * Set when a signal stopped the command: the exit code is then 130 (SIGINT) or 143 (SIGTERM) whatever
   * the kind, while the kind still says what is known (a transfer interrupted in flight stays
   * `unknown_outcome`; a read is `interrupted`).
   */
  signal?: StopSignal;
  /** The user's own answer (no at a y/N question): reported as a plain line, not as `error:`. */
  ownChoice?: boolean;
  cause?: unknown;
}

export class PixError extends Error {
  readonly kind: ErrorKind;
  readonly status: number | undefined;
  readonly hint: string | undefined;
  readonly server: unknown;
  readonly serverMessage: string | undefined;
  readonly signal: StopSignal | undefined;
  readonly ownChoice: boolean;

  constructor(kind: ErrorKind, message: string, details: PixErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'PixError';
    this.kind = kind;
    this.status = details.status;
    this.hint = details.hint;
    this.server = details.server;
    this.serverMessage = details.serverMessage;
    this.signal = details.signal;
    this.ownChoice = details.ownChoice === true;
  }

  get exitCode(): number {
    return this.signal ? SIGNAL_EXIT_CODES[this.signal] : EXIT_CODES[this.kind];
  }
}

/** The command was stopped by a signal before anything it could not take back happened. */
export function interruptedError(signal: StopSignal, what: string, hint?: string): PixError {
  return new PixError('interrupted', `${what}: interrupted`, {
    signal,
    ...(hint === undefined ? {} : { hint }),
  });
}

/**
 * Exit 6 for a list read short of the total its server announced (a page that brought nothing new before
 * it): `<what> is incomplete: received N of M records the server announced`; or whose total moved while it
 * was read (api/paginate.ts shortfall). Every pager says it so.
 */
export function incompleteList(
  what: string,
  short: { received: number; expected: number; moved?: { from: number; to: number } | undefined },
  hint: string,
): PixError {
  const why =
    short.moved === undefined
      ? `received ${short.received} of ${short.expected} records the server announced`
      : `the server's total changed while it was read (${short.moved.from} → ${short.moved.to}; received ${short.received})`;
  return new PixError('unavailable', `${what} is incomplete: ${why}`, { hint });
}

/** The signal an aborted `deps.signal` carries (main.ts aborts with the signal's name). */
export function stopSignalOf(signal: AbortSignal): StopSignal {
  return signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
}

/** A bad flag or value, rejected before anything was sent. `flag` is named first, as the contract asks. */
export function usageError(flag: string | undefined, reason: string, hint?: string): PixError {
  const message = flag ? `${flag}: ${reason}` : reason;
  return new PixError('usage', message, hint === undefined ? {} : { hint });
}

/** Operating-system failures a person can act on, in their words (errno code → what it means). */
const SYSTEM_ERRORS: Readonly<Record<string, { words: string; hint: string }>> = {
  ENOSPC: { words: 'no space left on device', hint: 'free some disk space and run it again' },
  EDQUOT: { words: 'disk quota exceeded', hint: 'free some space within your quota and run it again' },
  EROFS: { words: 'read-only file system', hint: 'point PIX_CONFIG_DIR (or the output) at a writable place' },
  EACCES: { words: 'permission denied', hint: 'check the owner and mode of the file and its directory' },
  EPERM: { words: 'operation not permitted', hint: 'check the owner and mode of the file and its directory' },
  EIO: { words: 'input/output error', hint: 'the device failed; check it and run it again' },
  ENOENT: { words: 'no such file or directory', hint: 'check the path' },
  ENOTDIR: { words: 'a part of the path is not a directory', hint: 'check the path' },
  EISDIR: { words: 'is a directory', hint: 'give a file, not a directory' },
  ELOOP: {
    words: 'refused to follow a symbolic link',
    hint: 'pix does not follow symbolic links for its own files: replace the link with the file itself',
  },
  EMFILE: { words: 'too many open files', hint: 'raise the limit (ulimit -n) or close other programs' },
  ENFILE: { words: 'too many open files in the system', hint: 'close other programs and run it again' },
  ENAMETOOLONG: { words: 'file name too long', hint: 'use a shorter path' },
};

/**
 * An operating-system error (ENOSPC, EROFS, EACCES, …) as `cannot <verb> <path>: <words>`, or undefined
 * when `error` is not one pix knows how to name. main.ts reports these as exit 1 without calling them a
 * bug; code that knows better (a journal write after money moved) catches them first.
 */
export function describeSystemError(error: unknown): { message: string; hint: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, syscall, path } = error as { code?: unknown; syscall?: unknown; path?: unknown };
  if (typeof code !== 'string') return undefined;
  const known = SYSTEM_ERRORS[code];
  if (!known) return undefined;
  const verb =
    syscall === 'write' || syscall === 'fsync' || syscall === 'fdatasync'
      ? 'write'
      : syscall === 'mkdir'
        ? 'create the directory'
        : syscall === 'rename'
          ? 'replace'
          : syscall === 'read' || syscall === 'scandir'
            ? 'read'
            : 'open';
  const where = typeof path === 'string' ? ` ${path}` : '';
  return { message: `cannot ${verb}${where}: ${known.words}`, hint: known.hint };
}
