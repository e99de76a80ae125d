/**
 * The journal's rules, pure functions over its entries (architecture rule 11): which state counts, which
 * earlier payment blocks a new one (the duplicate guard, contract §7.6), and finding an entry by id.
 *
 * - The operator's finding wins over what pix recorded: `paid` counts as done, `not-paid` as failed.
 * - A `sending` or `unknown` payment (sent, outcome never known) blocks the same payment with NO time
 *   limit, until `pix journal resolve` records what the statement shows.
 * - A `done` payment blocks the same dynamic code forever, and the same key (or static code) and amount
 *   for 10 minutes; a batch row once paid is never paid again.
 * - A `failed` payment (refused, or never sent) blocks nothing.
 */
import type { Centavos } from '../domain/money.js';
import type { EntryState, JournalEntry, PaymentIdentity } from './entries.js';

/** The same key (or static code) and amount within this window of a `done` payment is a duplicate. */
export const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;

/** The state the rules act on: the recorded one, unless the operator resolved it. */
export function effectiveState(entry: JournalEntry): EntryState {
  if (entry.resolution === 'paid') return 'done';
  if (entry.resolution === 'not-paid') return 'failed';
  return entry.state;
}

/** Sent with no known outcome and not resolved by the operator: it must be looked at. */
export function isUnresolved(entry: JournalEntry): boolean {
  const state = effectiveState(entry);
  return state === 'sending' || state === 'unknown';
}

/** Whether `resolve` may be used on the entry: only an outcome pix could not know is the operator's to say. */
export function isResolvable(entry: JournalEntry): boolean {
  return entry.state === 'sending' || entry.state === 'unknown';
}

export interface DuplicateQuery extends PaymentIdentity {
  amountCentavos: Centavos;
}

/** An earlier payment that stops this one, and why: still unresolved, or already paid. */
export interface Blocker {
  entry: JournalEntry;
  why: 'unresolved' | 'paid';
}

function samePayee(entry: JournalEntry, query: DuplicateQuery): boolean {
  const earlier = entry.payment;
  if (!earlier || earlier.method !== query.method) return false;
  if (query.method === 'qr') {
    if (earlier.emvHash === undefined || earlier.emvHash !== query.emvHash) return false;
    // A dynamic code is one payment whatever the amount; a static one is told apart by its amount.
    return (
      query.dynamic === true || earlier.dynamic === true || entry.amountCentavos === query.amountCentavos
    );
  }
  return (
    earlier.key !== undefined && earlier.key === query.key && entry.amountCentavos === query.amountCentavos
  );
}

function sameBatchRow(entry: JournalEntry, query: DuplicateQuery): boolean {
  const earlier = entry.payment?.batchRow;
  const row = query.batchRow;
  return earlier !== undefined && row !== undefined && earlier.batch === row.batch && earlier.row === row.row;
}

/** Why `entry` stops the payment `query` at `now`, if it does. */
function blocks(entry: JournalEntry, query: DuplicateQuery, now: Date): Blocker['why'] | undefined {
  if (entry.kind !== 'payment') return undefined;
  const state = effectiveState(entry);
  if (state === 'failed') return undefined;
  const why = state === 'done' ? 'paid' : 'unresolved';
  if (sameBatchRow(entry, query)) return why;
  if (!samePayee(entry, query)) return undefined;
  if (why === 'unresolved') return why;
  const dynamic = query.method === 'qr' && (query.dynamic === true || entry.payment?.dynamic === true);
  if (dynamic) return why;
  const age = now.getTime() - Date.parse(entry.at);
  return age < DUPLICATE_WINDOW_MS ? why : undefined;
}

/**
 * The earlier payment that stops `query`, if any: the latest unresolved one first (resolving it is what
 * the operator must do), else the latest paid one.
 */
export function findBlocking(
  entries: readonly JournalEntry[],
  query: DuplicateQuery,
  now: Date,
): Blocker | undefined {
  let paid: JournalEntry | undefined;
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!;
    const why = blocks(entry, query, now);
    if (why === 'unresolved') return { entry, why };
    if (why === 'paid') paid ??= entry;
  }
  return paid && { entry: paid, why: 'paid' };
}

/** The entries started before the one with id `id` (all of them when it is not there). */
export function entriesBefore(entries: readonly JournalEntry[], id: string): readonly JournalEntry[] {
  const index = entries.findIndex((entry) => entry.id === id);
  return index === -1 ? entries : entries.slice(0, index);
}

export type Lookup =
  | { found: JournalEntry }
  | { found: undefined; matches: JournalEntry[] /* none, or more than one */ };

/** The entry whose id is `idOrPrefix` or, failing that, the only one whose id starts with it. */
export function findEntry(entries: readonly JournalEntry[], idOrPrefix: string): Lookup {
  const wanted = idOrPrefix.trim().toLowerCase();
  const exact = entries.find((entry) => entry.id.toLowerCase() === wanted);
  if (exact) return { found: exact };
  const matches = wanted === '' ? [] : entries.filter((entry) => entry.id.toLowerCase().startsWith(wanted));
  return matches.length === 1 ? { found: matches[0]! } : { found: undefined, matches };
}
