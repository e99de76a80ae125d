import { type ErrorKind, PixError } from '../errors.js';

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
  422: 'the request was refused',
  429: 'too many requests',
};

/**
 * HTTP status → contract §4 kind. `write` is true for charges and the transfer, where a 5xx means the
 * request may have been applied (unknown outcome), while for reads it is only "unavailable".
 */
export function kindForStatus(status: number, write: boolean): ErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 429) return 'unavailable';
  if (status >= 500) return write ? 'unknown_outcome' : 'unavailable';
  return 'rejected';
}

export const UNKNOWN_OUTCOME_HINT =
  'it may have been applied: check `pix statement --from today --to today` before retrying';

export function httpError(what: string, status: number, body: unknown, write: boolean): PixError {
  const kind = kindForStatus(status, write);
  const serverMessage = serverMessageOf(body);
  const words = STATUS_WORDS[status] ?? (status >= 500 ? 'the server failed' : 'the request was refused');
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
