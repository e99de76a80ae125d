import { describe, expect, it } from 'vitest';
import {
  attemptLines,
  createLogReader,
  createReplay,
  encodeLine,
  type LogLine,
  parseCheckpoint,
  TORN_MARK,
} from '../../src/domain/event-log.js';
import {
  entryEvent,
  eventId,
  legacyEventIds,
  recordEvent,
  retryDelayMs,
  signature,
} from '../../src/domain/events.js';

const context = { account: 'acct_0123456789abcdef01234567', profile: 'prod' };
const entry = { id: 'e-1', type: 'INCOME', amount: 10, confirmedAt: '2026-11-25T12:00:00-03:00' };

/** The lines of `text` read strictly: what was taken, what is damage, what is torn. */
function read(text: string, checkedFrom = 1) {
  const taken: Array<{ line: LogLine; number: number }> = [];
  const reader = createLogReader((line, number) => taken.push({ line, number }), { checkedFrom });
  const pieces = text.split('\n');
  const tail = pieces.pop()!;
  for (const piece of pieces) reader.feed(piece);
  reader.tail(tail);
  return { taken, damage: reader.damage(), torn: reader.torn() };
}

describe('pix listen events', () => {
  it('ids come from the account and the record: the same fact is the same event, whatever the URL', () => {
    const a = entryEvent(entry, context);
    expect(a.id).toBe(eventId(context.account, 'entry', 'e-1'));
    expect(a.id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(entryEvent(entry, { ...context, profile: 'renamed' }).id).toBe(a.id);
    expect(entryEvent(entry, { ...context, account: 'acct_other' }).id).not.toBe(a.id);
    expect(entryEvent({ ...entry, type: 'OUTCOME' }, context).type).toBe('entry.outcome');
    // Earlier versions scoped ids by the base URL: those are recognised, never made again.
    expect(legacyEventIds(['https://api.example.test'], 'entry', 'e-1')).toEqual([
      eventId('https://api.example.test', 'entry', 'e-1'),
    ]);
  });

  it("an event's body comes from its source: created is the entry's confirmedAt, not a clock", () => {
    const a = entryEvent(entry, context);
    expect(a.created).toBe('2026-11-25T15:00:00.000Z');
    expect(JSON.stringify(entryEvent({ ...entry }, context))).toBe(JSON.stringify(a));
    const paid = recordEvent(
      'payment.sent',
      { id: 'j-1', at: '2026-11-25T10:00:00.000Z', data: { id: 'j-1' } },
      context,
    );
    expect(paid).toEqual({
      id: eventId(context.account, 'payment.sent', 'j-1'),
      type: 'payment.sent',
      created: '2026-11-25T10:00:00.000Z',
      profile: 'prod',
      data: { id: 'j-1' },
    });
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
});

describe('the event log, read strictly', () => {
  const e1 = entryEvent(entry, context);
  const e2 = entryEvent({ ...entry, id: 'e-2' }, context);
  const lines: LogLine[] = [
    { t: 'event', event: e1 },
    ...attemptLines(e1.id, 'x', { ok: false, error: 'ECONNREFUSED' }),
    ...attemptLines(e1.id, 'x', { ok: true, status: 200 }),
    { t: 'event', event: e2 },
  ];
  const text = `${lines.map(encodeLine).join('\n')}\n`;

  it('replaying it gives back what is owed and what was delivered', () => {
    const replay = createReplay('all', () => {});
    const reader = createLogReader(replay.apply);
    for (const line of text.trimEnd().split('\n')) reader.feed(line);
    expect(reader.damage()).toEqual([]);
    expect(replay.states.get(e1.id)).toMatchObject({
      state: 'delivered',
      attempts: 2,
      lastError: 'ECONNREFUSED',
    });
    expect(replay.states.get(e2.id)).toMatchObject({ state: 'pending', attempts: 0, event: e2 });
    // Kept for pix listen: the owed bodies only.
    const owed = createReplay('owed', () => {});
    const again = createLogReader(owed.apply);
    for (const line of text.trimEnd().split('\n')) again.feed(line);
    expect(owed.states.get(e1.id)?.event).toBeUndefined();
    expect(owed.states.get(e2.id)?.event).toEqual(e2);
  });

  it('one changed byte anywhere in a line is damage, named by its line: never read as something else', () => {
    expect(read(text).damage).toEqual([]);
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 7) {
      if (bytes[at] === 0x0a) continue;
      const changed = Buffer.from(bytes);
      changed[at] = bytes[at] === 0x31 ? 0x32 : 0x31;
      const line = bytes.subarray(0, at).toString().split('\n').length;
      const { damage, taken } = read(changed.toString());
      expect(
        damage.map((problem) => problem.line),
        `byte ${at}`,
      ).toContain(line);
      expect(taken.map((item) => item.number)).not.toContain(line);
    }
  });

  it('a torn write is harmless: cut short at the end, or marked by the next writer; unmarked, it is damage', () => {
    const cut = text.slice(0, -40);
    expect(read(cut)).toMatchObject({ damage: [], torn: [5] });
    const marked = `${cut}\n${TORN_MARK}\n${encodeLine({ t: 'dead', id: e2.id, at: 'y' })}\n`;
    expect(read(marked)).toMatchObject({ damage: [], torn: [5] });
    const unmarked = `${cut}\n${encodeLine({ t: 'dead', id: e2.id, at: 'y' })}\n`;
    expect(read(unmarked).damage).toEqual([{ line: 5, reason: 'not JSON' }]);
  });

  it("an earlier version's lines carry no checksum: taken before `checkedFrom`, damage after it", () => {
    const legacy = `${JSON.stringify({ t: 'seen', ids: ['old-1'] })}\n${JSON.stringify({ t: 'event', event: e1 })}\n`;
    expect(read(legacy, Number.POSITIVE_INFINITY).damage).toEqual([]);
    expect(read(`${legacy}${text}`, 3).damage).toEqual([]);
    expect(read(`${legacy}${text}`, 2).damage).toEqual([
      { line: 2, reason: 'no checksum (every line this version writes has one)' },
    ]);
  });

  it('a line about an event the log never made is damage; an unknown line is damage', () => {
    const problems: Array<{ line: number; reason: string }> = [];
    const replay = createReplay('all', (problem) => problems.push(problem));
    const reader = createLogReader(replay.apply);
    reader.feed(encodeLine({ t: 'delivered', id: 'evt_nowhere', at: 'x' }));
    reader.feed(`${JSON.stringify({ t: 'unheard-of' }).slice(0, -1)},"sum":"00000000"}`);
    expect(problems).toEqual([
      { line: 1, reason: 'a delivered line for event evt_nowhere, whose event line is missing' },
    ]);
    expect(reader.damage()).toEqual([{ line: 2, reason: 'its checksum does not match (a changed byte)' }]);
  });

  it('a checkpoint is read whole or not at all', () => {
    const sound = {
      version: 1,
      log: { lines: 4, bytes: 900, last: 'abcd0123', legacyLines: 0 },
      statement: { recent: ['e-2', 'e-1'] },
      journal: { identity: '1:2', offset: 10 },
      at: '2026-11-25T12:00:00.000Z',
    };
    expect(parseCheckpoint(JSON.stringify(sound))).toEqual(sound);
    expect(parseCheckpoint(JSON.stringify(sound).slice(0, -2))).toBe('not JSON');
    expect(parseCheckpoint(JSON.stringify({ ...sound, log: { lines: 4 } }))).toBe('no log counts');
    expect(parseCheckpoint(JSON.stringify({ ...sound, catchUp: { legacy: false } }))).toBe(
      'a first run without its start',
    );
  });
});
