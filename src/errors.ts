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
  | 'declined';

export const EXIT_CODES: Readonly<Record<ErrorKind, number>> = {
  internal: 1,
  usage: 2,
  auth: 3,
  not_found: 4,
  rejected: 5,
  unavailable: 6,
  unknown_outcome: 7,
  declined: 8,
};

export interface PixErrorDetails {
  /** HTTP status of the answer that caused it, when there was one. */
  status?: number;
  /** A second line telling the user what to do next. */
  hint?: string;
  /** The raw error body of the server, kept for `--json` errors. */
  server?: unknown;
  /** The server's own message, shown after the status. */
  serverMessage?: string;
  cause?: unknown;
}

export class PixError extends Error {
  readonly kind: ErrorKind;
  readonly status: number | undefined;
  readonly hint: string | undefined;
  readonly server: unknown;
  readonly serverMessage: string | undefined;

  constructor(kind: ErrorKind, message: string, details: PixErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'PixError';
    this.kind = kind;
    this.status = details.status;
    this.hint = details.hint;
    this.server = details.server;
    this.serverMessage = details.serverMessage;
  }

  get exitCode(): number {
    return EXIT_CODES[this.kind];
  }
}

/** A bad flag or value, rejected before anything was sent. `flag` is named first, as the contract asks. */
export function usageError(flag: string | undefined, reason: string, hint?: string): PixError {
  const message = flag ? `${flag}: ${reason}` : reason;
  return new PixError('usage', message, hint === undefined ? {} : { hint });
}
