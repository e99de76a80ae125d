/**
 * The retry policy of safe endpoints (GETs and the two consults), as pure functions so it can be
 * unit-tested without a clock: up to 2 retries on network errors, 429, 502, 503 and 504, with
 * exponential backoff and jitter, and `Retry-After` honoured up to 60 s.
 */
export const MAX_RETRIES = 2;
export const BASE_DELAY_MS = 200;
export const MAX_RETRY_AFTER_MS = 60_000;

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

export type AttemptOutcome = { kind: 'status'; status: number } | { kind: 'network' };

export function isRetryable(outcome: AttemptOutcome): boolean {
  return outcome.kind === 'network' || RETRYABLE_STATUSES.has(outcome.status);
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now.getTime());
}

/**
 * How long to wait before retry number `retry` (1-based), or undefined when the server asks for more
 * than we are willing to wait (then we stop and report the failure instead of hanging).
 */
export function retryDelay(
  retry: number,
  retryAfterMs: number | undefined,
  random: number,
): number | undefined {
  if (retryAfterMs !== undefined) return retryAfterMs > MAX_RETRY_AFTER_MS ? undefined : retryAfterMs;
  const ceiling = BASE_DELAY_MS * 2 ** (retry - 1);
  // "Equal jitter": half fixed, half random, so retries from many clients spread out but never collapse to zero.
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
