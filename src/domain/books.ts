/**
 * A day's books (`pix close`), pure: which statement entries fall on a Brasília calendar day, what they add
 * to the balance, and what a closed day remembers of them so that a later statement that changes it is
 * seen. The API gives no balance (API §2.1): the balance is the previous close's (or the opening balance
 * given once) plus the day's entries less their fees, summed by the books' rule (domain/sums.ts BOOKS:
 * CONFIRMED entries only, a fee its size whatever its sign).
 */
import { createHash } from 'node:crypto';
import { dayLookup, parseInstant } from './days.js';
import { InvalidValue } from './invalid.js';
import type { Centavos } from './money.js';
import { BOOKS, centavosOf, readEntry } from './sums.js';

/** What a day's books read of a statement entry (the API's fields, amounts in reais). */
export interface BookEntry {
  id: string;
  type: string;
  amount: number;
  fee?: number | undefined;
  status: string;
  confirmedAt: string;
}

export interface DayTotals {
  income: Centavos;
  /** Negative. */
  outcome: Centavos;
  /** Positive: what the fees took. */
  fees: Centavos;
  count: number;
}

export type CloseKind = 'final' | 'provisional';

/** A closed day as `closes.jsonl` keeps it (the latest line of a day is its close). */
export interface ClosedDay {
  day: string;
  kind: CloseKind;
  /** When it was closed, and the instant its entries run to (the day's end, or then for a provisional one). */
  closedAt: string;
  through: string;
  opening: Centavos;
  closing: Centavos;
  totals: DayTotals;
  /** Each entry of the day (id → fingerprint): what a later statement is compared with. */
  entries: Record<string, string>;
  /** SHA-256 (hex) of the pack's SHA256SUMS, and where the pack was written. */
  digest: string;
  dir: string;
  /** An SSH signature of the pack's SHA256SUMS, when signing was available. */
  signature?: string | undefined;
  /** The SHA256SUMS text itself (closes made before it was kept: read from the pack). */
  sums?: string | undefined;
  /** The public key that signed it (`ssh-ed25519 AAAA…`): what its signature is checked against. */
  signer?: string | undefined;
}

/** Why a closed day does not add up, by itself and beside the day before it; none when it does. */
export function closeProblems(closes: readonly ClosedDay[]): Array<{ day: string; reason: string }> {
  const problems: Array<{ day: string; reason: string }> = [];
  const byDay = new Map(closes.map((close) => [close.day, close]));
  for (const close of closes) {
    const expected = closingOf(close.opening, close.totals);
    if (expected !== close.closing) {
      problems.push({
        day: close.day,
        reason: `its closing ${close.closing} is not its opening ${close.opening} plus its entries (${close.totals.income} in, ${close.totals.outcome} out, ${close.totals.fees} fees) = ${expected} (centavos)`,
      });
      continue;
    }
    if (close.totals.count > Object.keys(close.entries).length) {
      problems.push({
        day: close.day,
        reason: `it counts ${close.totals.count} entries and lists ${Object.keys(close.entries).length}`,
      });
      continue;
    }
    const before = byDay.get(previousDay(close.day));
    if (before !== undefined && before.kind === 'final' && before.closing !== close.opening) {
      problems.push({
        day: close.day,
        reason: `its opening ${close.opening} is not the closing of ${before.day} (${before.closing}) (centavos)`,
      });
      continue;
    }
    if (close.sums !== undefined && createHash('sha256').update(close.sums).digest('hex') !== close.digest) {
      problems.push({ day: close.day, reason: 'its digest is not the SHA-256 of its SHA256SUMS' });
    }
  }
  return problems;
}

/** The calendar day before `day` (YYYY-MM-DD). */
function previousDay(day: string): string {
  const at = new Date(`${day}T12:00:00Z`);
  at.setUTCDate(at.getUTCDate() - 1);
  return at.toISOString().slice(0, 10);
}

/**
 * A booked entry's amount and fee in centavos, by the books' rule (domain/sums.ts BOOKS: the fee as the charge
 * it is); InvalidValue for one pix cannot add exactly (the close refuses its day before it gets here).
 */
export function bookedOf(entry: Pick<BookEntry, 'amount' | 'fee'>): { amount: Centavos; fee: Centavos } {
  const read = readEntry({ ...entry, status: 'CONFIRMED' }, BOOKS);
  if (typeof read === 'string')
    throw new InvalidValue("an entry's amount or fee is not a number pix can add exactly");
  return read;
}

/** What identifies an entry's effect on the books: a change to any of it changes a closed day. */
export function fingerprint(entry: BookEntry): string {
  // Kept as closes already wrote it: an unreadable amount or fee reads as 0.
  const amount = centavosOf(entry.amount) ?? 0;
  const fee = Math.abs(centavosOf(entry.fee) ?? 0);
  const text = `${entry.type}|${amount}|${fee}|${entry.status}|${entry.confirmedAt}`;
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The entries of `entries` whose confirmation falls on `day` in `timeZone`, oldest first. */
export function entriesOfDay<E extends BookEntry>(entries: Iterable<E>, day: string, timeZone: string): E[] {
  const dayOf = dayLookup(timeZone);
  const found: Array<{ entry: E; ms: number }> = [];
  for (const entry of entries) {
    const ms = parseInstant(entry.confirmedAt);
    if (ms !== undefined && dayOf(ms).date === day) found.push({ entry, ms });
  }
  found.sort((a, b) => a.ms - b.ms || (a.entry.id < b.entry.id ? -1 : 1));
  return found.map((item) => item.entry);
}

/** The balance after the day: the opening plus what came in, less what went out and the fees. */
export function closingOf(opening: Centavos, totals: DayTotals): Centavos {
  return opening + totals.income + totals.outcome - totals.fees;
}

export interface DayChanges {
  day: string;
  added: string[];
  removed: string[];
  changed: string[];
}

/** How `current` (the day's entries as the statement shows them now) differs from what the close kept. */
export function changesOf(closed: ClosedDay, current: readonly BookEntry[]): DayChanges | undefined {
  const seen = new Set<string>();
  const added: string[] = [];
  const changed: string[] = [];
  for (const entry of current) {
    seen.add(entry.id);
    const kept = closed.entries[entry.id];
    if (kept === undefined) added.push(entry.id);
    else if (kept !== fingerprint(entry)) changed.push(entry.id);
  }
  const removed = Object.keys(closed.entries).filter((id) => !seen.has(id));
  if (added.length + removed.length + changed.length === 0) return undefined;
  return { day: closed.day, added, removed, changed };
}

/** `2 entries added (1a2b3c4d, …), 1 changed (…)`. */
export function describeChanges(changes: DayChanges): string {
  const part = (ids: string[], what: string) =>
    ids.length === 0
      ? []
      : [
          `${ids.length} ${ids.length === 1 ? 'entry' : 'entries'} ${what} (${ids
            .slice(0, 3)
            .map((id) => id.slice(0, 8))
            .join(', ')}${ids.length > 3 ? ', …' : ''})`,
        ];
  return [
    ...part(changes.added, 'added'),
    ...part(changes.removed, 'gone'),
    ...part(changes.changed, 'changed'),
  ].join(', ');
}

/** Lines of `closes.jsonl` (oldest first) → each day's close: the latest line of a day replaces the earlier. */
export function foldCloses(lines: readonly ClosedDay[]): ClosedDay[] {
  const byDay = new Map<string, ClosedDay>();
  for (const line of lines) byDay.set(line.day, line);
  return [...byDay.values()].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

/** A line of `closes.jsonl`, or undefined when it is not a whole close (a damaged line proves nothing). */
export function closeOf(value: unknown): ClosedDay | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const int = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x);
  const totals = v.totals as Record<string, unknown> | undefined;
  if (
    typeof v.day !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}$/.test(v.day) ||
    (v.kind !== 'final' && v.kind !== 'provisional') ||
    typeof v.closedAt !== 'string' ||
    typeof v.through !== 'string' ||
    !int(v.opening) ||
    !int(v.closing) ||
    typeof totals !== 'object' ||
    totals === null ||
    !['income', 'outcome', 'fees', 'count'].every((k) => int(totals[k])) ||
    typeof v.entries !== 'object' ||
    v.entries === null ||
    typeof v.digest !== 'string' ||
    typeof v.dir !== 'string' ||
    (v.signature !== undefined && typeof v.signature !== 'string') ||
    (v.sums !== undefined && typeof v.sums !== 'string') ||
    (v.signer !== undefined && typeof v.signer !== 'string')
  ) {
    return undefined;
  }
  return value as ClosedDay;
}
