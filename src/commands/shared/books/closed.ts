/**
 * A closed day is remembered (domain/books.ts ClosedDay): a statement read later that shows that day
 * otherwise — an entry added, gone or changed — is reported by the next `pix close` and by
 * `pix reconcile`, and never absorbed: the close stays as it was booked.
 */
import {
  type BookEntry,
  type ClosedDay,
  changesOf,
  type DayChanges,
  describeChanges,
  entriesOfDay,
} from '../../../domain/books.js';
import { BRASILIA_TIME_ZONE } from '../../../domain/duedate.js';
import { formatBRL } from '../../../domain/money.js';
import { endOfDay, startOfDay } from '../../../domain/when.js';

export interface ChangedDay extends DayChanges {
  kind: ClosedDay['kind'];
  closing: number;
  /** For people. */
  message: string;
}

/**
 * The closed days that `entries` (the statement from `from` to `to`, ms) covers whole and shows otherwise
 * than when they were closed. A provisional close is compared up to the instant it ran to.
 */
export function checkClosedDays(
  closes: readonly ClosedDay[],
  entries: readonly BookEntry[],
  from: number,
  to: number,
): ChangedDay[] {
  const changed: ChangedDay[] = [];
  for (const closed of closes) {
    const start = Date.parse(startOfDay(closed.day, BRASILIA_TIME_ZONE));
    const through = Math.min(
      Date.parse(closed.through),
      Date.parse(endOfDay(closed.day, BRASILIA_TIME_ZONE)),
    );
    if (start < from || through > to) continue;
    const current = entriesOfDay(entries, closed.day, BRASILIA_TIME_ZONE).filter(
      (entry) => Date.parse(entry.confirmedAt) <= through,
    );
    const changes = changesOf(closed, current);
    if (!changes) continue;
    changed.push({
      ...changes,
      kind: closed.kind,
      closing: closed.closing,
      message: `closed day ${closed.day} (${closed.kind}) changed since it was closed: ${describeChanges(changes)}; its close stays as booked (closing ${formatBRL(closed.closing)}): book the difference`,
    });
  }
  return changed;
}
