import { describe, expect, it } from 'vitest';
import { dayLookup, parseInstant } from '../../src/domain/days.js';
import { InvalidValue } from '../../src/domain/invalid.js';
import { todayIn } from '../../src/domain/when.js';

describe('parseInstant', () => {
  it('reads ISO 8601 date-times with Z or an offset', () => {
    expect(parseInstant('2026-03-12T14:05:00Z')).toBe(Date.UTC(2026, 2, 12, 14, 5));
    expect(parseInstant('2026-03-12T14:05:00.123Z')).toBe(Date.UTC(2026, 2, 12, 14, 5, 0, 123));
    expect(parseInstant('2026-03-12T11:05:00-03:00')).toBe(Date.UTC(2026, 2, 12, 14, 5));
    expect(parseInstant('2026-03-12T11:05-0300')).toBe(Date.UTC(2026, 2, 12, 14, 5));
    expect(parseInstant('2024-02-29T23:59:59.999999Z')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
  });

  it('agrees with Date.parse on every well-formed instant', () => {
    let seed = 3;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor((seed / 2_147_483_648) * n);
    };
    const two = (n: number) => String(n).padStart(2, '0');
    for (let i = 0; i < 2000; i++) {
      const date = `${1900 + random(200)}-${two(1 + random(12))}-${two(1 + random(28))}`;
      const time = `${two(random(24))}:${two(random(60))}:${two(random(60))}.${String(random(1000)).padStart(3, '0')}`;
      const zone = ['Z', '-03:00', '+05:30', '+0100', '-11:45'][random(5)];
      const text = `${date}T${time}${zone}`;
      expect(parseInstant(text), text).toBe(Date.parse(text));
    }
  });

  it('refuses what Date.parse would guess at: no zone, prose, a bare date, non-strings', () => {
    for (const text of [
      '2026-03-12T14:05:00', // zone-less: the process's zone would decide
      '2026-03-12',
      'March 12, 2026',
      '2026-02-30T00:00:00Z', // Date.parse rolls it over; a real API never sends it
      '',
      ' 2026-03-12T14:05:00Z',
      '2026-03-12T24:00:00Z',
      '2026-13-01T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '0050-01-01T00:00:00Z', // Date.UTC would make it 1950
      '2026-03-12T14:05:00+24:00',
    ]) {
      expect(parseInstant(text), text).toBeUndefined();
    }
    expect(parseInstant(1_700_000_000_000)).toBeUndefined();
    expect(parseInstant(null)).toBeUndefined();
  });
});

describe('dayLookup', () => {
  it('gives the calendar day of an instant in the zone, with its span', () => {
    const dayOf = dayLookup('America/Sao_Paulo');
    const day = dayOf(Date.parse('2026-03-13T02:59:59.999Z'));
    expect(day).toEqual({
      date: '2026-03-12',
      start: Date.parse('2026-03-12T03:00:00Z'),
      end: Date.parse('2026-03-13T03:00:00Z'),
    });
    expect(dayOf(Date.parse('2026-03-13T03:00:00Z')).date).toBe('2026-03-13');
  });

  it('follows days of 23 and 25 hours where the zone changes its clocks', () => {
    const dayOf = dayLookup('Europe/Lisbon');
    const spring = dayOf(Date.parse('2026-03-29T12:00:00Z'));
    expect(spring.end - spring.start).toBe(23 * 3_600_000);
    const autumn = dayOf(Date.parse('2026-10-25T12:00:00Z'));
    expect(autumn.end - autumn.start).toBe(25 * 3_600_000);
    // São Paulo, 2018-11-04: midnight did not exist; the day starts at 01:00 (-02:00).
    const gap = dayLookup('America/Sao_Paulo')(Date.parse('2018-11-04T12:00:00Z'));
    expect(gap.start).toBe(Date.parse('2018-11-04T03:00:00Z'));
  });

  it('agrees with todayIn for instants in any order (the cached span is never stale)', () => {
    const zone = 'America/New_York';
    const dayOf = dayLookup(zone);
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const start = Date.parse('2024-03-01T00:00:00Z');
    const instants = Array.from({ length: 2000 }, () => start + Math.floor(random() * 300 * 86_400_000));
    // Sorted, then shuffled: both orders must give todayIn's answer.
    for (const list of [[...instants].sort((a, b) => a - b), instants]) {
      for (const ms of list) expect(dayOf(ms).date).toBe(todayIn(zone, new Date(ms)));
    }
  });

  it('refuses an unknown zone when made, not at the first instant', () => {
    expect(() => dayLookup('Mars/Olympus')).toThrow(InvalidValue);
  });
});
