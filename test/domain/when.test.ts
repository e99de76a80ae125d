import { describe, expect, it } from 'vitest';
import { isValidTimeZone } from '../../src/domain/timezones.js';
import {
  addDays,
  endOfDay,
  formatDate,
  formatDateTime,
  formatDayForMessage,
  formatForMessage,
  formatMinuteWithOffset,
  parseDateOnly,
  parseDay,
  parseMonth,
  parseWhen,
  startOfDay,
  todayIn,
} from '../../src/domain/when.js';
import { reasonOf } from '../helpers/domain.js';

const SP = 'America/Sao_Paulo';

describe('parseWhen — calendar days', () => {
  const now = new Date('2025-03-10T15:00:00Z');

  it('YYYY-MM-DD is the start or the end of that day in the time zone', () => {
    expect(parseWhen('2025-01-31', 'from', SP, now)).toBe('2025-01-31T03:00:00.000Z');
    expect(parseWhen('2025-01-31', 'to', SP, now)).toBe('2025-02-01T02:59:59.999Z');
    expect(parseWhen('2025-01-31', 'from', 'UTC', now)).toBe('2025-01-31T00:00:00.000Z');
    expect(parseWhen('2025-01-31', 'to', 'UTC', now)).toBe('2025-01-31T23:59:59.999Z');
    expect(parseWhen('2025-01-31', 'from', 'Asia/Tokyo', now)).toBe('2025-01-30T15:00:00.000Z');
    expect(parseWhen('2025-01-31', 'from', 'Asia/Kolkata', now)).toBe('2025-01-30T18:30:00.000Z');
  });

  it('follows daylight saving time where the zone has it', () => {
    // São Paulo was at -02:00 in January 2018 (DST), New York at -04:00 in July.
    expect(parseWhen('2018-01-15', 'from', SP, now)).toBe('2018-01-15T02:00:00.000Z');
    expect(parseWhen('2024-07-04', 'from', 'America/New_York', now)).toBe('2024-07-04T04:00:00.000Z');
    expect(parseWhen('2024-07-04', 'to', 'America/New_York', now)).toBe('2024-07-05T03:59:59.999Z');
  });

  it('starts a day whose midnight did not exist at its first real moment', () => {
    // On 2018-11-04 São Paulo's clocks jumped from 00:00 to 01:00 (-03:00 → -02:00).
    expect(parseWhen('2018-11-04', 'from', SP, now)).toBe('2018-11-04T03:00:00.000Z');
    expect(parseWhen('2018-11-03', 'to', SP, now)).toBe('2018-11-04T02:59:59.999Z');
    // The day the clocks went back (2019-02-17 00:00 -02:00 → 2019-02-16 23:00 -03:00) is 25 hours long.
    const from = Date.parse(parseWhen('2019-02-16', 'from', SP, now));
    const to = Date.parse(parseWhen('2019-02-16', 'to', SP, now));
    expect(to + 1 - from).toBe(25 * 3_600_000);
  });

  it('today and yesterday are days in the time zone at now', () => {
    // 01:30 UTC on the 10th is still the 9th in São Paulo.
    const early = new Date('2025-03-10T01:30:00Z');
    expect(parseWhen('today', 'from', SP, early)).toBe('2025-03-09T03:00:00.000Z');
    expect(parseWhen('today', 'to', SP, early)).toBe('2025-03-10T02:59:59.999Z');
    expect(parseWhen('Yesterday', 'from', SP, early)).toBe('2025-03-08T03:00:00.000Z');
    expect(parseWhen('today', 'from', 'UTC', early)).toBe('2025-03-10T00:00:00.000Z');
    expect(parseWhen(' TODAY ', 'to', 'UTC', early)).toBe('2025-03-10T23:59:59.999Z');
    expect(parseWhen('now', 'to', SP, early)).toBe('2025-03-10T01:30:00.000Z');
  });

  it('yesterday crosses months and years', () => {
    expect(parseWhen('yesterday', 'from', 'UTC', new Date('2025-01-01T12:00:00Z'))).toBe(
      '2024-12-31T00:00:00.000Z',
    );
    expect(parseWhen('yesterday', 'from', 'UTC', new Date('2024-03-01T12:00:00Z'))).toBe(
      '2024-02-29T00:00:00.000Z',
    );
  });
});

describe('parseWhen — date-times', () => {
  const now = new Date('2025-03-10T15:00:00Z');

  it('passes a full ISO 8601 instant through, normalised to UTC', () => {
    expect(parseWhen('2025-01-31T14:00:00Z', 'from', SP, now)).toBe('2025-01-31T14:00:00.000Z');
    expect(parseWhen('2025-01-31T14:00:00-03:00', 'from', SP, now)).toBe('2025-01-31T17:00:00.000Z');
    expect(parseWhen('2025-01-31T14:00:00.5+0530', 'to', SP, now)).toBe('2025-01-31T08:30:00.500Z');
    expect(parseWhen('2025-01-31T14:00+01', 'to', SP, now)).toBe('2025-01-31T13:00:00.000Z');
    expect(parseWhen('2025-01-31 14:00:00z', 'to', SP, now)).toBe('2025-01-31T14:00:00.000Z');
    expect(parseWhen('2025-01-31T14:00:00.123456789Z', 'to', SP, now)).toBe('2025-01-31T14:00:00.123Z');
  });

  it('reads a date-time without offset as wall-clock time in the time zone', () => {
    expect(parseWhen('2025-01-31T14:00', 'from', SP, now)).toBe('2025-01-31T17:00:00.000Z');
    expect(parseWhen('2025-01-31T14:00:30', 'from', 'UTC', now)).toBe('2025-01-31T14:00:30.000Z');
  });

  it('is independent of the process time zone', () => {
    expect(parseWhen('2025-06-01', 'from', 'Europe/Lisbon', now)).toBe('2025-05-31T23:00:00.000Z');
  });
});

describe('parseWhen — days as people write them', () => {
  const now = new Date('2025-03-10T15:00:00Z');

  it('reads days as people write them: DD/MM/YYYY, -N days, yesterday, tomorrow (the one day parser)', () => {
    // now is 2025-03-10T15:00Z, 12:00 in São Paulo: today there is 2025-03-10.
    expect(parseWhen('31/01/2025', 'from', SP, now)).toBe('2025-01-31T03:00:00.000Z');
    expect(parseWhen('1/2/2025', 'to', SP, now)).toBe('2025-02-02T02:59:59.999Z');
    expect(parseWhen('-7d', 'from', SP, now)).toBe('2025-03-03T03:00:00.000Z');
    expect(parseWhen('-7', 'from', SP, now)).toBe('2025-03-03T03:00:00.000Z');
    expect(parseWhen('yesterday', 'to', SP, now)).toBe('2025-03-10T02:59:59.999Z');
    expect(parseWhen('tomorrow', 'from', SP, now)).toBe('2025-03-11T03:00:00.000Z');
    expect(reasonOf(() => parseWhen('30/02/2025', 'from', SP, now))).toMatch(/February 2025 has 28 days/);
    expect(reasonOf(() => parseWhen('01/13/2025', 'from', SP, now))).toMatch(/month 13 does not exist/);
  });
});

describe('parseWhen — refusals', () => {
  const now = new Date('2025-03-10T15:00:00Z');

  it('refuses impossible dates, saying why', () => {
    expect(reasonOf(() => parseWhen('2025-02-30', 'from', SP, now))).toBe(
      '"2025-02-30" is not a date: February 2025 has 28 days',
    );
    expect(reasonOf(() => parseWhen('2024-02-30', 'from', SP, now))).toMatch(/February 2024 has 29 days/);
    expect(reasonOf(() => parseWhen('2025-13-01', 'to', SP, now))).toMatch(/month 13 does not exist/);
    expect(reasonOf(() => parseWhen('2025-04-31T10:00:00Z', 'to', SP, now))).toMatch(
      /April 2025 has 30 days/,
    );
    expect(reasonOf(() => parseWhen('2025-04-00', 'to', SP, now))).toMatch(/April 2025 has 30 days/);
  });

  it('refuses impossible times and offsets', () => {
    expect(reasonOf(() => parseWhen('2025-01-31T24:00:00Z', 'to', SP, now))).toMatch(/not a time of day/);
    expect(reasonOf(() => parseWhen('2025-01-31T12:60:00Z', 'to', SP, now))).toMatch(/not a time of day/);
    expect(reasonOf(() => parseWhen('2025-01-31T12:00:00+19:00', 'to', SP, now))).toMatch(
      /offset .* out of range/,
    );
  });

  it('refuses other text with the accepted forms', () => {
    for (const text of ['next week', '31-01-2025', '2025-1-31', '', '2025-01-31T', '20250131', '-7w']) {
      expect(reasonOf(() => parseWhen(text, 'from', SP, now))).toMatch(/use YYYY-MM-DD|YYYY-MM-DD/);
    }
  });

  it('refuses an unknown time zone', () => {
    expect(reasonOf(() => parseWhen('today', 'from', 'Mars/Olympus', now))).toMatch(/not a time zone/);
  });
});

describe('parseMonth', () => {
  it('gives the first and last instants of the month', () => {
    expect(parseMonth('2025-02', SP)).toEqual({
      from: '2025-02-01T03:00:00.000Z',
      to: '2025-03-01T02:59:59.999Z',
    });
    expect(parseMonth('2024-02', 'UTC')).toEqual({
      from: '2024-02-01T00:00:00.000Z',
      to: '2024-02-29T23:59:59.999Z',
    });
    expect(parseMonth('2025-12', 'UTC').to).toBe('2025-12-31T23:59:59.999Z');
  });

  it('refuses what is not a month', () => {
    expect(reasonOf(() => parseMonth('2025-13', SP))).toMatch(/month 13 does not exist/);
    expect(reasonOf(() => parseMonth('2025-1', SP))).toMatch(/YYYY-MM/);
    expect(reasonOf(() => parseMonth('2025-00', SP))).toMatch(/month 0 does not exist/);
  });
});

describe('parseDateOnly, todayIn, addDays', () => {
  it('parseDateOnly is strict', () => {
    expect(parseDateOnly('2025-02-28')).toBe('2025-02-28');
    expect(parseDateOnly(' 2024-02-29 ')).toBe('2024-02-29');
    expect(reasonOf(() => parseDateOnly('2025-02-29'))).toMatch(/February 2025 has 28 days/);
    expect(reasonOf(() => parseDateOnly('2025-02-28T00:00:00Z'))).toMatch(/YYYY-MM-DD/);
    expect(reasonOf(() => parseDateOnly('today'))).toMatch(/YYYY-MM-DD/);
    expect(reasonOf(() => parseDateOnly('0999-01-01'))).toMatch(/out of range/);
    expect(parseDateOnly('1900-02-28')).toBe('1900-02-28');
    expect(reasonOf(() => parseDateOnly('1900-02-29'))).toMatch(/February 1900 has 28 days/);
    expect(parseDateOnly('2000-02-29')).toBe('2000-02-29');
  });

  it('todayIn is the date in the zone, not in UTC', () => {
    const now = new Date('2025-03-10T01:30:00Z');
    expect(todayIn(SP, now)).toBe('2025-03-09');
    expect(todayIn('UTC', now)).toBe('2025-03-10');
    expect(todayIn('Pacific/Kiritimati', new Date('2025-03-09T11:00:00Z'))).toBe('2025-03-10');
  });

  it('addDays walks the calendar', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
    expect(addDays('2025-03-01', -1)).toBe('2025-02-28');
    expect(addDays('2025-03-01', 0)).toBe('2025-03-01');
  });

  it('parseDay: a date, today, tomorrow or +N days from today', () => {
    expect(parseDay('2030-12-10', '2026-11-20')).toBe('2030-12-10');
    expect(parseDay(' Today ', '2026-11-20')).toBe('2026-11-20');
    expect(parseDay('tomorrow', '2026-12-31')).toBe('2027-01-01');
    expect(parseDay('+30d', '2026-11-20')).toBe('2026-12-20');
    expect(parseDay('+30', '2026-11-20')).toBe('2026-12-20');
    expect(parseDay('+0d', '2026-11-20')).toBe('2026-11-20');
    expect(parseDay('+1D', '2024-02-28')).toBe('2024-02-29');
    expect(reasonOf(() => parseDay('2026-02-30', '2026-01-01'))).toMatch(/February 2026 has 28 days/);
    // The same day parser as --from/--to: DD/MM/YYYY and days back are days too (the caller refuses the past).
    expect(parseDay('10/12/2026', '2026-11-20')).toBe('2026-12-10');
    expect(parseDay('-1d', '2026-11-20')).toBe('2026-11-19');
    for (const text of ['+1w', 'next week', '10-12-2026', '+d', '']) {
      expect(reasonOf(() => parseDay(text, '2026-11-20'))).toMatch(
        /is not a day: use YYYY-MM-DD, today, tomorrow or \+N days/,
      );
    }
  });

  it('startOfDay and endOfDay bracket the day', () => {
    expect(startOfDay('2025-01-31', SP)).toBe('2025-01-31T03:00:00.000Z');
    expect(endOfDay('2025-01-31', SP)).toBe('2025-02-01T02:59:59.999Z');
  });
});

describe('formatDateTime, formatDate, isValidTimeZone', () => {
  it('shows the wall clock of the zone', () => {
    expect(formatDateTime('2026-11-21T17:05:00Z', SP)).toBe('2026-11-21 14:05');
    expect(formatDateTime('2026-11-21T17:05:59.999Z', 'UTC')).toBe('2026-11-21 17:05');
    expect(formatDateTime('2026-11-22T01:00:00Z', SP)).toBe('2026-11-21 22:00');
    expect(formatDateTime('2026-11-21T14:05:00-03:00', 'Asia/Tokyo')).toBe('2026-11-22 02:05');
    expect(formatDateTime('2026-01-01T03:00:00Z', SP)).toBe('2026-01-01 00:00');
  });

  it('returns values that are not date-times as they came', () => {
    expect(formatDateTime('not a date', SP)).toBe('not a date');
    expect(formatDateTime('', SP)).toBe('');
    expect(formatDateTime('2026-11-21T17:05:00Z', 'Nowhere/City')).toBe('2026-11-21T17:05:00Z');
  });

  it('formatDate gives the day in the zone and keeps date-only values', () => {
    expect(formatDate('2026-11-22T01:00:00Z', SP)).toBe('2026-11-21');
    expect(formatDate('2026-11-22', SP)).toBe('2026-11-22');
  });

  it('knows IANA zones', () => {
    expect(isValidTimeZone(SP)).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Europe/Lisbon')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
    expect(isValidTimeZone('-03:00x')).toBe(false);
  });
});

describe('formatMinuteWithOffset', () => {
  it('the minute on the zone clock with its offset, read back by parseWhen as the same instant', () => {
    const at = Date.parse('2026-03-10T12:34:56.789Z');
    const shown = formatMinuteWithOffset(at, 'America/Sao_Paulo');
    expect(shown).toBe('2026-03-10T09:34-03:00');
    expect(parseWhen(shown, 'from', 'Asia/Tokyo', new Date(at))).toBe('2026-03-10T12:34:00.000Z');
    expect(formatMinuteWithOffset(at, 'UTC')).toBe('2026-03-10T12:34+00:00');
    expect(formatMinuteWithOffset(at, 'Asia/Kolkata')).toBe('2026-03-10T18:04+05:30');
  });
});

describe('times and days in messages to people', () => {
  it('day first, in the zone, with its offset from UTC', () => {
    expect(formatForMessage('2026-12-02T22:29:40.015Z', 'America/Sao_Paulo')).toBe(
      '02/12/2026 19:29 (UTC-03:00)',
    );
    expect(formatForMessage('2026-12-02T22:29:40.015Z', 'America/Noronha')).toBe(
      '02/12/2026 20:29 (UTC-02:00)',
    );
    expect(formatForMessage('2026-12-02T22:29:40.015Z', 'Asia/Kolkata')).toBe('03/12/2026 03:59 (UTC+05:30)');
    expect(formatForMessage('not a time', 'America/Sao_Paulo')).toBe('not a time');
    expect(formatDayForMessage('2026-11-30')).toBe('30/11/2026');
  });
});
