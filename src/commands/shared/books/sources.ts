/**
 * What the books read besides a person's files: the statement over a range (every page, or an error: a
 * reconciliation or a balance over part of a statement would be wrong without saying so), and pix's own
 * records as expectations — the charges of the charge ledger and the payments of the journal.
 */
import type { ApiClient } from '../../../api/client.js';
import { paginate, shortfall } from '../../../api/paginate.js';
import { readStatement, type StatementEntry } from '../../../api/resources/statement.js';
import type { Deps } from '../../../context.js';
import { type LedgerCharge, matchWindow } from '../../../domain/matching.js';
import type { ReconExpectation } from '../../../domain/reconcile.js';
import { DEBIT_AFTER_MS, DEBIT_BEFORE_MS } from '../../../domain/reconcilepayments.js';
import { PixError, stopSignalOf } from '../../../errors.js';
import type { JournalEntry } from '../../../journal/entries.js';
import { asLedgerCharge, chargeLedger } from '../../../journal/ledger.js';
import { type Account, effectiveState, ofAccount } from '../../../journal/rules.js';

const PAGE = 1000;
const CONCURRENCY = 4;

/** Every entry of the statement from `from` to `to` (ISO instants); a short read is exit 6. */
export async function readRange(
  deps: Deps,
  client: ApiClient,
  from: string,
  to: string,
): Promise<StatementEntry[]> {
  const pagination = await paginate(
    async (offset, limit) => {
      const page = await readStatement(client, { dateFrom: from, dateTo: to, limit, offset });
      return { total: page.total, items: page.results };
    },
    { pageSize: PAGE, concurrency: CONCURRENCY, idOf: (entry) => entry.id },
  );
  const entries: StatementEntry[] = [];
  for (;;) {
    if (deps.signal.aborted) {
      throw new PixError('interrupted', 'reading the statement: interrupted', {
        signal: stopSignalOf(deps.signal),
      });
    }
    const next = await pagination.pages.next();
    if (next.done) {
      const short = shortfall(next.value);
      if (short) {
        throw new PixError(
          'unavailable',
          `the statement read short: ${short.received} of ${short.expected} entries the server announced`,
          { hint: 'nothing was reconciled or closed on part of the statement; run it again' },
        );
      }
      return entries;
    }
    for (const entry of next.value) entries.push(entry);
  }
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
