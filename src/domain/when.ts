/**
 * Dates and instants in a time zone, with Intl only (no date library). A "date" here is a calendar
 * day `YYYY-MM-DD`; an "instant" is a full ISO 8601 UTC string `YYYY-MM-DDTHH:mm:ss.sssZ`.
 * Nothing reads the clock: `now` is always passed in (deps.clock). The wall clock of a zone and the
 * instant it names are in `timezones.ts`.
 */
import { InvalidValue } from './invalid.js';
import {
  assertTimeZone,
  isValidTimeZone,
  type Wall,
  wallAt,
  wallToInstant,
  wallToUtcMs,
} from './timezones.js';
import { closest } from './words.js';

// ---------------------------------------------------------------------------------------------
// Calendar dates

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
}

function checkDate(text: string, year: number, month: number, day: number): void {
  if (year < 1000) throw new InvalidValue(`"${text}": year ${year} is out of range`);
  if (month < 1 || month > 12)
    throw new InvalidValue(`"${text}" is not a date: month ${month} does not exist`);
  const last = daysInMonth(year, month);
  if (day < 1 || day > last) {
    throw new InvalidValue(`"${text}" is not a date: ${MONTHS[month - 1]} ${year} has ${last} days`);
  }
}

/** Strict `YYYY-MM-DD` that names a real day; returns it unchanged. */
export function parseDateOnly(text: string): string {
  const trimmed = text.trim();
  const match = DATE.exec(trimmed);
  if (!match) throw new InvalidValue(`"${text}" is not a date in the form YYYY-MM-DD`);
  checkDate(trimmed, Number(match[1]), Number(match[2]), Number(match[3]));
  return trimmed;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function dateOf(w: Pick<Wall, 'year' | 'month' | 'day'>): string {
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

function splitDate(date: string): { year: number; month: number; day: number } {
  const [y, m, d] = date.split('-').map(Number);
  return { year: y!, month: m!, day: d! };
}

/** Adds whole calendar days to a `YYYY-MM-DD` (negative to go back). */
export function addDays(date: string, days: number): string {
  const { year, month, day } = splitDate(date);
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day + days);
  return dateOf({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() });
}

/** Today's date in `timeZone` at instant `now`. */
export function todayIn(timeZone: string, now: Date): string {
  assertTimeZone(timeZone);
  return dateOf(wallAt(now.getTime(), timeZone));
}

/** First instant of `date` in `timeZone`, as an ISO UTC string. */
export function startOfDay(date: string, timeZone: string): string {
  assertTimeZone(timeZone);
  const { year, month, day } = splitDate(parseDateOnly(date));
  const ms = wallToInstant({ year, month, day, hour: 0, minute: 0, second: 0, millisecond: 0 }, timeZone);
  return new Date(ms).toISOString();
}

/** Last millisecond of `date` in `timeZone` (23:59:59.999 on an ordinary day), as an ISO UTC string. */
export function endOfDay(date: string, timeZone: string): string {
  const next = startOfDay(addDays(parseDateOnly(date), 1), timeZone);
  return new Date(Date.parse(next) - 1).toISOString();
}

// ---------------------------------------------------------------------------------------------
// WHEN values of the command line

// Date and time, optional seconds and fraction, optional Z or offset; `T` or one space between.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function parseDateTime(text: string, timeZone: string): string | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const millisecond = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  checkDate(text, year, month, day);
  if (hour > 23 || minute > 59 || second > 59) {
    throw new InvalidValue(`"${text}" is not a time of day (hours 00-23, minutes and seconds 00-59)`);
  }
  const wall: Wall = { year, month, day, hour, minute, second, millisecond };
  const zone = m[8];
  if (zone === undefined) return new Date(wallToInstant(wall, timeZone)).toISOString();
  if (zone.toUpperCase() === 'Z') return new Date(wallToUtcMs(wall)).toISOString();
  const digits = zone.slice(1).replace(':', '');
  const offsetHours = Number(digits.slice(0, 2));
  const offsetMinutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (offsetHours > 18 || offsetMinutes > 59)
    throw new InvalidValue(`"${text}": offset ${zone} is out of range`);
  const offset = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return new Date(wallToUtcMs(wall) - offset).toISOString();
}

const DAY_MONTH_YEAR = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

/**
 * A calendar day as people write it, relative to `today` (a `YYYY-MM-DD`), or undefined when `text` is
 * not one: `YYYY-MM-DD`; `DD/MM/YYYY` (as Brazil writes it: `23/11/2026`); `today`, `yesterday`,
 * `tomorrow`; `+N` or `-N` days (`+30d`, `-7d`). THE day parser of the command line: `--due` of a charge
 * (parseDay) and the day of `--from`/`--to` (parseWhen) both read days through it. A text that has the
 * shape of a date but names no real day throws.
 */
export function calendarDay(text: string, today: string): string | undefined {
  const trimmed = text.trim();
  const keyword = trimmed.toLowerCase();
  if (keyword === 'today') return today;
  if (keyword === 'yesterday') return addDays(today, -1);
  if (keyword === 'tomorrow') return addDays(today, 1);
  const relative = /^([+-])(\d{1,5})d?$/i.exec(trimmed);
  if (relative) return addDays(today, (relative[1] === '-' ? -1 : 1) * Number(relative[2]));
  if (DATE.test(trimmed)) return parseDateOnly(trimmed);
  const dmy = DAY_MONTH_YEAR.exec(trimmed);
  if (dmy) {
    const [day, month, year] = [Number(dmy[1]), Number(dmy[2]), Number(dmy[3])];
    checkDate(trimmed, year, month, day);
    return dateOf({ year, month, day });
  }
  return undefined;
}

/**
 * A WHEN of `--from`/`--to` to an ISO 8601 UTC instant:
 * - a day (calendarDay: `YYYY-MM-DD`, `DD/MM/YYYY`, `today`, `yesterday`, `-7d`): the start (`from`) or
 *   the end (`to`, 23:59:59.999) of that day in `timeZone`, today being today in `timeZone` at `now`;
 * - `now` is `now`;
 * - a full ISO 8601 date-time with `Z` or an offset passes through, normalised to UTC; one without
 *   an offset is read as wall-clock time in `timeZone`.
 */
export function parseWhen(text: string, edge: 'from' | 'to', timeZone: string, now: Date): string {
  assertTimeZone(timeZone);
  const trimmed = text.trim();
  const keyword = trimmed.toLowerCase();
  const dayEdge = (date: string) => (edge === 'from' ? startOfDay(date, timeZone) : endOfDay(date, timeZone));
  if (keyword === 'now') return now.toISOString();
  const day = calendarDay(trimmed, todayIn(timeZone, now));
  if (day !== undefined) return dayEdge(day);
  const instant = parseDateTime(trimmed, timeZone);
  if (instant !== undefined) return instant;
  throw new InvalidValue(
    `"${text}" is not a date: use YYYY-MM-DD, DD/MM/YYYY, today, yesterday, -7d (days ago), now or an ISO 8601 date-time (2025-01-31T14:00:00-03:00)`,
    meantWhen(trimmed),
  );
}

/**
 * What a WHEN that was not one probably meant, as a did-you-mean: weeks in days (`-1w` → `-7d`), a
 * misspelt word (`yesterdy`), a month (`11/2026`: --month), a date written the other way (`2026/11/23`).
 */
function meantWhen(text: string): string | undefined {
  const weeks = /^([+-]?)(\d{1,4})\s*w(?:eeks?)?$/i.exec(text);
  if (weeks) return `did you mean ${weeks[1] || '-'}${Number(weeks[2]) * 7}d?`;
  const days = /^([+-]?)(\d{1,5})\s*d(?:ays?)?$/i.exec(text);
  if (days && days[1] === '') return `did you mean -${days[2]}d (days ago)?`;
  if (/^[+-]?\d{1,4}\s*(?:m|mo|months?)$/i.test(text)) return 'a month is --month YYYY-MM; days: -30d';
  const slashed = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$/.exec(text);
  if (slashed)
    return `did you mean ${slashed[1]}-${slashed[2]!.padStart(2, '0')}-${slashed[3]!.padStart(2, '0')}?`;
  if (/^\d{1,2}[/-]\d{4}$/.test(text) || /^\d{4}[/-]\d{1,2}$/.test(text))
    return 'a whole month is --month YYYY-MM';
  const word = closest(text.toLowerCase(), ['today', 'yesterday', 'tomorrow', 'now']);
  return word === undefined ? undefined : `did you mean ${word}?`;
}

/**
 * A calendar day typed relative to `today` (a `YYYY-MM-DD`), as calendarDay reads it: the date itself
 * (`YYYY-MM-DD`, `DD/MM/YYYY`), `today`, `tomorrow`, or `+N` days (`+30d`, `+30`). Whether the day may be
 * in the past is the caller's rule.
 */
export function parseDay(text: string, today: string): string {
  const day = calendarDay(text, today);
  if (day !== undefined) return day;
  throw new InvalidValue(
    `"${text}" is not a day: use YYYY-MM-DD, today, tomorrow or +N days (+30d), or DD/MM/YYYY`,
  );
}

/** A month written as people write it (`11/2026`, `2026/11`, `11-2026`, `2026-1`), as a did-you-mean. */
function meantMonth(text: string): string | undefined {
  const monthFirst = /^(\d{1,2})[/.-](\d{4})$/.exec(text);
  const yearFirst = /^(\d{4})[/.-](\d{1,2})$/.exec(text);
  const [year, month] = monthFirst
    ? [monthFirst[2], monthFirst[1]]
    : yearFirst
      ? [yearFirst[1], yearFirst[2]]
      : [];
  if (year === undefined || month === undefined || Number(month) < 1 || Number(month) > 12) return undefined;
  return `did you mean ${year}-${month.padStart(2, '0')}?`;
}

/** `YYYY-MM` to the first and last instants of that month in `timeZone`. */
export function parseMonth(text: string, timeZone: string): { from: string; to: string } {
  const trimmed = text.trim();
  const m = /^(\d{4})-(\d{2})$/.exec(trimmed);
  if (!m) throw new InvalidValue(`"${text}" is not a month in the form YYYY-MM`, meantMonth(trimmed));
  const year = Number(m[1]);
  const month = Number(m[2]);
  if (month < 1 || month > 12)
    throw new InvalidValue(`"${text}" is not a month: month ${month} does not exist`);
  if (year < 1000) throw new InvalidValue(`"${text}": year ${year} is out of range`);
  const first = `${m[1]}-${m[2]}-01`;
  const last = `${m[1]}-${m[2]}-${pad(daysInMonth(year, month))}`;
  return { from: startOfDay(first, timeZone), to: endOfDay(last, timeZone) };
}

// ---------------------------------------------------------------------------------------------
// Display

/**
 * An instant in a message to a person (an error, a warning, a note on stderr): day first as Brazilians
 * write it, in `timeZone`, with the offset from UTC so it cannot be misread: `02/12/2026 19:29 (UTC-03:00)`.
 * A value that is not a date-time is returned as it came.
 */
export function formatForMessage(iso: string, timeZone: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || !isValidTimeZone(timeZone)) return iso;
  const minute = Math.floor(ms / 60_000) * 60_000;
  const w = wallAt(minute, timeZone);
  return `${pad(w.day)}/${pad(w.month)}/${w.year} ${pad(w.hour)}:${pad(w.minute)} (UTC${offsetOf(minute, w)})`;
}

/** `-03:00`: the offset from UTC of the wall clock `w` read at the whole minute `minute`. */
function offsetOf(minute: number, w: ReturnType<typeof wallAt>): string {
  const offset = Math.round((wallToUtcMs({ ...w, second: 0, millisecond: 0 }) - minute) / 60_000);
  const abs = Math.abs(offset);
  return `${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** A calendar day `YYYY-MM-DD` as a person writes it: `30/11/2026` (anything else as it came). */
export function formatDayForMessage(day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : day;
}

/**
 * `2026-11-21 14:05` in `timeZone`, for people. A value that is not a date-time is returned as
 * it came (this runs on server data while rendering, where throwing would lose the whole table).
 */
export function formatDateTime(iso: string, timeZone: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || !isValidTimeZone(timeZone)) return iso;
  const w = wallAt(ms, timeZone);
  return `${dateOf(w)} ${pad(w.hour)}:${pad(w.minute)}`;
}

/** `08:55:06`: the time of day of `iso` on the wall clock of `timeZone` (a live view's lines). */
export function formatTimeOfDay(iso: string, timeZone: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || !isValidTimeZone(timeZone)) return iso;
  const w = wallAt(ms, timeZone);
  return `${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
}

/** `2026-11-21` in `timeZone`; a date-only value (`YYYY-MM-DD`) is returned as it is. */
export function formatDate(iso: string, timeZone: string): string {
  if (DATE.test(iso)) return iso;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || !isValidTimeZone(timeZone)) return iso;
  return dateOf(wallAt(ms, timeZone));
}

/**
 * `2026-03-10T08:55-03:00`: the minute of instant `ms` on the wall clock of `timeZone`, with its offset,
 * as `--from`/`--to` read it (parseWhen) whatever zone the reader's profile has: a command pix prints
 * for the operator to run means the same instant anywhere.
 */
export function formatMinuteWithOffset(ms: number, timeZone: string): string {
  const minute = Math.floor(ms / 60_000) * 60_000;
  const w = wallAt(minute, timeZone);
  return `${dateOf(w)}T${pad(w.hour)}:${pad(w.minute)}${offsetOf(minute, w)}`;
}

/**
 * `23/11/2026 18:31:46` on the wall clock of `timeZone`, or `01/12/2026` for a calendar day: how a
 * spreadsheet in a Brazilian locale reads a date (`-o csv-br`). Undefined for a value that is neither.
 */
export function formatDayFirst(value: string, timeZone: string): string | undefined {
  const day = DATE.exec(value);
  if (day) return `${day[3]}/${day[2]}/${day[1]}`;
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(value) || !isValidTimeZone(timeZone)) return undefined;
  const w = wallAt(ms, timeZone);
  return `${pad(w.day)}/${pad(w.month)}/${w.year} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
}
