import { describe, expect, it } from 'vitest';
import { BATCH_ID_PATTERN } from '../../src/domain/batch.js';
import { InvalidValue } from '../../src/domain/invalid.js';
import {
  checkRecurrence,
  MAX_LINE_ID,
  nthBusinessDay,
  type Occurrence,
  occurrenceOn,
  occurrenceRow,
  occurrenceState,
  occurrences,
  parseEvery,
  parseOccurrenceRow,
  parseTimeOfDay,
  type Recurrence,
  shiftToBusinessDay,
  windowOf,
} from '../../src/domain/schedule.js';

const pays = (list: readonly Occurrence[]) => list.map((o) => o.payOn);

describe('parseEvery', () => {
  it('reads the rules people schedule by', () => {
    expect(parseEvery('10')).toEqual({ kind: 'day-of-month', day: 10 });
    expect(parseEvery('5bd')).toEqual({ kind: 'business-day', n: 5 });
    expect(parseEvery('5du')).toEqual({ kind: 'business-day', n: 5 });
    expect(parseEvery('bday')).toEqual({ kind: 'every-business-day' });
    expect(parseEvery('Fri')).toEqual({ kind: 'weekday', weekday: 5 });
    expect(parseEvery('sexta')).toEqual({ kind: 'weekday', weekday: 5 });
    expect(parseEvery('week')).toEqual({ kind: 'weekly' });
    expect(parseEvery('month')).toEqual({ kind: 'monthly' });
  });

  it('refuses what is not a rule, naming it', () => {
    for (const text of ['0', '32', '0bd', '19bd', 'fortnight', '', '1.5']) {
      expect(() => parseEvery(text), text).toThrow(InvalidValue);
    }
    expect(() => parseEvery('fortnight')).toThrow('"fortnight" is not a rule pix knows');
  });

  it('reads a time of day', () => {
    expect(parseTimeOfDay('9:30')).toBe('09:30');
    expect(() => parseTimeOfDay('24:00')).toThrow(InvalidValue);
  });
});

/**
 * The dates below are written from the calendar of 2026, not from the code: 1 January is a Thursday;
 * Carnaval is Monday 16 and Tuesday 17 February; Good Friday is 3 April, Tiradentes Tuesday 21 April,
 * Labour Day Friday 1 May, Corpus Christi Thursday 4 June, Finados Monday 2 November.
 */
describe('recurring dates on the Brazilian calendar (2026)', () => {
  it('the 5th business day of each month, moved by New Year, Good Friday, Labour Day, Corpus Christi and Finados', () => {
    const recurrence: Recurrence = { rule: parseEvery('5bd'), start: '2026-01-01', count: 12, shift: 'next' };
    expect(pays(occurrences(recurrence, 100))).toEqual([
      '2026-01-08', // Jan 1 holiday: Fri 2, Mon 5, Tue 6, Wed 7, Thu 8
      '2026-02-06', // Mon 2 … Fri 6 (Carnaval comes later)
      '2026-03-06', // Mon 2 … Fri 6
      '2026-04-08', // Wed 1, Thu 2, (Good Friday 3), Mon 6, Tue 7, Wed 8: moved from Tue 7
      '2026-05-08', // (Fri 1 Labour Day) Mon 4 … Fri 8
      '2026-06-08', // Mon 1, Tue 2, Wed 3, (Corpus Christi 4), Fri 5, Mon 8: moved from Fri 5
      '2026-07-07', // Wed 1 … Tue 7
      '2026-08-07', // (Sat 1, Sun 2) Mon 3 … Fri 7
      '2026-09-08', // Tue 1 … Fri 4, (Independence Day Mon 7), Tue 8: moved from Mon 7
      '2026-10-07', // Thu 1, Fri 2, Mon 5, Tue 6, Wed 7
      '2026-11-09', // (Sun 1, Finados Mon 2) Tue 3 … Fri 6, Mon 9
      '2026-12-07', // Tue 1 … Fri 4, Mon 7
    ]);
  });

  it('a day of the month on Carnaval moves past both days (next) or to the Friday before (previous)', () => {
    const next: Recurrence = { rule: parseEvery('16'), start: '2026-01-01', count: 3, shift: 'next' };
    expect(pays(occurrences(next, 10))).toEqual(['2026-01-16', '2026-02-18', '2026-03-16']);
    const previous = { ...next, shift: 'previous' as const };
    expect(pays(occurrences(previous, 10))).toEqual(['2026-01-16', '2026-02-13', '2026-03-16']);
    const keep = { ...next, shift: 'keep' as const };
    expect(pays(occurrences(keep, 10))).toEqual(['2026-01-16', '2026-02-16', '2026-03-16']);
    // The occurrence keeps its rule's date as its identity, wherever it is paid.
    expect(occurrences(next, 10)[1]).toEqual({ date: '2026-02-16', payOn: '2026-02-18', index: 2 });
  });

  it('every Friday across Good Friday, and a 31st in short months', () => {
    const fridays: Recurrence = {
      rule: parseEvery('fri'),
      start: '2026-03-25',
      until: '2026-04-17',
      shift: 'next',
    };
    expect(pays(occurrences(fridays, 10))).toEqual(['2026-03-27', '2026-04-06', '2026-04-10', '2026-04-17']);
    const before = { ...fridays, shift: 'previous' as const };
    expect(pays(occurrences(before, 10))).toEqual(['2026-03-27', '2026-04-02', '2026-04-10', '2026-04-17']);
    const lastDay: Recurrence = { rule: parseEvery('31'), start: '2026-01-01', count: 4, shift: 'next' };
    // Jan 31 is a Saturday → Mon Feb 2; Feb 28 a Saturday → Mon Mar 2; Mar 31 a Tuesday; Apr 30 a Thursday.
    expect(pays(occurrences(lastDay, 10))).toEqual(['2026-02-02', '2026-03-02', '2026-03-31', '2026-04-30']);
  });

  it('every business day skips Carnaval and weekends', () => {
    const days: Recurrence = { rule: parseEvery('bday'), start: '2026-02-12', count: 4, shift: 'next' };
    expect(pays(occurrences(days, 10))).toEqual(['2026-02-12', '2026-02-13', '2026-02-18', '2026-02-19']);
  });

  it('the Nth business day of a month that has fewer is none', () => {
    expect(nthBusinessDay(2026, 2, 18)).toBe('2026-02-27'); // February 2026: 20 weekdays less Carnaval
    expect(nthBusinessDay(2026, 2, 19)).toBeUndefined();
  });

  it('from a date on, with indices counted from the first', () => {
    const recurrence: Recurrence = {
      rule: parseEvery('month'),
      start: '2026-01-10',
      count: 5,
      shift: 'next',
    };
    expect(occurrences(recurrence, 2, '2026-03-01')).toEqual([
      { date: '2026-03-10', payOn: '2026-03-10', index: 3 },
      { date: '2026-04-10', payOn: '2026-04-10', index: 4 },
    ]);
    expect(occurrenceOn(recurrence, '2026-05-10')?.index).toBe(5);
    expect(occurrenceOn(recurrence, '2026-06-10')).toBeUndefined();
    expect(occurrenceOn(recurrence, '2026-05-11')).toBeUndefined();
  });

  it('refuses a recurrence that gives no date', () => {
    expect(() =>
      checkRecurrence({ rule: parseEvery('10'), start: '2026-01-11', until: '2026-01-31', shift: 'next' }),
    ).toThrow('the rule gives no date');
    expect(() =>
      checkRecurrence({ rule: parseEvery('10'), start: '2026-01-11', until: '2026-01-01', shift: 'next' }),
    ).toThrow('before the start');
  });

  it('shifts over a long weekend', () => {
    expect(shiftToBusinessDay('2026-02-14', 'next')).toBe('2026-02-18');
    expect(shiftToBusinessDay('2026-02-17', 'previous')).toBe('2026-02-13');
  });
});

describe('windows and states', () => {
  const window = windowOf('2026-03-06', '08:00', 'America/Sao_Paulo');

  it('a window in Brasília time', () => {
    expect(new Date(window.start).toISOString()).toBe('2026-03-06T11:00:00.000Z');
    expect(new Date(window.end).toISOString()).toBe('2026-03-06T23:00:00.000Z');
  });

  it('the state from the journal, the window and the schedule', () => {
    const before = window.start - 1;
    const during = window.start + 1;
    const after = window.end;
    expect(occurrenceState([], window, before, 'active')).toBe('scheduled');
    expect(occurrenceState([], window, during, 'active')).toBe('due');
    expect(occurrenceState([], window, after, 'active')).toBe('missed');
    expect(occurrenceState([], window, during, 'paused')).toBe('paused');
    expect(occurrenceState([{ state: 'done' }], window, after, 'cancelled')).toBe('paid');
    expect(occurrenceState([{ state: 'unknown' }], window, after, 'active')).toBe('unknown');
    expect(occurrenceState([{ state: 'unknown', resolution: 'paid' }], window, after, 'active')).toBe('paid');
    // A transfer refused for want of service (nothing applied) is tried again within the window.
    expect(occurrenceState([{ state: 'failed', reason: 'unavailable' }], window, during, 'active')).toBe(
      'due',
    );
    expect(occurrenceState([{ state: 'failed', reason: 'missed' }], window, during, 'active')).toBe('missed');
    expect(
      occurrenceState([{ state: 'failed', reason: 'refused: receiver_changed' }], window, during, 'active'),
    ).toBe('failed');
    // A missed occurrence paid later by an explicit command is paid.
    expect(
      occurrenceState([{ state: 'failed', reason: 'missed' }, { state: 'done' }], window, after, 'active'),
    ).toBe('paid');
  });

  it('an occurrence row names its schedule and date', () => {
    const row = occurrenceRow('s-0123456789ab', '2026-03-06');
    expect(row).toBe('s-0123456789ab.2026-03-06');
    expect(parseOccurrenceRow(row)).toEqual({ schedule: 's-0123456789ab', date: '2026-03-06' });
    expect(parseOccurrenceRow('r001')).toBeUndefined();
  });

  it("a batch file's row: its id after the date, the whole row id within a batch id's 64 characters", () => {
    const line = 'a.b-c_'.padEnd(MAX_LINE_ID, 'x');
    const row = occurrenceRow('s-0123456789ab', '2026-03-06', line);
    expect(row).toHaveLength(64);
    expect(row).toMatch(BATCH_ID_PATTERN);
    expect(parseOccurrenceRow(row)).toEqual({ schedule: 's-0123456789ab', date: '2026-03-06', line });
    expect(parseOccurrenceRow('s-0123456789ab.2026-03-06.')).toBeUndefined();
    expect(parseOccurrenceRow('s-0123456789ab.2026-03-06.a/b')).toBeUndefined();
  });
});
