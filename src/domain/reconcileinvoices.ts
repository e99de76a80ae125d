/**
 * `reconcile`'s pass over the ERP's invoices (domain/reconcile.ts): proven by the payer's document and
 * the amount; partial or overpaid from the payer's document (several payments adding up to an invoice,
 * one payment covering several, the payer's only payment near it); probable by the amount within the
 * invoice's window when nothing else wants that entry; otherwise unmatched, saying why.
 */
import type { Centavos } from './money.js';
import { formatBRL } from './money.js';
import type { ReconEntry, ReconExpectation } from './reconcile.js';
import {
  between,
  DAY_MS,
  dueMs,
  type Item,
  NEAREST,
  nameKey,
  nearest,
  type Pass,
  push,
  shortEntry,
  subsetSum,
  twoSum,
  unmatched,
} from './reconcilepass.js';

/** A file expectation with a due date is paid, probably, within this many days of it. */
export const PROBABLE_DAYS = 5;

/** The ERP's invoices: proven by the payer's document and the amount, then partial and overpaid, then probable. */
export function settleInvoices<E extends ReconEntry>(pass: Pass<E>): void {
  const { expectations, options, results, items, open, settle, usable, allowed } = pass;
  const credits = items.filter((item) => usable(item) && item.cents > 0);
  const creditsByDocument = new Map<string, Item<E>[]>();
  const creditsByAmount = new Map<Centavos, Item<E>[]>();
  const creditsByPayerAmount = new Map<string, Item<E>[]>();
  for (const item of credits) {
    if (item.document !== undefined) {
      push(creditsByDocument, item.document, item);
      push(creditsByPayerAmount, `${item.document}\u0000${item.cents}`, item);
    }
    push(creditsByAmount, item.cents, item);
  }
  const invoices = expectations
    .filter((e) => e.source === 'file' && open.has(e.id))
    .sort((a, b) => (a.due ?? '').localeCompare(b.due ?? '') || a.id.localeCompare(b.id));
  const openInvoices = () => invoices.filter((invoice) => open.has(invoice.id));
  const target = (invoice: ReconExpectation) => dueMs(invoice.due) ?? (options.from + options.to) / 2;

  // Proven: the payer's document and the amount. Several invoices and payments of one payer and amount
  // are paired in date order.
  const byPayerAmount = new Map<string, ReconExpectation[]>();
  for (const invoice of invoices) {
    if (invoice.document !== undefined)
      push(byPayerAmount, `${invoice.document}\u0000${invoice.amountCentavos}`, invoice);
  }
  for (const group of byPayerAmount.values()) {
    const { document, amountCentavos } = group[0]!;
    const paying = creditsByPayerAmount.get(`${document}\u0000${amountCentavos}`) ?? [];
    for (const invoice of group) {
      const item = paying.find((candidate) => !candidate.claimed && allowed(invoice, candidate));
      if (!item) continue;
      const several = paying.length > 1 || group.length > 1;
      settle({
        outcome: 'proven',
        manual: false,
        expectations: [invoice],
        entries: [item.entry],
        expected: amountCentavos,
        paid: item.cents,
        why: `the payer's document and the amount (${formatBRL(amountCentavos)})${several ? `; ${group.length} invoices and ${paying.length} payments of this payer and amount, paired in date order` : ''}`,
      });
    }
  }

  // Partial and overpaid: the payer's document, amounts that differ. Only within the invoice's window
  // (its due date give or take PROBABLE_DAYS, else the range), and never a guess among several.
  const windowOf = (invoice: ReconExpectation) => {
    const due = dueMs(invoice.due);
    return due === undefined
      ? { from: options.from, to: options.to }
      : { from: due - (PROBABLE_DAYS + 1) * DAY_MS, to: due + (PROBABLE_DAYS + 1) * DAY_MS };
  };
  const payerIn = (invoice: ReconExpectation) => {
    const { from, to } = windowOf(invoice);
    return between(creditsByDocument.get(invoice.document!) ?? [], (i) => i.ms, from, to).filter(
      (item) => !item.claimed && allowed(invoice, item),
    );
  };
  for (const invoice of openInvoices()) {
    if (invoice.document === undefined) continue;
    const mine = payerIn(invoice);
    const parts =
      twoSum(mine, (i) => i.cents, invoice.amountCentavos) ??
      subsetSum(
        nearest(mine, (i) => i.ms, target(invoice), NEAREST),
        (i) => i.cents,
        invoice.amountCentavos,
      );
    if (!parts) continue;
    settle({
      outcome: 'partial',
      manual: false,
      expectations: [invoice],
      entries: parts.map((i) => i.entry),
      expected: invoice.amountCentavos,
      paid: invoice.amountCentavos,
      why: `paid in ${parts.length} payments from the payer's document that add up to ${formatBRL(invoice.amountCentavos)}`,
    });
  }
  const invoicesByDocument = new Map<string, ReconExpectation[]>();
  for (const invoice of openInvoices()) {
    if (invoice.document !== undefined) push(invoicesByDocument, invoice.document, invoice);
  }
  const dueOrder = (invoice: ReconExpectation) => dueMs(invoice.due) ?? (options.from + options.to) / 2;
  for (const [document, theirs] of invoicesByDocument) {
    if (theirs.length < 2) continue;
    theirs.sort((a, b) => dueOrder(a) - dueOrder(b));
    // Sorted by due date (openInvoices' order), so the invoices near a payment are a slice.
    for (const item of creditsByDocument.get(document) ?? []) {
      if (item.claimed) continue;
      const near = between(
        theirs,
        dueOrder,
        item.ms - (PROBABLE_DAYS + 1) * DAY_MS,
        item.ms + (PROBABLE_DAYS + 1) * DAY_MS,
      ).filter((invoice) => open.has(invoice.id) && allowed(invoice, item));
      if (near.length < 2) continue;
      const covered = subsetSum(
        nearest(near, dueOrder, item.ms, NEAREST),
        (i) => i.amountCentavos,
        item.cents,
      );
      if (!covered) continue;
      settle({
        outcome: 'partial',
        manual: false,
        expectations: covered,
        entries: [item.entry],
        expected: item.cents,
        paid: item.cents,
        why: `one payment from the payer's document covers ${covered.length} invoices (${covered.map((i) => i.id).join(', ')})`,
      });
    }
  }
  // One payment from the payer in the window, for another amount: over or short, when it is the only one
  // and no other open invoice of the payer could take it.
  const rivalsOf = new Map<Item<E>, number>();
  const single = new Map<ReconExpectation, Item<E>[]>();
  for (const invoice of openInvoices()) {
    if (invoice.document === undefined) continue;
    const mine = payerIn(invoice);
    single.set(invoice, mine);
    for (const item of mine) rivalsOf.set(item, (rivalsOf.get(item) ?? 0) + 1);
  }
  for (const [invoice, mine] of single) {
    if (mine.length !== 1 || rivalsOf.get(mine[0]!) !== 1) continue;
    const item = mine[0]!;
    const over = item.cents > invoice.amountCentavos;
    const difference = formatBRL(Math.abs(item.cents - invoice.amountCentavos));
    settle({
      outcome: over ? 'overpaid' : 'partial',
      manual: false,
      expectations: [invoice],
      entries: [item.entry],
      expected: invoice.amountCentavos,
      paid: item.cents,
      why: over
        ? `the payer's only payment near it; paid ${formatBRL(item.cents)} for ${formatBRL(invoice.amountCentavos)}: ${difference} more`
        : `the payer's only payment near it; paid ${formatBRL(item.cents)} of ${formatBRL(invoice.amountCentavos)}: ${difference} still open`,
    });
  }

  // Probable: the amount within the window, nothing naming the payer; only an entry no other invoice wants.
  const probableWindow = (invoice: ReconExpectation) => {
    const due = dueMs(invoice.due);
    return due === undefined
      ? { from: options.from, to: options.to }
      : { from: due - (PROBABLE_DAYS + 1) * DAY_MS, to: due + (PROBABLE_DAYS + 1) * DAY_MS };
  };
  const wanted = new Map<ReconExpectation, Item<E>[]>();
  const choice = new Map<ReconExpectation, Item<E>>();
  const takers = new Map<Item<E>, ReconExpectation[]>();
  for (const invoice of openInvoices()) {
    const window = probableWindow(invoice);
    const candidates = (creditsByAmount.get(invoice.amountCentavos) ?? []).filter(
      (item) =>
        !item.claimed &&
        item.ms >= window.from &&
        item.ms <= window.to &&
        (invoice.document === undefined || item.document === undefined) &&
        allowed(invoice, item),
    );
    wanted.set(invoice, candidates);
    const named = nameKey(invoice.name);
    const sameName = named === undefined ? [] : candidates.filter((item) => nameKey(item.name) === named);
    const picked = candidates.length === 1 ? candidates[0] : sameName.length === 1 ? sameName[0] : undefined;
    if (picked) {
      choice.set(invoice, picked);
      const list = takers.get(picked);
      if (list) list.push(invoice);
      else takers.set(picked, [invoice]);
    }
  }
  for (const invoice of openInvoices()) {
    const picked = choice.get(invoice);
    const candidates = wanted.get(invoice) ?? [];
    const rivals = picked ? takers.get(picked)! : [];
    if (picked && rivals.length === 1) {
      const byName = candidates.length > 1;
      const days = invoice.due === undefined ? '' : `, ${describeDays(picked.ms, dueMs(invoice.due)!)}`;
      settle({
        outcome: 'probable',
        manual: false,
        expectations: [invoice],
        entries: [picked.entry],
        expected: invoice.amountCentavos,
        paid: picked.cents,
        why: `the amount (${formatBRL(invoice.amountCentavos)})${days}${byName ? `, and the payer's name among ${candidates.length} entries of the amount` : ''}; no document proves the payer`,
      });
      continue;
    }
    const where = invoice.due === undefined ? 'in the range' : `within ${PROBABLE_DAYS} days of its due date`;
    const why =
      candidates.length === 0 && (single.get(invoice)?.length ?? 0) > 1
        ? `${single.get(invoice)!.length} payments from the payer's document near it, of other amounts and adding up to none: match them by hand`
        : candidates.length === 0
          ? invoice.document === undefined
            ? `no entry of ${formatBRL(invoice.amountCentavos)} ${where}`
            : `no payment from the payer's document, and no entry of ${formatBRL(invoice.amountCentavos)} without a document ${where}`
          : rivals.length > 1
            ? `entry ${shortEntry(picked!.entry.id)} fits ${rivals.length} invoices (${rivals
                .map((r) => r.id)
                .slice(0, 5)
                .join(', ')}): match it by hand`
            : `${candidates.length} entries of ${formatBRL(invoice.amountCentavos)} ${where} (${candidates
                .slice(0, 5)
                .map((i) => shortEntry(i.entry.id))
                .join(', ')}${candidates.length > 5 ? ', …' : ''}): match one by hand`;
    results.push(unmatched(invoice, why));
    open.delete(invoice.id);
  }
}

/** `2 days after its due date`, `on its due date`. */
function describeDays(ms: number, due: number): string {
  const days = Math.round((ms - due) / DAY_MS);
  if (days === 0) return 'on its due date';
  const n = Math.abs(days);
  return `${n} day${n === 1 ? '' : 's'} ${days > 0 ? 'after' : 'before'} its due date`;
}
