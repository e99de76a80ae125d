/**
 * What the passes of `reconcile` (domain/reconcile.ts) share: the entries as items, the state a pass
 * reads and settles, and the searches over sorted lists they make (nearest, between, pairs and subsets
 * that add up to an amount).
 */

import { headerKey } from './expectations.js';
import type { Centavos } from './money.js';
import type { Reconciled, ReconEntry, ReconExpectation, ReconOptions } from './reconcile.js';

/** Partial payments: at most this many parts, among this many nearest entries or invoices. */
export const MAX_PARTS = 4;
export const NEAREST = 12;
export const DAY_MS = 86_400_000;

export interface Item<E extends ReconEntry> {
  entry: E;
  ms: number;
  /** Signed centavos. */
  cents: Centavos;
  document: string | undefined;
  name: string | undefined;
  claimed: boolean;
}

export const byTime = <E extends ReconEntry>(a: Item<E>, b: Item<E>) =>
  a.ms - b.ms || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0);

export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The counterparty's name as compared: case, accents and spaces do not count. */
export const nameKey = (name: string | undefined) => (name === undefined ? undefined : headerKey(name));

/** `2026-03-10` of an expectation's due date, as the start of that day in ms (UTC midnight: only days count). */
export const dueMs = (due: string | undefined) =>
  due === undefined ? undefined : Date.parse(`${due}T12:00:00Z`);

/** All subsets of `items` of 2..MAX_PARTS elements whose `value`s add up to `target`, first found. */
export function subsetSum<T>(
  items: readonly T[],
  value: (item: T) => number,
  target: number,
): T[] | undefined {
  const chosen: T[] = [];
  const search = (start: number, left: number): boolean => {
    if (left === 0 && chosen.length >= 2) return true;
    if (chosen.length === MAX_PARTS || left <= 0) return false;
    for (let i = start; i < items.length; i++) {
      const v = value(items[i]!);
      if (v > left) continue;
      chosen.push(items[i]!);
      if (search(i + 1, left - v)) return true;
      chosen.pop();
    }
    return false;
  };
  return search(0, target) ? [...chosen] : undefined;
}

/** Index of the first item at or after `ms` in a list sorted by `at`. */
export function firstAtOrAfter<T>(items: readonly T[], at: (item: T) => number, ms: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (at(items[mid]!) < ms) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The items of a list sorted by `at` from `from` to `to`. */
export function between<T>(items: readonly T[], at: (item: T) => number, from: number, to: number): T[] {
  const found: T[] = [];
  for (let i = firstAtOrAfter(items, at, from); i < items.length && at(items[i]!) <= to; i++)
    found.push(items[i]!);
  return found;
}

/** The `n` items nearest to `ms` of a list sorted by `at`, in that order. */
export function nearest<T>(items: readonly T[], at: (item: T) => number, ms: number, n: number): T[] {
  if (items.length <= n) return [...items];
  let right = firstAtOrAfter(items, at, ms);
  let left = right - 1;
  while (right - left - 1 < n) {
    const takeLeft = left >= 0 && (right >= items.length || ms - at(items[left]!) <= at(items[right]!) - ms);
    if (takeLeft) left--;
    else right++;
  }
  return items.slice(left + 1, right);
}

/** Two different items whose `value`s add up to `target`, the earliest pair found. */
export function twoSum<T>(items: readonly T[], value: (item: T) => number, target: number): T[] | undefined {
  const seen = new Map<number, T>();
  for (const item of items) {
    const other = seen.get(target - value(item));
    if (other !== undefined) return [other, item];
    if (!seen.has(value(item))) seen.set(value(item), item);
  }
  return undefined;
}

export const shortEntry = (id: string) => id.slice(0, 8);

/** `; entry 1a2b3c4d was unmatched from it by hand (pix reconcile unmatch)`, or nothing. */
export function byHandWords(entries: readonly string[]): string {
  if (entries.length === 0) return '';
  const ids = entries.map(shortEntry).join(', ');
  return `; ${entries.length === 1 ? 'entry' : 'entries'} ${ids} ${entries.length === 1 ? 'was' : 'were'} unmatched from it by hand (pix reconcile unmatch)`;
}

/** What every pass of `reconcile` shares: the entries, what is still open, and how a pass settles. */
export interface Pass<E extends ReconEntry> {
  expectations: readonly ReconExpectation[];
  options: ReconOptions;
  /** Every result so far, in the order the passes made them. */
  results: Reconciled<E>[];
  /** The entries, once each, in time order. */
  items: Item<E>[];
  itemById: Map<string, Item<E>>;
  /** The ids of the expectations nothing has settled yet. */
  open: Set<string>;
  /** Records a result: its expectations leave `open`, its entries are claimed. */
  settle: (result: Reconciled<E>) => void;
  /** A confirmed entry nothing claimed, with an amount and a time. */
  usable: (item: Item<E>) => boolean;
  /** False for a pair a person unmatched. */
  allowed: (expectation: ReconExpectation, item: Item<E>) => boolean;
  /** The entries a person unmatched from an expectation: its why says so when it is left open. */
  unmatchedByHand: (expectation: ReconExpectation) => string[];
}

/** An expectation nothing settles, and why. */
export function unmatched<E extends ReconEntry>(expectation: ReconExpectation, why: string): Reconciled<E> {
  return {
    outcome: 'unmatched-expectation',
    manual: false,
    expectations: [expectation],
    entries: [],
    expected: expectation.amountCentavos,
    paid: 0,
    why,
  };
}
