import { describe, expect, it } from 'vitest';
import { entryEvent, eventId, parseLog, replay, retryDelayMs, signature } from '../../src/domain/events.js';

const context = {
  baseUrl: 'https://api.example.test',
  profile: 'prod',
  now: new Date('2026-11-25T12:00:00Z'),
};

describe('pix listen events', () => {
  it('ids are deterministic: the same entry on the same API is the same event, always', () => {
    const entry = { id: 'e-1', type: 'INCOME', amount: 10 };
    const a = entryEvent(entry, context);
    const b = entryEvent(entry, { ...context, now: new Date('2027-01-01T00:00:00Z') });
    expect(a.id).toBe(b.id);
    expect(a.id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(eventId('https://other.example', 'entry', 'e-1')).not.toBe(a.id);
    expect(entryEvent({ ...entry, type: 'OUTCOME' }, context).type).toBe('entry.outcome');
  });

  it("signs as Stripe does: t=<seconds>,v1=HMAC-SHA256(secret, '<t>.<body>')", () => {
    // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_x
    expect(signature('whsec_x', '{"a":1}', 1_700_000_000)).toBe(
      't=1700000000,v1=b3438763ab46d9634b9844c8722818eaf523f803db1327484c6067462a5fd6d1',
    );
  });

  it('retries wait 1 s doubling up to 5 minutes, with jitter', () => {
    expect(retryDelayMs(2, 0.5)).toBe(1000);
    expect(retryDelayMs(3, 0.5)).toBe(2000);
    expect(retryDelayMs(30, 0.5)).toBe(300_000);
    expect(retryDelayMs(2, 0)).toBe(800);
    expect(retryDelayMs(2, 1)).toBe(1200);
  });

  it('replaying the log gives back what is owed; a torn last line is skipped', () => {
    const e1 = entryEvent({ id: 'e-1', type: 'INCOME' }, context);
    const e2 = entryEvent({ id: 'e-2', type: 'INCOME' }, context);
    const text = [
      JSON.stringify({ t: 'seen', ids: ['old-1'] }),
      JSON.stringify({ t: 'event', event: e1 }),
      JSON.stringify({ t: 'attempt', id: e1.id, at: 'x', ok: false, error: 'ECONNREFUSED' }),
      JSON.stringify({ t: 'attempt', id: e1.id, at: 'x', ok: true, status: 200 }),
      JSON.stringify({ t: 'delivered', id: e1.id, at: 'x' }),
      JSON.stringify({ t: 'event', event: e2 }),
      '{"t":"attempt","id":"evt_',
    ].join('\n');
    const { events, seen } = replay(parseLog(text));
    expect([...seen].sort()).toEqual(['e-1', 'e-2', 'old-1']);
    expect(events.get(e1.id)).toMatchObject({ state: 'delivered', attempts: 2, lastError: 'ECONNREFUSED' });
    expect(events.get(e2.id)).toMatchObject({ state: 'pending', attempts: 0 });
  });
});
