/**
 * `pix reconcile` at the size a finance team has: a synthetic ERP export of 10,000 invoices against the
 * embedded sandbox seeded with 100,000 entries, in-process with a fixed clock. Every outcome class must be
 * there, every result must say why, each designed invoice must land where it was designed to (a few may
 * land elsewhere by coincidence of amounts: the test says how many may), and a person's matches must
 * survive a rerun.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StatementEntry } from '../../../src/api/resources/statement.js';
import { OUTCOMES } from '../../../src/domain/reconcile.js';
import type { StoredEntry } from '../../../src/sandbox/model.js';
import { insertEntry } from '../../../src/sandbox/model.js';
import { StateStore } from '../../../src/sandbox/store.js';
import { SYSTEM } from '../../../src/system.js';
import { pixWith } from '../../helpers/pix.js';
import { tempDir } from '../../helpers/temp.js';

/** A valid CPF made from `n` (its check digits computed). */
function cpf(n: number): string {
  const base = String(100_000_000 + n).slice(-9);
  const digit = (digits: string) => {
    let sum = 0;
    for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * (digits.length + 1 - i);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  const first = digit(base);
  return `${base}${first}${digit(`${base}${first}`)}`;
}

const NOW = new Date('2026-03-31T15:00:00.000Z');
let dir: string;

const pix = pixWith(() => ({ env: { PIX_CONFIG_DIR: dir, HOME: dir }, clock: { now: () => NOW } }));

interface Result {
  outcome: string;
  manual: boolean;
  why: string;
  expectations: Array<{ id: string }>;
  entries: Array<{ id: string }>;
}

const cents = (entry: { amount: number }) => Math.round(entry.amount * 100);
const reais = (centavos: number) =>
  `${Math.trunc(centavos / 100)},${String(centavos % 100).padStart(2, '0')}`;
const day = (iso: string) => iso.slice(0, 10).split('-').reverse().join('/');

/** What each designed invoice id was made to be. */
const designed = new Map<string, string>();
const manualPairs: Array<[string, string]> = [];

beforeAll(async () => {
  dir = tempDir('pix-reconcile-');
  const rows: string[] = ['Documento;Cliente;CNPJ;Vencimento;Valor;Observação'];
  const add = (id: string, kind: string, amount: number, doc: string, due: string, name = '') => {
    designed.set(id, kind);
    rows.push([id, name, doc, due, `R$ ${reais(amount)}`, 'gerado pelo teste'].join(';'));
  };
  // The sandbox's generated statement has 8 payers; split, grouped, short and over payments come from
  // payers of their own (as an ERP's customers are), added to the simulated account's activity.
  const added: StoredEntry[] = [];
  const payment = (kind: string, i: number, k: number, amount: number, at: number, payer: string) => {
    const entry: StoredEntry = {
      id: `${kind}${String(i).padStart(7, '0')}-${k}000-4000-8000-000000000000`,
      type: 'INCOME',
      amount, // the sandbox keeps centavos; the API answers reais
      fee: 0,
      status: 'CONFIRMED',
      method: 'PIX',
      confirmedAt: new Date(at).toISOString(),
      creditor: { name: `Cliente ${kind}${i}`, bank: '341', documentNumber: payer },
    };
    added.push(entry);
    return { ...entry, amount: amount / 100 };
  };
  const start = Date.parse('2026-02-05T13:00:00Z');
  const amountOf = (i: number, k: number) => 2_000 + ((i * 7_919 + k * 104_729) % 400_000);
  for (let i = 0; i < 500; i++) {
    const payer = cpf(10_000 + i);
    const at = start + i * 3_600_000;
    const a = payment('a', i, 1, amountOf(i, 1), at, payer);
    const b = payment('b', i, 2, amountOf(i, 2), at + 86_400_000, payer);
    add(`NF-S${i}`, 'partial', cents(a) + cents(b), payer, day(a.confirmedAt));
  }
  for (let i = 0; i < 500; i++) {
    const payer = cpf(20_000 + i);
    const e = payment('c', i, 1, amountOf(i, 3), start + i * 3_600_000, payer);
    const part = Math.floor(cents(e) / 3);
    add(`NF-G${i}a`, 'partial', part, payer, day(e.confirmedAt));
    add(`NF-G${i}b`, 'partial', cents(e) - part, payer, day(e.confirmedAt));
  }
  // 500 overpaid (a tenth more than invoiced), 500 paid short (a tenth less).
  for (let i = 0; i < 500; i++) {
    const overPayer = cpf(30_000 + i);
    const over = payment('d', i, 1, amountOf(i, 4), start + i * 3_600_000, overPayer);
    add(`NF-O${i}`, 'overpaid', Math.ceil(cents(over) * 0.9), overPayer, day(over.confirmedAt));
    const shortPayer = cpf(40_000 + i);
    const short = payment('e', i, 1, amountOf(i, 5), start + i * 3_600_000, shortPayer);
    add(`NF-L${i}`, 'partial', Math.ceil(cents(short) * 1.1), shortPayer, day(short.confirmedAt));
  }
  // Written before the first pix run, as the account's own activity.
  await new StateStore(join(dir, 'sandbox-state.json'), { host: SYSTEM, clock: () => NOW }).update(
    (state) => {
      const activity = [...state.activity];
      for (const entry of added) insertEntry(activity, entry);
      state.activity = activity;
    },
  );
  const seeded = await pix(['sandbox', 'seed', '--transactions', '100000']);
  expect(seeded.code, seeded.stderr).toBe(0);
  const read = await pix(['statement', '--all', '--from', '2026-01-01', '--to', 'now', '-o', 'ndjson']);
  expect(read.code).toBe(0);
  const entries = read.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as StatementEntry);
  expect(entries).toHaveLength(100_000 + added.length);
  const own = new Set(added.map((e) => e.id));
  const incomes = entries
    .filter((e) => e.type === 'INCOME' && !own.has(e.id))
    .sort((a, b) => a.confirmedAt.localeCompare(b.confirmedAt));
  const amountCount = new Map<number, number>();
  for (const e of entries)
    amountCount.set(Math.abs(cents(e)), (amountCount.get(Math.abs(cents(e))) ?? 0) + 1);

  const byPayer = new Map<string, StatementEntry[]>();
  const unique: StatementEntry[] = [];
  for (const e of incomes) {
    const doc = e.creditor!.documentNumber!;
    if (amountCount.get(cents(e)) === 1 && cents(e) > 150_000 && unique.length < 1_000) {
      unique.push(e);
      continue;
    }
    const list = byPayer.get(doc) ?? [];
    list.push(e);
    byPayer.set(doc, list);
  }
  const pool = [...byPayer.values()];
  const take = (k: number): StatementEntry => {
    const list = pool[k % pool.length]!;
    return list.shift()!;
  };
  // 5,500 proven: the payer's document and the amount.
  for (let i = 0; i < 5_500; i++) {
    const e = take(i);
    add(`NF-P${i}`, 'proven', cents(e), e.creditor!.documentNumber!, day(e.confirmedAt), e.creditor!.name);
  }
  // 1,000 probable: an amount only one entry has, no document.
  for (const [i, e] of unique.entries()) add(`NF-A${i}`, 'probable', cents(e), '', day(e.confirmedAt));
  // 200 matched by hand (no document; what pix alone could not tell apart); 750 that nothing pays.
  for (let i = 0; i < 200; i++) {
    const e = take(i + 7);
    add(`NF-M${i}`, 'manual', cents(e), '', day(e.confirmedAt));
    manualPairs.push([`NF-M${i}`, e.id]);
  }
  for (let i = 0; i < 750; i++) add(`NF-U${i}`, 'unmatched-expectation', 400_000 + i, '', '15/03/2026');
  // 50 not due yet: due after the run's today, nothing pays them.
  for (let i = 0; i < 50; i++) add(`NF-D${i}`, 'not_due', 450_000 + i, '', '10/04/2026');
  expect(rows.length - 1).toBe(10_000);
  writeFileSync(join(dir, 'receber.csv'), `${rows.join('\r\n')}\r\n`);
}, 120_000);

const ARGS = [
  'reconcile',
  '--expected',
  '',
  '--map',
  'id=Documento,amount=Valor,document=CNPJ,due=Vencimento,name=Cliente',
  '--from',
  '2026-01-01',
  '--to',
  'now',
];

async function reconcileJson(extra: string[] = []) {
  const args = [...ARGS, ...extra, '--json'];
  args[2] = join(dir, 'receber.csv');
  const result = await pix(args);
  expect(result.stderr, result.stderr.slice(0, 2000)).not.toMatch(/error/);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as { summary: Record<string, number>; results: Result[] };
}

describe('pix reconcile: 10,000 invoices against 100,000 entries', () => {
  it('every outcome class, each explained; designed invoices land where designed; manual matches survive a rerun', async () => {
    for (const [invoice, entry] of manualPairs) {
      const decided = await pix(['reconcile', 'match', invoice, entry]);
      expect(decided.code).toBe(0);
    }
    const settlements = join(dir, 'baixas.csv');
    for (const run of [1, 2]) {
      const report = await reconcileJson(run === 1 ? ['--settlements', settlements] : []);
      for (const outcome of OUTCOMES) {
        expect(report.summary[outcome], outcome).toBeGreaterThan(0);
      }
      // One assertion over the 10,000 results (an expect per result, with its message, cost a second).
      expect(report.results.filter((result) => result.why.length <= 10)).toEqual([]);
      const landed = new Map<string, string>();
      for (const result of report.results) {
        for (const expectation of result.expectations) landed.set(expectation.id, result.outcome);
      }
      expect(landed.size).toBe(10_000);
      const misses = new Map<string, number>();
      const sizes = new Map<string, number>();
      for (const [id, kind] of designed) {
        sizes.set(kind, (sizes.get(kind) ?? 0) + 1);
        if (landed.get(id) !== kind) misses.set(kind, (misses.get(kind) ?? 0) + 1);
      }
      // Amounts of 8 payers over 100,000 entries collide now and then (two of a payer's payments adding up
      // to another invoice): at most 2 % of a class may land in a neighbouring one.
      for (const [kind, count] of misses) {
        expect(count, `${kind}: ${count} of ${sizes.get(kind)} misplaced`).toBeLessThanOrEqual(
          0.02 * sizes.get(kind)!,
        );
      }
      const resultOf = new Map(report.results.flatMap((r) => r.expectations.map((e) => [e.id, r] as const)));
      const byHand = manualPairs.map(([invoice]) => resultOf.get(invoice));
      expect(byHand.map((r) => [r?.outcome, r?.manual, r?.entries.map((e) => e.id)])).toEqual(
        manualPairs.map(([, entry]) => ['manual', true, [entry]]),
      );
      expect(byHand.filter((r) => !r?.why.startsWith('matched by hand'))).toEqual([]);
      // Every entry settles at most one result.
      const entries = report.results.flatMap((r) => r.entries.map((e) => e.id));
      expect(new Set(entries).size).toBe(entries.length);
    }
    const lines = readFileSync(settlements, 'utf8').trim().split('\r\n');
    expect(lines[0]).toBe('id;date;amount;entry');
    expect(lines.length).toBeGreaterThan(8_000);
    expect(lines.find((line) => line.startsWith('NF-P0;'))).toMatch(
      /^NF-P0;\d{2}\/\d{2}\/2026;\d+,\d{2};[0-9a-f-]{36}$/,
    );
  }, 180_000);
});
