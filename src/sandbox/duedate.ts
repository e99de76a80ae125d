/**
 * What a due-date charge costs on a given day (all in integer centavos):
 *
 *   final = original − abatement − discount + fine + interest   (never below R$ 0,01)
 *
 * - abatement: always. FIXED_VALUE: amountPerc reais; PERCENT: amountPerc % of the original.
 * - discount: on or before the due date only.
 *   FIXED_VALUE_UNTIL_THE_DATES_INFORMED / PERCENTAGE_DATE_REPORTED: the first entry of
 *   discountDateFixed whose date is today or later gives reais / % of the original;
 *   AMOUNT_PER_CALENDAR_DAY_ADVANCE / AMOUNT_ADVANCE_BUSINESS_DAY: amountPerc reais per calendar /
 *   business day before the due date; PERCENTAGE_ADVANCE_CURRENT_DAY /
 *   PERCENTAGE_ADVANCE_BUSINESS_DAY: amountPerc % of the original per calendar / business day.
 *   Capped at original − abatement − R$ 0,01.
 * - fine: once, after the due date. FIXED_VALUE: reais; PERCENT: % of the original.
 * - interest: after the due date, per day late (calendar days, or business days for the *_WORKING_DAYS
 *   modalities): VALUE_*: reais per day; PERCENTAGE_PER_DAY*: % per day; PERCENTAGE_PER_MONTH_*: % per
 *   month ÷ 30 per day; PERCENTAGE_PER_YEAR_*: % per year ÷ 365 per day. Of the original amount.
 * Each part is rounded half up to the centavo. Business days: not Saturday, Sunday or a Brazilian
 * national holiday. Days count from the day after the due date (late) or up to the day before it
 * (advance), both ends in the Brasília calendar.
 */
import { type Centavos, centavosFromApi } from '../domain/money.js';
import { addDays } from '../domain/when.js';
import type { ChargeModifier } from './state.js';

export interface DueDateTerms {
  amount: Centavos;
  dueDate: string;
  amountDiscount?: ChargeModifier | undefined;
  amountAbatement?: ChargeModifier | undefined;
  amountFine?: ChargeModifier | undefined;
  amountInterest?: ChargeModifier | undefined;
}

export interface Amounts {
  original: Centavos;
  abatement: Centavos;
  discount: Centavos;
  fine: Centavos;
  interest: Centavos;
  final: Centavos;
}

/** Is `YYYY-MM-DD` a business day? */
export type BusinessDayTest = (date: string) => boolean;

const DAY_MS = 86_400_000;
/** Brasília has had no daylight saving time since 2019: UTC−03:00 all year. */
const BRASILIA_OFFSET_MS = -3 * 3_600_000;

/** The Brasília calendar day of an instant, `YYYY-MM-DD`. */
export function brasiliaDate(instant: Date): string {
  return new Date(instant.getTime() + BRASILIA_OFFSET_MS).toISOString().slice(0, 10);
}

/** 00:00 in Brasília of a calendar day, as an instant. */
export function brasiliaMidnight(date: string): Date {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) - BRASILIA_OFFSET_MS);
}

/** Whole calendar days from `a` to `b` (positive when b is later). */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00.000Z`) - Date.parse(`${a}T00:00:00.000Z`)) / DAY_MS);
}

/** Business days in the half-open range (from, to]: days after `from` up to and including `to`. */
export function businessDaysAfter(from: string, to: string, isBusinessDay: BusinessDayTest): number {
  let count = 0;
  for (let day = addDays(from, 1); day <= to; day = addDays(day, 1)) if (isBusinessDay(day)) count++;
  return count;
}

/** Reais (as typed in the API, e.g. 2.5) → centavos. */
function reais(value: number | undefined): Centavos {
  return centavosFromApi(value ?? 0);
}

/** `perc` percent of `base` centavos, times `factor`, rounded half up. */
function percentOf(base: Centavos, perc: number | undefined, factor = 1): Centavos {
  return Math.round((base * (perc ?? 0) * factor) / 100);
}

export function dueDateAmounts(terms: DueDateTerms, today: string, isBusinessDay: BusinessDayTest): Amounts {
  const original = terms.amount;
  const { dueDate } = terms;

  let abatement = 0;
  const ab = terms.amountAbatement;
  if (ab) abatement = ab.modality === 'PERCENT' ? percentOf(original, ab.amountPerc) : reais(ab.amountPerc);
  abatement = Math.min(Math.max(abatement, 0), original - 1);

  let discount = 0;
  let fine = 0;
  let interest = 0;

  if (today <= dueDate) {
    const d = terms.amountDiscount;
    if (d) {
      const calendarAdvance = daysBetween(today, dueDate);
      const businessAdvance = () =>
        businessDaysAfter(addDays(today, -1), addDays(dueDate, -1), isBusinessDay);
      switch (d.modality) {
        case 'FIXED_VALUE_UNTIL_THE_DATES_INFORMED':
        case 'PERCENTAGE_DATE_REPORTED': {
          const dates = [...(d.discountDateFixed ?? [])].sort((a, b) => (a.date < b.date ? -1 : 1));
          const applicable = dates.find((item) => item.date >= today);
          if (applicable) {
            discount =
              d.modality === 'PERCENTAGE_DATE_REPORTED'
                ? percentOf(original, applicable.amountPerc)
                : reais(applicable.amountPerc);
          }
          break;
        }
        case 'AMOUNT_PER_CALENDAR_DAY_ADVANCE':
          discount = reais(d.amountPerc) * calendarAdvance;
          break;
        case 'AMOUNT_ADVANCE_BUSINESS_DAY':
          discount = reais(d.amountPerc) * businessAdvance();
          break;
        case 'PERCENTAGE_ADVANCE_CURRENT_DAY':
          discount = percentOf(original, d.amountPerc, calendarAdvance);
          break;
        case 'PERCENTAGE_ADVANCE_BUSINESS_DAY':
          discount = percentOf(original, d.amountPerc, businessAdvance());
          break;
      }
      discount = Math.min(Math.max(discount, 0), original - abatement - 1);
    }
  } else {
    const f = terms.amountFine;
    if (f)
      fine = Math.max(f.modality === 'PERCENT' ? percentOf(original, f.amountPerc) : reais(f.amountPerc), 0);
    const i = terms.amountInterest;
    if (i) {
      const working = i.modality.endsWith('WORKING_DAYS');
      const days = working ? businessDaysAfter(dueDate, today, isBusinessDay) : daysBetween(dueDate, today);
      const m = i.modality;
      if (m.startsWith('VALUE_')) interest = reais(i.amountPerc) * days;
      else if (m.startsWith('PERCENTAGE_PER_MONTH')) interest = percentOf(original, i.amountPerc, days / 30);
      else if (m.startsWith('PERCENTAGE_PER_YEAR')) interest = percentOf(original, i.amountPerc, days / 365);
      else if (m.startsWith('PERCENTAGE_PER_DAY')) interest = percentOf(original, i.amountPerc, days);
      interest = Math.max(interest, 0);
    }
  }

  const final = Math.max(original - abatement - discount + fine + interest, 1);
  return { original, abatement, discount, fine, interest, final };
}
