/**
 * The charge ledger and `pix charge list/show/wait` against the sandbox server (loopback), in-process,
 * with a fake clock and a fake sleep: the sandbox, `pix sandbox pay`, the ledger and the wait all read
 * `now`, and each sleep of the wait moves it forward (and may have someone pay a charge meanwhile).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeBrCode } from '../../src/domain/brcode.js';
import { addDays, todayIn } from '../../src/domain/when.js';
import { run } from '../../src/main.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { SEEDED_KEYS } from '../../src/sandbox/state.js';
import { createTestIO } from '../helpers/io.js';

const KEY = SEEDED_KEYS.email.id;
let dir: string;
let now: Date;
/** Run at each sleep of a wait (after `now` moved on). */
let onSleep: (slept: number) => Promise<void>;
let sleeps: number[];
let server: SandboxServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pix-charge-follow-'));
  now = new Date('2026-03-10T15:00:00.000Z');
  onSleep = async () => {};
  sleeps = [];
  server = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox.json'), clock: () => now });
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pix(args: string[], signal?: AbortSignal) {
  const test = createTestIO();
  const code = await run(args, {
    io: test.io,
    env: { PIX_CONFIG_DIR: dir, HOME: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'test-token-follow' },
    clock: { now: () => now },
    sleep: async (ms) => {
      sleeps.push(ms);
      now = new Date(now.getTime() + ms);
      await onSleep(ms);
    },
    ...(signal ? { signal } : {}),
  });
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

async function immediate(amount: string): Promise<{ id: string; emvqrcps: string }> {
  const created = await pix([
    'charge',
    'immediate',
    '--amount',
    amount,
    '--json',
    '--no-qr',
    '--key-id',
    KEY,
  ]);
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout);
}

const later = (ms: number) => {
  now = new Date(now.getTime() + ms);
};

describe('the charge ledger', () => {
  it('lists a created charge and shows it again with the same code', async () => {
    const first = await immediate('10,50');
    later(60_000);
    const second = await immediate('25');
    const list = await pix(['charge', 'list', '--json']);
    expect(list.code).toBe(0);
    const listed = JSON.parse(list.stdout);
    expect(listed.results.map((r: { id: string }) => r.id)).toEqual([second.id, first.id]);
    expect(listed.results[1]).toMatchObject({
      type: 'immediate',
      status: 'pending',
      amount: 10.5,
      emvqrcps: first.emvqrcps,
    });

    const piped = await pix(['charge', 'show', first.id.slice(0, 8), '--no-qr']);
    expect(piped.code, piped.stderr).toBe(0);
    const columns = piped.stdout.trimEnd().split('\t');
    expect(columns[0]).toBe(first.id);
    expect(columns.at(-1)).toBe(first.emvqrcps);
    expect(decodeBrCode(columns.at(-1)!).amount).toBe(1050);

    const json = JSON.parse((await pix(['charge', 'show', first.id, '--json'])).stdout);
    expect(json).toMatchObject({ id: first.id, emvqrcps: first.emvqrcps, status: 'pending', paid: null });
  });

  it('--status filters, --limit cuts the newest; an unknown id is exit 4 and a bad status exit 2', async () => {
    for (const amount of ['10', '11', '12']) {
      await immediate(amount);
      later(1000);
    }
    const limited = JSON.parse((await pix(['charge', 'list', '--limit', '2', '--json'])).stdout);
    expect(limited.results.map((r: { amount: number }) => r.amount)).toEqual([12, 11]);
    expect(JSON.parse((await pix(['charge', 'list', '--status', 'paid', '--json'])).stdout).results).toEqual(
      [],
    );
    const missing = await pix(['charge', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: no charge "00000000-0000-4000-8000-000000000000" in the ledger/);
    const bad = await pix(['charge', 'list', '--status', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --status: "nope" is not a status/);
  });
});

describe('pix charge wait', () => {
  it('returns 0 with the entry a few seconds after `pix sandbox pay`, and records the match', async () => {
    const charge = await immediate('10,50');
    onSleep = async () => {
      if (sleeps.length === 2)
        expect((await pix(['sandbox', 'pay', '--state', join(dir, 'sandbox.json'), charge.id])).code).toBe(0);
    };
    const waited = await pix(['charge', 'wait', charge.id, '--json']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(sleeps).toEqual([3000, 3000]);
    const result = JSON.parse(waited.stdout);
    expect(result.charge).toMatchObject({ id: charge.id, status: 'paid' });
    expect(result.charge.paid.how).toBe('matched by amount (R$ 10,50) and time');
    expect(result.entry).toMatchObject({ type: 'INCOME', amount: 10.5, id: result.charge.paid.entryId });
    const listed = JSON.parse((await pix(['charge', 'list', '--json'])).stdout).results[0];
    expect(listed).toMatchObject({ status: 'paid', paid: { entryId: result.charge.paid.entryId } });
    // Already paid: answered from the ledger, at once.
    sleeps = [];
    expect((await pix(['charge', 'wait', charge.id])).code).toBe(0);
    expect(sleeps).toEqual([]);
  });

  it('returns 9 at its --timeout when nobody pays, polling every --interval', async () => {
    const charge = await immediate('10');
    const waited = await pix(['charge', 'wait', charge.id, '--timeout', '20s', '--interval', '5s']);
    expect(waited.code).toBe(9);
    expect(sleeps).toEqual([5000, 5000, 5000, 5000]);
    expect(waited.stderr).toMatch(
      /error: charge .+ is still pending after 20s\nhint: wait again with `pix charge wait /,
    );
  });

  it('returns 5 once the charge expired unpaid', async () => {
    const created = await pix([
      'charge',
      'immediate',
      '--amount',
      '10',
      '--expires-in',
      '1m',
      '--json',
      '--no-qr',
      '--key-id',
      KEY,
    ]);
    const { id } = JSON.parse(created.stdout);
    const waited = await pix(['charge', 'wait', id, '--interval', '1m']);
    expect(waited.code).toBe(5);
    expect(waited.stderr).toMatch(/expired unpaid/);
  });

  it('matches two pending charges of the same amount oldest first', async () => {
    const older = await immediate('30');
    later(60_000);
    const newer = await immediate('30');
    // One payment (the sandbox pays `newer`, but the statement only shows an income of R$ 30,00).
    expect((await pix(['sandbox', 'pay', '--state', join(dir, 'sandbox.json'), newer.id])).code).toBe(0);
    const first = await pix(['charge', 'wait', newer.id, '--timeout', '3s', '--json']);
    expect(first.code).toBe(9);
    const ledger = JSON.parse((await pix(['charge', 'list', '--json'])).stdout).results;
    expect(ledger.find((r: { id: string }) => r.id === older.id).status).toBe('paid');
    expect(ledger.find((r: { id: string }) => r.id === newer.id).status).toBe('pending');
    // A second payment of the same amount pays the newer one; the first entry is never claimed twice.
    expect((await pix(['sandbox', 'pay', '--state', join(dir, 'sandbox.json'), older.id])).code).toBe(0);
    const second = JSON.parse((await pix(['charge', 'wait', newer.id, '--json'])).stdout);
    expect(second.charge.status).toBe('paid');
    const olderPaid = ledger.find((r: { id: string }) => r.id === older.id).paid.entryId;
    expect(second.charge.paid.entryId).not.toBe(olderPaid);
  });

  it('matches a due-date charge paid late with its fine and interest', async () => {
    const due = todayIn('America/Sao_Paulo', now);
    const created = await pix([
      ...['charge', 'duedate', '--amount', '150', '--due', due],
      ...['--debtor-name', 'Ana', '--debtor-cpf', '52998224725', '--expire-after-days', '30'],
      ...[
        '--fine',
        '2',
        '--interest',
        '0.10',
        '--interest-modality',
        'VALUE_CALENDAR_DAYS',
        '--json',
        '--no-qr',
        '--key-id',
        KEY,
      ],
    ]);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout);
    // Paid 3 days late: R$ 150,00 + R$ 2,00 fine + 3 × R$ 0,10 interest.
    later(3 * 86_400_000);
    const paid = await pix(['--json', 'sandbox', 'pay', '--state', join(dir, 'sandbox.json'), id]);
    expect(JSON.parse(paid.stdout).amount).toBe(152.3);
    const waited = await pix(['charge', 'wait', id, '--json']);
    expect(waited.code, waited.stderr).toBe(0);
    const result = JSON.parse(waited.stdout);
    expect(result.entry.amount).toBe(152.3);
    expect(result.charge.paid).toMatchObject({
      amount: 152.3,
      day: addDays(due, 3),
      how: `matched by the amount due on ${addDays(due, 3)}, R$ 152,30: fine R$ 2,00 and interest R$ 0,30`,
    });
  });

  it('--wait on charge immediate prints the charge, then the payment', async () => {
    onSleep = async () => {
      if (sleeps.length === 1) {
        const id = JSON.parse((await pix(['charge', 'list', '--json'])).stdout).results[0].id;
        await pix(['sandbox', 'pay', '--state', join(dir, 'sandbox.json'), id]);
      }
    };
    const result = await pix([
      'charge',
      'immediate',
      '--amount',
      '12',
      '--wait',
      '--json',
      '--no-qr',
      '--key-id',
      KEY,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const [charge, payment] = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(charge).toMatchObject({ status: 'PENDING', amount: 12 });
    expect(payment.charge).toMatchObject({ id: charge.id, status: 'paid' });
  });

  it('Ctrl-C while waiting: exit 130', async () => {
    const charge = await immediate('10');
    const controller = new AbortController();
    onSleep = async () => controller.abort('SIGINT');
    const waited = await pix(['charge', 'wait', charge.id], controller.signal);
    expect(waited.code).toBe(130);
    expect(waited.stderr).toMatch(/waiting for charge .+: interrupted/);
  });

  it('refuses a bad --interval with exit 2, naming the flag', async () => {
    const charge = await immediate('10');
    const bad = await pix(['charge', 'wait', charge.id, '--interval', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --interval: /);
  });
});
