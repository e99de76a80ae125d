import { describe, expect, it } from 'vitest';
import {
  isoWeek,
  MAX_PERIODS,
  PeriodSummary,
  type PeriodUnit,
  parsePeriodUnit,
  periodOf,
  type Sums,
} from '../../src/domain/periods.js';
import { addDays, parseMonth, parseWhen, todayIn } from '../../src/domain/when.js';
import { reasonOf } from '../helpers/domain.js';

const SP = 'America/Sao_Paulo';
const NOW = new Date('2026-04-01T12:00:00Z');
const march = parseMonth('2026-03', SP);

function entry(confirmedAt: string, amount: number, fee?: number) {
  return {
    id: `e-${confirmedAt}-${amount}`,
    type: amount >= 0 ? 'INCOME' : 'OUTCOME',
    confirmedAt,
    amount,
    fee,
    status: 'CONFIRMED',
  };
}

describe('parsePeriodUnit', () => {
  it('takes day, week and month in any case', () => {
    expect(parsePeriodUnit('day')).toBe('day');
    expect(parsePeriodUnit(' WEEK ')).toBe('week');
    expect(parsePeriodUnit('Month')).toBe('month');
  });

  it('refuses anything else, naming the choices', () => {
    expect(reasonOf(() => parsePeriodUnit('year'))).toBe('"year" is not a period: use day, week or month');
    expect(reasonOf(() => parsePeriodUnit(''))).toMatch(/use day, week or month/);
  });
});

describe('isoWeek and periodOf', () => {
  it('numbers weeks by ISO 8601: Monday first, in the year of their Thursday', () => {
    expect(isoWeek('2026-03-12')).toEqual({ year: 2026, week: 11 });
    expect(isoWeek('2026-01-01')).toEqual({ year: 2026, week: 1 }); // a Thursday
    expect(isoWeek('2025-12-29')).toEqual({ year: 2026, week: 1 }); // its Monday, still 2025
    expect(isoWeek('2021-01-03')).toEqual({ year: 2020, week: 53 }); // a Sunday of 2020's last week
    expect(isoWeek('2024-12-30')).toEqual({ year: 2025, week: 1 });
    expect(isoWeek('2026-12-31')).toEqual({ year: 2026, week: 53 });
    expect(isoWeek('2027-01-01')).toEqual({ year: 2026, week: 53 });
    expect(isoWeek('2027-01-04')).toEqual({ year: 2027, week: 1 });
  });

  it('gives each period its label and first and last days', () => {
    expect(periodOf('2026-03-12', 'day')).toEqual({
      label: '2026-03-12',
      first: '2026-03-12',
      last: '2026-03-12',
    });
    expect(periodOf('2026-03-12', 'week')).toEqual({
      label: '2026-W11',
      first: '2026-03-09',
      last: '2026-03-15',
    });
    expect(periodOf('2026-03-15', 'week').label).toBe('2026-W11'); // Sunday ends the week
    expect(periodOf('2026-03-16', 'week').label).toBe('2026-W12');
    expect(periodOf('2026-03-12', 'month')).toEqual({
      label: '2026-03',
      first: '2026-03-01',
      last: '2026-03-31',
    });
    expect(periodOf('2024-02-10', 'month').last).toBe('2024-02-29');
    expect(periodOf('2025-12-25', 'month').last).toBe('2025-12-31');
  });

  it('tiles the calendar: each week is seven days, Monday to Sunday, labels in order', () => {
    let day = '2019-12-30';
    let previous = '';
    while (day < '2030-01-01') {
      const week = periodOf(day, 'week');
      expect(week.first).toBe(day);
      expect(new Date(`${day}T00:00:00Z`).getUTCDay()).toBe(1);
      expect(week.label > previous).toBe(true);
      previous = week.label;
      day = addDays(week.last, 1);
    }
  });
});

describe('PeriodSummary', () => {
  it('has every period of the range, zeros included, and labels them', () => {
    const byDay = new PeriodSummary('day', march, SP);
    const days = byDay.periods();
    expect(days).toHaveLength(31);
    expect(days[0]).toEqual({
      period: '2026-03-01',
      first: '2026-03-01',
      last: '2026-03-01',
      partial: false,
      count: 0,
      income: 0,
      outcome: 0,
      fees: 0,
      net: 0,
    });
    expect(days.at(-1)?.period).toBe('2026-03-31');
    const byWeek = new PeriodSummary('week', march, SP).periods();
    expect(byWeek.map((p) => p.period)).toEqual([
      '2026-W09',
      '2026-W10',
      '2026-W11',
      '2026-W12',
      '2026-W13',
      '2026-W14',
    ]);
    // March 2026 starts on a Sunday and ends on a Tuesday: the first and last weeks stick out.
    expect(byWeek.map((p) => p.partial)).toEqual([true, false, false, false, false, true]);
    const byMonth = new PeriodSummary('month', march, SP).periods();
    expect(byMonth.map((p) => [p.period, p.partial])).toEqual([['2026-03', false]]);
  });

  it('puts an entry in the period of its time in the profile zone', () => {
    const summary = new PeriodSummary('day', march, SP);
    // 02:59 UTC on the 13th is 23:59 on the 12th in São Paulo.
    expect(summary.add(entry('2026-03-13T02:59:59Z', 10))).toBe('added');
    expect(summary.add(entry('2026-03-13T03:00:00Z', 20))).toBe('added');
    const rows = Object.fromEntries(summary.periods().map((p) => [p.period, p.income]));
    expect(rows['2026-03-12']).toBe(10_00);
    expect(rows['2026-03-13']).toBe(20_00);
    // The same instants in UTC both fall on the 13th.
    const utc = new PeriodSummary('day', parseMonth('2026-03', 'UTC'), 'UTC');
    utc.add(entry('2026-03-13T02:59:59Z', 10));
    utc.add(entry('2026-03-13T03:00:00Z', 20));
    expect(utc.periods().find((p) => p.period === '2026-03-13')?.income).toBe(30_00);
  });

  it('sums income, outcome (negative) and fees in centavos; net = income + outcome − fees', () => {
    const summary = new PeriodSummary('week', march, SP);
    summary.add(entry('2026-03-10T15:00:00Z', 100.1, 0));
    summary.add(entry('2026-03-11T15:00:00Z', 0.2, 0.01));
    summary.add(entry('2026-03-12T15:00:00Z', -30.25, 1.5));
    summary.add(entry('2026-03-12T16:00:00Z', -0.05)); // no fee field
    summary.add(entry('2026-03-20T16:00:00Z', 7));
    const w11 = summary.periods().find((p) => p.period === '2026-W11')!;
    expect(w11).toMatchObject({ count: 4, income: 100_30, outcome: -30_30, fees: 1_51, net: 68_49 });
    expect(summary.total()).toEqual({ count: 5, income: 107_30, outcome: -30_30, fees: 1_51, net: 75_49 });
  });

  it('classifies by the sign of the amount, as the statement totals do', () => {
    const summary = new PeriodSummary('month', march, SP);
    summary.add({
      confirmedAt: '2026-03-10T15:00:00Z',
      amount: -5,
      type: 'INCOME',
      status: 'CONFIRMED',
    } as never);
    summary.add({
      confirmedAt: '2026-03-10T15:00:00Z',
      amount: 0,
      type: 'REFUND',
      status: 'CONFIRMED',
    } as never);
    expect(summary.total()).toEqual({ count: 2, income: 0, outcome: -5_00, fees: 0, net: -5_00 });
  });

  it('sums by the books: a PENDING entry is left out and counted, a negative fee is a charge', () => {
    const summary = new PeriodSummary('day', march, SP);
    expect(summary.add(entry('2026-03-10T15:00:00Z', 100, -2.5))).toBe('added');
    expect(summary.add({ ...entry('2026-03-10T16:00:00Z', 500), status: 'PENDING' })).toBe('uncounted');
    expect(summary.uncounted).toBe(1);
    expect(summary.total()).toEqual({ count: 1, income: 100_00, outcome: 0, fees: 2_50, net: 97_50 });
    expect(summary.periods().find((p) => p.period === '2026-03-10')).toMatchObject({ count: 1, net: 97_50 });
  });

  it('leaves out and counts entries outside the range or that cannot be read', () => {
    const summary = new PeriodSummary('day', march, SP);
    expect(summary.add(entry('2026-03-01T02:59:59.999Z', 1))).toBe('outside'); // Feb 28th in São Paulo
    expect(summary.add(entry('2026-03-01T03:00:00.000Z', 1))).toBe('added');
    expect(summary.add(entry('2026-04-01T02:59:59.999Z', 1))).toBe('added'); // March 31st, 23:59:59.999
    expect(summary.add(entry('2026-04-01T03:00:00.000Z', 1))).toBe('outside');
    expect(summary.add(entry('2026-03-10T15:00:00', 1))).toBe('unreadable'); // no zone
    expect(summary.add(entry('yesterday', 1))).toBe('unreadable');
    expect(summary.add({ confirmedAt: '2026-03-10T15:00:00Z', amount: '5' } as never)).toBe('unreadable');
    expect(summary.add(entry('2026-03-10T15:00:00Z', 1, Number.NaN))).toBe('unreadable');
    expect(summary.add(entry('2026-03-10T15:00:00Z', 1e300))).toBe('unreadable');
    expect(summary).toMatchObject({ outside: 2, unreadable: 5 });
    expect(summary.total()).toMatchObject({ count: 2, income: 2_00 });
    expect(summary.periods().reduce((n, p) => n + p.count, 0)).toBe(2);
  });

  it('marks a period partial when the range starts or ends inside it, even inside a day', () => {
    const range = {
      from: parseWhen('2026-03-12T14:00', 'from', SP, NOW),
      to: parseWhen('2026-03-13', 'to', SP, NOW),
    };
    const rows = new PeriodSummary('day', range, SP).periods();
    expect(rows.map((p) => [p.period, p.partial])).toEqual([
      ['2026-03-12', true],
      ['2026-03-13', false],
    ]);
  });

  it('refuses a reversed range and one with too many periods', () => {
    expect(reasonOf(() => new PeriodSummary('day', { from: march.to, to: march.from }, SP))).toMatch(
      /ends .* before it starts/,
    );
    const huge = {
      from: parseWhen('1800-01-01', 'from', 'UTC', NOW),
      to: parseWhen('2099-12-31', 'to', 'UTC', NOW),
    };
    expect(reasonOf(() => new PeriodSummary('day', huge, 'UTC'))).toBe(
      `1800-01-01 to 2099-12-31 is 109573 periods of a day; at most ${MAX_PERIODS} (use a longer period or a shorter range)`,
    );
    expect(new PeriodSummary('week', huge, 'UTC').periods()).toHaveLength(15654);
    expect(new PeriodSummary('month', huge, 'UTC').periods()).toHaveLength(3600);
  });

  it('refuses sums that would no longer be exact', () => {
    const summary = new PeriodSummary('month', march, SP);
    const big = entry('2026-03-10T15:00:00Z', 9_999_999_999_999.99);
    for (let i = 0; i < 9; i++) summary.add(big);
    expect(reasonOf(() => summary.add(big))).toMatch(/more than pix can sum exactly/);
  });

  it.each<[PeriodUnit, string]>([
    ['day', SP],
    ['week', SP],
    ['month', 'Europe/Lisbon'],
  ])('by %s in %s: the same as a naive count, in any order, totals the sum of the rows', (unit, zone) => {
    const range = {
      from: parseWhen('2025-10-15', 'from', zone, NOW),
      to: parseWhen('2026-03-20', 'to', zone, NOW),
    };
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const start = Date.parse(range.from) - 3 * 86_400_000;
    const span = Date.parse(range.to) - start + 6 * 86_400_000;
    const entries = Array.from({ length: 3000 }, () => {
      const at = new Date(start + Math.floor(random() * span)).toISOString();
      const cents = Math.floor(random() * 2_000_000) - 1_000_000;
      return entry(at, cents / 100, Math.floor(random() * 300) / 100);
    });
    // The oracle: todayIn for every entry, no caching, a plain map by label.
    const expected = new Map<string, Sums>();
    let inRange = 0;
    for (const e of entries) {
      if (e.confirmedAt < range.from || e.confirmedAt > range.to) continue;
      inRange++;
      const label = periodOf(todayIn(zone, new Date(e.confirmedAt)), unit).label;
      const row = expected.get(label) ?? { count: 0, income: 0, outcome: 0, fees: 0, net: 0 };
      const cents = Math.round(e.amount * 100);
      const fee = Math.round((e.fee ?? 0) * 100);
      row.count++;
      if (cents >= 0) row.income += cents;
      else row.outcome += cents;
      row.fees += fee;
      row.net += cents - fee;
      expected.set(label, row);
    }
    const newestFirst = [...entries].sort((a, b) => (a.confirmedAt < b.confirmedAt ? 1 : -1));
    for (const order of [entries, newestFirst]) {
      const summary = new PeriodSummary(unit, range, zone);
      for (const e of order) summary.add(e);
      const rows = summary.periods();
      for (const row of rows) {
        const want = expected.get(row.period) ?? { count: 0, income: 0, outcome: 0, fees: 0, net: 0 };
        expect(
          { ...row, period: undefined, first: undefined, last: undefined, partial: undefined },
          row.period,
        ).toEqual({
          ...want,
          period: undefined,
          first: undefined,
          last: undefined,
          partial: undefined,
        });
      }
      expect(new Set(rows.map((r) => r.period)).size).toBe(rows.length);
      expect([...expected.keys()].every((label) => rows.some((r) => r.period === label))).toBe(true);
      const sum = (key: keyof Sums) => rows.reduce((n, r) => n + r[key], 0);
      expect(summary.total()).toEqual({
        count: sum('count'),
        income: sum('income'),
        outcome: sum('outcome'),
        fees: sum('fees'),
        net: sum('net'),
      });
      expect(summary.total().count).toBe(inRange);
      expect(summary.outside).toBe(entries.length - inRange);
    }
  });
});
