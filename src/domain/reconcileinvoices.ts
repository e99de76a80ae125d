/**
 * `reconcile`'s pass over the ERP's invoices (domain/reconcile.ts): proven by the payer's document and
 * the amount, paid inside the invoice's proof window (from PROOF_BEFORE_DAYS before its due date to
 * PROOF_AFTER_DAYS after: last month's payment of the same amount proves nothing of this month's invoice);
 * probable, by the same, paid late (up to LATE_DAYS after); partial or overpaid from the payer's document
 * (several payments adding up to an invoice, one payment covering several, the payer's only payment near
 * it); probable by the amount within the invoice's window when nothing else wants that entry; an invoice
 * whose due date has not come is not_due; otherwise unmatched, saying why — only what is true.
 */
import type { Centavos } from './money.js';
import { formatBRL } from './money.js';
import type { ReconEntry, ReconExpectation } from './reconcile.js';
import {
  between,
  byHandWords,
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
import { BOOKS, countsStatus } from './sums.js';
import { todayIn } from './when.js';

/** A file expectation with a due date is paid, probably, within this many days of it. */
export const PROBABLE_DAYS = 5;
/**
 * The proof window of an invoice with a due date: a payment from the payer's document of its amount proves
 * it from this many days before the due date to this many after. 20 + 10 < 28: the windows of a monthly
 * payer's invoices do not overlap (February's barely), so a payment proves one month's invoice at most.
 */
export const PROOF_BEFORE_DAYS = 20;
export const PROOF_AFTER_DAYS = 10;
/** Paid later than the proof window by the payer's document, up to this many days after the due date: probable. */
export const LATE_DAYS = 45;

/** The ERP's invoices: proven by the payer's document and the amount, then partial and overpaid, then probable. */
export function settleInvoices<E extends ReconEntry>(pass: Pass<E>): void {
  const { expectations, options, results, items, open, settle, usable, allowed, unmatchedByHand } = pass;
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
  const today = todayIn(options.timeZone ?? 'America/Sao_Paulo', new Date(options.now));
  // The charges that name an invoice as the one they collect (`--ref`): an invoice left open says so.
  const collectors = new Map(
    expectations.filter((e) => e.source === 'charge' && e.ref !== undefined).map((e) => [e.ref!, e]),
  );
  /**
   * What the payer's document did pay of the invoice's amount, outside what settles it: a payment another
   * result took (a charge pix made for it, another invoice), or one outside its windows (last month's).
   */
  const everyByPayerAmount = new Map<string, Item<E>[]>();
  for (const item of items) {
    if (item.document !== undefined && item.cents > 0 && countsStatus(BOOKS, item.entry.status))
      push(everyByPayerAmount, `${item.document}\u0000${item.cents}`, item);
  }
  const elsewhere = (invoice: ReconExpectation): string => {
    const paying = everyByPayerAmount.get(`${invoice.document}\u0000${invoice.amountCentavos}`) ?? [];
    const due = dueMs(invoice.due);
    const words = paying.slice(0, 3).map((item) => {
      const when = due === undefined ? '' : `, ${describeDays(item.ms, due)}`;
      const taker = item.claimed
        ? results
            .find((result) => result.entries.includes(item.entry))
            ?.expectations.map((e) => e.id)
            .join(', ')
        : undefined;
      return taker === undefined
        ? `entry ${shortEntry(item.entry.id)}${when}, outside those days`
        : `entry ${shortEntry(item.entry.id)}${when}, which settled ${taker}`;
    });
    return words.length === 0 ? '' : `; the payer's payments of the amount: ${words.join('; ')}`;
  };
  const target = (invoice: ReconExpectation) => dueMs(invoice.due) ?? (options.from + options.to) / 2;

  // The windows a payment from the payer's document proves, or probably pays, an invoice in (its due date's
  // days; the range for an invoice without one).
  const proofWindow = (invoice: ReconExpectation) => {
    const due = dueMs(invoice.due);
    return due === undefined
      ? { from: options.from, to: options.to }
      : { from: due - (PROOF_BEFORE_DAYS + 0.5) * DAY_MS, to: due + (PROOF_AFTER_DAYS + 0.5) * DAY_MS };
  };
  const inside = (window: { from: number; to: number }) => (item: Item<E>) =>
    item.ms >= window.from && item.ms <= window.to;

  // Proven: the payer's document and the amount, inside the proof window. Several invoices and payments of
  // one payer and amount are paired in date order.
  const byPayerAmount = new Map<string, ReconExpectation[]>();
  for (const invoice of invoices) {
    if (invoice.document !== undefined)
      push(byPayerAmount, `${invoice.document}\u0000${invoice.amountCentavos}`, invoice);
  }
  for (const group of byPayerAmount.values()) {
    const { document, amountCentavos } = group[0]!;
    const paying = creditsByPayerAmount.get(`${document}\u0000${amountCentavos}`) ?? [];
    for (const invoice of group) {
      const item = paying.find(
        (candidate) =>
          !candidate.claimed && allowed(invoice, candidate) && inside(proofWindow(invoice))(candidate),
      );
      if (!item) continue;
      const several = paying.length > 1 || group.length > 1;
      settle({
        outcome: 'proven',
        manual: false,
        expectations: [invoice],
        entries: [item.entry],
        expected: amountCentavos,
        paid: item.cents,
        why: `the payer's document and the amount (${formatBRL(amountCentavos)})${invoice.due === undefined ? '' : `, ${describeDays(item.ms, dueMs(invoice.due)!)}`}${several ? `; ${group.length} invoices and ${paying.length} payments of this payer and amount, paired in date order` : ''}`,
      });
    }
  }

  // Probable: the payer's document and the amount, paid after the proof window (late), up to LATE_DAYS.
  for (const invoice of openInvoices()) {
    const due = dueMs(invoice.due);
    if (invoice.document === undefined || due === undefined) continue;
    const late = { from: due + (PROOF_AFTER_DAYS + 0.5) * DAY_MS, to: due + (LATE_DAYS + 0.5) * DAY_MS };
    const item = (creditsByPayerAmount.get(`${invoice.document}\u0000${invoice.amountCentavos}`) ?? []).find(
      (candidate) => !candidate.claimed && allowed(invoice, candidate) && inside(late)(candidate),
    );
    if (!item) continue;
    settle({
      outcome: 'probable',
      manual: false,
      expectations: [invoice],
      entries: [item.entry],
      expected: invoice.amountCentavos,
      paid: item.cents,
      why: `the payer's document and the amount (${formatBRL(invoice.amountCentavos)}), ${describeDays(item.ms, due)}: later than the ${PROOF_AFTER_DAYS} days after its due date a payment proves it in`,
    });
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
    const searched =
      invoice.due === undefined
        ? 'in the range'
        : `from ${PROOF_BEFORE_DAYS} days before its due date to ${LATE_DAYS} after`;
    const why =
      candidates.length === 0 && (single.get(invoice)?.length ?? 0) > 1
        ? `${single.get(invoice)!.length} payments from the payer's document near it, of other amounts and adding up to none: match them by hand`
        : candidates.length === 0
          ? invoice.document === undefined
            ? `no entry of ${formatBRL(invoice.amountCentavos)} ${where}`
            : `no payment of ${formatBRL(invoice.amountCentavos)} from the payer's document ${searched}, and no entry of ${formatBRL(invoice.amountCentavos)} without a document ${where}${elsewhere(invoice)}`
          : rivals.length > 1
            ? `entry ${shortEntry(picked!.entry.id)} fits ${rivals.length} invoices (${rivals
                .map((r) => r.id)
                .slice(0, 5)
                .join(', ')}): match it by hand`
            : `${candidates.length} entries of ${formatBRL(invoice.amountCentavos)} ${where} (${candidates
                .slice(0, 5)
                .map((i) => shortEntry(i.entry.id))
                .join(', ')}${candidates.length > 5 ? ', …' : ''}): match one by hand`;
    const byHand = byHandWords(unmatchedByHand(invoice));
    const collector = collectors.get(invoice.id);
    const collected =
      collector === undefined
        ? ''
        : `; charge ${collector.id.replace(/^charge:/, '')} collects it (--ref) and is not paid either`;
    if (invoice.due !== undefined && invoice.due > today) {
      results.push({
        ...unmatched(
          invoice,
          `due on ${invoice.due}: not due yet, and nothing paid it so far${collected}${byHand}`,
        ),
        outcome: 'not_due',
      });
    } else results.push(unmatched(invoice, `${why}${collected}${byHand}`));
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
