/**
 * The statement entries that could have paid one charge (`domain/matching.ts` decides among them): an
 * immediate charge's amount within its window, or a due-date charge's amount due on the day it was paid
 * (fine, interest, discounts and abatement by `domain/duedate.ts`), the day before's when it was confirmed
 * just after midnight.
 */

import type { ZonedDay } from './days.js';
import { type Amounts, type BusinessDayTest, dueDateAmounts, unknownModalities } from './duedate.js';
import type { Candidate, ChargeMatch, LedgerCharge, MatchableEntry } from './matching.js';
import { type Centavos, formatBRL } from './money.js';
import { addDays } from './when.js';

export function byTimeThenId<E extends MatchableEntry>(a: Candidate<E>, b: Candidate<E>): number {
  return a.ms - b.ms || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0);
}

/** Index of the first candidate at or after `ms` in a list sorted by time. */
function firstAtOrAfter<E extends MatchableEntry>(list: readonly Candidate<E>[], ms: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (list[mid]!.ms < ms) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The candidates of `list` (sorted by time) in [from, to]. */
function within<E extends MatchableEntry>(
  list: readonly Candidate<E>[] | undefined,
  from: number,
  to: number,
): Candidate<E>[] {
  const found: Candidate<E>[] = [];
  if (!list) return found;
  for (let i = firstAtOrAfter(list, from); i < list.length && list[i]!.ms <= to; i++) found.push(list[i]!);
  return found;
}

/** "fine R$ 2,00 and interest R$ 0,33" — the parts of an amount due that are not zero. */
function describeParts(amounts: Amounts): string {
  const parts = (['abatement', 'discount', 'fine', 'interest'] as const)
    .filter((part) => amounts[part] > 0)
    .map((part) => `${part} ${formatBRL(amounts[part])}`);
  if (parts.length === 0) return 'the original amount';
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

type Found = Pick<ChargeMatch, 'basis' | 'day' | 'amounts' | 'how'>;

export interface Pairing<E extends MatchableEntry> {
  candidate: Candidate<E>;
  found: Found;
}

interface Lookup<E extends MatchableEntry> {
  byAmount: Map<Centavos, Candidate<E>[]>;
  days: readonly ZonedDay[];
  late: number;
  isBusinessDay: BusinessDayTest;
}

export function payingImmediate<E extends MatchableEntry>(
  charge: LedgerCharge,
  window: { from: number; to: number },
  { byAmount }: Lookup<E>,
): Pairing<E>[] {
  const how = `matched by amount (${formatBRL(charge.amountCentavos)}) and time`;
  return within(byAmount.get(charge.amountCentavos), window.from, window.to).map((candidate) => ({
    candidate,
    found: { basis: 'amount', how },
  }));
}

export function payingDueDate<E extends MatchableEntry>(
  charge: LedgerCharge,
  window: { from: number; to: number },
  { byAmount, days, late, isBusinessDay }: Lookup<E>,
): Pairing<E>[] {
  const terms = { ...charge.terms, amount: charge.amountCentavos, dueDate: charge.dueDate! };
  const priced = new Map<string, Amounts | undefined>();
  const due = (date: string): Amounts | undefined => {
    if (!priced.has(date)) {
      let amounts: Amounts | undefined;
      try {
        amounts = dueDateAmounts(terms, date, isBusinessDay);
      } catch {
        amounts = undefined; // a day the business calendar does not know (before 1900, after 2099)
      }
      priced.set(date, amounts);
    }
    return priced.get(date);
  };
  const unknown = unknownModalities(terms);
  const caveat = unknown.length === 0 ? '' : ` (pix does not know ${unknown.join(', ')}: counted as nothing)`;
  const found = (paidDay: string, amounts: Amounts, carried: string): Found => ({
    basis: 'amount-due',
    day: paidDay,
    amounts,
    how: `matched by the amount due on ${paidDay}${carried}, ${formatBRL(amounts.final)}: ${describeParts(amounts)}${caveat}`,
  });

  const pairs: Pairing<E>[] = [];
  for (const day of days) {
    if (day.end <= window.from) continue;
    if (day.start > window.to) break;
    const from = Math.max(window.from, day.start);
    const to = Math.min(window.to, day.end - 1);
    const today = due(day.date);
    const onDay = today ? within(byAmount.get(today.final), from, to) : [];
    // Paid just before midnight, confirmed just after: the amount due the day before.
    const yesterday = addDays(day.date, -1);
    const before = due(yesterday);
    const early =
      before && before.final !== today?.final
        ? within(byAmount.get(before.final), from, Math.min(to, day.start + late - 1))
        : [];
    const carried = ` (confirmed just after midnight, on ${day.date})`;
    const dayPairs = [
      ...onDay.map((candidate) => ({ candidate, found: found(day.date, today!, '') })),
      ...early.map((candidate) => ({ candidate, found: found(yesterday, before!, carried) })),
    ].sort((a, b) => byTimeThenId(a.candidate, b.candidate));
    pairs.push(...dayPairs);
  }
  return pairs;
}
