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
