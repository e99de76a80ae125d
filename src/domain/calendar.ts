/**
 * Brazilian national holidays and business days (dias úteis), on calendar dates `YYYY-MM-DD`.
 * The holiday table and the walk are @brazilian-utils'. Its functions read the LOCAL calendar day
 * of a Date, so dates are handed to it as local noon of the given day: the answer is then the same
 * whatever the process time zone is.
 *
 * Carnaval (Monday and Tuesday) and Corpus Christi are "pontos facultativos", not statutory
 * holidays, but banks do not open on them (FEBRABAN's national bank holidays); they count as
 * non-business days here (the library's default `includeOptional: true`). The library lists only
 * Carnaval Tuesday, so Carnaval Monday (the day before it) is added here: that is the one piece of
 * the calendar written by hand. State and city holidays are not considered.
 */
import { differenceInBusinessDays } from '@brazilian-utils/brazilian-utils/difference-in-business-days';
import { getHolidays } from '@brazilian-utils/brazilian-utils/get-holidays';
import { isBusinessDay as libIsBusinessDay } from '@brazilian-utils/brazilian-utils/is-business-day';
import { InvalidValue } from './invalid.js';
import { addDays, parseDateOnly } from './when.js';

const FIRST_YEAR = 1900;
const LAST_YEAR = 2099;

function toLocalNoon(date: string): Date {
  const day = parseDateOnly(date);
  const [year, month, dayOfMonth] = day.split('-').map(Number) as [number, number, number];
  if (year < FIRST_YEAR || year > LAST_YEAR) {
    throw new InvalidValue(`${day}: business days are known from ${FIRST_YEAR} to ${LAST_YEAR} only`);
  }
  return new Date(year, month - 1, dayOfMonth, 12);
}

function fromLocal(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function outOfRange(): never {
  throw new InvalidValue(`business days are known from ${FIRST_YEAR} to ${LAST_YEAR} only`);
}

const carnavalMondays = new Map<number, string>();

/** Carnaval Monday of `year`: the day before the library's Carnaval Tuesday. */
function carnavalMonday(year: number): string {
  let day = carnavalMondays.get(year);
  if (day === undefined) {
    const tuesday = getHolidays({ year }).find((h) => h.name.startsWith('Carnaval'));
    day = tuesday ? addDays(fromLocal(tuesday.date), -1) : '';
    carnavalMondays.set(year, day);
  }
  return day;
}

/** False on Saturdays, Sundays, national holidays, Carnaval (Monday and Tuesday) and Corpus Christi. */
export function isBusinessDay(date: string): boolean {
  const local = toLocalNoon(date);
  return libIsBusinessDay(local) && carnavalMonday(local.getFullYear()) !== date.trim();
}

/** Carnaval Mondays `d` with `from < d <= to`. */
function carnavalMondaysIn(from: string, to: string): number {
  let count = 0;
  for (let year = Number(from.slice(0, 4)); year <= Number(to.slice(0, 4)); year++) {
    const monday = carnavalMonday(year);
    if (monday > from && monday <= to) count++;
  }
  return count;
}

/**
 * Business days `d` with `from < d <= to`: the working days that pass from `from` to `to`, e.g.
 * the days of delay from a due date to a payment date (Friday → next Monday is 1). Negative when
 * `to` is before `from`; 0 on the same day.
 */
export function businessDaysBetween(from: string, to: string): number {
  // The library counts [earlier, later); shifting both ends one day gives (from, to].
  const a = parseDateOnly(from);
  const b = parseDateOnly(to);
  if (a > b) return -businessDaysBetween(b, a);
  const result = differenceInBusinessDays(toLocalNoon(addDays(b, 1)), toLocalNoon(addDays(a, 1)));
  if (result === null) return outOfRange();
  return result - carnavalMondaysIn(a, b);
}

/** The date `days` business days after `date` (before it when negative); `date` itself when 0. */
export function addBusinessDays(date: string, days: number): string {
  if (!Number.isInteger(days)) throw new InvalidValue(`${days} is not a whole number of business days`);
  // Walked here rather than with the library's addBusinessDays, which does not know Carnaval Monday.
  let day = parseDateOnly(date);
  const step = days < 0 ? -1 : 1;
  for (let left = Math.abs(days); left > 0; ) {
    day = addDays(day, step);
    if (isBusinessDay(day)) left--;
  }
  return day;
}

/** `date` when it is a business day, otherwise the next one (a due date on a holiday rolls forward). */
export function nextBusinessDayOnOrAfter(date: string): string {
  let day = parseDateOnly(date);
  while (!isBusinessDay(day)) day = addDays(day, 1);
  return day;
}

export interface NationalHoliday {
  date: string;
  /** In Portuguese, as published (`Sexta-feira Santa`). */
  name: string;
  /** `national` (statutory) or `optional` (ponto facultativo, e.g. Carnaval). */
  type: string;
}

/** The national holidays of a year (1900–2099), in date order. */
export function nationalHolidays(year: number): NationalHoliday[] {
  if (!Number.isInteger(year) || year < FIRST_YEAR || year > LAST_YEAR) outOfRange();
  return getHolidays({ year }).map((h) => ({ date: fromLocal(h.date), name: h.name, type: h.type }));
}
