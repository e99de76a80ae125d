/**
 * `reconcile`'s pass over pix's own payments (domain/reconcile.ts): each journal payment meets its debit —
 * proven when the debit is the transfer itself, probable when one debit of the amount fits its window (a
 * receiver name equal to the payment's picks one among several) — or is left unmatched saying why.
 */
import { parseInstant } from './days.js';
import { type Centavos, formatBRL } from './money.js';
import type { ReconEntry } from './reconcile.js';
import { type Item, nameKey, type Pass, push, shortEntry, unmatched } from './reconcilepass.js';

/** A payment's debit is looked for from a little before it was sent to a day after. */
export const DEBIT_BEFORE_MS = 5 * 60_000;
export const DEBIT_AFTER_MS = 86_400_000;

/** Pix's own payments: each meets its debit (proven by the transfer's own id, else probable). */
export function settlePayments<E extends ReconEntry>(pass: Pass<E>): void {
  const { expectations, options, results, items, itemById, open, settle, usable, allowed } = pass;
  const debitsByAmount = new Map<Centavos, Item<E>[]>();
  for (const item of items) if (usable(item) && item.cents < 0) push(debitsByAmount, -item.cents, item);
  const payments = expectations.filter((e) => e.source === 'payment' && open.has(e.id));
  const paymentChoice = new Map<string, { item: Item<E>; how: string; proven: boolean } | Item<E>[]>();
  const debitTakers = new Map<string, string[]>();
  for (const payment of payments) {
    const sent = parseInstant(payment.sentAt) ?? Number.NaN;
    const own = payment.transferId === undefined ? undefined : itemById.get(payment.transferId);
    if (own && usable(own) && own.cents === -payment.amountCentavos && allowed(payment, own)) {
      paymentChoice.set(payment.id, {
        item: own,
        how: 'the debit is the transfer itself (same id)',
        proven: true,
      });
      push(debitTakers, own.entry.id, payment.id);
      continue;
    }
    const candidates = (debitsByAmount.get(payment.amountCentavos) ?? []).filter(
      (item) =>
        !item.claimed &&
        item.ms >= sent - DEBIT_BEFORE_MS &&
        item.ms <= sent + DEBIT_AFTER_MS &&
        allowed(payment, item),
    );
    const named = nameKey(payment.name);
    const sameName = named === undefined ? [] : candidates.filter((item) => nameKey(item.name) === named);
    if (candidates.length === 1 || sameName.length === 1) {
      const item = candidates.length === 1 ? candidates[0]! : sameName[0]!;
      const byName = named !== undefined && nameKey(item.name) === named;
      const how = `a debit of the amount${byName ? ' to the same receiver name' : ''} within a day of the payment`;
      paymentChoice.set(payment.id, { item, how, proven: false });
      push(debitTakers, item.entry.id, payment.id);
    } else paymentChoice.set(payment.id, candidates);
  }
  for (const payment of payments) {
    const choice = paymentChoice.get(payment.id)!;
    const sent = parseInstant(payment.sentAt) ?? Number.NaN;
    const rivals = !Array.isArray(choice) ? (debitTakers.get(choice.item.entry.id) ?? []) : [];
    if (!Array.isArray(choice) && (rivals.length === 1 || choice.proven)) {
      settle({
        outcome: choice.proven ? 'proven' : 'probable',
        manual: false,
        expectations: [payment],
        entries: [choice.item.entry],
        expected: payment.amountCentavos,
        paid: -choice.item.cents,
        why:
          choice.how +
          (payment.unresolved
            ? `; the journal still has it unresolved: record it with pix journal resolve ${(payment.journalId ?? '').slice(0, 8)} --paid`
            : ''),
        ...(payment.unresolved ? { flag: 'unresolved-paid' as const } : {}),
      });
      continue;
    }
    const candidates = Array.isArray(choice) ? choice : [choice.item];
    const missing = !payment.unresolved && sent + DEBIT_AFTER_MS < options.now;
    const why =
      candidates.length > 1
        ? `${candidates.length} debits of ${formatBRL(payment.amountCentavos)} could be it (${candidates
            .slice(0, 5)
            .map((i) => shortEntry(i.entry.id))
            .join(', ')}): match one by hand`
        : rivals.length > 1
          ? `its debit ${shortEntry(candidates[0]!.entry.id)} could also be another payment's (${rivals.filter((id) => id !== payment.id).join(', ')}): match it by hand`
          : missing
            ? 'paid in the journal, and no debit of the amount in the statement a day later'
            : payment.unresolved
              ? 'unresolved in the journal, and no debit of the amount in the statement'
              : 'no debit of the amount in the statement yet (less than a day since it was sent)';
    results.push({
      ...unmatched(payment, why),
      ...(missing && candidates.length === 0 ? { flag: 'missing-debit' as const } : {}),
    });
    open.delete(payment.id);
  }
}
