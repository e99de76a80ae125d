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
import type { ReconEntry, ReconExpectation, ReconOptions } from './reconcile.js';
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

/** What the steps over the invoices share: the pass, the invoices in due order, the credits indexed. */
interface Invoices<E extends ReconEntry> {
  pass: Pass<E>;
  /** The ERP's invoices open when the pass began, by due date (those without one first), then id. */
  invoices: ReconExpectation[];
  creditsByDocument: Map<string, Item<E>[]>;
  creditsByAmount: Map<Centavos, Item<E>[]>;
  creditsByPayerAmount: Map<string, Item<E>[]>;
  /**
   * What the payer's document did pay of an invoice's amount, outside what settles it: a payment another
   * result took (a charge pix made for it, another invoice), or one outside its windows (last month's).
   */
  everyByPayerAmount: Map<string, Item<E>[]>;
  /** The charges that name an invoice as the one they collect (`--ref`): an invoice left open says so. */
  collectors: Map<string, ReconExpectation>;
}

function invoicesOf<E extends ReconEntry>(pass: Pass<E>): Invoices<E> {
  const { expectations, items, open, usable } = pass;
  const st: Invoices<E> = {
    pass,
    invoices: expectations
      .filter((e) => e.source === 'file' && open.has(e.id))
      .sort((a, b) => (a.due ?? '').localeCompare(b.due ?? '') || a.id.localeCompare(b.id)),
    creditsByDocument: new Map(),
    creditsByAmount: new Map(),
    creditsByPayerAmount: new Map(),
    everyByPayerAmount: new Map(),
    collectors: new Map(
      expectations.filter((e) => e.source === 'charge' && e.ref !== undefined).map((e) => [e.ref!, e]),
    ),
  };
  for (const item of items.filter((item) => usable(item) && item.cents > 0)) {
    if (item.document !== undefined) {
      push(st.creditsByDocument, item.document, item);
      push(st.creditsByPayerAmount, `${item.document}\u0000${item.cents}`, item);
    }
    push(st.creditsByAmount, item.cents, item);
  }
  for (const item of items) {
    if (item.document !== undefined && item.cents > 0 && countsStatus(BOOKS, item.entry.status))
      push(st.everyByPayerAmount, `${item.document}\u0000${item.cents}`, item);
  }
  return st;
}

function openInvoices<E extends ReconEntry>(st: Invoices<E>): ReconExpectation[] {
  return st.invoices.filter((invoice) => st.pass.open.has(invoice.id));
}

/** `; the payer's payments of the amount: …`: what the payer's document paid of it that settles it not. */
function elsewhere<E extends ReconEntry>(st: Invoices<E>, invoice: ReconExpectation): string {
  const paying = st.everyByPayerAmount.get(`${invoice.document}\u0000${invoice.amountCentavos}`) ?? [];
  const due = dueMs(invoice.due);
  const words = paying.slice(0, 3).map((item) => {
    const when = due === undefined ? '' : `, ${describeDays(item.ms, due)}`;
    const taker = item.claimed
      ? st.pass.results
          .find((result) => result.entries.includes(item.entry))
          ?.expectations.map((e) => e.id)
          .join(', ')
      : undefined;
    return taker === undefined
      ? `entry ${shortEntry(item.entry.id)}${when}, outside those days`
      : `entry ${shortEntry(item.entry.id)}${when}, which settled ${taker}`;
  });
  return words.length === 0 ? '' : `; the payer's payments of the amount: ${words.join('; ')}`;
}

type Window = { from: number; to: number };

/** When an invoice is looked for: its due date, or the middle of the range for one without. */
function target(options: ReconOptions, invoice: ReconExpectation): number {
  return dueMs(invoice.due) ?? (options.from + options.to) / 2;
}

/**
 * The window a payment from the payer's document proves an invoice in (its due date's days; the range for
 * an invoice without one).
 */
function proofWindow(options: ReconOptions, invoice: ReconExpectation): Window {
  const due = dueMs(invoice.due);
  return due === undefined
    ? { from: options.from, to: options.to }
    : { from: due - (PROOF_BEFORE_DAYS + 0.5) * DAY_MS, to: due + (PROOF_AFTER_DAYS + 0.5) * DAY_MS };
}

/** The invoice's window for partial, overpaid and probable: its due date give or take PROBABLE_DAYS, else the range. */
function nearDue(options: ReconOptions, invoice: ReconExpectation): Window {
  const due = dueMs(invoice.due);
  return due === undefined
    ? { from: options.from, to: options.to }
    : { from: due - (PROBABLE_DAYS + 1) * DAY_MS, to: due + (PROBABLE_DAYS + 1) * DAY_MS };
}

const inside =
  (window: Window) =>
  <E extends ReconEntry>(item: Item<E>) =>
    item.ms >= window.from && item.ms <= window.to;

/**
 * Proven: the payer's document and the amount, inside the proof window. Several invoices and payments of
 * one payer and amount are paired in date order.
 */
function settleProven<E extends ReconEntry>(st: Invoices<E>): void {
  const { pass } = st;
  const byPayerAmount = new Map<string, ReconExpectation[]>();
  for (const invoice of st.invoices) {
    if (invoice.document !== undefined)
      push(byPayerAmount, `${invoice.document}\u0000${invoice.amountCentavos}`, invoice);
  }
  for (const group of byPayerAmount.values()) {
    const { document, amountCentavos } = group[0]!;
    const paying = st.creditsByPayerAmount.get(`${document}\u0000${amountCentavos}`) ?? [];
    for (const invoice of group) {
      const item = paying.find(
        (candidate) =>
          !candidate.claimed &&
          pass.allowed(invoice, candidate) &&
          inside(proofWindow(pass.options, invoice))(candidate),
      );
      if (!item) continue;
      const several = paying.length > 1 || group.length > 1;
      pass.settle({
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
}

/** Probable: the payer's document and the amount, paid after the proof window (late), up to LATE_DAYS. */
function settleLate<E extends ReconEntry>(st: Invoices<E>): void {
  const { pass } = st;
  for (const invoice of openInvoices(st)) {
    const due = dueMs(invoice.due);
    if (invoice.document === undefined || due === undefined) continue;
    const late = { from: due + (PROOF_AFTER_DAYS + 0.5) * DAY_MS, to: due + (LATE_DAYS + 0.5) * DAY_MS };
    const item = (
      st.creditsByPayerAmount.get(`${invoice.document}\u0000${invoice.amountCentavos}`) ?? []
    ).find((candidate) => !candidate.claimed && pass.allowed(invoice, candidate) && inside(late)(candidate));
    if (!item) continue;
    pass.settle({
      outcome: 'probable',
      manual: false,
      expectations: [invoice],
      entries: [item.entry],
      expected: invoice.amountCentavos,
      paid: item.cents,
      why: `the payer's document and the amount (${formatBRL(invoice.amountCentavos)}), ${describeDays(item.ms, due)}: later than the ${PROOF_AFTER_DAYS} days after its due date a payment proves it in`,
    });
  }
}

/** The payer's unclaimed payments inside the invoice's window that may go to it. */
function payerIn<E extends ReconEntry>(st: Invoices<E>, invoice: ReconExpectation): Item<E>[] {
  const { from, to } = nearDue(st.pass.options, invoice);
  return between(st.creditsByDocument.get(invoice.document!) ?? [], (i) => i.ms, from, to).filter(
    (item) => !item.claimed && st.pass.allowed(invoice, item),
  );
}

/**
 * Partial: several payments from the payer's document that add up to an invoice. Only within the invoice's
 * window (nearDue), and never a guess among several.
 */
function settleParts<E extends ReconEntry>(st: Invoices<E>): void {
  const { pass } = st;
  for (const invoice of openInvoices(st)) {
    if (invoice.document === undefined) continue;
    const mine = payerIn(st, invoice);
    const parts =
      twoSum(mine, (i) => i.cents, invoice.amountCentavos) ??
      subsetSum(
        nearest(mine, (i) => i.ms, target(pass.options, invoice), NEAREST),
        (i) => i.cents,
        invoice.amountCentavos,
      );
    if (!parts) continue;
    pass.settle({
      outcome: 'partial',
      manual: false,
      expectations: [invoice],
      entries: parts.map((i) => i.entry),
      expected: invoice.amountCentavos,
      paid: invoice.amountCentavos,
      why: `paid in ${parts.length} payments from the payer's document that add up to ${formatBRL(invoice.amountCentavos)}`,
    });
  }
}

/** Partial: one payment from the payer's document that covers several of their invoices near it. */
function settleCovering<E extends ReconEntry>(st: Invoices<E>): void {
  const { pass } = st;
  const invoicesByDocument = new Map<string, ReconExpectation[]>();
  for (const invoice of openInvoices(st)) {
    if (invoice.document !== undefined) push(invoicesByDocument, invoice.document, invoice);
  }
  const dueOrder = (invoice: ReconExpectation) => target(pass.options, invoice);
  for (const [document, theirs] of invoicesByDocument) {
    if (theirs.length < 2) continue;
    theirs.sort((a, b) => dueOrder(a) - dueOrder(b));
    // Sorted by due date (openInvoices' order), so the invoices near a payment are a slice.
    for (const item of st.creditsByDocument.get(document) ?? []) {
      if (item.claimed) continue;
      const near = between(
        theirs,
        dueOrder,
        item.ms - (PROBABLE_DAYS + 1) * DAY_MS,
        item.ms + (PROBABLE_DAYS + 1) * DAY_MS,
      ).filter((invoice) => pass.open.has(invoice.id) && pass.allowed(invoice, item));
      if (near.length < 2) continue;
      const covered = subsetSum(
        nearest(near, dueOrder, item.ms, NEAREST),
        (i) => i.amountCentavos,
        item.cents,
      );
      if (!covered) continue;
      pass.settle({
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
}

/**
 * One payment from the payer in the window, for another amount: over or short, when it is the only one and
 * no other open invoice of the payer could take it. Returns each invoice's payments from its payer (what an
 * invoice left open says).
 */
function settleOnlyPayment<E extends ReconEntry>(st: Invoices<E>): Map<ReconExpectation, Item<E>[]> {
  const rivalsOf = new Map<Item<E>, number>();
  const single = new Map<ReconExpectation, Item<E>[]>();
  for (const invoice of openInvoices(st)) {
    if (invoice.document === undefined) continue;
    const mine = payerIn(st, invoice);
    single.set(invoice, mine);
    for (const item of mine) rivalsOf.set(item, (rivalsOf.get(item) ?? 0) + 1);
  }
  for (const [invoice, mine] of single) {
    if (mine.length !== 1 || rivalsOf.get(mine[0]!) !== 1) continue;
    const item = mine[0]!;
    const over = item.cents > invoice.amountCentavos;
    const difference = formatBRL(Math.abs(item.cents - invoice.amountCentavos));
    st.pass.settle({
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
  return single;
}

/** For each open invoice, the entries of its amount in its window that nothing names otherwise, and its pick. */
interface ByAmount<E extends ReconEntry> {
  wanted: Map<ReconExpectation, Item<E>[]>;
  choice: Map<ReconExpectation, Item<E>>;
  /** The invoices that picked each entry. */
  takers: Map<Item<E>, ReconExpectation[]>;
}

function byAmount<E extends ReconEntry>(st: Invoices<E>): ByAmount<E> {
  const found: ByAmount<E> = { wanted: new Map(), choice: new Map(), takers: new Map() };
  for (const invoice of openInvoices(st)) {
    const window = nearDue(st.pass.options, invoice);
    const candidates = (st.creditsByAmount.get(invoice.amountCentavos) ?? []).filter(
      (item) =>
        !item.claimed &&
        item.ms >= window.from &&
        item.ms <= window.to &&
        (invoice.document === undefined || item.document === undefined) &&
        st.pass.allowed(invoice, item),
    );
    found.wanted.set(invoice, candidates);
    const named = nameKey(invoice.name);
    const sameName = named === undefined ? [] : candidates.filter((item) => nameKey(item.name) === named);
    const picked = candidates.length === 1 ? candidates[0] : sameName.length === 1 ? sameName[0] : undefined;
    if (picked) {
      found.choice.set(invoice, picked);
      push(found.takers, picked, invoice);
    }
  }
  return found;
}

/** Why an invoice nothing settles is open: only what is true. */
function whyOpen<E extends ReconEntry>(
  st: Invoices<E>,
  invoice: ReconExpectation,
  candidates: Item<E>[],
  picked: Item<E> | undefined,
  rivals: ReconExpectation[],
  fromPayer: Item<E>[] | undefined,
): string {
  const where = invoice.due === undefined ? 'in the range' : `within ${PROBABLE_DAYS} days of its due date`;
  const searched =
    invoice.due === undefined
      ? 'in the range'
      : `from ${PROOF_BEFORE_DAYS} days before its due date to ${LATE_DAYS} after`;
  if (candidates.length === 0 && (fromPayer?.length ?? 0) > 1) {
    return `${fromPayer!.length} payments from the payer's document near it, of other amounts and adding up to none: match them by hand`;
  }
  if (candidates.length === 0) {
    return invoice.document === undefined
      ? `no entry of ${formatBRL(invoice.amountCentavos)} ${where}`
      : `no payment of ${formatBRL(invoice.amountCentavos)} from the payer's document ${searched}, and no entry of ${formatBRL(invoice.amountCentavos)} without a document ${where}${elsewhere(st, invoice)}`;
  }
  if (rivals.length > 1) {
    return `entry ${shortEntry(picked!.entry.id)} fits ${rivals.length} invoices (${rivals
      .map((r) => r.id)
      .slice(0, 5)
      .join(', ')}): match it by hand`;
  }
  return `${candidates.length} entries of ${formatBRL(invoice.amountCentavos)} ${where} (${candidates
    .slice(0, 5)
    .map((i) => shortEntry(i.entry.id))
    .join(', ')}${candidates.length > 5 ? ', …' : ''}): match one by hand`;
}

/** An invoice nothing settles: not_due before its due date, else unmatched, saying why. */
function leaveOpen<E extends ReconEntry>(st: Invoices<E>, invoice: ReconExpectation, why: string): void {
  const { pass } = st;
  const { options } = pass;
  const today = todayIn(options.timeZone ?? 'America/Sao_Paulo', new Date(options.now));
  const byHand = byHandWords(pass.unmatchedByHand(invoice));
  const collector = st.collectors.get(invoice.id);
  const collected =
    collector === undefined
      ? ''
      : `; charge ${collector.id.replace(/^charge:/, '')} collects it (--ref) and is not paid either`;
  if (invoice.due !== undefined && invoice.due > today) {
    pass.results.push({
      ...unmatched(
        invoice,
        `due on ${invoice.due}: not due yet, and nothing paid it so far${collected}${byHand}`,
      ),
      outcome: 'not_due',
    });
  } else pass.results.push(unmatched(invoice, `${why}${collected}${byHand}`));
  pass.open.delete(invoice.id);
}

/** The ERP's invoices: proven by the payer's document and the amount, then partial and overpaid, then probable. */
export function settleInvoices<E extends ReconEntry>(pass: Pass<E>): void {
  const st = invoicesOf(pass);
  settleProven(st);
  settleLate(st);
  settleParts(st);
  settleCovering(st);
  const fromPayer = settleOnlyPayment(st);
  // Probable: the amount within the window, nothing naming the payer; only an entry no other invoice wants.
  const { wanted, choice, takers } = byAmount(st);
  for (const invoice of openInvoices(st)) {
    const picked = choice.get(invoice);
    const candidates = wanted.get(invoice) ?? [];
    const rivals = picked ? takers.get(picked)! : [];
    if (!picked || rivals.length !== 1) {
      leaveOpen(st, invoice, whyOpen(st, invoice, candidates, picked, rivals, fromPayer.get(invoice)));
      continue;
    }
    const byName = candidates.length > 1;
    const days = invoice.due === undefined ? '' : `, ${describeDays(picked.ms, dueMs(invoice.due)!)}`;
    pass.settle({
      outcome: 'probable',
      manual: false,
      expectations: [invoice],
      entries: [picked.entry],
      expected: invoice.amountCentavos,
      paid: picked.cents,
      why: `the amount (${formatBRL(invoice.amountCentavos)})${days}${byName ? `, and the payer's name among ${candidates.length} entries of the amount` : ''}; no document proves the payer`,
    });
  }
}

/** `2 days after its due date`, `on its due date`. */
function describeDays(ms: number, due: number): string {
  const days = Math.round((ms - due) / DAY_MS);
  if (days === 0) return 'on its due date';
  const n = Math.abs(days);
  return `${n} day${n === 1 ? '' : 's'} ${days > 0 ? 'after' : 'before'} its due date`;
}
