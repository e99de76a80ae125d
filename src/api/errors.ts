/**
 * How a request that went wrong becomes a PixError: an HTTP error status and the server's message, a
 * failure below HTTP (and whether a byte of it can have reached the server, with the hint its error code
 * suggests), and a 2xx answer that cannot be read (unavailable for a read, an unknown outcome for a write).
 */
import { type ErrorKind, PixError } from '../errors.js';
import type { EndpointPolicy } from './endpoint.js';
import { kindForStatus } from './outcomes.js';
import { CONNECT_TIMEOUT, NOT_CONNECTED } from './transport.js';

/** Reads the server's message from an error body of unknown shape (contract §6), keeping the raw body. */
export function serverMessageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() === '' ? undefined : body.trim().slice(0, 200);
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const nested = (value: unknown): string | undefined =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string'
      ? (value as { message: string }).message
      : undefined;
  const candidates = [
    record.message,
    nested(record.error),
    Array.isArray(record.errors) ? nested(record.errors[0]) : undefined,
    record.description,
    record.detail,
  ];
  const found = candidates.find(
    (candidate): candidate is string => typeof candidate === 'string' && candidate !== '',
  );
  return found?.replace(/\s+/g, ' ').trim();
}

const STATUS_WORDS: Record<number, string> = {
  400: 'the request was refused',
  401: 'the credentials were refused (invalid or expired token)',
  403: 'this IP address is not authorised',
  404: 'not found',
  408: 'the server gave up waiting',
  409: 'the server reported a conflict',
  422: 'the request was refused',
  425: 'the server refused to process it yet',
  429: 'too many requests',
  499: 'the request was cut off',
};

function statusWords(status: number, kind: ErrorKind): string {
  const known = STATUS_WORDS[status];
  if (known) return known;
  if (status >= 500) return 'the server failed';
  if (status >= 300 && status < 400) return 'the server answered with a redirect';
  if (status < 200) return 'the server sent no final answer';
  // A write's unexpected 4xx proves nothing (api/outcomes.ts): do not call it a refusal.
  return kind === 'unknown_outcome' ? 'unexpected answer' : 'the request was refused';
}

export const UNKNOWN_OUTCOME_HINT =
  'it may have been applied: check `pix statement --from today --to today` before retrying';

export function httpError(what: string, status: number, body: unknown, write: boolean): PixError {
  const kind = kindForStatus(status, write);
  const serverMessage = serverMessageOf(body);
  const words = statusWords(status, kind);
  const hints: Partial<Record<ErrorKind, string>> = {
    auth:
      status === 403
        ? 'ask the provider to authorise the IP address this runs from'
        : 'run `pix login` again, or check PIX_TOKEN / the client credentials',
    unknown_outcome: UNKNOWN_OUTCOME_HINT,
    unavailable: 'the service is unavailable; it is safe to try again later',
  };
  const hint = hints[kind];
  return new PixError(kind, `${what}: ${words}`, {
    status,
    server: body,
    ...(serverMessage === undefined ? {} : { serverMessage }),
    ...(hint === undefined ? {} : { hint }),
  });
}

/** A request that failed below HTTP; `sent` is false only when we know no byte reached the server. */
export class NetworkFailure extends Error {
  constructor(
    readonly sent: boolean,
    readonly timedOut: boolean,
    readonly code: string | undefined,
    /** The command's signal (Ctrl-C, SIGTERM) cancelled it. */
    readonly interrupted = false,
  ) {
    super(code ?? 'network failure');
  }
}

export const NOT_SENT_CODES = new Set([
  NOT_CONNECTED,
  CONNECT_TIMEOUT,
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
]);

export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What a network failure's error code suggests doing. */
export function networkHint(failure: NetworkFailure): string {
  if (failure.timedOut) return 'check the network, or raise --timeout if the API is slow';
  switch (failure.code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name did not resolve: check the base URL (and the DNS)';
    case 'ECONNREFUSED':
      return 'nothing listens there: check the base URL and that the API is up';
    default:
      return 'check the network and the base URL';
  }
}

/** The first problem zod found in an answer (its documented issues: a path and a message). */
export function describeIssues(error: {
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>;
}): string {
  const issue = error.issues[0];
  if (!issue) return 'unexpected shape';
  const where = issue.path.length ? issue.path.join('.') : 'body';
  // zod says "Invalid input: expected string, received undefined"; users read "missing (expected string)".
  const reason = issue.message
    .replace(/^Invalid input: expected (.+), received undefined$/, 'missing (expected $1)')
    .replace(/^Invalid input: /, '');
  return `unexpected shape at ${where}: ${reason}`;
}

/** A 2xx answer that cannot be taken as what was asked: unavailable for a read, unknown for a write. */
export function unreadable(
  endpoint: EndpointPolicy,
  status: number,
  reason: string,
  body: unknown,
): PixError {
  const write = endpoint.retry === 'never';
  return new PixError(
    write ? 'unknown_outcome' : 'unavailable',
    `${endpoint.what}: the answer could not be read (${reason})`,
    {
      status,
      ...(body === undefined ? {} : { server: body }),
      hint: write ? UNKNOWN_OUTCOME_HINT : 'the server sent something unexpected; try again later',
    },
  );
}
