import { describe, expect, it } from 'vitest';
import {
  BRASILIA_TIME_ZONE,
  businessDaysAfter,
  type DueDateTerms,
  daysBetween,
  dueDateAmounts,
  dueDateAmountsAt,
  hasValidDueDate,
  loadBusinessDayTest,
  unknownModalities,
} from '../../src/domain/duedate.js';

/** Weekdays only, no holidays: keeps the arithmetic visible. */
const weekdays = (date: string) => {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day !== 0 && day !== 6;
};

const base: DueDateTerms = { amount: 100_00, dueDate: '2025-03-14' }; // a Friday

describe('dueDateAmounts', () => {
  it('is the original amount on the due date without modifiers', () => {
    expect(dueDateAmounts(base, '2025-03-14', weekdays)).toEqual({
      original: 100_00,
      abatement: 0,
      discount: 0,
      fine: 0,
      interest: 0,
      final: 100_00,
    });
  });

  it('applies a percentage discount by the first date still ahead, none after the dates', () => {
    const terms: DueDateTerms = {
      ...base,
      amountDiscount: {
        modality: 'PERCENTAGE_DATE_REPORTED',
        discountDateFixed: [
          { date: '2025-03-10', amountPerc: 5 },
          { date: '2025-03-05', amountPerc: 10 },
        ],
      },
    };
    expect(dueDateAmounts(terms, '2025-03-01', weekdays)).toMatchObject({ discount: 10_00, final: 90_00 });
    expect(dueDateAmounts(terms, '2025-03-05', weekdays)).toMatchObject({ discount: 10_00, final: 90_00 });
    expect(dueDateAmounts(terms, '2025-03-06', weekdays)).toMatchObject({ discount: 5_00, final: 95_00 });
    expect(dueDateAmounts(terms, '2025-03-11', weekdays)).toMatchObject({ discount: 0, final: 100_00 });
  });

  it('applies a fixed discount until the date informed', () => {
    const terms: DueDateTerms = {
      ...base,
      amountDiscount: {
        modality: 'FIXED_VALUE_UNTIL_THE_DATES_INFORMED',
        discountDateFixed: [{ date: '2025-03-12', amountPerc: 7.5 }],
      },
    };
    expect(dueDateAmounts(terms, '2025-03-12', weekdays).final).toBe(92_50);
    expect(dueDateAmounts(terms, '2025-03-13', weekdays).final).toBe(100_00);
  });

  it('counts calendar and business days of advance', () => {
    const perCalendarDay = {
      ...base,
      amountDiscount: { modality: 'AMOUNT_PER_CALENDAR_DAY_ADVANCE', amountPerc: 1 },
    };
    // 2025-03-07 (Fri) → 2025-03-14: 7 calendar days of advance.
    expect(dueDateAmounts(perCalendarDay, '2025-03-07', weekdays).discount).toBe(7_00);
    const perBusinessDay = {
      ...base,
      amountDiscount: { modality: 'AMOUNT_ADVANCE_BUSINESS_DAY', amountPerc: 1 },
    };
    // Paying on Fri 7th: business days Fri 7, Mon 10 .. Thu 13 before the due date = 5.
    expect(dueDateAmounts(perBusinessDay, '2025-03-07', weekdays).discount).toBe(5_00);
    const percentPerDay = {
      ...base,
      amountDiscount: { modality: 'PERCENTAGE_ADVANCE_CURRENT_DAY', amountPerc: 0.5 },
    };
    expect(dueDateAmounts(percentPerDay, '2025-03-07', weekdays).discount).toBe(3_50);
    const percentBusiness = {
      ...base,
      amountDiscount: { modality: 'PERCENTAGE_ADVANCE_BUSINESS_DAY', amountPerc: 0.5 },
    };
    expect(dueDateAmounts(percentBusiness, '2025-03-07', weekdays).discount).toBe(2_50);
  });

  it('applies abatement always, and caps the discount so something is still paid', () => {
    const terms: DueDateTerms = {
      ...base,
      amountAbatement: { modality: 'FIXED_VALUE', amountPerc: 20 },
      amountDiscount: { modality: 'AMOUNT_PER_CALENDAR_DAY_ADVANCE', amountPerc: 50 },
    };
    const early = dueDateAmounts(terms, '2025-03-01', weekdays);
    expect(early.abatement).toBe(20_00);
    expect(early.discount).toBe(79_99);
    expect(early.final).toBe(1);
    const late = dueDateAmounts(
      { ...base, amountAbatement: { modality: 'PERCENT', amountPerc: 10 } },
      '2025-03-20',
      weekdays,
    );
    expect(late).toMatchObject({ abatement: 10_00, discount: 0, final: 90_00 });
  });

  it('applies the fine once and interest per day late, no discount after the due date', () => {
    const terms: DueDateTerms = {
      ...base,
      amountDiscount: { modality: 'AMOUNT_PER_CALENDAR_DAY_ADVANCE', amountPerc: 1 },
      amountFine: { modality: 'PERCENT', amountPerc: 2 },
      amountInterest: { modality: 'PERCENTAGE_PER_MONTH_CALENDAR_DAYS', amountPerc: 3 },
    };
    // 10 calendar days late: 3 % a month / 30 = 0.1 % a day → 1.00; fine 2 % → 2.00.
    expect(dueDateAmounts(terms, '2025-03-24', weekdays)).toEqual({
      original: 100_00,
      abatement: 0,
      discount: 0,
      fine: 2_00,
      interest: 1_00,
      final: 103_00,
    });
    const fixedFine = { ...base, amountFine: { modality: 'FIXED_VALUE', amountPerc: 4.99 } };
    expect(dueDateAmounts(fixedFine, '2025-03-15', weekdays).fine).toBe(4_99);
  });

  it.each([
    ['VALUE_CALENDAR_DAYS', 0.5, 5_00],
    ['PERCENTAGE_PER_DAY_CALENDAR_DAYS', 0.1, 1_00],
    ['PERCENTAGE_PER_YEAR_CALENDAR_DAYS', 36.5, 1_00],
    ['VALUE_WORKING_DAYS', 0.5, 3_00],
    ['PERCENTAGE_PER_DAYWORKING_DAYS', 0.1, 60],
    ['PERCENTAGE_PER_MONTH_WORKING_DAYS', 3, 60],
    ['PERCENTAGE_PER_YEAR_WORKING_DAYS', 36.5, 60],
  ])('interest %s at %s for 10 days late (6 business days)', (modality, amountPerc, expected) => {
    // 2025-03-14 (Fri) → 2025-03-24 (Mon): 10 calendar days; business days Mar 17–21 and 24 = 6.
    const terms = { ...base, amountInterest: { modality, amountPerc } };
    expect(dueDateAmounts(terms, '2025-03-24', weekdays).interest).toBe(expected);
  });

  it('skips Brazilian national holidays and Carnaval in working-day interest', async () => {
    const isBusinessDay = await loadBusinessDayTest();
    expect(await loadBusinessDayTest()).toBe(isBusinessDay); // loaded once, memoised
    expect(isBusinessDay('2025-03-03')).toBe(false); // Carnaval Monday
    expect(isBusinessDay('2025-03-04')).toBe(false); // Carnaval Tuesday
    expect(isBusinessDay('2025-04-21')).toBe(false); // Tiradentes
    expect(isBusinessDay('2025-04-22')).toBe(true);
    // Due Fri 2025-02-28, paid Fri 2025-03-07: Mar 3 and 4 are Carnaval, so 3 business days late (5, 6, 7).
    expect(businessDaysAfter('2025-02-28', '2025-03-07', isBusinessDay)).toBe(3);
    const terms: DueDateTerms = {
      amount: 100_00,
      dueDate: '2025-02-28',
      amountInterest: { modality: 'VALUE_WORKING_DAYS', amountPerc: 1 },
    };
    expect(dueDateAmounts(terms, '2025-03-07', isBusinessDay).interest).toBe(3_00);
  });
});

describe('dueDateAmounts: rounding, caps and floors', () => {
  it('rounds each percentage part half up, exactly (no float noise)', () => {
    // 2.3 % of R$ 15,00 is 34.5 centavos: half up is 35, where the float product 34.49999… rounds to 34.
    const fine = {
      amount: 15_00,
      dueDate: '2025-03-14',
      amountFine: { modality: 'PERCENT', amountPerc: 2.3 },
    };
    expect(dueDateAmounts(fine, '2025-03-15', weekdays).fine).toBe(35);
    const onePercent = { ...fine, amount: 1_50, amountFine: { modality: 'PERCENT', amountPerc: 1 } };
    expect(dueDateAmounts(onePercent, '2025-03-15', weekdays).fine).toBe(2); // 1.5 → 2
    expect(dueDateAmounts({ ...onePercent, amount: 1_49 }, '2025-03-15', weekdays).fine).toBe(1); // 1.49 → 1
    // 1 % a month on R$ 100,00 for 1 day: 100 / 30 = 3.333… → 3; for 2 days 6.666… → 7.
    const monthly = {
      ...base,
      amountInterest: { modality: 'PERCENTAGE_PER_MONTH_CALENDAR_DAYS', amountPerc: 1 },
    };
    expect(dueDateAmounts(monthly, '2025-03-15', weekdays).interest).toBe(3);
    expect(dueDateAmounts(monthly, '2025-03-16', weekdays).interest).toBe(7);
    // A percentage with 4 decimals (what the CLI accepts) counts to the last one.
    const fine4 = { ...base, amountFine: { modality: 'PERCENT', amountPerc: 1.2345 } };
    expect(dueDateAmounts(fine4, '2025-03-15', weekdays).fine).toBe(123); // 123.45 → 123
  });

  it('never asks less than R$ 0,01, whatever the abatement and discount', () => {
    const terms: DueDateTerms = {
      amount: 5_00,
      dueDate: '2025-03-14',
      amountAbatement: { modality: 'FIXED_VALUE', amountPerc: 999 },
      amountDiscount: { modality: 'PERCENTAGE_ADVANCE_CURRENT_DAY', amountPerc: 100 },
    };
    expect(dueDateAmounts(terms, '2025-03-01', weekdays)).toEqual({
      original: 5_00,
      abatement: 4_99,
      discount: 0,
      fine: 0,
      interest: 0,
      final: 1,
    });
    const percentAbatement = { ...base, amountAbatement: { modality: 'PERCENT', amountPerc: 100 } };
    expect(dueDateAmounts(percentAbatement, '2025-03-14', weekdays).final).toBe(1);
  });

  it('gives no discount on the due date for per-day advance, and none after a dated discount', () => {
    const perDay = {
      ...base,
      amountDiscount: { modality: 'AMOUNT_PER_CALENDAR_DAY_ADVANCE', amountPerc: 1 },
    };
    expect(dueDateAmounts(perDay, '2025-03-14', weekdays).discount).toBe(0);
    expect(dueDateAmounts(perDay, '2025-03-13', weekdays).discount).toBe(1_00);
    // The due date itself still counts for a dated discount on that date.
    const dated = {
      ...base,
      amountDiscount: {
        modality: 'PERCENTAGE_DATE_REPORTED',
        discountDateFixed: [{ date: '2025-03-14', amountPerc: 2 }],
      },
    };
    expect(dueDateAmounts(dated, '2025-03-14', weekdays).discount).toBe(2_00);
    expect(dueDateAmounts(dated, '2025-03-15', weekdays)).toMatchObject({ discount: 0, final: 100_00 });
  });

  it('adds nothing for a modality it does not know, and names it', () => {
    const terms: DueDateTerms = {
      ...base,
      amountDiscount: { modality: 'SOME_NEW_DISCOUNT', amountPerc: 5 },
      amountAbatement: { modality: 'FIXED_VALUE', amountPerc: 1 },
      amountFine: { modality: 'NEW_FINE', amountPerc: 2 },
      amountInterest: { modality: 'PERCENTAGE_PER_WEEK', amountPerc: 1 },
    };
    expect(dueDateAmounts(terms, '2025-03-01', weekdays)).toMatchObject({ discount: 0, final: 99_00 });
    expect(dueDateAmounts(terms, '2025-03-20', weekdays)).toMatchObject({
      fine: 0,
      interest: 0,
      final: 99_00,
    });
    expect(unknownModalities(terms)).toEqual(['SOME_NEW_DISCOUNT', 'NEW_FINE', 'PERCENTAGE_PER_WEEK']);
    expect(unknownModalities({ amountFine: { modality: 'PERCENT', amountPerc: 2 } })).toEqual([]);
  });

  it('counts calendar days across months and years', () => {
    expect(daysBetween('2024-02-28', '2024-03-01')).toBe(2); // leap year
    expect(daysBetween('2025-12-31', '2026-01-01')).toBe(1);
    expect(daysBetween('2025-03-14', '2025-03-01')).toBe(-13);
  });

  it('checks a due date read back from a file', () => {
    expect(hasValidDueDate({ dueDate: '2025-03-14' })).toBe(true);
    expect(hasValidDueDate({ dueDate: '2025-02-30' })).toBe(false);
    expect(hasValidDueDate({ dueDate: ' 2025-03-14' })).toBe(false);
    expect(hasValidDueDate({ dueDate: '' })).toBe(false);
  });
});

describe('dueDateAmountsAt: the day of an instant in a time zone', () => {
  const late = { ...base, amountFine: { modality: 'FIXED_VALUE', amountPerc: 2 } };

  it('turns the day at midnight in Brasília by default (03:00 UTC)', () => {
    expect(BRASILIA_TIME_ZONE).toBe('America/Sao_Paulo');
    // 2025-03-15T02:59:59Z is still the 14th in Brasília: the due date, no fine.
    expect(dueDateAmountsAt(late, new Date('2025-03-15T02:59:59Z'), weekdays).fine).toBe(0);
    expect(dueDateAmountsAt(late, new Date('2025-03-15T03:00:00Z'), weekdays).fine).toBe(2_00);
  });

  it('uses the time zone it is given', () => {
    const at = new Date('2025-03-15T01:00:00Z');
    expect(dueDateAmountsAt(late, at, weekdays, 'UTC').fine).toBe(2_00); // the 15th in UTC
    expect(dueDateAmountsAt(late, at, weekdays, 'America/Manaus').fine).toBe(0); // the 14th, 21:00
  });
});
