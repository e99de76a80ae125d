import { describe, expect, it } from 'vitest';
import { BOOKS, centavosOf, MAX_ENTRY, readEntry, type SumsPolicy, Tally } from '../../src/domain/sums.js';

const entry = (amount: unknown, fee: unknown, status = 'CONFIRMED') => ({ amount, fee, status });

/** A day as a hostile or unfinished statement may show it: a PENDING credit and a fee written negative. */
const DAY = [
  entry(100, 0.5),
  entry(-40, -2.5), // the fee written as a debit, as OFX writes it
  entry(500, 0, 'PENDING'),
  entry(-0.1, undefined),
];

function sumsOf(policy: SumsPolicy) {
  const tally = new Tally(policy);
  for (const e of DAY) tally.add(e);
  return { ...tally.sums(), uncounted: tally.uncounted, unreadable: tally.unreadable };
}

describe('Sums', () => {
  it('BOOKS: CONFIRMED entries only, each fee as the charge it is (its size)', () => {
    expect(sumsOf(BOOKS)).toEqual({
      count: 3,
      income: 100_00,
      outcome: -40_10,
      fees: 3_00,
      net: 56_90,
      uncounted: 1,
      unreadable: 0,
    });
  });

  it('the policy is the parameter: every status, and the fee as written', () => {
    expect(sumsOf({ status: 'every', fee: 'charged' })).toMatchObject({
      count: 4,
      income: 600_00,
      net: 556_90,
    });
    expect(sumsOf({ status: 'confirmed', fee: 'signed' })).toMatchObject({ fees: -2_00, net: 61_90 });
  });

  it('reads an unreadable amount or fee before the status, so damage is never hidden as pending', () => {
    expect(readEntry(entry('5', 0, 'PENDING'), BOOKS)).toBe('unreadable');
    expect(readEntry(entry(5, Number.NaN), BOOKS)).toBe('unreadable');
    expect(readEntry(entry(5, 1, 'PENDING'), BOOKS)).toBe('uncounted');
    expect(readEntry(entry(5, -1), BOOKS)).toEqual({ amount: 5_00, fee: 1_00 });
    const tally = new Tally(BOOKS);
    expect(tally.add(entry(1e300, 0))).toBe('unreadable');
    expect(tally.unreadable).toBe(1);
  });

  it('centavosOf: exact centavos of reais, undefined past what pix adds exactly', () => {
    expect(centavosOf(10.499999)).toBe(10_50);
    expect(centavosOf(-0.07)).toBe(-7);
    expect(centavosOf(MAX_ENTRY / 100)).toBe(MAX_ENTRY);
    expect(centavosOf(MAX_ENTRY / 100 + 1)).toBeUndefined();
    expect(centavosOf(undefined)).toBeUndefined();
    expect(centavosOf(Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('refuses a sum it cannot keep exact', () => {
    const tally = new Tally(BOOKS);
    for (let i = 0; i < 9; i++) tally.add(entry(MAX_ENTRY / 100, 0));
    expect(() => tally.add(entry(MAX_ENTRY / 100, 0))).toThrow(/more than pix can sum exactly/);
  });
});
