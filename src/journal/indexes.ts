/**
 * The journal's index, kept up to date as its start lines are read (store.ts feeds it through the
 * parser), so the guard's questions cost the same with 100 or 1,000,000 journal lines: a batch asks
 * them once per row. Entries are indexed by what the rules (rules.ts) compare — the batch row id, and
 * who gets paid — and the index holds the entries themselves, which later lines update in place.
 */
import type { JournalEntry, PaymentIdentity } from './entries.js';

/** What identifies who gets paid, whatever the amount: the key, or the code's digest. */
export function payeeKey(identity: PaymentIdentity): string | undefined {
  if (identity.method === 'key') return identity.key === undefined ? undefined : `key ${identity.key}`;
  return identity.emvHash === undefined ? undefined : `qr ${identity.emvHash}`;
}

export interface JournalIndex {
  add(entry: JournalEntry): void;
  /** The payments of batch rows with this row id, oldest first. */
  byRow(row: string): readonly JournalEntry[];
  /** The payments to the same key or code, oldest first. */
  byPayee(identity: PaymentIdentity): readonly JournalEntry[];
}

const NONE: readonly JournalEntry[] = Object.freeze([]);

export function createJournalIndex(): JournalIndex {
  const rows = new Map<string, JournalEntry[]>();
  const payees = new Map<string, JournalEntry[]>();
  const push = (map: Map<string, JournalEntry[]>, key: string, entry: JournalEntry): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [entry]);
    else list.push(entry);
  };
  return {
    add(entry) {
      const { payment } = entry;
      if (entry.kind !== 'payment' || payment === undefined) return;
      if (payment.batchRow !== undefined) push(rows, payment.batchRow.row, entry);
      const payee = payeeKey(payment);
      if (payee !== undefined) push(payees, payee, entry);
    },
    byRow: (row) => rows.get(row) ?? NONE,
    byPayee(identity) {
      const payee = payeeKey(identity);
      return payee === undefined ? NONE : (payees.get(payee) ?? NONE);
    },
  };
}
