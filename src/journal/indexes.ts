/**
 * The journal's index, kept up to date as its start lines are read (store.ts feeds it through the
 * parser), so the guard's questions cost the same with 100 or 1,000,000 journal lines: a batch asks
 * them once per row. Entries are indexed by what the rules (rules.ts) compare — the batch row id, and
 * who gets paid — and the index holds the entries themselves, which later lines update in place.
 */
import type { JournalEntry, PaymentIdentity } from './entries.js';

export interface JournalIndex {
  add(entry: JournalEntry): void;
  /** The payments of batch rows with this row id, oldest first. */
  byRow(row: string): readonly JournalEntry[];
  /** The payments to the same key or code, oldest first. */
  byPayee(identity: PaymentIdentity): readonly JournalEntry[];
}

const NONE: readonly JournalEntry[] = Object.freeze([]);

/**
 * Most keys have one entry: a map of them holds the entry itself, and an array only from the second
 * on (a journal of 100,000 lines is 50,000 entries; a one-element array each would be ≈ 4 MB).
 */
class Multimap {
  private readonly map = new Map<string, JournalEntry | JournalEntry[]>();
  add(key: string, entry: JournalEntry): void {
    const found = this.map.get(key);
    if (found === undefined) this.map.set(key, entry);
    else if (Array.isArray(found)) found.push(entry);
    else this.map.set(key, [found, entry]);
  }
  get(key: string): readonly JournalEntry[] {
    const found = this.map.get(key);
    if (found === undefined) return NONE;
    return Array.isArray(found) ? found : [found];
  }
}

export function createJournalIndex(): JournalIndex {
  const rows = new Multimap();
  // Keys and codes apart: a code's digest is never a key, and no key string has to be built per entry.
  const keys = new Multimap();
  const codes = new Multimap();
  return {
    add(entry) {
      const { payment } = entry;
      if (entry.kind !== 'payment' || payment === undefined) return;
      if (payment.batchRow !== undefined) rows.add(payment.batchRow.row, entry);
      if (payment.method === 'key' && payment.key !== undefined) keys.add(payment.key, entry);
      if (payment.method === 'qr' && payment.emvHash !== undefined) codes.add(payment.emvHash, entry);
    },
    byRow: (row) => rows.get(row),
    byPayee(identity) {
      if (identity.method === 'key') return identity.key === undefined ? NONE : keys.get(identity.key);
      return identity.emvHash === undefined ? NONE : codes.get(identity.emvHash);
    },
  };
}
