/**
 * What a due-date charge costs on a given calendar day: ONE implementation, used by the sandbox that
 * prices its charges and by the matcher that recognises their payments in the statement. All in
 * integer centavos:
 *
 *   final = original − abatement − discount + fine + interest   (never below R$ 0,01)
 *
 * - abatement: always. FIXED_VALUE: amountPerc reais; PERCENT: amountPerc % of the original. Capped at
 *   original − R$ 0,01.
 * - discount: on or before the due date only.
 *   FIXED_VALUE_UNTIL_THE_DATES_INFORMED / PERCENTAGE_DATE_REPORTED: the first entry of
 *   discountDateFixed (by date) whose date is the day of payment or later gives reais / % of the
 *   original; AMOUNT_PER_CALENDAR_DAY_ADVANCE / AMOUNT_ADVANCE_BUSINESS_DAY: amountPerc reais per
 *   calendar / business day before the due date; PERCENTAGE_ADVANCE_CURRENT_DAY /
 *   PERCENTAGE_ADVANCE_BUSINESS_DAY: amountPerc % of the original per calendar / business day.
 *   Capped at original − abatement − R$ 0,01.
 * - fine: once, after the due date. FIXED_VALUE: reais; PERCENT: % of the original.
 * - interest: after the due date, per day late (calendar days, or business days for the *_WORKING_DAYS
 *   modalities): VALUE_*: reais per day; PERCENTAGE_PER_DAY*: % per day; PERCENTAGE_PER_MONTH_*: % per
 *   month ÷ 30 per day; PERCENTAGE_PER_YEAR_*: % per year ÷ 365 per day. Of the original amount.
 *
 * Each part is rounded half up to the centavo, exactly (integer arithmetic on the percentage taken to
 * 4 decimals, never a float product). Days late count from the day after the due date up to the day
 * of payment; days of advance from the day of payment up to the day before the due date. Business
 * days: not Saturday, Sunday, a Brazilian national holiday, Carnaval or Corpus Christi (calendar.ts).
 * A modality these rules do not know adds nothing (`unknownModalities` names them, so a caller can say
 * that its amount may differ from the provider's).
 *
 * Days are calendar days in a time zone: the provider's (and the sandbox's) is Brasília; the profile's
 * `time-zone` is passed where it applies (`dueDateAmountsAt`).
 */
import { isPercentModality, MODALITIES } from './modalities.js';
import { type Centavos, centavosFromApi, formatBRL } from './money.js';
import { addDays, parseDateOnly, todayIn } from './when.js';

/** The time zone of the provider's calendar (and of the sandbox): Brasília. */
export const BRASILIA_TIME_ZONE = 'America/Sao_Paulo';

/** One modifier of a due-date charge, as the API request carries it (amounts in reais, API §2.3). */
export interface DueDateModifier {
  modality: string;
  amountPerc?: number | undefined;
  discountDateFixed?: Array<{ date: string; amountPerc: number }> | undefined;
}

/** The four modifiers of a due-date charge, field names as in the API request. */
export interface DueDateModifiers {
  amountDiscount?: DueDateModifier | undefined;
  amountAbatement?: DueDateModifier | undefined;
  amountFine?: DueDateModifier | undefined;
  amountInterest?: DueDateModifier | undefined;
}

/** A due-date charge's own terms: the original amount, the due date and its modifiers. */
export interface DueDateTerms extends DueDateModifiers {
  amount: Centavos;
  /** `YYYY-MM-DD`. */
  dueDate: string;
}

/** The parts of what is due on one day, in centavos (the API's consult shows the same six). */
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
  const centavos = centavosFromApi(value ?? 0);
  return Number.isSafeInteger(centavos) ? centavos : 0;
}

const PERCENT_SCALE = 10_000n; // percentages are taken to 4 decimals (the CLI accepts 4)

/**
 * `perc` % of `base` centavos, times `days / per`, rounded half up — exactly: BigInt arithmetic, so
 * 0.5 % of R$ 2,01 is R$ 0,01 (1.005 centavos), never 1.0049999… rounded down.
 */
function percentOf(base: Centavos, perc: number | undefined, days = 1, per = 1): Centavos {
  const scaled = Math.round((perc ?? 0) * Number(PERCENT_SCALE));
  if (!Number.isSafeInteger(scaled) || scaled <= 0 || days <= 0) return 0;
  const numerator = BigInt(base) * BigInt(scaled) * BigInt(days);
  const denominator = 100n * PERCENT_SCALE * BigInt(per);
  return Number((2n * numerator + denominator) / (2n * denominator));
}

function discountFor(
  terms: DueDateTerms,
  day: string,
  isBusinessDay: BusinessDayTest,
  original: Centavos,
): Centavos {
  const d = terms.amountDiscount;
  if (!d) return 0;
  const { dueDate } = terms;
  const calendarAdvance = () => daysBetween(day, dueDate);
  // Business days from the day of payment up to the day before the due date.
  const businessAdvance = () => businessDaysAfter(addDays(day, -1), addDays(dueDate, -1), isBusinessDay);
  switch (d.modality) {
    case 'FIXED_VALUE_UNTIL_THE_DATES_INFORMED':
    case 'PERCENTAGE_DATE_REPORTED': {
      const dates = [...(d.discountDateFixed ?? [])].sort((a, b) => (a.date < b.date ? -1 : 1));
      const applicable = dates.find((item) => item.date >= day);
      if (!applicable) return 0;
      return d.modality === 'PERCENTAGE_DATE_REPORTED'
        ? percentOf(original, applicable.amountPerc)
        : reais(applicable.amountPerc);
    }
    case 'AMOUNT_PER_CALENDAR_DAY_ADVANCE':
      return reais(d.amountPerc) * calendarAdvance();
    case 'AMOUNT_ADVANCE_BUSINESS_DAY':
      return reais(d.amountPerc) * businessAdvance();
    case 'PERCENTAGE_ADVANCE_CURRENT_DAY':
      return percentOf(original, d.amountPerc, calendarAdvance());
    case 'PERCENTAGE_ADVANCE_BUSINESS_DAY':
      return percentOf(original, d.amountPerc, businessAdvance());
    default:
      return 0;
  }
}

function interestFor(
  terms: DueDateTerms,
  day: string,
  isBusinessDay: BusinessDayTest,
  original: Centavos,
): Centavos {
  const i = terms.amountInterest;
  if (!i) return 0;
  const m = i.modality;
  if (!(MODALITIES.interest as readonly string[]).includes(m)) return 0;
  const days = m.endsWith('WORKING_DAYS')
    ? businessDaysAfter(terms.dueDate, day, isBusinessDay)
    : daysBetween(terms.dueDate, day);
  if (m.startsWith('VALUE_')) return reais(i.amountPerc) * days;
  if (m.startsWith('PERCENTAGE_PER_MONTH')) return percentOf(original, i.amountPerc, days, 30);
  if (m.startsWith('PERCENTAGE_PER_YEAR')) return percentOf(original, i.amountPerc, days, 365);
  return percentOf(original, i.amountPerc, days); // PERCENTAGE_PER_DAY*
}

/** A fixed (reais) or percentage (of the original) modifier: abatement and fine. */
function fixedOrPercent(modifier: DueDateModifier | undefined, original: Centavos): Centavos {
  if (!modifier) return 0;
  if (modifier.modality === 'PERCENT') return percentOf(original, modifier.amountPerc);
  if (modifier.modality === 'FIXED_VALUE') return reais(modifier.amountPerc);
  return 0;
}

/** What the charge of `terms` costs on calendar day `day` (`YYYY-MM-DD`). */
export function dueDateAmounts(terms: DueDateTerms, day: string, isBusinessDay: BusinessDayTest): Amounts {
  const original = terms.amount;
  const abatement = clamp(fixedOrPercent(terms.amountAbatement, original), original - 1);
  let discount = 0;
  let fine = 0;
  let interest = 0;
  if (day <= terms.dueDate) {
    discount = clamp(discountFor(terms, day, isBusinessDay, original), original - abatement - 1);
  } else {
    fine = clamp(fixedOrPercent(terms.amountFine, original));
    interest = clamp(interestFor(terms, day, isBusinessDay, original));
  }
  const final = Math.max(original - abatement - discount + fine + interest, 1);
  return { original, abatement, discount, fine, interest, final };
}

function clamp(value: Centavos, max = Number.MAX_SAFE_INTEGER): Centavos {
  return Math.min(Math.max(value, 0), Math.max(max, 0));
}

/**
 * What the charge of `terms` costs at instant `at`: on its calendar day in `timeZone` (default
 * Brasília, the provider's calendar; pass the profile's `time-zone` where the user's day is meant).
 */
export function dueDateAmountsAt(
  terms: DueDateTerms,
  at: Date,
  isBusinessDay: BusinessDayTest,
  timeZone = BRASILIA_TIME_ZONE,
): Amounts {
  return dueDateAmounts(terms, todayIn(timeZone, at), isBusinessDay);
}

/**
 * The modalities of `terms` these rules do not know (the CLI passes unknown upper-case modalities on
 * to the API with a warning): each adds nothing here, so the amount the provider asks may differ.
 */
export function unknownModalities(terms: DueDateModifiers): string[] {
  const known: Array<[DueDateModifier | undefined, readonly string[]]> = [
    [terms.amountDiscount, MODALITIES.discount],
    [terms.amountAbatement, MODALITIES.abatement],
    [terms.amountFine, MODALITIES.fine],
    [terms.amountInterest, MODALITIES.interest],
  ];
  return known.filter(([m, list]) => m !== undefined && !list.includes(m.modality)).map(([m]) => m!.modality);
}

/** True when `terms` name a real due date (the ledger is a file: it is checked before it is priced). */
export function hasValidDueDate(terms: Pick<DueDateTerms, 'dueDate'>): boolean {
  try {
    return parseDateOnly(terms.dueDate) === terms.dueDate;
  } catch {
    return false;
  }
}

let businessDayTest: BusinessDayTest | undefined;

/**
 * The business-day test of calendar.ts, memoised per day. Loaded lazily (it pulls the holiday
 * library): only due-date amounts need it.
 */
export async function loadBusinessDayTest(): Promise<BusinessDayTest> {
  if (businessDayTest) return businessDayTest;
  const { isBusinessDay } = await import('./calendar.js');
  const memo = new Map<string, boolean>();
  businessDayTest = (date: string) => {
    let answer = memo.get(date);
    if (answer === undefined) {
      answer = isBusinessDay(date);
      memo.set(date, answer);
    }
    return answer;
  };
  return businessDayTest;
}

const PER: Readonly<Record<string, string>> = {
  VALUE_CALENDAR_DAYS: 'per calendar day late',
  VALUE_WORKING_DAYS: 'per working day late',
  PERCENTAGE_PER_DAY_CALENDAR_DAYS: 'per day late (calendar days)',
  PERCENTAGE_PER_DAYWORKING_DAYS: 'per day late (working days)',
  PERCENTAGE_PER_MONTH_CALENDAR_DAYS: 'per month late (calendar days)',
  PERCENTAGE_PER_MONTH_WORKING_DAYS: 'per month late (working days)',
  PERCENTAGE_PER_YEAR_CALENDAR_DAYS: 'per year late (calendar days)',
  PERCENTAGE_PER_YEAR_WORKING_DAYS: 'per year late (working days)',
  AMOUNT_PER_CALENDAR_DAY_ADVANCE: 'per calendar day paid early',
  AMOUNT_ADVANCE_BUSINESS_DAY: 'per business day paid early',
  PERCENTAGE_ADVANCE_CURRENT_DAY: 'per calendar day paid early',
  PERCENTAGE_ADVANCE_BUSINESS_DAY: 'per business day paid early',
  FIXED_VALUE: 'once, after the due date',
  PERCENT: 'of the amount, once, after the due date',
};

/** `R$ 2,00` or `2,5 %`: an amountPerc in the unit its modality gives it. */
function inUnit(modality: string, amountPerc: number | undefined): string {
  if (amountPerc === undefined) return '?';
  if (isPercentModality(modality)) return `${String(amountPerc).replace('.', ',')} %`;
  return formatBRL(centavosFromApi(amountPerc));
}

/**
 * A due-date charge's modifiers in words, each with its unit and the modality sent, for people
 * (`charge duedate`, `charge show`): `Fine: R$ 2,00 once, after the due date (FIXED_VALUE)`.
 */
export function describeModifiers(terms: DueDateModifiers): Array<[string, string]> {
  const lines: Array<[string, string]> = [];
  const { amountDiscount: discount } = terms;
  if (discount) {
    const dated = discount.discountDateFixed?.map(
      (d) => `${inUnit(discount.modality, d.amountPerc)} until ${d.date}`,
    );
    const text = dated?.length
      ? dated.join('; ')
      : `${inUnit(discount.modality, discount.amountPerc)} ${PER[discount.modality] ?? ''}`;
    lines.push(['Discount', `${text.trim()} (${discount.modality})`]);
  }
  const simple: Array<[string, DueDateModifier | undefined, string]> = [
    ['Abatement', terms.amountAbatement, 'off the amount'],
    ['Fine', terms.amountFine, ''],
    ['Interest', terms.amountInterest, ''],
  ];
  for (const [label, modifier, fixed] of simple) {
    if (!modifier) continue;
    const per = label === 'Abatement' ? fixed : (PER[modifier.modality] ?? '');
    lines.push([
      label,
      `${`${inUnit(modifier.modality, modifier.amountPerc)} ${per}`.trim()} (${modifier.modality})`,
    ]);
  }
  return lines;
}
