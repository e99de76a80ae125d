import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  DUPLICATE_WINDOW_MS,
  findDuplicate,
  hashEmv,
  JOURNAL_FILE,
  openJournal,
  type Payment,
  parseJournal,
} from '../src/journal.js';
import { tempConfigDir } from './helpers/cli.js';

const T0 = new Date('2026-03-10T12:00:00Z');

function clockAt(date: Date) {
  let now = date;
  return {
    now: () => now,
    set(next: Date) {
      now = next;
    },
  };
}

const keyPayment = (over: Partial<Payment> = {}) => ({
  profile: 'prod',
  host: 'api.example.test',
  kind: 'key' as const,
  key: 'ana@example.com',
  amountCentavos: 1050,
  endToEndId: 'E123',
  ...over,
});

describe('journal file', () => {
  it('appends a sending line and a finishing line, merged on read, mode 0600, no EMV code kept', () => {
    const dir = join(tempConfigDir(), 'nested');
    const journal = openJournal(dir, clockAt(T0));
    const emv = '00020101021226...6304ABCD';
    const start = journal.begin({
      ...keyPayment(),
      kind: 'qr',
      key: undefined,
      emvHash: hashEmv(emv),
      dynamic: true,
    });
    expect(start.state).toBe('sending');
    expect(journal.read()).toEqual([expect.objectContaining({ id: start.id, state: 'sending' })]);
    journal.finish(start.id, { state: 'done', transferId: 't-1', status: 'PENDING' });
    const [payment] = journal.read();
    expect(payment).toMatchObject({ id: start.id, state: 'done', transferId: 't-1', status: 'PENDING' });
    const text = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(2);
    expect(text).not.toContain(emv);
    expect(statSync(join(dir, JOURNAL_FILE)).mode & 0o777).toBe(0o600);
  });

  it('skips a torn line (a writer killed mid-write) and starts the next line fresh', () => {
    const dir = tempConfigDir();
    const journal = openJournal(dir, clockAt(T0));
    const first = journal.begin(keyPayment());
    appendFileSync(join(dir, JOURNAL_FILE), '{"id":"torn","at":"2026-03-10T12:00:00Z","state":"sen');
    expect(journal.read().map((p) => p.id)).toEqual([first.id]);
    const second = journal.begin(keyPayment({ key: 'bob@example.com' }));
    journal.finish(second.id, { state: 'unknown' });
    expect(journal.read().map((p) => [p.id, p.state])).toEqual([
      [first.id, 'sending'],
      [second.id, 'unknown'],
    ]);
  });

  it('reads a missing journal as empty and ignores lines that are not entries', () => {
    expect(openJournal(tempConfigDir(), clockAt(T0)).read()).toEqual([]);
    expect(parseJournal('garbage\n[1,2]\n{"id":"x","state":"done"}\nnull\n')).toEqual([]);
  });

  it('concurrent writers in separate processes never produce a line that fails to parse', async () => {
    const dir = tempConfigDir();
    const module = fileURLToPath(new URL('../src/journal.ts', import.meta.url));
    const script = `
      import { openJournal } from ${JSON.stringify(module)};
      const j = openJournal(process.argv[1], { now: () => new Date() });
      for (let i = 0; i < 150; i++) {
        const s = j.begin({ profile: 'p', host: 'h', kind: 'key', key: 'k' + process.pid + '-' + i + 'x'.repeat(300), amountCentavos: i + 1, endToEndId: 'E' + i });
        j.finish(s.id, { state: 'done', transferId: 't' + i });
      }`;
    const tsx = fileURLToPath(new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url));
    const writers = Array.from(
      { length: 4 },
      () =>
        new Promise<number | null>((resolve, reject) => {
          const child = spawn(process.execPath, [tsx, '--eval', script, dir], { stdio: 'inherit' });
          child.on('error', reject);
          child.on('close', resolve);
        }),
    );
    expect(await Promise.all(writers)).toEqual([0, 0, 0, 0]);
    const lines = readFileSync(join(dir, JOURNAL_FILE), 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(4 * 150 * 2);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    const payments = openJournal(dir, clockAt(T0)).read();
    expect(payments).toHaveLength(600);
    expect(payments.every((p) => p.state === 'done')).toBe(true);
  }, 30_000);
});

describe('duplicate guard', () => {
  const at = (ms: number) => new Date(T0.getTime() + ms).toISOString();
  const payment = (over: Partial<Payment>): Payment => ({
    id: 'p1',
    at: T0.toISOString(),
    ...keyPayment(),
    state: 'done',
    ...over,
  });

  it('same key and amount within 10 minutes is a duplicate; after 10 minutes, another amount or key is not', () => {
    const earlier = [payment({})];
    const query = { kind: 'key' as const, key: 'ana@example.com', amountCentavos: 1050 };
    expect(findDuplicate(earlier, query, new Date(T0.getTime() + 9 * 60_000))?.id).toBe('p1');
    expect(findDuplicate(earlier, query, new Date(T0.getTime() + DUPLICATE_WINDOW_MS))).toBeUndefined();
    expect(findDuplicate(earlier, { ...query, amountCentavos: 1051 }, T0)).toBeUndefined();
    expect(findDuplicate(earlier, { ...query, key: 'bob@example.com' }, T0)).toBeUndefined();
  });

  it('failed payments never count; unknown and sending ones do', () => {
    const query = { kind: 'key' as const, key: 'ana@example.com', amountCentavos: 1050 };
    expect(findDuplicate([payment({ state: 'failed' })], query, T0)).toBeUndefined();
    expect(findDuplicate([payment({ state: 'unknown' })], query, T0)?.state).toBe('unknown');
    expect(findDuplicate([payment({ state: 'sending' })], query, T0)?.state).toBe('sending');
  });

  it('a dynamic code paid once is a duplicate forever, whatever the amount; a static code only within the window', () => {
    const qr = (over: Partial<Payment>) =>
      payment({ kind: 'qr', key: undefined, emvHash: 'h1', dynamic: true, at: at(0), ...over });
    const dynamicQuery = { kind: 'qr' as const, emvHash: 'h1', dynamic: true, amountCentavos: 999 };
    const muchLater = new Date(T0.getTime() + 30 * 24 * 3600_000);
    expect(findDuplicate([qr({})], dynamicQuery, muchLater)?.id).toBe('p1');
    expect(findDuplicate([qr({})], { ...dynamicQuery, emvHash: 'h2' }, muchLater)).toBeUndefined();
    const staticQuery = { kind: 'qr' as const, emvHash: 'h1', dynamic: false, amountCentavos: 1050 };
    expect(findDuplicate([qr({ dynamic: false })], staticQuery, new Date(T0.getTime() + 60_000))?.id).toBe(
      'p1',
    );
    expect(findDuplicate([qr({ dynamic: false })], staticQuery, muchLater)).toBeUndefined();
    // A key payment never matches a QR query and vice versa.
    expect(
      findDuplicate([payment({})], { kind: 'qr', emvHash: 'h1', dynamic: true, amountCentavos: 1050 }, T0),
    ).toBeUndefined();
  });

  it('with `before`, only entries written before ours count (two processes racing on one code)', () => {
    const dir = tempConfigDir();
    const clock = clockAt(T0);
    const journal = openJournal(dir, clock);
    const query = { kind: 'key' as const, key: 'ana@example.com', amountCentavos: 1050 };
    const first = journal.begin(keyPayment());
    const second = journal.begin(keyPayment());
    expect(journal.findDuplicate(query, first.id)).toBeUndefined();
    expect(journal.findDuplicate(query, second.id)?.id).toBe(first.id);
    clock.set(new Date(T0.getTime() + DUPLICATE_WINDOW_MS + 1));
    expect(journal.findDuplicate(query)).toBeUndefined();
  });

  it('a journal line of a finished payment written by hand is honoured', () => {
    const dir = tempConfigDir();
    writeFileSync(
      join(dir, JOURNAL_FILE),
      `${JSON.stringify({ id: 'a', at: T0.toISOString(), ...keyPayment(), state: 'sending' })}\n${JSON.stringify({ id: 'a', at: T0.toISOString(), state: 'done' })}\n`,
    );
    const found = openJournal(dir, clockAt(T0)).findDuplicate({
      kind: 'key',
      key: 'ana@example.com',
      amountCentavos: 1050,
    });
    expect(found).toMatchObject({ id: 'a', state: 'done', endToEndId: 'E123' });
  });
});
