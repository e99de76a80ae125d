import { type ErrorKind, PixError } from '../errors.js';
import { kindForStatus } from './outcomes.js';

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
