import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeBrCode } from '../../../src/domain/brcode.js';
import { addDays, todayIn } from '../../../src/domain/when.js';
import { SEEDED_KEYS } from '../../../src/sandbox/seed.js';
import { type SandboxServer, startSandboxServer } from '../../../src/sandbox/server.js';
import { pixWith } from '../../helpers/pix.js';
import { tempDir } from '../../helpers/temp.js';
import { renderTerminal } from '../../helpers/terminal.js';

const KEY = SEEDED_KEYS.email.key;
let dir: string;
let now: Date;
/** Run at each sleep of a wait (after `now` moved on). */
let onSleep: (slept: number) => Promise<void>;
let sleeps: number[];
let server: SandboxServer;

beforeEach(async () => {
  dir = tempDir('pix-charge-follow-');
  now = new Date('2026-03-10T15:00:00.000Z');
  onSleep = async () => {};
  sleeps = [];
  server = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox.json'), clock: () => now });
});

afterEach(async () => {
  await server.close();
});

const onServer = pixWith(() => ({
  env: { PIX_CONFIG_DIR: dir, HOME: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'test-token-follow' },
  clock: { now: () => now },
  sleep: async (ms) => {
    sleeps.push(ms);
    now = new Date(now.getTime() + ms);
    await onSleep(ms);
  },
}));
const pix = (args: string[], signal?: AbortSignal, tty = false) =>
  onServer(args, { tty, ...(signal ? { signal } : {}) });

async function immediate(amount: string): Promise<{ id: string; emvqrcps: string }> {
  const created = await pix(['charge', 'immediate', '--amount', amount, '--json', '--no-qr', '--key', KEY]);
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

describe('charge show for people: the words charge list and creation use', () => {
  /** The labelled fields a person reads on an 80-column terminal. */
  async function fields(args: string[]): Promise<Map<string, string>> {
    const result = await pix(args, undefined, true);
    expect(result.code, result.stderr).toBe(0);
    const plain = result.stdout.replaceAll(/\u001b\[[0-9;]*m/g, '').replaceAll('\n', '\r\n');
    const { lines } = await renderTerminal(plain, 80, 24);
    return new Map(
      lines.map((line) => /^(\w+) +(.*)$/.exec(line)).flatMap((m) => (m ? [[m[1]!, m[2]!]] : [])),
    );
  }

  it('Status as charge list prints it (lower case, before and after a payment), Key as creation showed it, not its UUID', async () => {
    const charge = await immediate('10,50');
    const created = await fields(['charge', 'immediate', '--amount', '11', '--key', KEY, '--no-qr']);
    expect(created.get('Key')).toBe(SEEDED_KEYS.email.key);
    const shown = await fields(['charge', 'show', charge.id, '--no-qr']);
    expect(shown.get('Key')).toBe(SEEDED_KEYS.email.key);
    const before = (await pix(['charge', 'list', '--offline'])).stdout.split('\n');
    const row = before.find((line) => line.startsWith(charge.id))!.split('\t');
    expect((await fields(['charge', 'show', charge.id, '--no-qr', '--offline'])).get('Status')).toBe(row[1]);
    expect(shown.get('Status')).toMatch(/^[a-z]+$/);
    later(30_000);
    expect((await pix(['sandbox', 'pay', '--state', join(dir, 'sandbox.json'), charge.id])).code).toBe(0);
    later(1000);
    const after = (await pix(['charge', 'list'])).stdout.split('\n');
    const listed = after.find((line) => line.startsWith(charge.id))!.split('\t')[1];
    expect(listed).not.toBe(row[1]);
    expect((await fields(['charge', 'show', charge.id, '--no-qr'])).get('Status')).toBe(listed);
  });
});

describe('pix charge list and show look at the statement', () => {
  it('find a payment without `charge wait`, say when they checked, and --offline skips the look', async () => {
    // Before: both said `pending` until someone ran `pix charge wait ID`.
    const charge = await immediate('10,50');
    later(30_000);
    expect((await pix(['sandbox', 'pay', '--state', join(dir, 'sandbox.json'), charge.id])).code).toBe(0);
    later(1000);
    const offline = await pix(['charge', 'list', '--offline', '--json']);
    expect(offline.code, offline.stderr).toBe(0);
    expect(JSON.parse(offline.stdout).results[0]).toMatchObject({ status: 'pending', checkedAt: null });
    const offlineShown = await pix(['charge', 'show', charge.id, '--offline', '--no-qr']);
    expect(offlineShown.stderr).toContain('not checked against the statement (--offline)');

    const shown = await pix(['charge', 'list']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.split('\t').slice(0, 2)).toEqual([charge.id, 'probable']);
    expect(shown.stderr).toMatch(/^checked the statement at \d{4}-\d\d-\d\d \d\d:\d\d/m);
    // Recorded in the journal: offline now knows it too; nothing is left to look for.
    const listed = await pix(['charge', 'list', '--offline', '--json']);
    expect(JSON.parse(listed.stdout).results[0]).toMatchObject({
      id: charge.id,
      status: 'probable',
      checkedAt: null,
      paid: { match: 'amount-and-time' },
    });
  });

  it('show looks too, with checkedAt in its JSON', async () => {
    const charge = await immediate('11');
    expect((await pix(['sandbox', 'pay', '--state', join(dir, 'sandbox.json'), charge.id])).code).toBe(0);
    const shown = await pix(['charge', 'show', charge.id, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'probable', checkedAt: now.toISOString() });
  });

  it('when the statement cannot be read: the ledger as recorded, and a warning that says so (exit 0)', async () => {
    const charge = await immediate('12');
    await server.close();
    const listed = await pix(['charge', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).results[0]).toMatchObject({
      id: charge.id,
      status: 'pending',
      checkedAt: null,
    });
    expect(listed.stderr).toMatch(
      /warning: the statement could not be read \(.+\): statuses as the ledger last recorded them/,
    );
    server = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox.json'), clock: () => now });
  });
});

describe('the sandbox clock drives the ledger', () => {
  const state = () => join(dir, 'sandbox.json');

  it('charge wait on a charge expired in sandbox time exits 5 at once', async () => {
    // Before: it waited its whole --timeout by this machine's clock and exited 9.
    const created = await pix([
      ...['charge', 'immediate', '--amount', '10', '--expires-in', '1h', '--json', '--no-qr', '--key', KEY],
    ]);
    const { id } = JSON.parse(created.stdout);
    expect((await pix(['sandbox', 'clock', '--advance', '2d', '--state', state()])).code).toBe(0);
    const waited = await pix(['charge', 'wait', id]);
    expect(waited.code, waited.stderr).toBe(5);
    expect(waited.stderr).toMatch(/expired unpaid/);
    expect(sleeps).toEqual([]);
    const listed = JSON.parse((await pix(['charge', 'list', '--json'])).stdout).results[0];
    expect(listed.status).toBe('expired');
  });

  it('a due-date charge paid late in sandbox time is matched with its fine', async () => {
    // Before: the statement was read up to a day past this machine's clock, so the payment was never seen.
    const due = todayIn('America/Sao_Paulo', now);
    const created = await pix([
      ...['charge', 'duedate', '--amount', '100', '--due', due, '--fine', '2'],
      ...['--debtor-name', 'Ana', '--debtor-cpf', '52998224725', '--expire-after-days', '30'],
      ...['--json', '--no-qr', '--key', KEY],
    ]);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout);
    expect((await pix(['sandbox', 'clock', '--advance', '3d', '--state', state()])).code).toBe(0);
    expect((await pix(['sandbox', 'pay', '--state', state(), id])).code).toBe(0);
    const waited = await pix(['charge', 'wait', id, '--json', '--wait', '10s']);
    expect(waited.code, waited.stderr).toBe(0);
    const result = JSON.parse(waited.stdout);
    expect(result.charge.paid).toMatchObject({ amount: 102, day: addDays(due, 3), match: 'payer-document' });
    expect(sleeps).toEqual([]);
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
    // The charge names no payer: a payment of its amount in its time is probable, and said so.
    expect(result.charge).toMatchObject({ id: charge.id, status: 'probable' });
    expect(result.charge.paid).toMatchObject({
      match: 'amount-and-time',
      how: 'matched by amount (R$ 10,50) and time',
    });
    expect(waited.stderr).toMatch(/note: probable, not proven: charge .+ names no payer/);
    expect(result.entry).toMatchObject({ type: 'INCOME', amount: 10.5, id: result.charge.paid.entryId });
    const listed = JSON.parse((await pix(['charge', 'list', '--json'])).stdout).results[0];
    expect(listed).toMatchObject({ status: 'probable', paid: { entryId: result.charge.paid.entryId } });
    // Already paid: answered from the ledger, at once.
    sleeps = [];
    expect((await pix(['charge', 'wait', charge.id])).code).toBe(0);
    expect(sleeps).toEqual([]);
  });

  it('returns 9 at the end of --wait when nobody pays, polling every --interval', async () => {
    const charge = await immediate('10');
    const waited = await pix(['charge', 'wait', charge.id, '--wait', '20s', '--interval', '5s']);
    expect(waited.code).toBe(9);
    expect(sleeps).toEqual([5000, 5000, 5000, 5000]);
    expect(waited.stderr).toMatch(
      /error: charge .+ is still pending after 20s\nhint: wait again with `pix charge wait /,
    );
    expect(waited.stderr).not.toContain('deprecated');
  });

  it("--timeout alone on a wait is still its length (the first release's meaning), with a warning naming --wait", async () => {
    const charge = await immediate('10');
    const waited = await pix(['charge', 'wait', charge.id, '--timeout', '20s', '--interval', '5s']);
    expect(waited.code).toBe(9);
    expect(sleeps).toEqual([5000, 5000, 5000, 5000]);
    expect(waited.stderr).toContain('warning: --timeout on a wait is deprecated');
    expect(waited.stderr).toContain('use --wait 20s');
  });

  it("--wait and --timeout together: the wait lasts --wait, --timeout stays each request's limit", async () => {
    const charge = await immediate('10');
    const waited = await pix([
      'charge',
      'wait',
      charge.id,
      '--wait',
      '10s',
      '--timeout',
      '5s',
      '--interval',
      '5s',
    ]);
    expect(waited.code).toBe(9);
    expect(sleeps).toEqual([5000, 5000]);
    expect(waited.stderr).not.toContain('deprecated');
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
      '--key',
      KEY,
    ]);
    const { id } = JSON.parse(created.stdout);
    const waited = await pix(['charge', 'wait', id, '--interval', '1m']);
    expect(waited.code).toBe(5);
    expect(waited.stderr).toMatch(/expired unpaid/);
  });

  it('marks neither of two pending charges of one amount paid by one payment: both ambiguous, exit 7', async () => {
    // Before: the older charge was marked paid by the payment of the newer one.
    const older = await immediate('30');
    later(60_000);
    const newer = await immediate('30');
    // One payment (the sandbox pays `newer`, but the statement only shows an income of R$ 30,00).
    expect((await pix(['sandbox', 'pay', '--state', join(dir, 'sandbox.json'), newer.id])).code).toBe(0);
    const waited = await pix(['charge', 'wait', newer.id, '--timeout', '3s', '--json']);
    expect(waited.code, waited.stderr).toBe(7);
    expect(waited.stderr).toMatch(
      new RegExp(
        `charge ${newer.id} may have been paid, but pix cannot tell by which entry: .+ \\(R\\$ 30,00\\); charge\\(s\\) ${older.id} could take the same payment`,
      ),
    );
    expect(sleeps).toEqual([]);
    const ledger = JSON.parse((await pix(['charge', 'list', '--json'])).stdout).results;
    for (const id of [older.id, newer.id]) {
      const record = ledger.find((r: { id: string }) => r.id === id);
      expect(record).toMatchObject({ status: 'ambiguous', paid: null });
      expect(record.ambiguous.candidates).toHaveLength(1);
      expect(record.ambiguous.rivals).toEqual([id === older.id ? newer.id : older.id]);
    }
    const shown = await pix(['charge', 'show', older.id, '--no-qr']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toMatch(
      new RegExp(
        `ambiguous: statement entry \\S+ could have paid it, and could have paid charge ${newer.id} instead; none is marked paid`,
      ),
    );
  });

  it("pays a charge made out to a payer only with that payer's payment, and calls it proof", async () => {
    // Before: a plain `pay key` of the same amount to the account marked the charge paid.
    const created = await pix([
      ...['charge', 'immediate', '--amount', '30', '--payer-name', 'Ana Souza'],
      ...['--payer-tax-id', '529.982.247-25', '--json', '--no-qr', '--key', KEY],
    ]);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout);
    const own = SEEDED_KEYS.email.key;
    const transfer = await pix(['pay', 'key', own, '--amount', '30', '-y', '--json']);
    expect(transfer.code, transfer.stderr).toBe(0);
    later(60_000); // the transfer's income is confirmed
    const first = await pix(['charge', 'wait', id, '--timeout', '3s', '--json']);
    expect(first.code, first.stderr).toBe(9);
    // Ana pays it (the sandbox pays as the payer the charge names).
    expect((await pix(['sandbox', 'pay', '--state', join(dir, 'sandbox.json'), id])).code).toBe(0);
    const paid = await pix(['charge', 'wait', id, '--json']);
    expect(paid.code, paid.stderr).toBe(0);
    const result = JSON.parse(paid.stdout);
    expect(result.charge).toMatchObject({ status: 'paid', paid: { match: 'payer-document' } });
    expect(result.charge.paid.how).toBe("matched by the payer's document, amount (R$ 30,00) and time");
    expect(result.entry.creditor.documentNumber).toBe('52998224725');
    expect(paid.stderr).not.toMatch(/probable/);
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
        '--key',
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
    expect(result.charge).toMatchObject({ status: 'paid' });
    expect(result.charge.paid).toMatchObject({
      amount: 152.3,
      day: addDays(due, 3),
      match: 'payer-document',
      how: `matched by the payer's document, the amount due on ${addDays(due, 3)}, R$ 152,30: fine R$ 2,00 and interest R$ 0,30`,
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
      '--key',
      KEY,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const [charge, payment] = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(charge).toMatchObject({ status: 'PENDING', amount: 12 });
    expect(payment.charge).toMatchObject({ id: charge.id, status: 'probable' });
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
