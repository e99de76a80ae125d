/**
 * Scheduled and recurring payments, pure: the rules people schedule by, the dates they give on the
 * Brazilian calendar (business days from calendar.ts, the one the due-date charges use), each
 * occurrence's window of time in the account's time zone, and the state of an occurrence read from its
 * journal entries. Nothing reads the clock: `now` is always handed in (the account's clock, which is the
 * sandbox's under `pix sandbox clock`).
 *
 * The calendar, as Brazilian banks schedule (README "Scheduled payments"):
 * - a rule's date that falls on a Saturday, Sunday or national holiday (Carnaval Monday and Tuesday,
 *   Good Friday and Corpus Christi included) moves to the NEXT business day by default: a due date that
 *   falls on a day banks are closed is paid without charges on the next business day (the rule of
 *   boletos, and what banks' own scheduled transfers do); `--on-holiday previous` pays the business day
 *   before (a payment that must arrive by the date), `--on-holiday keep` on the date itself (PIX settles
 *   every day of the year);
 * - `Nbd`, the Nth business day of the month, counts Monday to Friday that are not national holidays.
 *   Payroll under the CLT counts Saturdays too (its fifth "dia útil" can come earlier): schedule payroll
 *   by that reckoning with a day of the month, not with `5bd`;
 * - a day of the month the month lacks (31 in April, 29–31 in February) is the month's last day.
 */
import { isBusinessDay } from './calendar.js';
import { InvalidValue } from './invalid.js';
import { wallToInstant } from './timezones.js';
import { addDays, parseDateOnly } from './when.js';

export type HolidayShift = 'next' | 'previous' | 'keep';
export const HOLIDAY_SHIFTS: readonly HolidayShift[] = ['next', 'previous', 'keep'];

/** How a schedule repeats. */
export type Rule =
  /** One payment, on `--at DATE`. */
  | { kind: 'once'; date: string }
  /** This day of every month (clamped to the month's last day). */
  | { kind: 'day-of-month'; day: number }
  /** The Nth business day of every month. */
  | { kind: 'business-day'; n: number }
  /** Every business day. */
  | { kind: 'every-business-day' }
  /** This weekday (0 Sunday … 6 Saturday) of every week. */
  | { kind: 'weekday'; weekday: number }
  /** Every 7 days from the start. */
  | { kind: 'weekly' }
  /** The start's day of every month (clamped). */
  | { kind: 'monthly' };

/** A rule, where it starts and ends, and what a date on a holiday does. */
export interface Recurrence {
  rule: Rule;
  /** The first date a rule may give (`--start`, default the day it was made). */
  start: string;
  /** No date after this one (`--until`). */
  until?: string;
  /** At most this many occurrences (`--count`). */
  count?: number;
  shift: HolidayShift;
}

/** One occurrence: the date its rule gives (its key in the journal), and the day it is paid on. */
export interface Occurrence {
  /** The rule's date: with the schedule, the occurrence's identity (never moves). */
  date: string;
  /** The business day it is paid on (the date moved by the holiday shift). */
  payOn: string;
  /** 1 for the first occurrence of the schedule. */
  index: number;
}

const WEEKDAYS: ReadonlyArray<readonly string[]> = [
  ['sun', 'sunday', 'dom', 'domingo'],
  ['mon', 'monday', 'seg', 'segunda'],
  ['tue', 'tuesday', 'ter', 'terca', 'terça'],
  ['wed', 'wednesday', 'qua', 'quarta'],
  ['thu', 'thursday', 'qui', 'quinta'],
  ['fri', 'friday', 'sex', 'sexta'],
  ['sat', 'saturday', 'sab', 'sáb', 'sabado', 'sábado'],
];
const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export const EVERY_FORMS =
  'N (day N of each month, 1–31), Nbd (the Nth business day of each month), bday (every business day), a weekday (mon … sun, or seg … dom), week or month';

/** A business day is never more than this many days away (the longest run of closed days is 4). */
const MAX_SHIFT_DAYS = 10;
/** Business days a month has at least. */
const MAX_NTH_BUSINESS_DAY = 18;

/** `--every` as typed: `10`, `5bd`, `bday`, `fri`, `sexta`, `week`, `month`. */
export function parseEvery(text: string): Rule {
  const value = text.trim().toLowerCase();
  const day = /^(\d{1,2})$/.exec(value);
  if (day) {
    const n = Number(day[1]);
    if (n < 1 || n > 31) throw new InvalidValue(`"${text}": a day of the month is 1 to 31`);
    return { kind: 'day-of-month', day: n };
  }
  const nth = /^(\d{1,2})(?:bd|du)$/.exec(value);
  if (nth) {
    const n = Number(nth[1]);
    if (n < 1 || n > MAX_NTH_BUSINESS_DAY) {
      throw new InvalidValue(`"${text}": every month has a business day 1 to ${MAX_NTH_BUSINESS_DAY}`);
    }
    return { kind: 'business-day', n };
  }
  if (value === 'bday' || value === 'business-day') return { kind: 'every-business-day' };
  if (value === 'week' || value === 'weekly') return { kind: 'weekly' };
  if (value === 'month' || value === 'monthly') return { kind: 'monthly' };
  const weekday = WEEKDAYS.findIndex((names) => names.includes(value));
  if (weekday >= 0) return { kind: 'weekday', weekday };
  throw new InvalidValue(`"${text}" is not a rule pix knows`, `--every takes ${EVERY_FORMS}`);
}

/** `HH:MM`, 00:00 to 23:59. */
export function parseTimeOfDay(text: string): string {
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  if (!match) throw new InvalidValue(`"${text}" is not a time of day HH:MM (24 hours, e.g. 09:00)`);
  return `${match[1]!.padStart(2, '0')}:${match[2]}`;
}

/** What a person reads of a rule: `day 10 of each month`, `the 5th business day of each month`. */
export function describeRule(rule: Rule, start: string): string {
  switch (rule.kind) {
    case 'once':
      return `once, on ${rule.date}`;
    case 'day-of-month':
      return `day ${rule.day} of each month`;
    case 'business-day':
      return `the ${ordinal(rule.n)} business day of each month`;
    case 'every-business-day':
      return 'every business day';
    case 'weekday':
      return `every ${WEEKDAY_NAMES[rule.weekday]}`;
    case 'weekly':
      return `every week from ${start} (${WEEKDAY_NAMES[weekdayOf(start)]})`;
    case 'monthly':
      return `day ${dayOf(start)} of each month`;
  }
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

function parts(date: string): { year: number; month: number; day: number } {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return { year, month, day };
}

function dayOf(date: string): number {
  return parts(date).day;
}

/** 0 Sunday … 6 Saturday. */
export function weekdayOf(date: string): number {
  const { year, month, day } = parts(date);
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}

function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function dateIn(year: number, month: number, day: number): string {
  const clamped = Math.min(day, lastDayOfMonth(year, month));
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(clamped).padStart(2, '0')}`;
}

/** The business day `date` is paid on under `shift`. */
export function shiftToBusinessDay(date: string, shift: HolidayShift): string {
  if (shift === 'keep' || isBusinessDay(date)) return date;
  const step = shift === 'next' ? 1 : -1;
  let day = date;
  for (let moved = 0; moved < MAX_SHIFT_DAYS; moved++) {
    day = addDays(day, step);
    if (isBusinessDay(day)) return day;
  }
  throw new InvalidValue(`${date}: no business day within ${MAX_SHIFT_DAYS} days`);
}

/** The Nth business day of a month, or undefined when it has fewer. */
export function nthBusinessDay(year: number, month: number, n: number): string | undefined {
  let seen = 0;
  for (let day = 1; day <= lastDayOfMonth(year, month); day++) {
    const date = dateIn(year, month, day);
    if (isBusinessDay(date) && ++seen === n) return date;
  }
  return undefined;
}

/** The rule's dates from `start` on, before any shift, in order (an endless walk: the caller bounds it). */
function* ruleDates(rule: Rule, start: string): Generator<string> {
  const { year: startYear, month: startMonth } = parts(start);
  const months = function* () {
    for (let i = 0; ; i++) {
      const index = startMonth - 1 + i;
      yield { year: startYear + Math.floor(index / 12), month: (index % 12) + 1 };
    }
  };
  switch (rule.kind) {
    case 'once':
      yield rule.date;
      return;
    case 'day-of-month':
    case 'monthly': {
      const day = rule.kind === 'monthly' ? dayOf(start) : rule.day;
      for (const { year, month } of months()) {
        const date = dateIn(year, month, day);
        if (date >= start) yield date;
      }
      return;
    }
    case 'business-day':
      for (const { year, month } of months()) {
        const date = nthBusinessDay(year, month, rule.n);
        if (date !== undefined && date >= start) yield date;
      }
      return;
    case 'every-business-day':
      for (let date = start; ; date = addDays(date, 1)) if (isBusinessDay(date)) yield date;
    case 'weekday': {
      let date = start;
      while (weekdayOf(date) !== rule.weekday) date = addDays(date, 1);
      for (; ; date = addDays(date, 7)) yield date;
    }
    case 'weekly':
      for (let date = start; ; date = addDays(date, 7)) yield date;
  }
}

/** The last year the calendar knows (calendar.ts): walks stop there. */
const LAST_DATE = '2099-12-31';

/** The occurrences of a recurrence in order, from the first, as they are asked for (a lazy walk). */
export function* eachOccurrence(recurrence: Recurrence): Generator<Occurrence> {
  let index = 0;
  for (const date of ruleDates(recurrence.rule, recurrence.start)) {
    if (date > LAST_DATE) return;
    if (recurrence.until !== undefined && date > recurrence.until) return;
    if (recurrence.count !== undefined && index >= recurrence.count) return;
    index++;
    yield { date, payOn: shiftToBusinessDay(date, recurrence.shift), index };
  }
}

/**
 * The occurrences of a recurrence in order, from the first; `from`: only those paid on or after this
 * date (their index still counts from the first). At most `limit` are returned.
 */
export function occurrences(recurrence: Recurrence, limit: number, from?: string): Occurrence[] {
  const found: Occurrence[] = [];
  if (limit <= 0) return found;
  for (const occurrence of eachOccurrence(recurrence)) {
    if (from === undefined || occurrence.payOn >= from) found.push(occurrence);
    if (found.length >= limit) break;
  }
  return found;
}

/** The occurrence whose rule's date is `date`, if the recurrence has one. */
export function occurrenceOn(recurrence: Recurrence, date: string): Occurrence | undefined {
  for (const occurrence of eachOccurrence(recurrence)) {
    if (occurrence.date === date) return occurrence;
    if (occurrence.date > date) return undefined;
  }
  return undefined;
}

/**
 * A recurrence checked whole: its dates exist, `until` is not before `start`, a count is positive, and
 * the rule gives at least one date. Throws InvalidValue naming what is wrong.
 */
export function checkRecurrence(recurrence: Recurrence): void {
  parseDateOnly(recurrence.start);
  if (recurrence.until !== undefined) {
    parseDateOnly(recurrence.until);
    if (recurrence.until < recurrence.start) {
      throw new InvalidValue(`${recurrence.until} is before the start, ${recurrence.start}`);
    }
  }
  if (occurrences(recurrence, 1).length === 0) {
    throw new InvalidValue('the rule gives no date between the start and the end');
  }
}

// ---------------------------------------------------------------------------------------------
// Windows

/** When an occurrence may be paid: from its time on its day to the end of its window (ms). */
export interface Window {
  start: number;
  end: number;
}

/**
 * The default end of a day's window: 20:00, where the night window of a policy and the Central Bank's
 * night limits for PIX begin (docs/approvals.md). An occurrence not paid by then is missed.
 */
export const WINDOW_END = '20:00';
/** The default time an occurrence becomes due. */
export const DEFAULT_TIME = '08:00';

function instantOf(date: string, time: string, timeZone: string): number {
  const { year, month, day } = parts(date);
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  return wallToInstant({ year, month, day, hour, minute, second: 0, millisecond: 0 }, timeZone);
}

/** The window of an occurrence paid on `payOn`: from `time` to `end` that day, in `timeZone`. */
export function windowOf(payOn: string, time: string, timeZone: string, end = WINDOW_END): Window {
  return { start: instantOf(payOn, time, timeZone), end: instantOf(payOn, end, timeZone) };
}

// ---------------------------------------------------------------------------------------------
// An occurrence's state

/**
 * The id of an occurrence's journal row: the schedule's id and the rule's date. Whatever pays it (a
 * runner, a cron line, a person), the journal's row rules pay a row id once per account.
 */
export function occurrenceRow(scheduleId: string, date: string, line?: string): string {
  return line === undefined ? `${scheduleId}.${date}` : `${scheduleId}.${date}.${line}`;
}

/**
 * A batch file's schedule pays each of its rows once per occurrence: the row's id after the date. A journal
 * row id is at most 64 characters (domain/batch.ts BATCH_ID_PATTERN), so a file row's id at most this many.
 */
export const MAX_LINE_ID = 64 - occurrenceRow('s-000000000000', '2026-01-01', '').length;

/** The schedule, date (and a batch file's row) of an occurrence row, or undefined for any other row id. */
export function parseOccurrenceRow(
  row: string,
): { schedule: string; date: string; line?: string } | undefined {
  const match = /^(s-[0-9a-f]{12})\.(\d{4}-\d{2}-\d{2})(?:\.([A-Za-z0-9._-]+))?$/.exec(row);
  if (!match) return undefined;
  return { schedule: match[1]!, date: match[2]!, ...(match[3] === undefined ? {} : { line: match[3] }) };
}

/** The journal's `batch` of a schedule's rows. */
export function scheduleBatch(scheduleId: string): string {
  return `schedule-${scheduleId}`;
}

/**
 * The reason a journal entry records for an occurrence that was not paid and will not be paid on its
 * own: `missed` (its window ended), or `refused: …` (the receiver changed, the consultation or a cap
 * refused it). Such an entry is `failed`: it blocks no payment, so an explicit command can pay the row.
 */
export const MISSED_REASON = 'missed';
export const REFUSED_PREFIX = 'refused: ';
/**
 * An occurrence the policy held at its moment (docs/schedules.md "Under a policy"): its standing approval
 * does not hold then, or it would break a cap or a rule, or the account pays only approved plans and the
 * schedule has none. Named in the reason; never sent, paid later only by `pix schedule pay`.
 */
export const HELD_PREFIX = 'held: ';

export type OccurrenceState =
  | 'scheduled'
  | 'due'
  | 'paid'
  | 'sending'
  | 'unknown'
  | 'failed'
  | 'held'
  | 'missed'
  | 'paused'
  | 'cancelled';

/** What the journal holds of an occurrence's row: each entry's state as the rules read it, and its reason. */
export interface RowRecord {
  state: 'sending' | 'done' | 'failed' | 'unknown';
  reason?: string | undefined;
  /** An entry the operator resolved: `paid` counts as done, `not-paid` as failed (rules.ts). */
  resolution?: 'paid' | 'not-paid' | undefined;
}

/**
 * The state of an occurrence at `now`, from its row's entries (oldest first) and the schedule's state:
 * paid or held by the journal whatever the window; refused or missed once recorded; missed once its
 * window ended with nothing sent (the runner then records it); otherwise scheduled, due, or not to be
 * paid because the schedule is paused or cancelled.
 */
export function occurrenceState(
  records: readonly RowRecord[],
  window: Window,
  now: number,
  schedule: 'active' | 'paused' | 'cancelled',
): OccurrenceState {
  let settled: OccurrenceState | undefined;
  for (const record of records) {
    const state =
      record.resolution === 'paid' ? 'done' : record.resolution === 'not-paid' ? 'failed' : record.state;
    if (state === 'done') return 'paid';
    if (state === 'sending' || state === 'unknown') settled = state;
    else if (record.reason === MISSED_REASON) settled ??= 'missed';
    else if (record.reason?.startsWith(HELD_PREFIX)) settled ??= 'held';
    else if (record.reason?.startsWith(REFUSED_PREFIX) || record.reason === 'rejected') settled ??= 'failed';
  }
  if (settled !== undefined) return settled;
  if (schedule !== 'active') return schedule;
  if (now < window.start) return 'scheduled';
  return now < window.end ? 'due' : 'missed';
}
