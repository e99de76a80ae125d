/**
 * The journal's index, kept up to date as its start lines are read (opened.ts and resume.ts feed it
 * through the parser), so the guard's questions cost the same with 100 or 1,000,000 journal lines: a
 * batch asks them once per row. Entries are indexed by what the rules (rules.ts) compare — the batch row id, and
 * who gets paid — and the index holds the entries themselves, which later lines update in place.
 */
import type { Centavos } from '../domain/money.js';
import type { JournalEntry, PaymentIdentity } from './entries.js';

export interface JournalIndex {
  add(entry: JournalEntry): void;
  /** The payments of batch rows with this row id, oldest first. */
  byRow(row: string): readonly JournalEntry[];
  /**
   * The payments that may be to the same payee (rules.ts samePayee), oldest first: to the same key or
   * code, or of the same amount (a receiver is also known by document and institution, which a mask keeps
   * from being a key of a map).
   */
  byPayee(identity: PaymentIdentity, amount: Centavos): readonly JournalEntry[];
  /** The payments of this amount, oldest first. */
  byAmount(amount: Centavos): readonly JournalEntry[];
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
  const amounts = new Multimap();
  return {
    add(entry) {
      const { payment } = entry;
      if (entry.kind !== 'payment' || payment === undefined) return;
      if (payment.batchRow !== undefined) rows.add(payment.batchRow.row, entry);
      if (payment.key !== undefined) keys.add(payment.key, entry);
      if (payment.emvHash !== undefined) codes.add(payment.emvHash, entry);
      amounts.add(String(entry.amountCentavos), entry);
    },
    byRow: (row) => rows.get(row),
    byPayee(identity, amount) {
      const found = new Set<JournalEntry>(amounts.get(String(amount)));
      if (identity.emvHash !== undefined) for (const entry of codes.get(identity.emvHash)) found.add(entry);
      if (identity.key !== undefined) for (const entry of keys.get(identity.key)) found.add(entry);
      return [...found].sort((a, b) => a.seq - b.seq);
    },
    byAmount: (amount) => amounts.get(String(amount)),
  };
}
