import { describe, expect, it } from 'vitest';
import { isRetryable, MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelay } from '../../src/api/retry.js';

describe('retry policy', () => {
  it('retries network errors and 429, 502, 503, 504 only', () => {
    expect(isRetryable({ kind: 'network' })).toBe(true);
    for (const status of [429, 502, 503, 504]) expect(isRetryable({ kind: 'status', status })).toBe(true);
    for (const status of [400, 401, 403, 404, 422, 500, 501])
      expect(isRetryable({ kind: 'status', status })).toBe(false);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('honours Retry-After up to 60 s and gives up beyond it', () => {
    expect(retryDelay(1, 1500, 0.5)).toBe(1500);
    expect(retryDelay(1, MAX_RETRY_AFTER_MS, 0.5)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelay(1, MAX_RETRY_AFTER_MS + 1, 0.5)).toBeUndefined();
  });

  it('backs off exponentially with jitter between half and all of the ceiling', () => {
    expect(retryDelay(1, undefined, 0)).toBe(100);
    expect(retryDelay(1, undefined, 0.999999)).toBe(200);
    expect(retryDelay(2, undefined, 0)).toBe(200);
    expect(retryDelay(2, undefined, 0.999999)).toBe(400);
  });
});
