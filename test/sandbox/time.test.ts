import { describe, expect, it } from 'vitest';
import { createAccountClock, SANDBOX_TIME_HEADER } from '../../src/sandbox/time.js';

describe('createAccountClock', () => {
  let local = Date.parse('2026-03-10T15:00:00Z');
  const clock = { now: () => new Date(local) };

  it("takes the sandbox's time from its answers, and runs on with the local clock", () => {
    const account = createAccountClock(clock, true);
    expect(account.now().toISOString()).toBe('2026-03-10T15:00:00.000Z');
    account.observe({ [SANDBOX_TIME_HEADER]: '2026-03-12T15:00:00.000Z' });
    expect(account.now().toISOString()).toBe('2026-03-12T15:00:00.000Z');
    local += 60_000;
    expect(account.now().toISOString()).toBe('2026-03-12T15:01:00.000Z');
    // Something that is not a time changes nothing.
    account.observe({ [SANDBOX_TIME_HEADER]: 'tomorrow' });
    account.observe({});
    expect(account.now().toISOString()).toBe('2026-03-12T15:01:00.000Z');
  });

  it('ignores the header from an API that is not the sandbox', () => {
    const account = createAccountClock(clock, false);
    account.observe({ [SANDBOX_TIME_HEADER]: '2030-01-01T00:00:00.000Z' });
    expect(account.now().getTime()).toBe(local);
  });
});
