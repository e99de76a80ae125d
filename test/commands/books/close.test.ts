/**
 * `pix close` against the sandbox server (loopback) with a clock of the test's: the day's balance and pack
 * (its OFX read back by ofx-data-extractor, its workbook opened by LibreOffice in pt-BR), days closed in
 * order, today's close provisional and replaced, a past day's final, a day with an unresolved payment
 * refused, and a closed day that the statement later shows otherwise reported by the next close and by
 * `pix reconcile`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { StatementEntry } from '../../../src/api/resources/statement.js';
import { parseArmoredSignature, verifySshSig } from '../../../src/domain/sshsig.js';
import { parseAllowedSigner } from '../../../src/domain/sshsigners.js';
import { insertEntry } from '../../../src/sandbox/model.js';
import { StateStore } from '../../../src/sandbox/store.js';
import { SYSTEM } from '../../../src/system.js';
import { deferEach } from '../../helpers/cleanup.js';
import { NO_LIBREOFFICE, openInLibreOffice, soffice } from '../../helpers/libreoffice.js';
import { readOfx } from '../../helpers/ofx.js';
import { type InProcessRun, servedInProcess } from '../../helpers/served.js';
import { keyDir, makeKey, opensshVerifies } from '../../helpers/ssh.js';

let dir: string;
let now: Date;
const deferred = deferEach();
let pix: (args: string[]) => Promise<InProcessRun>;

beforeEach(async () => {
  now = new Date('2026-03-10T15:00:00.000Z');
  ({ pix, dir } = await servedInProcess(deferred, { now: () => now, faults: 'transfer:500x1' }));
  // About 33 entries a day over the last 60 days.
  const seeded = await pix([
    'sandbox',
    'seed',
    '--transactions',
    '2000',
    '--state',
    join(dir, 'sandbox.json'),
  ]);
  expect(seeded.code, seeded.stderr).toBe(0);
});

async function dayEntries(day: string): Promise<StatementEntry[]> {
  const read = await pix(['statement', '--from', day, '--to', day, '--all', '-o', 'ndjson']);
  expect(read.code, read.stderr).toBe(0);
  return read.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as StatementEntry);
}

interface Close {
  day: string;
  kind: string;
  opening: number;
  closing: number;
  closedAt: string;
  digest: string;
  dir: string;
}

async function close(args: string[]): Promise<Close> {
  const result = await pix(['close', ...args, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Close;
}

describe('pix close', () => {
  it('--key signs the pack: SHA256SUMS.sig verifies with ssh-keygen -Y verify and with pix (namespace pix-close)', async () => {
    const keys = keyDir();
    deferred.defer(keys.cleanup);
    const key = makeKey(keys.dir, 'ed25519', 'contador@empresa');
    const plain = await pix(['close', '--day', '2026-03-07', '--opening-balance', '0']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('(not signed)');
    const signed = await pix(['close', '--day', '2026-03-08', '--key', key.privatePath!]);
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toContain('(signed)');
    const pack = /pack: (.*)/.exec(signed.stdout)![1]!;
    const sums = readFileSync(join(pack, 'SHA256SUMS'));
    const signature = readFileSync(join(pack, 'SHA256SUMS.sig'), 'utf8');
    const signer = `contador@empresa ${key.publicLine}`;
    expect(opensshVerifies(keys.dir, [signer], 'contador@empresa', 'pix-close', sums, signature)).toBe(true);
    expect(opensshVerifies(keys.dir, [signer], 'contador@empresa', 'pix-plan', sums, signature)).toBe(false);
    const parsed = parseAllowedSigner(signer);
    expect(verifySshSig(parseArmoredSignature(signature), sums, 'pix-close', parsed, Date.now()).ok).toBe(
      true,
    );
    // A pack changed after the close no longer verifies.
    const changed = Buffer.concat([sums, Buffer.from('0  extra\n')]);
    expect(opensshVerifies(keys.dir, [signer], 'contador@empresa', 'pix-close', changed, signature)).toBe(
      false,
    );
  });

  it("closes a day: the balance from the opening and the day's entries, the pack, and its digest", async () => {
    const first = await pix(['close', '--day', '2026-03-08']);
    expect(first.code).toBe(2);
    expect(first.stderr).toContain('--opening-balance');

    const entries = (await dayEntries('2026-03-08')).filter((e) => e.status === 'CONFIRMED');
    expect(entries.length).toBeGreaterThan(0);
    const net = entries.reduce(
      (sum, e) => sum + Math.round(e.amount * 100) - Math.abs(Math.round((e.fee ?? 0) * 100)),
      0,
    );
    const closed = await close(['--day', '2026-03-08', '--opening-balance', '1.000,00']);
    expect(closed).toMatchObject({
      day: '2026-03-08',
      kind: 'final',
      opening: 100_000,
      closing: 100_000 + net,
    });

    // The OFX, as an importer reads it: LEDGERBAL is the balance, FITIDs the entries' ids (and fees').
    const ofx = readOfx(readFileSync(join(closed.dir, '2026-03-08.ofx'), 'utf8'));
    expect(ofx.validation.isValid).toBe(true);
    expect(Math.round(Number(ofx.ledgerBalance!.BALAMT) * 100)).toBe(closed.closing);
    const fitids = ofx.transactions.map((t) => t.FITID);
    for (const entry of entries) expect(fitids).toContain(entry.id);
    const sum = ofx.transactions.reduce((total, t) => total + Math.round(Number(t.TRNAMT) * 100), 0);
    expect(100_000 + sum).toBe(closed.closing);
    for (const t of ofx.transactions.filter((t) => t.TRNTYPE !== 'FEE')) {
      expect(t.TRNTYPE).toBe(Number(t.TRNAMT) >= 0 ? 'CREDIT' : 'DEBIT');
    }

    // The digest is SHA-256 of SHA256SUMS, which names each file of the pack with its own.
    const sums = readFileSync(join(closed.dir, 'SHA256SUMS'), 'utf8');
    expect(createHash('sha256').update(sums).digest('hex')).toBe(closed.digest);
    for (const line of sums.trim().split('\n')) {
      const [hash, name] = line.split('  ');
      expect(
        createHash('sha256')
          .update(readFileSync(join(closed.dir, name!)))
          .digest('hex'),
      ).toBe(hash);
    }
    expect(sums).toMatch(/2026-03-08\.ofx\n.*2026-03-08\.xlsx\n.*2026-03-08-reconciliation\.json\n$/s);
  });

  it('opens in LibreOffice (pt-BR) with amounts as numbers and dates as dates', async (context) => {
    const office = soffice();
    if (office === undefined) {
      context.skip(NO_LIBREOFFICE);
      return;
    }
    const closed = await close(['--day', '2026-03-08', '--opening-balance', '0']);
    const sheets = await openInLibreOffice(office, readFileSync(join(closed.dir, '2026-03-08.xlsx')));
    expect(sheets.map((sheet) => sheet.name)).toEqual(['Entries', 'Summary']);
    const [header, ...rows] = sheets[0]!.rows;
    expect(header!.map((cell) => cell.text)).toEqual([
      'Confirmed',
      'Id',
      'Type',
      'Counterparty',
      'Document',
      'Amount',
      'Fee',
      'Balance',
    ]);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row[0]).toMatchObject({
        type: 'date',
        text: expect.stringMatching(/^08\/03\/2026 \d{2}:\d{2}:\d{2}$/),
      });
      for (const money of [row[5]!, row[6]!, row[7]!]) {
        expect(money.type).toBe('float');
        expect(money.text).toMatch(/^-?R\$ -?\d{1,3}(\.\d{3})*,\d{2}$/);
      }
    }
    const last = rows.at(-1)!;
    expect(Math.round(Number(last[7]!.value) * 100)).toBe(closed.closing);
    const summary = sheets[1]!.rows[1]!;
    expect(summary[0]).toMatchObject({ type: 'date', text: '08/03/2026' });
    expect(summary[6]).toMatchObject({ type: 'float' });
    expect(Math.round(Number(summary[6]!.value) * 100)).toBe(closed.closing);
  }, 180_000);

  it("days close in order; a past day's close is final; today's is provisional and replaced; --list", async () => {
    const first = await close(['--day', '2026-03-08', '--opening-balance', '-50,25']);
    expect(first.opening).toBe(-5_025);
    const skipped = await pix(['close', '--day', '2026-03-10']);
    expect(skipped.code).toBe(2);
    expect(skipped.stderr).toContain('2026-03-09 is not closed');
    const again = await pix(['close', '--day', '2026-03-09', '--opening-balance', '0']);
    expect(again.code).toBe(2);
    const second = await close(['--day', '2026-03-09']);
    expect(second.opening).toBe(first.closing);
    const final = await pix(['close', '--day', '2026-03-08']);
    expect(final.code).toBe(2);
    expect(final.stderr).toContain("a past day's close is final");

    const today = await close(['--day', 'today']);
    expect(today).toMatchObject({ day: '2026-03-10', kind: 'provisional', opening: second.closing });
    now = new Date(now.getTime() + 3_600_000);
    const later = await close(['--day', 'today']);
    expect(later.kind).toBe('provisional');
    expect(later.closedAt > today.closedAt).toBe(true);
    now = new Date('2026-03-11T12:00:00.000Z');
    const over = await close(['--day', '2026-03-10']);
    expect(over).toMatchObject({ kind: 'final', opening: second.closing });

    const list = await pix(['close', '--list', '--json']);
    const listed = JSON.parse(list.stdout) as { total: number; results: Close[] };
    expect(listed.results.map((c) => [c.day, c.kind])).toEqual([
      ['2026-03-08', 'final'],
      ['2026-03-09', 'final'],
      ['2026-03-10', 'final'],
    ]);
    const table = await pix(['close', '--list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^2026-03-08\tfinal\t-50\.25\t/);
  });

  it('refuses a day with an unresolved payment (exit 8, naming it), and closes it once resolved', async () => {
    const paid = await pix(['pay', 'key', 'ana@example.com', '--amount', '12,34', '--yes']);
    expect(paid.code).toBe(7);
    const journal = await pix(['journal', '--json']);
    const id = (JSON.parse(journal.stdout) as { results: Array<{ id: string }> }).results[0]!.id;
    await close(['--day', 'yesterday', '--opening-balance', '0']);
    const refused = await pix(['close', '--day', 'today']);
    expect(refused.code).toBe(8);
    expect(refused.stderr).toContain(`2026-03-10 has 1 unresolved payment: ${id.slice(0, 8)} (R$ 12,34`);
    expect(refused.stderr).toContain('nothing was closed');
    expect((await pix(['journal', 'resolve', id.slice(0, 8), '--not-paid'])).code).toBe(0);
    expect((await close(['--day', 'today'])).kind).toBe('provisional');
  });

  it('one net: a PENDING entry and a negative fee count the same in statement, summary and close', async () => {
    // The API document shows CONFIRMED as a statement entry's only status and calls `fee` the fee charged
    // (domain/sums.ts): a PENDING entry moved nothing yet, and a fee written negative is still a charge.
    await new StateStore(join(dir, 'sandbox.json'), { host: SYSTEM, clock: () => now }).update((state) => {
      const activity = [...state.activity];
      const party = { name: 'Pendente', bank: '341', documentNumber: '52998224725' };
      insertEntry(activity, {
        id: 'pend0000-0000-4000-8000-000000000001',
        type: 'INCOME',
        amount: 50_000,
        fee: 0,
        status: 'PENDING' as 'CONFIRMED',
        method: 'PIX',
        confirmedAt: '2026-03-08T17:00:00.000Z',
        creditor: party,
      });
      insertEntry(activity, {
        id: 'negf0000-0000-4000-8000-000000000002',
        type: 'OUTCOME',
        amount: -10_000,
        fee: -250,
        status: 'CONFIRMED',
        method: 'PIX',
        confirmedAt: '2026-03-08T17:30:00.000Z',
        debtor: party,
      });
      state.activity = activity;
    });
    const entries = await dayEntries('2026-03-08');
    expect(entries.map((e) => e.status)).toContain('PENDING');
    const confirmed = entries.filter((e) => e.status === 'CONFIRMED');
    const cents = (reais: number | undefined) => Math.round((reais ?? 0) * 100);
    const income = confirmed.reduce((sum, e) => sum + Math.max(cents(e.amount), 0), 0);
    const outcome = confirmed.reduce((sum, e) => sum + Math.min(cents(e.amount), 0), 0);
    const fees = confirmed.reduce((sum, e) => sum + Math.abs(cents(e.fee)), 0);
    const net = income + outcome - fees;
    const plain = (c: number) =>
      `${c < 0 ? '-' : ''}${Math.trunc(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;

    // pix statement's totals (piped: plain decimals on stderr).
    const listed = await pix(['statement', '--from', '2026-03-08', '--to', '2026-03-08', '--all']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(
      `${confirmed.length} entries: in ${plain(income)}, out ${plain(outcome)}, fees ${plain(fees)}, net ${plain(net)}; 1 entry not CONFIRMED (not counted)`,
    );
    // pix statement summary's total.
    const summary = await pix([
      'statement',
      'summary',
      '--from',
      '2026-03-08',
      '--to',
      '2026-03-08',
      '--json',
    ]);
    expect(summary.code, summary.stderr).toBe(0);
    const total = JSON.parse(summary.stdout).total;
    expect([
      total.count,
      cents(total.income),
      cents(total.outcome),
      cents(total.fees),
      cents(total.net),
    ]).toEqual([confirmed.length, income, outcome, fees, net]);
    expect(summary.stderr).toContain('warning: 1 entry not CONFIRMED was left out of the sums');
    // pix close's day: closing − opening is the same net.
    const closed = await close(['--day', '2026-03-08', '--opening-balance', '0']);
    expect(closed.closing - closed.opening).toBe(net);
  });

  it('a closed day the statement later shows otherwise is reported by the next close and by reconcile', async () => {
    await close(['--day', '2026-03-08', '--opening-balance', '0']);
    // An entry of that day appears afterwards (a late-posted credit).
    await new StateStore(join(dir, 'sandbox.json'), { host: SYSTEM, clock: () => now }).update((state) => {
      const activity = [...state.activity];
      insertEntry(activity, {
        id: 'late0000-0000-4000-8000-000000000001',
        type: 'INCOME',
        amount: 4_321,
        fee: 0,
        status: 'CONFIRMED',
        method: 'PIX',
        confirmedAt: '2026-03-08T18:00:00.000Z',
        creditor: { name: 'Tardio', bank: '341', documentNumber: '52998224725' },
      });
      state.activity = activity;
    });
    const next = await pix(['close', '--day', '2026-03-09']);
    expect(next.code).toBe(0);
    expect(next.stderr).toContain(
      'warning: closed day 2026-03-08 (final) changed since it was closed: 1 entry added (late0000); its close stays as booked',
    );
    const reconciled = await pix(['reconcile', '--from', '2026-03-01', '--to', '2026-03-09', '--json']);
    expect(reconciled.code).toBe(0);
    expect(reconciled.stderr).toContain('closed day 2026-03-08 (final) changed since it was closed');
    expect(JSON.parse(reconciled.stdout).changedDays).toEqual([
      expect.objectContaining({
        day: '2026-03-08',
        added: ['late0000-0000-4000-8000-000000000001'],
        removed: [],
        changed: [],
      }),
    ]);
  });
});
