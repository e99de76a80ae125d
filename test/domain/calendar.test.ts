import { describe, expect, it } from 'vitest';
import { isBusinessDay } from '../../src/domain/calendar.js';
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
