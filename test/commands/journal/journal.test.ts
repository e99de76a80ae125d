import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../../../src/journal/entries.js';
import { openJournal } from '../../../src/journal/store.js';
import { SYSTEM } from '../../../src/system.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { pixWith } from '../../helpers/pix.js';
import { renderTerminal } from '../../helpers/terminal.js';

const T0 = new Date('2026-03-10T12:00:00Z');
let dir: string;

beforeEach(() => {
  dir = tempConfigDir();
});

const pix = pixWith(() => ({ env: { PIX_CONFIG_DIR: dir }, clock: { now: () => T0 } }));

/** Three entries: an old-format payment done, a payment unknown (a hostile receiver name), a charge done. */
function seed() {
  const old = [
    {
      id: '0a0a0a0a-0000-4000-8000-000000000001',
      at: '2026-03-09T10:00:00.000Z',
      profile: 'prod',
      host: 'api.example.test',
      kind: 'key',
      key: 'ana@example.com',
      amountCentavos: 1050,
      endToEndId: 'E1',
      receiver: 'Ana Souza',
      state: 'sending',
    },
    {
      id: '0a0a0a0a-0000-4000-8000-000000000001',
      at: '2026-03-09T10:00:01.000Z',
      state: 'done',
      transferId: 't1',
    },
  ];
  writeFileSync(join(dir, JOURNAL_FILE), `${old.map((line) => JSON.stringify(line)).join('\n')}\n`);
  let now = new Date('2026-03-10T09:00:00Z');
  const journal = openJournal(dir, { ...SYSTEM, clock: { now: () => now } });
  const unknown = journal.begin({
    kind: 'payment',
    account: 'acct_test',
    profile: 'prod',
    host: 'api.example.test',
    amountCentavos: 100_000,
    receiver: 'Loja \u001b[2J\u001b[HFake\u202e',
    endToEndId: 'E2',
    payment: { method: 'qr', emvHash: 'ab'.repeat(32), dynamic: true },
  });
  journal.finish(unknown.id, { state: 'unknown', reason: 'unknown_outcome 500' });
  now = new Date('2026-03-10T11:00:00Z');
  const charge = journal.begin({
    kind: 'charge',
    account: 'acct_test',
    profile: 'prod',
    host: 'api.example.test',
    amountCentavos: 500,
    charge: { type: 'immediate', keyId: 'k-1' },
  });
  journal.finish(charge.id, { state: 'done', chargeId: 'c-1', status: 'PENDING' });
  return { unknown, charge };
}

describe('pix journal', () => {
  it('an empty journal: {"total":0,"results":[]}, exit 0', async () => {
    const result = await pix(['journal', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ total: 0, results: [] });
  });

  it('--json lists newest first, old-format lines included, with the contract fields', async () => {
    const { unknown, charge } = seed();
    const result = await pix(['journal', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { results, total } = JSON.parse(result.stdout);
    expect(total).toBe(3);
    expect(results.map((entry: { id: string }) => entry.id)).toEqual([
      charge.id,
      unknown.id,
      '0a0a0a0a-0000-4000-8000-000000000001',
    ]);
    expect(results[0]).toMatchObject({
      kind: 'charge',
      state: 'done',
      amount: 5,
      chargeId: 'c-1',
      receiver: null,
    });
    expect(results[1]).toMatchObject({
      kind: 'payment',
      state: 'unknown',
      at: '2026-03-10T09:00:00.000Z',
      amount: 1000,
      amountCentavos: 100_000,
      endToEndId: 'E2',
      method: 'qr',
      dynamic: true,
    });
    expect(results[2]).toMatchObject({
      kind: 'payment',
      state: 'done',
      method: 'key',
      key: 'ana@example.com',
    });
    for (const entry of results)
      expect(Object.keys(entry).slice(0, 8)).toEqual([
        'id',
        'kind',
        'state',
        'at',
        'amount',
        'amountCentavos',
        'receiver',
        'endToEndId',
      ]);
    // JSON keeps the exact value (escaped as JSON), never a raw escape on the terminal.
    expect(result.stdout).not.toContain('\u001b');
    expect(results[1].receiver).toBe('Loja \u001b[2J\u001b[HFake\u202e');
  });

  it('for people: a table with short ids, server text escaped, and the unresolved entries named on stderr', async () => {
    const { unknown } = seed();
    const result = await pix(['journal'], { tty: true, columns: 160 });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(unknown.id.slice(0, 8));
    expect(result.stdout).not.toContain(unknown.id);
    expect(result.stdout).toContain('R$ 1.000,00');
    expect(result.stdout).toContain('Loja \\u001b[2J\\u001b[HFake\\u202e');
    expect(result.stdout).not.toMatch(/\u001b\[2J|\u202e/);
    expect(result.stderr).toContain(`1 entry has no known outcome (${unknown.id.slice(0, 8)})`);
    expect(result.stderr).toContain('pix journal show ID` says where to look in the statement');
    expect(result.stderr).toContain('pix journal resolve ID --paid|--not-paid');
  });

  it('for people at 80 columns: every line fits, amounts whole, left-out columns named; --wide shows all', async () => {
    seed();
    const narrow = await pix(['journal'], { tty: true, columns: 80 });
    expect(narrow.code).toBe(0);
    // Our own colour codes take no columns; everything else does.
    const lines = narrow.stdout
      .replaceAll(/\u001b\[[0-9;]*m/g, '')
      .trimEnd()
      .split('\n');
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(narrow.stdout).toContain('R$ 1.000,00');
    expect(narrow.stderr).toMatch(/Reference/);
    const wide = await pix(['journal', '--wide'], { tty: true, columns: 80 });
    expect(wide.stdout).toContain('Reference');
    expect(wide.stdout).toContain('Loja \\u001b[2J\\u001b[HFake\\u202e');
  });

  it('at 80 columns Kind is kept (it outranks Reference): a charge and a payment do not look alike', async () => {
    seed();
    const narrow = await pix(['journal'], { tty: true, columns: 80 });
    expect(narrow.code).toBe(0);
    const { lines } = await renderTerminal(narrow.stdout.replaceAll('\n', '\r\n'), 80, 24);
    const header = lines[1]!.split('│').map((cell) => cell.trim());
    expect(header).toContain('Kind');
    expect(header).not.toContain('Reference');
    const kind = header.indexOf('Kind');
    const kinds = lines.slice(3, -1).map((line) => line.split('│')[kind]!.trim());
    expect(new Set(kinds).size, lines.join('\n')).toBeGreaterThan(1);
    expect(narrow.stderr).toMatch(/Reference/);
    expect(narrow.stderr).not.toMatch(/Kind/);
  });

  it('piped: tab-separated rows, full ids, ISO times, plain decimals; --unresolved and --limit', async () => {
    const { unknown, charge } = seed();
    const all = await pix(['journal']);
    const rows = all.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows).toHaveLength(3);
    expect(rows[1]).toEqual([
      unknown.id,
      '2026-03-10T09:00:00.000Z',
      'payment',
      'unknown',
      '',
      '1000.00',
      'Loja \\u001b[2J\\u001b[HFake\\u202e',
      'E2',
      // Whose it is, and the batch row (none): the columns added last, so the others keep their places.
      'prod',
      '',
    ]);
    const firstColumn = (stdout: string) =>
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t')[0]);
    // --kind: the newest payment is not the newest entry (a charge came after it).
    expect(firstColumn((await pix(['journal', '--kind', 'charge'])).stdout)).toEqual([charge.id]);
    const payments = await pix(['journal', '--kind', 'payment', '--jq', '.results[0].id']);
    expect(payments.stdout.trim()).toBe(unknown.id);
    expect((await pix(['journal', '--kind', 'plan'])).stdout).toBe('');
    const wrong = await pix(['journal', '--kind', 'refund']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^error: --kind: /);
    const open = await pix(['journal', '--unresolved']);
    expect(
      open.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual([unknown.id]);
    const one = await pix(['journal', '--limit', '1']);
    expect(
      one.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual([charge.id]);
    expect(one.stderr).toContain('showing the latest 1 of 3 entries');
    expect((await pix(['journal', '--limit', '0'])).code).toBe(2);
  });

  it('show: by a unique prefix; --json; an ambiguous prefix is exit 2, an unknown id exit 4', async () => {
    const { unknown } = seed();
    const shown = await pix(['journal', 'show', unknown.id.slice(0, 6), '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      id: unknown.id,
      state: 'unknown',
      reason: 'unknown_outcome 500',
    });
    const table = await pix(['journal', 'show', unknown.id.slice(0, 8)], { tty: true });
    expect(table.stdout).toContain('Code (SHA-256)');
    expect(table.stdout).not.toContain('\u001b[2J');
    const piped = await pix(['journal', 'show', '0a0a0a0a']);
    expect(piped.stdout).toContain('transferId\tt1\n');
    const missing = await pix(['journal', 'show', 'ffff']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: no journal entry ffff/m);
    // Two ids starting with 0: ambiguous only if both do.
    writeFileSync(
      join(dir, JOURNAL_FILE),
      `${readFileSync(join(dir, JOURNAL_FILE), 'utf8')}${JSON.stringify({ id: '0a0a0a0a-ffff', at: T0.toISOString(), kind: 'payment', state: 'sending', profile: 'p', host: 'h', amountCentavos: 1, payment: { method: 'key', key: 'k' } })}\n`,
    );
    const ambiguous = await pix(['journal', 'show', '0a0a']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('starts 2 entries');
  });

  it('resolve: --paid or --not-paid, exactly one; only an entry whose outcome pix could not know', async () => {
    const { unknown, charge } = seed();
    for (const flags of [[], ['--paid', '--not-paid']]) {
      const result = await pix(['journal', 'resolve', unknown.id, ...flags]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error: --(not-)?paid: /m);
    }
    const done = await pix(['journal', 'resolve', charge.id.slice(0, 8), '--not-paid']);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain('is done: pix knows its outcome');

    const resolved = await pix(['journal', 'resolve', unknown.id.slice(0, 8), '--paid', '--json']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(JSON.parse(resolved.stdout)).toMatchObject({
      id: unknown.id,
      state: 'unknown',
      resolution: 'paid',
    });
    expect(resolved.stderr).toContain(
      `journal entry ${unknown.id.slice(0, 8)} resolved: paid; it counts as done`,
    );
    // Changing one's mind is recorded too; the latest finding wins.
    const again = await pix(['journal', 'resolve', unknown.id, '--not-paid']);
    expect(again.stderr).toContain('resolved: not-paid (was paid)');
    const listed = JSON.parse((await pix(['journal', '--json'])).stdout);
    expect(listed.results[1]).toMatchObject({ resolution: 'not-paid', resolvedAt: T0.toISOString() });
    expect((await pix(['journal', '--unresolved', '--json'])).stdout).toContain('"results":[]');
  });

  it('a resolved charge reads as created / not created', async () => {
    const journal = openJournal(dir, { ...SYSTEM, clock: { now: () => T0 } });
    const charge = journal.begin({
      kind: 'charge',
      account: 'acct_p',
      profile: 'p',
      host: 'h',
      amountCentavos: 500,
      charge: { type: 'duedate' },
    });
    journal.finish(charge.id, { state: 'unknown' });
    const result = await pix(['journal', 'resolve', charge.id, '--paid']);
    expect(result.stderr).toContain('resolved: created; it counts as done');
    // 120 columns: at 80 the Resolution column now gives way to Kind (Kind outranks the rest).
    expect((await pix(['journal'], { tty: true, columns: 120 })).stdout).toContain('created');
  });
});
