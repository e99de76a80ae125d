/**
 * What the books read besides a person's files: the statement over a range (every page, or an error: a
 * reconciliation or a balance over part of a statement would be wrong without saying so), and pix's own
 * records as expectations — the charges of the charge ledger and the payments of the journal.
 */
import type { ApiClient } from '../../../api/client.js';
import { type StatementEntry, statementWindow } from '../../../api/resources/statement.js';
import type { Deps } from '../../../context.js';
import { type LedgerCharge, matchWindow } from '../../../domain/matching.js';
import type { ReconExpectation } from '../../../domain/reconcile.js';
import { DEBIT_AFTER_MS, DEBIT_BEFORE_MS } from '../../../domain/reconcilepayments.js';
import type { JournalEntry } from '../../../journal/entries.js';
import { asLedgerCharge, chargeLedger } from '../../../journal/ledger.js';
import { type Account, effectiveState, ofAccount } from '../../../journal/rules.js';

/**
 * Every entry of the statement from `from` to `to` (ISO instants), through the pager (api/pager.ts): a
 * read that is not whole is exit 6, nothing reconciled or closed on part of the statement.
 */
export function readRange(
  deps: Deps,
  client: ApiClient,
  from: string,
  to: string,
): Promise<StatementEntry[]> {
  return statementWindow(client, from, to, {
    consequence: 'nothing was reconciled or closed on part of the statement; run it again',
    concurrency: 4,
    signal: deps.signal,
  });
}

/** The journal's payments of `account` sent between `from` and `to` (ms), as expectations of a debit. */
export function paymentExpectations(
  entries: readonly JournalEntry[],
  account: Account,
  from: number,
  to: number,
): ReconExpectation[] {
  const found: ReconExpectation[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'payment' || !ofAccount(entry, account)) continue;
    const state = effectiveState(entry);
    if (state === 'failed') continue;
    const at = Date.parse(entry.at);
    // A payment sent just before the range may meet its debit inside it.
    if (!(at >= from - DEBIT_AFTER_MS && at <= to + DEBIT_BEFORE_MS)) continue;
    found.push({
      id: `payment:${entry.id}`,
      source: 'payment',
      amountCentavos: entry.amountCentavos,
      name: entry.receiver,
      sentAt: entry.at,
      journalId: entry.id,
      transferId: entry.transferId,
      unresolved: state !== 'done',
    });
  }
  return found;
}

/** The charge ledger's charges of the profile whose window meets the range, as expectations of a credit. */
export function chargeExpectations(
  entries: readonly JournalEntry[],
  account: Account,
  from: number,
  to: number,
  now: Date,
): ReconExpectation[] {
  const found: ReconExpectation[] = [];
  for (const record of chargeLedger(entries, now)) {
    if (!ofAccount(record, account)) continue;
    const charge: LedgerCharge = asLedgerCharge(record);
    const window = matchWindow(charge);
    if (window && (window.to < from || window.from > to)) continue;
    found.push({
      id: `charge:${record.id}`,
      source: 'charge',
      amountCentavos: record.amountCentavos,
      document: record.payerDocument,
      name: record.payerName,
      due: record.dueDate,
      charge,
      ...(record.ref === undefined ? {} : { ref: record.ref }),
      ...(record.match
        ? {
            recorded: {
              entryId: record.match.entryId,
              proven: record.match.evidence === 'payer-document',
              how: record.match.how,
            },
          }
        : {}),
    });
  }
  return found;
}
