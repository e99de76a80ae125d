import { describe, expect, it } from 'vitest';
import type { BatchRow } from '../../src/domain/batch.js';
import { formatProblem } from '../../src/domain/batch.js';
import {
  batchOutcome,
  batchTotals,
  checkBatchLimits,
  countStates,
  describeStates,
  fixedAmount,
  planRowAmount,
  ROW_STATES,
  type RowState,
} from '../../src/domain/batchplan.js';

const keyRow = (amount: number): BatchRow => ({
  id: 'k',
  line: 2,
  target: { kind: 'key', key: 'a@b.co', keyType: 'EMAIL' },
  amount,
});

const emvRow = (options: { dynamic?: boolean; fixedAmount?: number; amount?: number }): BatchRow => ({
  id: 'e',
  line: 3,
  target: {
    kind: 'emv',
    emv: '000201…',
    emvHash: 'h',
    dynamic: options.dynamic ?? false,
    ...(options.fixedAmount === undefined ? {} : { fixedAmount: options.fixedAmount }),
  },
  amount: options.fixedAmount ?? options.amount,
});

describe('planRowAmount', () => {
  it('a key pays the file amount, sent with the transfer', () => {
    expect(planRowAmount(keyRow(10_00))).toEqual({ payable: true, amount: 10_00, sendAmount: true });
  });

  it('a code that lets the payer choose pays the row amount, sent; none is not payable', () => {
    expect(planRowAmount(emvRow({ amount: 12_00 }), { canModifyFinalAmount: true, final: 0 })).toEqual({
      payable: true,
      amount: 12_00,
      sendAmount: true,
    });
    expect(planRowAmount(emvRow({ dynamic: true }), { canModifyFinalAmount: true })).toEqual({
      payable: false,
      reason: 'the code lets the payer choose the amount and the row gives none (fill its amount column)',
    });
  });

  it('a fixed code pays the consultation final amount, not sent', () => {
    expect(planRowAmount(emvRow({ dynamic: true }), { final: 99_90, canModifyFinalAmount: false })).toEqual({
      payable: true,
      amount: 99_90,
      sendAmount: false,
    });
    expect(planRowAmount(emvRow({ fixedAmount: 25_90 }), { final: 25_90 })).toEqual({
      payable: true,
      amount: 25_90,
      sendAmount: false,
    });
  });

  it('refuses a final amount other than the one the file or the code showed', () => {
    expect(planRowAmount(emvRow({ dynamic: true, amount: 100_00 }), { final: 102_35 })).toEqual({
      payable: false,
      reason: 'the consultation asks R$ 102,35, the file says R$ 100,00',
    });
    expect(planRowAmount(emvRow({ fixedAmount: 25_90 }), { final: 30_00 })).toEqual({
      payable: false,
      reason: 'the consultation asks R$ 30,00, the code says R$ 25,90',
    });
  });

  it('refuses a consultation with no amount and no choice', () => {
    for (const consult of [{}, { final: 0, canModifyFinalAmount: false }]) {
      expect(planRowAmount(emvRow({ dynamic: true }), consult)).toEqual({
        payable: false,
        reason: 'the consultation gives no amount to pay and does not let the payer choose one',
      });
    }
  });

  it('needs the consultation of an emv row', () => {
    expect(() => planRowAmount(emvRow({ amount: 1 }))).toThrow(/needs its consultation/);
  });
});

describe('fixedAmount: the one rule of pay qr and pay batch for a code the payer cannot change', () => {
  it('pays the final amount when it is the one shown, or when none was shown; says why not otherwise', () => {
    expect(fixedAmount(10_00, { amount: 10_00, source: 'the code' })).toEqual({ ok: true, amount: 10_00 });
    expect(fixedAmount(10_00)).toEqual({ ok: true, amount: 10_00 });
    expect(fixedAmount(1000_00, { amount: 10_00, source: 'the code' })).toEqual({
      ok: false,
      why: 'disagrees',
      reason: 'the consultation asks R$ 1.000,00, the code says R$ 10,00',
    });
    expect(fixedAmount(undefined, { amount: 10_00, source: 'the code' })).toMatchObject({
      ok: false,
      why: 'none',
    });
  });
});

describe('batchTotals', () => {
  it('counts rows, sums known amounts and counts the unknown ones', () => {
    expect(batchTotals([{ amount: 10_50 }, { amount: undefined }, { amount: 1 }])).toEqual({
      rows: 3,
      sum: 10_51,
      withoutAmount: 1,
    });
    expect(batchTotals([])).toEqual({ rows: 0, sum: 0, withoutAmount: 0 });
  });

  it('refuses a sum it cannot hold exactly', () => {
    expect(() => batchTotals([{ amount: Number.MAX_SAFE_INTEGER }, { amount: 2 }])).toThrow(RangeError);
  });
});

describe('checkBatchLimits', () => {
  const items = [
    { id: 'a', line: 2, amount: 100_00 },
    { id: 'b', line: 3, amount: 600_00 },
    { id: 'c', line: 4, amount: undefined },
    { id: 'd', line: 5, amount: 500_00 },
  ];

  it('lists each row above max-amount, then the sum above --max-total', () => {
    expect(
      checkBatchLimits(items, { maxAmount: 500_00, maxTotal: 1000_00, profile: 'prod' }).map(formatProblem),
    ).toEqual([
      'line 3 (id b): amount: R$ 600,00 is above the max-amount of profile "prod" (R$ 500,00)',
      '--max-total: the batch pays R$ 1.200,00 in 3 rows, above R$ 1.000,00',
    ]);
  });

  it('passes at the limits exactly, and without limits', () => {
    expect(checkBatchLimits(items, { maxAmount: 600_00, maxTotal: 1200_00 })).toEqual([]);
    expect(checkBatchLimits(items, {})).toEqual([]);
  });

  it('names the profile generically when its name is not given', () => {
    expect(checkBatchLimits([{ id: 'a', line: 2, amount: 2 }], { maxAmount: 1 })[0]?.message).toBe(
      'R$ 0,02 is above the max-amount of the profile (R$ 0,01)',
    );
    expect(checkBatchLimits([{ id: 'a', line: 2, amount: 2 }], { maxTotal: 1 })[0]?.message).toBe(
      'the batch pays R$ 0,02 in 1 row, above R$ 0,01',
    );
  });
});

describe('row states and the exit code', () => {
  it('counts and describes the states that occur, in a fixed order', () => {
    const counts = countStates(['unknown', 'paid', 'paid', 'already_paid', 'not_sent']);
    expect(counts).toEqual({
      paid: 2,
      already_paid: 1,
      not_payable: 0,
      rejected: 0,
      unknown: 1,
      not_sent: 1,
      duplicate: 0,
      in_progress: 0,
      receiver_changed: 0,
      held: 0,
    });
    expect(describeStates(counts)).toBe('2 paid, 1 already paid, 1 unknown, 1 not sent');
    expect(describeStates(countStates(['in_progress', 'duplicate']))).toBe('1 duplicate, 1 in progress');
    expect(describeStates(countStates([]))).toBe('no rows');
  });

  it('8 when a guard held a row (a duplicate, or a row another pix is paying) and nothing worse happened', () => {
    expect(batchOutcome(['paid', 'duplicate'])).toEqual({ kind: 'declined' });
    expect(batchOutcome(['in_progress', 'already_paid'])).toEqual({ kind: 'declined' });
    expect(batchOutcome(['paid', 'receiver_changed'])).toEqual({ kind: 'declined' });
    expect(describeStates(countStates(['receiver_changed']))).toBe('1 receiver changed');
    expect(batchOutcome(['paid', 'held'])).toEqual({ kind: 'declined' });
    expect(describeStates(countStates(['held', 'paid']))).toBe('1 paid, 1 held');
    expect(batchOutcome(['duplicate', 'not_sent'])).toEqual({ kind: 'unavailable' });
  });

  it('0 when every row is paid or already paid (or there is none)', () => {
    expect(batchOutcome(['paid', 'already_paid', 'paid'])).toEqual({});
    expect(batchOutcome([])).toEqual({});
  });

  it('7 when any row is unknown, whatever else', () => {
    for (const other of ROW_STATES) {
      expect(batchOutcome([other, 'unknown'])).toEqual({ kind: 'unknown_outcome' });
    }
  });

  it('5 when a row was rejected or not payable and none is unknown', () => {
    const states: RowState[][] = [
      ['paid', 'rejected'],
      ['not_payable', 'already_paid'],
      ['not_sent', 'rejected'],
    ];
    for (const list of states) expect(batchOutcome(list)).toEqual({ kind: 'rejected' });
  });

  it('6 when rows were only not sent (a rerun pays them)', () => {
    expect(batchOutcome(['paid', 'not_sent'])).toEqual({ kind: 'unavailable' });
  });

  it('takes counts as well as states', () => {
    expect(batchOutcome(countStates(['paid', 'rejected']))).toEqual({ kind: 'rejected' });
  });
});
