/**
 * Instants read from the server, and the calendar days they fall on in a time zone, for the code that
 * walks many statement entries (period summaries, charge matching).
 */
import { addDays, startOfDay, todayIn } from './when.js';

// An ISO 8601 date-time WITH its zone (Z or an offset): anything else is refused rather than left to
// Date.parse, which reads a zone-less date-time in the process's own zone and accepts prose dates.
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):?(\d{2}))$/i;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : MONTH_DAYS[month - 1]!;
}

/**
 * Milliseconds of an ISO 8601 instant with a zone (`2026-03-12T14:05:00Z`, `…-03:00`), else undefined
 * (also for a day that does not exist, such as February 30th, which Date.parse rolls over). Read
 * field by field: it runs once per statement entry.
 */
export function parseInstant(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = INSTANT.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  // Years before 1000 are refused (Date.UTC would read 0050 as 1950).
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const millisecond = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const wall = Date.UTC(year, month - 1, day, Number(m[4]), Number(m[5]), Number(m[6] ?? 0), millisecond);
  if (m[8] === undefined) return wall;
  const offsetHours = Number(m[9]);
  const offsetMinutes = Number(m[10]);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  return wall - (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
}

/** A calendar day in a time zone and the instants it spans: [start, end) in milliseconds. */
export interface ZonedDay {
  date: string;
  start: number;
  end: number;
}

/**
 * The calendar day of instants in `timeZone`. Keeps the span of the last day found, so a run of
 * instants in order (a statement) costs one time-zone computation per day, not one per instant.
 * Throws InvalidValue for an unknown zone.
 */
export function dayLookup(timeZone: string): (ms: number) => ZonedDay {
  let last: ZonedDay | undefined;
  const spanOf = (date: string): ZonedDay => ({
    date,
    start: Date.parse(startOfDay(date, timeZone)),
    end: Date.parse(startOfDay(addDays(date, 1), timeZone)),
  });
  todayIn(timeZone, new Date(0)); // checks the zone now, not at the first instant
  return (ms) => {
    if (last && ms >= last.start && ms < last.end) return last;
    last = spanOf(todayIn(timeZone, new Date(ms)));
    return last;
  };
}
