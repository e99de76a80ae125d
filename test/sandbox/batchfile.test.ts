import { describe, expect, it } from 'vitest';
import { type TextBatchFormat as BatchFormat, type BatchRow, formatProblem } from '../../src/domain/batch.js';
import { planRowAmount } from '../../src/domain/batchplan.js';
import { parseBatchFile } from '../../src/domain/batchtext.js';
import { decodeBrCode } from '../../src/domain/brcode.js';
import { centavosFromApi, centavosToApi } from '../../src/domain/money.js';
import { type SampleOptions, type SampleRow, sampleLines, sampleRows } from '../../src/sandbox/batchfile.js';
import { consultDict, consultEmv } from '../../src/sandbox/consultations.js';
import { ApiFailure, MAGIC } from '../../src/sandbox/failure.js';
import { MISSING_KEYS } from '../../src/sandbox/people.js';
import { initialState } from '../../src/sandbox/seed.js';
import { transfer } from '../../src/sandbox/transfers.js';

const FORMATS: BatchFormat[] = ['csv', 'ndjson'];

function fileOf(options: SampleOptions, format: BatchFormat): { rows: SampleRow[]; text: string } {
  const rows = sampleRows(options);
  return { rows, text: sampleLines(rows, format).join('') };
}

function parsedRows(text: string, format: BatchFormat): BatchRow[] {
  const result = parseBatchFile(text, format);
  if (!result.ok) throw new Error(result.problems.slice(0, 5).map(formatProblem).join('\n'));
  return result.rows;
}

/** The line a sample row is on: the files have no line breaks inside values. */
const lineOf = (index: number, format: BatchFormat) => (format === 'csv' ? index + 2 : index + 1);

type Outcome =
  | { paid: number }
  | { refusedAt: 'consult' | 'transfer'; status: number }
  | { notPayable: string };

/**
 * Pays one row the way `pix pay batch` will: consult (DICT with the key in DICT form, or the code),
 * the amount rules of planRowAmount, then the transfer with the consultation's endToEndId.
 */
function payInSandbox(state: ReturnType<typeof initialState>, now: Date, row: BatchRow): Outcome {
  let endToEndId: string;
  let plan: ReturnType<typeof planRowAmount>;
  try {
    if (row.target.kind === 'key') {
      const consult = consultDict(state, now, { key: row.target.key });
      endToEndId = consult.endtoEndId;
      plan = planRowAmount(row);
    } else {
      const consult = consultEmv(state, now, { emv: row.target.emv }, () => true) as {
        endToEndId: string;
        amount: { final: number; canModifyFinalAmount: boolean };
      };
      endToEndId = consult.endToEndId;
      plan = planRowAmount(row, {
        final: centavosFromApi(consult.amount.final),
        canModifyFinalAmount: consult.amount.canModifyFinalAmount,
      });
    }
  } catch (error) {
    if (error instanceof ApiFailure) return { refusedAt: 'consult', status: error.status };
    throw error;
  }
  if (!plan.payable) return { notPayable: plan.reason };
  try {
    const result = transfer(state, now, {
      endToEndId,
      ...(plan.sendAmount ? { amount: centavosToApi(plan.amount) } : {}),
    });
    return { paid: centavosFromApi(result.amount) };
  } catch (error) {
    if (error instanceof ApiFailure) return { refusedAt: 'transfer', status: error.status };
    throw error;
  }
}

describe('sample batch files parse with zero problems', () => {
  it('for every N from 1 to 40, and 999 and 1000 rows, in both formats', () => {
    for (const format of FORMATS) {
      for (const n of [...Array.from({ length: 40 }, (_, i) => i + 1), 999, 1000]) {
        const { text } = fileOf({ rows: n, seed: 1 }, format);
        expect(parsedRows(text, format), `${format} ${n}`).toHaveLength(n);
      }
    }
  });

  it('for other seeds, the smallest and the largest included', () => {
    for (const seed of [0, 2, 42, 0xffff_ffff]) {
      for (const format of FORMATS) {
        expect(parsedRows(fileOf({ rows: 1000, seed }, format).text, format)).toHaveLength(1000);
      }
    }
  });

  it('reads back what each row was meant to pay', () => {
    const { rows, text } = fileOf({ rows: 300, seed: 5 }, 'csv');
    expect(parsedRows(text, 'csv').map((row) => [row.id, row.amount])).toEqual(
      rows.map((row) => [row.id, row.pays]),
    );
  });
});

describe('sample batch files are deterministic', () => {
  it('gives the same bytes for the same options, and a longer file starts with a shorter one', () => {
    const long = sampleLines(sampleRows({ rows: 400, seed: 9 }), 'csv');
    expect(sampleLines(sampleRows({ rows: 400, seed: 9 }), 'csv')).toEqual(long);
    for (const n of [1, 2, 37, 399]) {
      expect(sampleLines(sampleRows({ rows: n, seed: 9 }), 'csv')).toEqual(long.slice(0, n + 1));
    }
  });

  it('gives other rows and other ids for another seed', () => {
    const a = sampleRows({ rows: 200, seed: 1 });
    const b = sampleRows({ rows: 200, seed: 2 });
    const ids = new Set(a.map((row) => row.id));
    expect(b.some((row) => ids.has(row.id))).toBe(false);
    expect(a[0]!.id).toBe('s1-000001');
    expect(b.map((row) => row.key ?? row.emv)).not.toEqual(a.map((row) => row.key ?? row.emv));
  });
});

describe('sample batch files look like what operators pay', () => {
  const { rows: samples, text } = fileOf({ rows: 1000, seed: 1 }, 'csv');
  const rows = parsedRows(text, 'csv');

  it('mix every kind of key, and static codes with and without an amount', () => {
    const kinds = new Map<string, number>();
    const count = (kind: string) => kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    for (const row of rows) {
      if (row.target.kind === 'key') count(row.target.keyType);
      else count(row.target.fixedAmount === undefined ? 'open code' : 'fixed code');
    }
    for (const kind of ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP', 'open code', 'fixed code']) {
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThan(30);
    }
    expect(rows.filter((row) => row.target.kind === 'emv' && row.target.dynamic)).toEqual([]);
  });

  it('spell keys and amounts the ways people type them, and quote what CSV must', () => {
    const keys = samples.map((row) => row.key ?? '');
    expect(keys.some((key) => /^\d{3}\.\d{3}\.\d{3}-\d{2}$/.test(key))).toBe(true); // masked CPF
    expect(keys.some((key) => /^[0-9A-Z]{2}\.[0-9A-Z]{3}\.[0-9A-Z]{3}\/0001-\d{2}$/.test(key))).toBe(true);
    expect(keys.some((key) => /^[0-9A-Z]{12}\d{2}$/.test(key) && /[A-Z]/.test(key))).toBe(true); // alphanumeric CNPJ
    expect(keys.some((key) => key.startsWith('+55 ('))).toBe(true);
    expect(samples.some((row) => typeof row.amount === 'string' && row.amount.includes(','))).toBe(true);
    expect(text).toContain('"Frete, ');
    expect(text).toMatch(/\(pedido ""\d{4}""\)"/);
  });

  it('have realistic amounts and none of the sandbox magic values', () => {
    const amounts = rows.map((row) => row.amount!);
    expect(Math.min(...amounts)).toBeGreaterThanOrEqual(5_00);
    expect(Math.max(...amounts)).toBeLessThanOrEqual(5_000_00);
    for (const magic of Object.values(MAGIC)) expect(amounts).not.toContain(magic);
    for (const row of rows) {
      const key = row.target.kind === 'key' ? row.target.key : decodeBrCode(row.target.emv).pixKey;
      expect(MISSING_KEYS.has(key!)).toBe(false);
    }
  });

  it('are paid whole by the sandbox: every row once, the amounts of the file', () => {
    const now = new Date('2026-03-10T15:00:00Z');
    const state = initialState(now);
    const outcomes = rows.map((row) => payInSandbox(state, now, row));
    expect(outcomes).toEqual(rows.map((row) => ({ paid: row.amount })));
    expect(Object.keys(state.transfers)).toHaveLength(1000);
  });
});

describe('sample batch files with errors on purpose', () => {
  it('put one mistake in every five rows, naming its kind in the id', () => {
    const rows = sampleRows({ rows: 100, seed: 1, withErrors: 'all' });
    const flawed = rows.flatMap((row, index) => (row.flaw ? [index] : []));
    expect(flawed).toEqual(Array.from({ length: 20 }, (_, i) => i * 5 + 2));
    for (const row of rows) {
      if (row.flaw && row.flaw !== 'duplicate-id') expect(row.id).toContain(`-err-${row.flaw}`);
    }
    // Every kind appears once the file is long enough.
    expect(new Set(rows.map((row) => row.flaw)).size).toBe(14); // 13 kinds and undefined
  });

  it('invalid rows are exactly the lines pix reports, one or more problems each', () => {
    for (const format of FORMATS) {
      const { rows, text } = fileOf({ rows: 200, seed: 3, withErrors: 'all' }, format);
      const result = parseBatchFile(text, format);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      const reported = new Set(result.problems.map((problem) => problem.line));
      const invalid = new Set(
        rows.flatMap((row, index) => (row.expect === 'invalid' ? [lineOf(index, format)] : [])),
      );
      expect(reported).toEqual(invalid);
      // 40 rows with a mistake, cycling through 13 kinds of which 9 are invalid: 3 × 9 + 1.
      expect(invalid.size).toBe(28);
    }
  });

  it('each invalid kind is refused for its own reason', () => {
    const { rows, text } = fileOf({ rows: 100, seed: 1, withErrors: 'invalid' }, 'csv');
    const result = parseBatchFile(text, 'csv');
    if (result.ok) throw new Error('expected problems');
    const reasons = new Map<string, string>();
    rows.forEach((row, index) => {
      if (!row.flaw || reasons.has(row.flaw)) return;
      const problem = result.problems.find((p) => p.line === lineOf(index, 'csv'))!;
      reasons.set(row.flaw, `${problem.column}: ${problem.message}`);
    });
    expect(Object.fromEntries(reasons)).toEqual({
      'cpf-check-digits': expect.stringMatching(
        /^key: "\d{11}" is not a valid CPF: check digits do not match/,
      ),
      'duplicate-id': 'id: "s1-000007" is already the id of line 8', // the row before it
      'amount-3-decimals':
        'amount: "10.505" is ambiguous: a thousands separator, or a third decimal (amounts have two)? For 10505 reais write 10505 or 10.505,00',
      'key-without-amount': 'amount: required for a key payment',
      'emv-bad-crc': expect.stringMatching(/^emv: CRC mismatch/),
      'amount-on-fixed-code': expect.stringMatching(/^amount: this code fixes the amount/),
      'description-on-code': expect.stringMatching(/^description: only key payments/),
      'bad-id': expect.stringMatching(/^id: ".* #\d\d" may contain only/),
      'landline-phone': expect.stringMatching(/^key: .* looks like a landline number/),
    });
  });

  it('refused rows pass validation and are refused by the sandbox as intended; the others are paid', () => {
    const { rows: samples, text } = fileOf({ rows: 200, seed: 4, withErrors: 'refused' }, 'ndjson');
    const rows = parsedRows(text, 'ndjson');
    const now = new Date('2026-03-10T15:00:00Z');
    const state = initialState(now);
    const seen = new Set<string>();
    rows.forEach((row, index) => {
      const sample = samples[index]!;
      const outcome = payInSandbox(state, now, row);
      if (sample.flaw) seen.add(sample.flaw);
      switch (sample.flaw) {
        case 'key-not-found':
        case 'code-key-not-found':
          expect(outcome, sample.id).toEqual({ refusedAt: 'consult', status: 404 });
          break;
        case 'transfer-error-amount':
          expect(outcome, sample.id).toEqual({ refusedAt: 'transfer', status: 400 });
          break;
        case 'invalid-payment-amount':
          expect(outcome, sample.id).toEqual({ refusedAt: 'transfer', status: 422 });
          break;
        default:
          expect(sample.expect).toBe('payable');
          expect(outcome, sample.id).toEqual({ paid: sample.pays });
      }
    });
    expect(seen.size).toBe(4);
    expect(samples.filter((row) => row.expect === 'not_payable')).toHaveLength(20);
  });
});
