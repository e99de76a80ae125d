import { describe, expect, it } from 'vitest';
import { dueDateAmounts, loadBusinessDayTest } from '../../src/domain/duedate.js';
import {
  documentDigits,
  EARLY_TOLERANCE_MS,
  LATE_TOLERANCE_MS,
  type LedgerCharge,
  type MatchableEntry,
  matchCharges,
  matchWindow,
} from '../../src/domain/matching.js';
import { todayIn } from '../../src/domain/when.js';

/** Weekdays only, no holidays: keeps the arithmetic visible. */
const weekdays = (date: string) => {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day !== 0 && day !== 6;
};
const options = { isBusinessDay: weekdays };

function at(iso: string, deltaMs: number): string {
  return new Date(Date.parse(iso) + deltaMs).toISOString();
}

function immediate(id: string, amountCentavos: number, createdAt: string, extra: Partial<LedgerCharge> = {}) {
  return {
    id,
    type: 'immediate',
    amountCentavos,
    createdAt,
    expiresAt: at(createdAt, 3_600_000),
    status: 'pending',
    ...extra,
  } satisfies LedgerCharge;
}

function income(id: string, amount: number, confirmedAt: string, extra: Partial<MatchableEntry> = {}) {
  return { id, type: 'INCOME', amount, status: 'CONFIRMED', confirmedAt, ...extra };
}

const T0 = '2026-03-12T14:00:00.000Z';

describe('matchCharges: immediate charges', () => {
  it('matches an INCOME of the same amount confirmed after the creation, and says how', () => {
    const charge = immediate('c1', 10_00, T0);
    const entry = { ...income('e1', 10, at(T0, 45_000)), creditor: { name: 'Ana' } } as MatchableEntry & {
      creditor: { name: string };
    };
    const { matches, unmatchable } = matchCharges(
      [charge],
      [income('e0', 10.01, at(T0, 1000)), entry],
      options,
    );
    expect(unmatchable).toEqual([]);
    expect(matches).toEqual([
      {
        chargeId: 'c1',
        entryId: 'e1',
        entry,
        amount: 10_00,
        evidence: 'amount-and-time',
        basis: 'amount',
        how: 'matched by amount (R$ 10,00) and time',
      },
    ]);
    // The caller's entry object itself comes back (its extra fields too).
    expect(matches[0]!.entry).toBe(entry);
  });

  it('does not match OUTCOME entries, entries not CONFIRMED, or another amount', () => {
    const charge = immediate('c1', 10_00, T0);
    const entries = [
      income('out', -10, at(T0, 1000), { type: 'OUTCOME' }),
      income('pos-out', 10, at(T0, 1000), { type: 'OUTCOME' }),
      income('pending', 10, at(T0, 1000), { status: 'PENDING' }),
      income('lower', 10, at(T0, 1000), { status: 'confirmed' }),
      income('more', 10.5, at(T0, 1000)),
      income('zero', 0, at(T0, 1000)),
      income('no-zone', 10, '2026-03-12T14:00:01'),
    ];
    expect(matchCharges([charge], entries, options).matches).toEqual([]);
  });

  it('matches inside the window only: from creation less 60 s to expiry plus 5 min', () => {
    const charge = immediate('c1', 10_00, T0);
    const expires = charge.expiresAt!;
    const one = (confirmedAt: string) =>
      matchCharges([charge], [income('e', 10, confirmedAt)], options).matches.length;
    expect(EARLY_TOLERANCE_MS).toBe(60_000);
    expect(LATE_TOLERANCE_MS).toBe(300_000);
    expect(one(at(T0, -60_000))).toBe(1);
    expect(one(at(T0, -60_001))).toBe(0);
    expect(one(at(expires, 300_000))).toBe(1);
    expect(one(at(expires, 300_001))).toBe(0);
    // A charge with no expiry recorded has no end.
    const open = { ...charge, expiresAt: undefined };
    expect(matchCharges([open], [income('e', 10, '2030-01-01T00:00:00Z')], options).matches).toHaveLength(1);
    // Tolerances are options.
    const strict = { ...options, earlyToleranceMs: 0, lateToleranceMs: 0 };
    expect(matchCharges([charge], [income('e', 10, at(T0, -1))], strict).matches).toEqual([]);
  });

  it('marks ambiguous, never paid, two pending charges of one amount that one payment could pay', () => {
    // Before: the older charge took the payment, whichever of the two was paid.
    const older = immediate('b-older', 10_00, T0);
    const newer = immediate('a-newer', 10_00, at(T0, 30_000));
    const payment = income('z-first', 10, at(T0, 60_000));
    for (const charges of [
      [older, newer],
      [newer, older],
    ]) {
      const { matches, ambiguous } = matchCharges(charges, [payment], options);
      expect(matches).toEqual([]);
      expect(ambiguous.map((a) => [a.chargeId, a.candidates.map((c) => c.entryId), a.rivals])).toEqual([
        ['b-older', ['z-first'], ['a-newer']],
        ['a-newer', ['z-first'], ['b-older']],
      ]);
    }
    // Two payments do not settle it either: which paid which cannot be told.
    const second = income('y-second', 10, at(T0, 90_000));
    const both = matchCharges([older, newer], [payment, second], options);
    expect(both.matches).toEqual([]);
    expect(both.ambiguous.map((a) => a.candidates.map((c) => c.entryId))).toEqual([
      ['z-first', 'y-second'],
      ['z-first', 'y-second'],
    ]);
  });

  it('marks ambiguous a charge that two entries could each have paid', () => {
    const charge = immediate('c1', 10_00, T0);
    const entries = [income('e2', 10, at(T0, 2000)), income('e1', 10, at(T0, 1000))];
    const { matches, ambiguous } = matchCharges([charge], entries, options);
    expect(matches).toEqual([]);
    expect(ambiguous).toHaveLength(1);
    expect(ambiguous[0]!.rivals).toEqual([]);
    expect(ambiguous[0]!.candidates.map((c) => [c.entryId, c.evidence, c.how])).toEqual([
      ['e1', 'amount-and-time', 'matched by amount (R$ 10,00) and time'],
      ['e2', 'amount-and-time', 'matched by amount (R$ 10,00) and time'],
    ]);
  });

  it('matches charges of one amount whose windows do not overlap, each by its own payment', () => {
    const first = immediate('c1', 5_00, T0, { expiresAt: at(T0, 60_000) });
    const second = immediate('c2', 5_00, at(T0, 3_600_000));
    const entries = [income('e1', 5, at(T0, 1000)), income('e2', 5, at(T0, 3_601_000))];
    expect(
      matchCharges([second, first], entries, options).matches.map((m) => [m.chargeId, m.entryId]),
    ).toEqual([
      ['c1', 'e1'],
      ['c2', 'e2'],
    ]);
  });

  it('skips an entry claimed by another charge of the ledger, whatever that charge is now', () => {
    const paid = immediate('paid', 10_00, at(T0, -1000), { status: 'paid', matchedEntryId: 'e1' });
    const charge = immediate('c1', 10_00, T0);
    const entries = [income('e1', 10, at(T0, 1000)), income('e2', 10, at(T0, 2000))];
    expect(matchCharges([paid, charge], entries, options).matches.map((m) => m.entryId)).toEqual(['e2']);
    expect(matchCharges([paid, charge], [entries[0]!], options).matches).toEqual([]);
  });

  it('matches only pending charges not yet matched', () => {
    const entries = [income('e1', 10, at(T0, 1000))];
    for (const extra of [
      { status: 'paid' },
      { status: 'expired' },
      { status: 'PENDING' },
      { matchedEntryId: 'x' },
    ]) {
      expect(
        matchCharges([immediate('c', 10_00, T0, extra)], entries, options).matches,
        JSON.stringify(extra),
      ).toEqual([]);
    }
  });

  it('reads an entry seen twice (overlapping pages) once', () => {
    const entry = income('e1', 10, at(T0, 1000));
    const { matches, ambiguous } = matchCharges([immediate('c1', 10_00, T0)], [entry, { ...entry }], options);
    expect(matches.map((m) => [m.chargeId, m.entryId])).toEqual([['c1', 'e1']]);
    expect(ambiguous).toEqual([]);
  });

  it('names the charges whose record cannot be priced, instead of guessing', () => {
    const charges: LedgerCharge[] = [
      immediate('bad-created', 10_00, '2026-03-12 14:00'),
      immediate('bad-expiry', 10_00, T0, { expiresAt: 'soon' }),
      immediate('bad-amount', 10.5, T0),
      immediate('zero', 0, T0),
      { ...immediate('bad-type', 10_00, T0), type: 'static' as never },
      { id: 'no-due', type: 'duedate', amountCentavos: 10_00, createdAt: T0, status: 'pending' },
      {
        id: 'bad-due',
        type: 'duedate',
        amountCentavos: 10_00,
        createdAt: T0,
        dueDate: '2026-02-30',
        status: 'pending',
      },
    ];
    const { matches, unmatchable } = matchCharges(charges, [income('e', 10, at(T0, 1000))], options);
    expect(matches).toEqual([]);
    expect(unmatchable).toEqual([
      { chargeId: 'bad-created', reason: 'its creation time cannot be read' },
      { chargeId: 'bad-expiry', reason: 'its expiry time cannot be read' },
      { chargeId: 'bad-amount', reason: 'its amount is not a positive whole number of centavos' },
      { chargeId: 'zero', reason: 'its amount is not a positive whole number of centavos' },
      { chargeId: 'bad-type', reason: 'its type is neither immediate nor duedate' },
      { chargeId: 'no-due', reason: 'its due date cannot be read' },
      { chargeId: 'bad-due', reason: 'its due date cannot be read' },
    ]);
  });
});

describe('matchCharges: evidence', () => {
  const ANA = '529.982.247-25';
  const JOAO = '39053344705';
  const from = (documentNumber: string | undefined) => ({ creditor: { name: 'someone', documentNumber } });

  it('calls a match of a charge without a payer document probable: amount and time only', () => {
    // Before: a plain `pay key` of the same amount was the charge's payment, as if proven.
    const { matches } = matchCharges(
      [immediate('c1', 30_00, T0)],
      [income('e1', 30, at(T0, 1000), from(JOAO))],
      options,
    );
    expect(matches.map((m) => [m.entryId, m.evidence])).toEqual([['e1', 'amount-and-time']]);
  });

  it("pays a charge with a payer document only with that payer's entry, and calls it proof", () => {
    const charge = immediate('c1', 30_00, T0, { payerDocument: '52998224725' });
    const stranger = income('stranger', 30, at(T0, 1000), from(JOAO));
    const masked = income('masked', 30, at(T0, 2000), from('***.982.247-**'));
    const none = income('none', 30, at(T0, 3000));
    const { matches, ambiguous } = matchCharges([charge], [stranger, masked, none], options);
    expect(matches).toEqual([]);
    expect(ambiguous).toEqual([]);
    const ana = income('ana', 30, at(T0, 4000), from(ANA));
    const paid = matchCharges([charge], [stranger, masked, none, ana], options);
    expect(paid.matches.map((m) => [m.entryId, m.evidence, m.how])).toEqual([
      ['ana', 'payer-document', "matched by the payer's document, amount (R$ 30,00) and time"],
    ]);
  });

  it('gives an entry that proves a charge to that charge, not as a probable match to another', () => {
    const anyone = immediate('anyone', 30_00, T0);
    const anas = immediate('anas', 30_00, at(T0, 1000), { payerDocument: ANA });
    const ana = income('ana', 30, at(T0, 5000), from(ANA));
    const { matches, ambiguous } = matchCharges([anyone, anas], [ana], options);
    expect(matches.map((m) => [m.chargeId, m.entryId, m.evidence])).toEqual([
      ['anas', 'ana', 'payer-document'],
    ]);
    expect(ambiguous).toEqual([]);
    // A second payment, from someone else, is the other charge's probable one.
    const joao = income('joao', 30, at(T0, 6000), from(JOAO));
    expect(
      matchCharges([anyone, anas], [ana, joao], options).matches.map((m) => [
        m.chargeId,
        m.entryId,
        m.evidence,
      ]),
    ).toEqual([
      ['anyone', 'joao', 'amount-and-time'],
      ['anas', 'ana', 'payer-document'],
    ]);
  });

  it('marks ambiguous two charges of one payer and amount that one payment could pay', () => {
    const charges = [
      immediate('c1', 30_00, T0, { payerDocument: ANA }),
      immediate('c2', 30_00, at(T0, 1000), { payerDocument: '52998224725' }),
    ];
    const { matches, ambiguous } = matchCharges(
      charges,
      [income('ana', 30, at(T0, 5000), from(ANA))],
      options,
    );
    expect(matches).toEqual([]);
    expect(ambiguous.map((a) => [a.chargeId, a.rivals, a.candidates[0]?.evidence])).toEqual([
      ['c1', ['c2'], 'payer-document'],
      ['c2', ['c1'], 'payer-document'],
    ]);
  });

  it("matches a due-date charge by its debtor's document", () => {
    const charge: LedgerCharge = {
      id: 'due',
      type: 'duedate',
      amountCentavos: 500_00,
      createdAt: '2026-03-02T12:00:00Z',
      expiresAt: '2026-04-10T03:00:00.000Z',
      dueDate: '2026-03-10',
      status: 'pending',
      payerDocument: '11222333000181',
    };
    const entries = [
      income('other', 500, '2026-03-09T15:00:00Z', from(JOAO)),
      income('debtor', 500, '2026-03-09T16:00:00Z', from('11.222.333/0001-81')),
    ];
    const { matches } = matchCharges([charge], entries, options);
    expect(matches.map((m) => [m.entryId, m.evidence, m.how])).toEqual([
      [
        'debtor',
        'payer-document',
        "matched by the payer's document, the amount due on 2026-03-09, R$ 500,00: the original amount",
      ],
    ]);
  });
});

describe('documentDigits', () => {
  it('reads a CPF or CNPJ with or without punctuation, and nothing masked or cut short', () => {
    expect(documentDigits('529.982.247-25')).toBe('52998224725');
    expect(documentDigits('11.222.333/0001-81')).toBe('11222333000181');
    expect(documentDigits('***.982.247-**')).toBeUndefined();
    expect(documentDigits('5299822472')).toBeUndefined();
    expect(documentDigits(undefined)).toBeUndefined();
    expect(documentDigits(52998224725)).toBeUndefined();
  });
});

describe('matchCharges: due-date charges', () => {
  // Due Tuesday 2026-03-10; created on the 2nd; payable until 00:00 (Brasília) of the 11th + 30 days.
  const dueCharge = (terms: LedgerCharge['terms'], extra: Partial<LedgerCharge> = {}): LedgerCharge => ({
    id: 'due',
    type: 'duedate',
    amountCentavos: 500_00,
    createdAt: '2026-03-02T12:00:00Z',
    expiresAt: '2026-04-10T03:00:00.000Z',
    dueDate: '2026-03-10',
    terms,
    status: 'pending',
    ...extra,
  });
  const lateTerms = {
    amountFine: { modality: 'FIXED_VALUE', amountPerc: 2 },
    amountInterest: { modality: 'PERCENTAGE_PER_MONTH_CALENDAR_DAYS', amountPerc: 1 },
  };

  it('matches a late payment by the amount due on its day, with fine and interest', () => {
    // 2 days late: fine R$ 2,00; 1 % a month of R$ 500,00 for 2 days = 33.3 centavos → R$ 0,33.
    const entry = income('late', 502.33, '2026-03-12T15:00:00Z');
    const { matches } = matchCharges(
      [dueCharge(lateTerms)],
      [income('orig', 500, '2026-03-12T14:00:00Z'), entry],
      options,
    );
    expect(matches).toEqual([
      {
        chargeId: 'due',
        entryId: 'late',
        entry,
        amount: 502_33,
        evidence: 'amount-and-time',
        basis: 'amount-due',
        day: '2026-03-12',
        amounts: { original: 500_00, abatement: 0, discount: 0, fine: 2_00, interest: 33, final: 502_33 },
        how: 'matched by the amount due on 2026-03-12, R$ 502,33: fine R$ 2,00 and interest R$ 0,33',
      },
    ]);
  });

  it('matches the original amount on the due date, and says so', () => {
    const { matches } = matchCharges(
      [dueCharge(lateTerms)],
      [income('on-time', 500, '2026-03-10T20:00:00Z')],
      options,
    );
    expect(matches[0]?.how).toBe('matched by the amount due on 2026-03-10, R$ 500,00: the original amount');
  });

  it('matches an early payment with its discount, and not the undiscounted amount', () => {
    const terms = {
      amountAbatement: { modality: 'FIXED_VALUE', amountPerc: 10 },
      amountDiscount: {
        modality: 'PERCENTAGE_DATE_REPORTED',
        discountDateFixed: [{ date: '2026-03-05', amountPerc: 5 }],
      },
    };
    // On the 4th: abatement R$ 10,00 and 5 % of R$ 500,00 = R$ 25,00 → R$ 465,00.
    expect(
      matchCharges([dueCharge(terms)], [income('full', 490, '2026-03-04T15:00:00Z')], options).matches,
    ).toEqual([]);
    const { matches } = matchCharges(
      [dueCharge(terms)],
      [income('early', 465, '2026-03-04T15:00:00Z')],
      options,
    );
    expect(matches[0]?.how).toBe(
      'matched by the amount due on 2026-03-04, R$ 465,00: abatement R$ 10,00 and discount R$ 25,00',
    );
  });

  it('takes the day of the entry in the time zone given (default Brasília)', () => {
    // 02:30 UTC on the 11th is 23:30 on the 10th in Brasília: the due date, no fine.
    const entries = [income('e', 500, '2026-03-11T02:30:00Z')];
    expect(matchCharges([dueCharge(lateTerms)], entries, options).matches[0]?.day).toBe('2026-03-10');
    // In UTC it is the 11th: one day late, so R$ 500,00 is not what was due.
    expect(matchCharges([dueCharge(lateTerms)], entries, { ...options, timeZone: 'UTC' }).matches).toEqual(
      [],
    );
  });

  it('accepts the amount due the day before for an entry confirmed just after midnight', () => {
    // 00:00:30 on the 11th in Brasília, R$ 500,00: paid on the 10th, confirmed after midnight.
    const justAfter = income('e', 500, '2026-03-11T03:00:30Z');
    const { matches } = matchCharges([dueCharge(lateTerms)], [justAfter], options);
    expect(matches[0]).toMatchObject({ day: '2026-03-10', amount: 500_00 });
    expect(matches[0]?.how).toBe(
      'matched by the amount due on 2026-03-10 (confirmed just after midnight, on 2026-03-11), R$ 500,00: the original amount',
    );
    // Ten minutes after midnight it no longer is.
    expect(
      matchCharges([dueCharge(lateTerms)], [income('e', 500, '2026-03-11T03:10:00Z')], options).matches,
    ).toEqual([]);
    // The day's own amount still matches then: one day late, fine R$ 2,00 and interest R$ 0,17.
    expect(
      matchCharges([dueCharge(lateTerms)], [income('e', 502.17, '2026-03-11T03:00:30Z')], options).matches[0]
        ?.day,
    ).toBe('2026-03-11');
  });

  it('takes only an entry that paid what was due on its own day; two such are ambiguous', () => {
    const entries = [
      income('day12-wrong', 502.5, '2026-03-12T15:00:00Z'), // on the 12th 502,33 was due
      income('day12', 502.33, '2026-03-12T18:00:00Z'),
    ];
    expect(matchCharges([dueCharge(lateTerms)], entries, options).matches.map((m) => m.entryId)).toEqual([
      'day12',
    ]);
    const day13 = income('day13', 502.5, '2026-03-13T15:00:00Z'); // 3 days late: 2,00 + 0,50
    const { matches, ambiguous } = matchCharges([dueCharge(lateTerms)], [day13, ...entries], options);
    expect(matches).toEqual([]);
    expect(ambiguous[0]!.candidates.map((c) => [c.entryId, c.day])).toEqual([
      ['day12', '2026-03-12'],
      ['day13', '2026-03-13'],
    ]);
  });

  it('counts business days with the calendar it is given (Carnaval is not one)', async () => {
    const isBusinessDay = await loadBusinessDayTest();
    // Due Fri 2025-02-28, paid Fri 2025-03-07: Carnaval Monday and Tuesday do not count → 3 business days late.
    const charge = dueCharge(
      { amountInterest: { modality: 'VALUE_WORKING_DAYS', amountPerc: 1 } },
      {
        createdAt: '2025-02-20T12:00:00Z',
        dueDate: '2025-02-28',
        expiresAt: undefined,
        amountCentavos: 100_00,
      },
    );
    const entries = [
      income('weekdays-only', 105, '2025-03-07T15:00:00Z'),
      income('real', 103, '2025-03-07T16:00:00Z'),
    ];
    expect(matchCharges([charge], entries, { isBusinessDay }).matches.map((m) => m.entryId)).toEqual([
      'real',
    ]);
    expect(matchCharges([charge], entries, options).matches.map((m) => m.entryId)).toEqual(['weekdays-only']);
  });

  it('says when a modality was counted as nothing', () => {
    const terms = { amountFine: { modality: 'NEW_FINE', amountPerc: 2 } };
    const { matches } = matchCharges([dueCharge(terms)], [income('e', 500, '2026-03-12T15:00:00Z')], options);
    expect(matches[0]?.how).toBe(
      'matched by the amount due on 2026-03-12, R$ 500,00: the original amount (pix does not know NEW_FINE: counted as nothing)',
    );
  });

  it('does not match on a day the business calendar does not know, and does not throw', () => {
    const charge = dueCharge(
      { amountInterest: { modality: 'VALUE_WORKING_DAYS', amountPerc: 1 } },
      { expiresAt: undefined },
    );
    const isBusinessDay = (date: string) => {
      if (date > '2099-12-31') throw new Error('out of range');
      return weekdays(date);
    };
    const far = income('far', 600, '2150-01-01T15:00:00Z');
    expect(matchCharges([charge], [far], { isBusinessDay }).matches).toEqual([]);
    const near = income('near', 500, '2026-03-09T15:00:00Z');
    expect(matchCharges([charge], [far, near], { isBusinessDay }).matches.map((m) => m.entryId)).toEqual([
      'near',
    ]);
  });
});

describe('matchWindow', () => {
  it('spans creation less the early tolerance to expiry plus the late one', () => {
    expect(matchWindow({ createdAt: T0, expiresAt: at(T0, 3_600_000) })).toEqual({
      from: Date.parse(T0) - 60_000,
      to: Date.parse(T0) + 3_600_000 + 300_000,
    });
    expect(matchWindow({ createdAt: T0 })?.to).toBe(Number.POSITIVE_INFINITY);
    expect(matchWindow({ createdAt: T0 }, { earlyToleranceMs: 0 })?.from).toBe(Date.parse(T0));
    expect(matchWindow({ createdAt: 'yesterday' })).toBeUndefined();
  });
});

describe('matchCharges at scale, against a naive matcher', () => {
  /** The rules spelled out the slow way: every charge scans every entry, then the ambiguity rule. */
  function naive(charges: LedgerCharge[], entries: MatchableEntry[], zone: string) {
    const sorted = [...entries].sort(
      (a, b) => Date.parse(a.confirmedAt) - Date.parse(b.confirmedAt) || (a.id < b.id ? -1 : 1),
    );
    const order = [...charges].sort(
      (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : 1),
    );
    const could = order.map((charge) => {
      const from = Date.parse(charge.createdAt) - EARLY_TOLERANCE_MS;
      const to = Date.parse(charge.expiresAt!) + LATE_TOLERANCE_MS;
      const ids = sorted
        .filter((e) => {
          const ms = Date.parse(e.confirmedAt);
          if (e.type !== 'INCOME' || ms < from || ms > to) return false;
          const cents = Math.round(e.amount * 100);
          if (charge.type === 'immediate') return cents === charge.amountCentavos;
          const terms = { ...charge.terms, amount: charge.amountCentavos, dueDate: charge.dueDate! };
          const day = todayIn(zone, new Date(ms));
          if (dueDateAmounts(terms, day, weekdays).final === cents) return true;
          const midnight = Date.parse(new Date(`${day}T03:00:00Z`).toISOString()); // Brasília, UTC−3
          const prev = new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
          return ms - midnight < LATE_TOLERANCE_MS && dueDateAmounts(terms, prev, weekdays).final === cents;
        })
        .map((e) => e.id);
      return { charge, ids };
    });
    const takers = (id: string) => could.filter((c) => c.ids.includes(id)).length;
    const matched: string[][] = [];
    const ambiguous: string[][] = [];
    for (const { charge, ids } of could) {
      if (ids.length === 1 && takers(ids[0]!) === 1) matched.push([charge.id, ids[0]!]);
      else if (ids.length > 0) ambiguous.push([charge.id, ...ids]);
    }
    return { matched, ambiguous };
  }

  it('gives the same pairs and the same ambiguities on 2,000 entries and 200 charges of a few amounts', () => {
    let seed = 5;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const start = Date.parse('2026-03-01T03:00:00Z');
    const amounts = [5_00, 10_00, 10_01, 25_00, 99_90, 12_34, 56_78, 77_77];
    const charges: LedgerCharge[] = Array.from({ length: 200 }, (_, i) => {
      const createdAt = new Date(start + Math.floor(random() * 20 * 86_400_000)).toISOString();
      const amountCentavos = amounts[Math.floor(random() * amounts.length)]!;
      if (i % 3 === 0) {
        const dueDate = todayIn('America/Sao_Paulo', new Date(Date.parse(createdAt) + 2 * 86_400_000));
        return {
          id: `c${i}`,
          type: 'duedate',
          amountCentavos,
          createdAt,
          expiresAt: at(createdAt, 3 * 86_400_000),
          dueDate,
          terms: { amountFine: { modality: 'FIXED_VALUE', amountPerc: 1 } },
          status: 'pending',
        };
      }
      return immediate(`c${i}`, amountCentavos, createdAt, {
        expiresAt: at(createdAt, Math.floor(random() * 6 * 3_600_000)),
      });
    });
    const entries = Array.from({ length: 2000 }, (_, i) => {
      const cents = amounts[Math.floor(random() * amounts.length)]! + (random() < 0.5 ? 1_00 : 0);
      const confirmedAt = new Date(start + Math.floor(random() * 25 * 86_400_000)).toISOString();
      return income(`e${i}`, cents / 100, confirmedAt, random() < 0.1 ? { type: 'OUTCOME' } : {});
    });
    const { matches, ambiguous } = matchCharges(charges, entries, options);
    const expected = naive(charges, entries, 'America/Sao_Paulo');
    const pairs = matches.map((m) => [m.chargeId, m.entryId]);
    expect(pairs.length).toBeGreaterThanOrEqual(10);
    expect(ambiguous.length).toBeGreaterThan(20);
    const sort = (rows: string[][]) => [...rows].sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
    expect(sort(pairs)).toEqual(sort(expected.matched));
    expect(sort(ambiguous.map((a) => [a.chargeId, ...a.candidates.map((c) => c.entryId)]))).toEqual(
      sort(expected.ambiguous),
    );
  });

  it("matches 1,000 pending charges against 100,000 entries by their payers' documents", () => {
    const start = Date.parse('2026-03-01T03:00:00Z');
    const doc = (n: number) => String(10_000_000_000 + n);
    const entries = Array.from({ length: 100_000 }, (_, i) =>
      income(`e${i}`, 5 + (i % 997) / 100, new Date(start + i * 20_000).toISOString(), {
        creditor: { documentNumber: doc(i) },
      }),
    );
    const charges = Array.from({ length: 1000 }, (_, i) =>
      immediate(`c${i}`, 5_00 + ((i * 50) % 997), new Date(start + i * 1_000_000).toISOString(), {
        expiresAt: new Date(start + i * 1_000_000 + 86_400_000).toISOString(),
        payerDocument: doc(i * 50),
      }),
    );
    const { matches, ambiguous } = matchCharges(charges, entries, options);
    expect(ambiguous).toEqual([]);
    expect(matches).toHaveLength(1000);
    for (const m of matches) {
      expect(m.evidence).toBe('payer-document');
      expect(m.entryId).toBe(`e${Number(m.chargeId.slice(1)) * 50}`);
    }
  });
});
