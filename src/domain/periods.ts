/**
 * The statement summarised by period (`pix statement summary`): per day, ISO week or month of the
 * profile's time zone, the number of entries, income, outcome (negative), fees and net, plus a total.
 *
 * Rules (README, "pix statement summary"):
 * - An entry belongs to the period of its `confirmedAt` in the time zone. Its sums are the books' rule
 *   (domain/sums.ts BOOKS): CONFIRMED entries, income the positive amounts and outcome the negative ones
 *   whatever the type says, each fee as the charge it is; net = income + outcome − fees. The same rule as
 *   `pix statement`'s totals and `pix close`, so the summary's total equals `pix statement --all`'s over
 *   the range, and a day's net is its close's closing less its opening.
 * - Every period of the range is there, in order, with zeros when no entry fell in it; the first and
 *   the last may be `partial` (the range starts or ends inside them).
 * - Labels: `2026-03-12` (day), `2026-W11` (ISO 8601 week: Monday to Sunday, numbered in the year of
 *   its Thursday, so 2026-12-31 is in 2026-W53 and 2027-01-01 in 2026-W53 too), `2026-03` (month).
 * - An entry outside the range (a server that does not filter) or whose time or amount cannot be read
 *   is left out of every period and of the total, and so is one BOOKS does not count; each is counted
 *   (`outside`, `unreadable`, `uncounted`) so the command can say so.
 *
 * Integer centavos throughout. One entry at a time, in any order: time linear in the entries, memory
 * one row per period of the range (at most MAX_PERIODS).
 */
import { dayLookup, parseInstant, type ZonedDay } from './days.js';
import { InvalidValue } from './invalid.js';
import { BOOKS, readEntry, type SummedEntry, type Sums, Tally } from './sums.js';
import { addDays, startOfDay } from './when.js';

export const PERIOD_UNITS = ['day', 'week', 'month'] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];

/** The most periods one summary holds: 100,000 days is 270 years (the range is refused beyond it). */
export const MAX_PERIODS = 100_000;

export type { Sums } from './sums.js';

/** `--by`: day, week or month (any case). */
export function parsePeriodUnit(text: string): PeriodUnit {
  const unit = text.trim().toLowerCase();
  if ((PERIOD_UNITS as readonly string[]).includes(unit)) return unit as PeriodUnit;
  throw new InvalidValue(`"${text}" is not a period: use day, week or month`);
}

/** A period of the calendar: its label and its first and last days (`YYYY-MM-DD`). */
export interface Period {
  label: string;
  first: string;
  last: string;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function utc(date: string): Date {
  return new Date(`${date}T00:00:00.000Z`);
}

/** Monday 0 … Sunday 6. */
function weekday(date: string): number {
  return (utc(date).getUTCDay() + 6) % 7;
}

/** The ISO 8601 week of a day: the year of its Thursday and the week number (1–53). */
export function isoWeek(date: string): { year: number; week: number } {
  const thursday = utc(addDays(date, 3 - weekday(date)));
  const year = thursday.getUTCFullYear();
  const jan1 = Date.UTC(year, 0, 1);
  return { year, week: 1 + Math.floor((thursday.getTime() - jan1) / (7 * 86_400_000)) };
}

/** The period of `unit` that holds day `date`. */
export function periodOf(date: string, unit: PeriodUnit): Period {
  if (unit === 'day') return { label: date, first: date, last: date };
  if (unit === 'week') {
    const first = addDays(date, -weekday(date));
    const { year, week } = isoWeek(date);
    return { label: `${pad(year, 4)}-W${pad(week)}`, first, last: addDays(first, 6) };
  }
  const month = date.slice(0, 7);
  const first = `${month}-01`;
  const next = utc(first);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return { label: month, first, last: addDays(next.toISOString().slice(0, 10), -1) };
}

/** How many periods of `unit` from the one holding `first` to the one holding `last`. */
function periodCount(first: string, last: string, unit: PeriodUnit): number {
  const days = (a: string, b: string) => Math.round((utc(b).getTime() - utc(a).getTime()) / 86_400_000);
  if (unit === 'day') return days(first, last) + 1;
  if (unit === 'week') return days(periodOf(first, 'week').first, periodOf(last, 'week').first) / 7 + 1;
  const months = (d: string) => Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7));
  return months(last) - months(first) + 1;
}

/** One row of the summary. */
export interface PeriodSums extends Sums {
  /** The label: `2026-03-12`, `2026-W11` or `2026-03`. */
  period: string;
  first: string;
  last: string;
  /** The range covers only part of the period (its start or end is inside it). */
  partial: boolean;
}

/** What the summary reads of a statement entry (the API's fields; amounts in reais). */
export interface SummaryEntry extends SummedEntry {
  confirmedAt: string;
}

/** What became of an entry given to `add`. */
export type Added = 'added' | 'outside' | 'unreadable' | 'uncounted';

/**
 * A statement summary being built: `add` each entry (any order), then read `periods()` and `total()`.
 * `range` holds ISO instants as `parseWhen`/`parseMonth` give them (both ends included). Throws
 * InvalidValue for a range that ends before it starts or spans more than MAX_PERIODS periods.
 */
export class PeriodSummary {
  readonly unit: PeriodUnit;
  readonly timeZone: string;
  /** Entries outside the range, left out. */
  outside = 0;
  /** Entries whose time or amount could not be read, left out. */
  unreadable = 0;
  /** Entries in the range that BOOKS does not count (not CONFIRMED), left out. */
  uncounted = 0;
  private readonly fromMs: number;
  private readonly toMs: number;
  private readonly rows: Array<Period & { tally: Tally }> = [];
  private readonly index = new Map<string, number>();
  private readonly total_ = new Tally(BOOKS);
  private readonly dayOf: (ms: number) => ZonedDay;
  private lastDay: ZonedDay | undefined;
  private lastRow = 0;

  constructor(unit: PeriodUnit, range: { from: string; to: string }, timeZone: string) {
    this.unit = unit;
    this.timeZone = timeZone;
    const fromMs = parseInstant(range.from);
    const toMs = parseInstant(range.to);
    if (fromMs === undefined || toMs === undefined)
      throw new InvalidValue('the range needs two ISO instants');
    if (fromMs > toMs)
      throw new InvalidValue(`the range ends (${range.to}) before it starts (${range.from})`);
    this.fromMs = fromMs;
    this.toMs = toMs;
    this.dayOf = dayLookup(timeZone);
    const firstDay = this.dayOf(fromMs).date;
    const lastDay = this.dayOf(toMs).date;
    const count = periodCount(firstDay, lastDay, unit);
    if (count > MAX_PERIODS) {
      throw new InvalidValue(
        `${firstDay} to ${lastDay} is ${count} periods of a ${unit}; at most ${MAX_PERIODS} (use a longer period or a shorter range)`,
      );
    }
    for (let period = periodOf(firstDay, unit); period.first <= lastDay; ) {
      this.index.set(period.label, this.rows.length);
      this.rows.push({ ...period, tally: new Tally(BOOKS) });
      period = periodOf(addDays(period.last, 1), unit);
    }
  }

  /** Counts one entry into its period and the total (by BOOKS); says whether it was added or left out. */
  add(entry: SummaryEntry): Added {
    const ms = parseInstant(entry.confirmedAt);
    const read = readEntry(entry, BOOKS);
    if (ms === undefined || read === 'unreadable') {
      this.unreadable++;
      return 'unreadable';
    }
    if (ms < this.fromMs || ms > this.toMs) {
      this.outside++;
      return 'outside';
    }
    if (read === 'uncounted') {
      this.uncounted++;
      return 'uncounted';
    }
    const day = this.dayOf(ms);
    if (day !== this.lastDay) {
      this.lastDay = day;
      this.lastRow = this.index.get(periodOf(day.date, this.unit).label)!;
    }
    this.rows[this.lastRow]!.tally.addRead(read);
    this.total_.addRead(read);
    return 'added';
  }

  /** Every period of the range, oldest first, with zeros where nothing happened. */
  periods(): PeriodSums[] {
    const lastIndex = this.rows.length - 1;
    return this.rows.map((row, index) => ({
      period: row.label,
      first: row.first,
      last: row.last,
      // Only the first and the last period can stick out of the range.
      partial:
        (index === 0 && this.fromMs > Date.parse(startOfDay(row.first, this.timeZone))) ||
        (index === lastIndex && this.toMs < Date.parse(startOfDay(addDays(row.last, 1), this.timeZone)) - 1),
      ...row.tally.sums(),
    }));
  }

  /** The sums of every entry added. */
  total(): Sums {
    return this.total_.sums();
  }
}
