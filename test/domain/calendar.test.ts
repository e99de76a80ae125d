import { describe, expect, it } from 'vitest';
import {
  addBusinessDays,
  businessDaysBetween,
  isBusinessDay,
  nationalHolidays,
  nextBusinessDayOnOrAfter,
} from '../../src/domain/calendar.js';
import { InvalidValue } from '../../src/domain/invalid.js';

describe('isBusinessDay', () => {
  it('is false on weekends', () => {
    expect(isBusinessDay('2025-01-04')).toBe(false); // Saturday
    expect(isBusinessDay('2025-01-05')).toBe(false); // Sunday
    expect(isBusinessDay('2025-01-06')).toBe(true); // Monday
  });

  it('is false on fixed national holidays', () => {
    for (const date of [
      '2025-01-01',
      '2025-04-21',
      '2025-05-01',
      '2025-09-08', // ordinary Monday after Independence Day (a Sunday): business day
      '2025-11-20',
      '2025-12-25',
    ]) {
      expect(isBusinessDay(date), date).toBe(date === '2025-09-08');
    }
    expect(isBusinessDay('2024-11-20')).toBe(false); // Consciência Negra, national since 2024
  });

  it('is false on Easter-based days: Carnaval Monday and Tuesday, Good Friday, Corpus Christi', () => {
    expect(isBusinessDay('2025-03-03')).toBe(false); // Carnaval Monday
    expect(isBusinessDay('2025-03-04')).toBe(false); // Carnaval Tuesday
    expect(isBusinessDay('2025-03-05')).toBe(true); // Ash Wednesday: banks open
    expect(isBusinessDay('2025-04-18')).toBe(false); // Sexta-feira Santa
    expect(isBusinessDay('2025-06-19')).toBe(false); // Corpus Christi
    expect(isBusinessDay('2024-02-12')).toBe(false); // Carnaval Monday 2024
    expect(isBusinessDay('2026-02-16')).toBe(false); // Carnaval Monday 2026
    expect(isBusinessDay('2026-02-17')).toBe(false);
  });

  it('ignores state holidays', () => {
    expect(isBusinessDay('2025-07-09')).toBe(true); // São Paulo's 9 de Julho, a Wednesday
  });

  it('does not depend on surrounding whitespace', () => {
    expect(isBusinessDay(' 2025-03-03 ')).toBe(false);
  });

  it('refuses bad dates and years out of range', () => {
    expect(() => isBusinessDay('2025-02-30')).toThrow(InvalidValue);
    expect(() => isBusinessDay('2100-01-04')).toThrow(/1900 to 2099/);
  });
});

describe('businessDaysBetween', () => {
  it('counts working days after from, up to and including to', () => {
    expect(businessDaysBetween('2025-01-10', '2025-01-13')).toBe(1); // Friday → Monday
    expect(businessDaysBetween('2025-01-06', '2025-01-10')).toBe(4); // Monday → Friday
    expect(businessDaysBetween('2025-01-06', '2025-01-06')).toBe(0);
    expect(businessDaysBetween('2025-01-11', '2025-01-12')).toBe(0); // Saturday → Sunday
  });

  it('skips holidays, Carnaval Monday included', () => {
    // Friday 2025-02-28 → Friday 2025-03-07: Mon 3 and Tue 4 are Carnaval: Wed, Thu, Fri.
    expect(businessDaysBetween('2025-02-28', '2025-03-07')).toBe(3);
    // Christmas week 2025: Thu 25 is Natal.
    expect(businessDaysBetween('2025-12-19', '2025-12-26')).toBe(4);
  });

  it('is negative when to comes first', () => {
    expect(businessDaysBetween('2025-03-07', '2025-02-28')).toBe(-3);
    expect(businessDaysBetween('2025-01-13', '2025-01-10')).toBe(-1);
  });

  it('agrees with a day-by-day count over a year', () => {
    let count = 0;
    let day = '2025-01-01';
    for (let i = 0; i < 365; i++) {
      const next = addDaysForTest(day, 1);
      if (isBusinessDay(next)) count++;
      day = next;
    }
    expect(businessDaysBetween('2025-01-01', day)).toBe(count);
    // 2025 has 261 weekdays; 6 national holidays fall on weekdays (Jan 1, Apr 18, Apr 21, May 1,
    // Nov 20, Dec 25) and so do 3 pontos facultativos (Carnaval Monday and Tuesday, Corpus Christi).
    expect(count).toBe(261 - 6 - 3);
  });
});

function addDaysForTest(date: string, n: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

describe('addBusinessDays and nextBusinessDayOnOrAfter', () => {
  it('walks business days both ways', () => {
    expect(addBusinessDays('2025-01-10', 1)).toBe('2025-01-13');
    expect(addBusinessDays('2025-02-28', 1)).toBe('2025-03-05'); // over the weekend and Carnaval
    expect(addBusinessDays('2025-03-05', -1)).toBe('2025-02-28');
    expect(addBusinessDays('2025-01-11', 0)).toBe('2025-01-11');
    expect(addBusinessDays('2024-12-31', 1)).toBe('2025-01-02');
  });

  it('refuses fractions', () => {
    expect(() => addBusinessDays('2025-01-10', 1.5)).toThrow(/whole number/);
  });

  it('rolls a non-business day forward', () => {
    expect(nextBusinessDayOnOrAfter('2025-01-10')).toBe('2025-01-10');
    expect(nextBusinessDayOnOrAfter('2025-01-11')).toBe('2025-01-13');
    expect(nextBusinessDayOnOrAfter('2025-03-01')).toBe('2025-03-05');
  });
});

describe('nationalHolidays', () => {
  it('lists the year in order with dates as YYYY-MM-DD', () => {
    const holidays = nationalHolidays(2025);
    const dates = holidays.map((h) => h.date);
    expect(dates).toEqual([...dates].sort());
    expect(holidays).toContainEqual({ date: '2025-04-18', name: 'Sexta-feira Santa', type: 'national' });
    expect(holidays).toContainEqual({ date: '2025-12-25', name: 'Natal', type: 'national' });
  });

  it('refuses years out of range', () => {
    expect(() => nationalHolidays(1899)).toThrow(InvalidValue);
    expect(() => nationalHolidays(2025.5)).toThrow(InvalidValue);
  });
});
