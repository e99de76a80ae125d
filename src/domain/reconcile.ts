/**
 * Reconciliation (`pix reconcile`): which expectations the statement's entries settle, and how sure that
 * is. Pure: expectations, entries and a person's decisions in, one result per settled expectation or
 * unmatched item out, each saying why. A statement entry carries no txid and no endToEndId (API §2.1),
 * only its counterparty's name and CPF/CNPJ, so the evidence is graded:
 *
 * - proven: the payer's document and the amount (an invoice, or a pix charge made out to that payer); a
 *   journal payment whose transfer id is the debit's own id;
 * - probable: the amount inside the expectation's window and nothing to name the payer — accepted only
 *   when that entry is the only one that fits and it fits no other expectation (a counterparty name equal
 *   to the expected one picks one among several);
 * - partial: several entries from one payer that add up to one invoice, one entry that pays several
 *   invoices of its payer, or one entry from the payer for less than the invoice;
 * - overpaid: one entry from the payer for more than the invoice;
 * - manual: a person's decision (`pix reconcile match`), kept whatever the matcher thinks; a person's
 *   `unmatch` forbids that pair to the matcher;
 * - unmatched-expectation / unmatched-entry: what is left, with the candidates that made it ambiguous. A
 *   debit no journal payment explains was made outside pix; a journal payment whose debit is still
 *   missing a day after it was sent is flagged.
 *
 * Every entry settles at most one result (several expectations only as one partial or manual result).
 * Same inputs, same answer: candidates are taken in time order, then by id.
 */

import { parseInstant } from './days.js';
import type { BusinessDayTest } from './duedate.js';
import { headerKey } from './expectations.js';
import { documentDigits, type LedgerCharge, matchCharges } from './matching.js';
import { type Centavos, formatBRL } from './money.js';

/** The outcomes, in the order reports show them. */
export const OUTCOMES = [
  'proven',
  'probable',
  'partial',
  'overpaid',
  'manual',
  'unmatched-expectation',
  'unmatched-entry',
] as const;

export type Outcome = (typeof OUTCOMES)[number];

export type ExpectationSource = 'file' | 'charge' | 'payment';

/** What is expected: an invoice of the ERP's file, a charge of the ledger, a payment of the journal. */
export interface ReconExpectation {
  /** `NF-123`; `charge:<id>`; `payment:<journal id>`. */
  id: string;
  source: ExpectationSource;
  /** Positive: what should come in (file, charge) or go out (payment). */
  amountCentavos: Centavos;
  /** The payer's (file, charge) CPF/CNPJ, digits. */
  document?: string | undefined;
  /** The payer's (file) or receiver's (payment) name. */
  name?: string | undefined;
  /** File: `YYYY-MM-DD`. */
  due?: string | undefined;
  /** Charge: what matching needs of it (domain/matching.ts). */
  charge?: LedgerCharge | undefined;
  /** Charge: the entry the ledger recorded as its payment, and whether that rested on the payer's document. */
  recorded?: { entryId: string; proven: boolean; how: string } | undefined;
  /** Payment: when it was sent (ISO), its transfer id, and whether its outcome is still unknown. */
  sentAt?: string | undefined;
  journalId?: string | undefined;
  transferId?: string | undefined;
  unresolved?: boolean | undefined;
}

/** What the matcher reads of a statement entry (the API's fields; amount in reais). */
export interface ReconEntry {
  id: string;
  type: string;
  amount: number;
  status: string;
  confirmedAt: string;
  creditor?: { name?: string | undefined; documentNumber?: string | undefined } | null | undefined;
  debtor?: { name?: string | undefined; documentNumber?: string | undefined } | null | undefined;
}

export interface Decision {
  expectation: string;
  entry: string;
  decision: 'match' | 'unmatch';
  /** ISO instant it was recorded. */
  at: string;
}

export interface ReconOptions {
  /** The range read, ms: a file expectation without a due date may be paid anywhere in it. */
  from: number;
  to: number;
  /** Now (the account's clock), ms: a payment's debit is missing once a day has passed. */
  now: number;
  isBusinessDay: BusinessDayTest;
  /** The zone of the calendar days (due dates, a charge's amount due); default America/Sao_Paulo. */
  timeZone?: string;
}

export interface Reconciled<E extends ReconEntry = ReconEntry> {
  outcome: Outcome;
  /** A person decided it (`pix reconcile match`). */
  manual: boolean;
  expectations: ReconExpectation[];
  entries: E[];
  /** What was expected and what the entries paid, in centavos (positive). */
  expected: Centavos;
  paid: Centavos;
  /** For people: why this outcome. */
  why: string;
  /** A payment's debit missing after a day, or an unresolved payment the statement settles. */
  flag?: 'missing-debit' | 'unresolved-paid' | 'outside-pix' | undefined;
}

export interface ReconResult<E extends ReconEntry = ReconEntry> {
  results: Reconciled<E>[];
  /** Decisions naming an expectation or entry this run did not read (kept, reported). */
  staleDecisions: Decision[];
}

/** A file expectation with a due date is paid, probably, within this many days of it. */
export const PROBABLE_DAYS = 5;
/** A payment's debit is looked for from a little before it was sent to a day after. */
export const DEBIT_BEFORE_MS = 5 * 60_000;
export const DEBIT_AFTER_MS = 86_400_000;
/** Partial payments: at most this many parts, among this many nearest entries or invoices. */
const MAX_PARTS = 4;
const NEAREST = 12;
const DAY_MS = 86_400_000;

interface Item<E extends ReconEntry> {
  entry: E;
  ms: number;
  /** Signed centavos. */
  cents: Centavos;
  document: string | undefined;
  name: string | undefined;
  claimed: boolean;
}

const byTime = <E extends ReconEntry>(a: Item<E>, b: Item<E>) =>
  a.ms - b.ms || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0);

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The counterparty's name as compared: case, accents and spaces do not count. */
const nameKey = (name: string | undefined) => (name === undefined ? undefined : headerKey(name));

/** `2026-03-10` of an expectation's due date, as the start of that day in ms (UTC midnight: only days count). */
const dueMs = (due: string | undefined) => (due === undefined ? undefined : Date.parse(`${due}T12:00:00Z`));

/** All subsets of `items` of 2..MAX_PARTS elements whose `value`s add up to `target`, first found. */
function subsetSum<T>(items: readonly T[], value: (item: T) => number, target: number): T[] | undefined {
  const chosen: T[] = [];
  const search = (start: number, left: number): boolean => {
    if (left === 0 && chosen.length >= 2) return true;
    if (chosen.length === MAX_PARTS || left <= 0) return false;
    for (let i = start; i < items.length; i++) {
      const v = value(items[i]!);
      if (v > left) continue;
      chosen.push(items[i]!);
      if (search(i + 1, left - v)) return true;
      chosen.pop();
    }
    return false;
  };
  return search(0, target) ? [...chosen] : undefined;
}

/** Index of the first item at or after `ms` in a list sorted by `at`. */
function firstAtOrAfter<T>(items: readonly T[], at: (item: T) => number, ms: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (at(items[mid]!) < ms) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The items of a list sorted by `at` from `from` to `to`. */
function between<T>(items: readonly T[], at: (item: T) => number, from: number, to: number): T[] {
  const found: T[] = [];
  for (let i = firstAtOrAfter(items, at, from); i < items.length && at(items[i]!) <= to; i++)
    found.push(items[i]!);
  return found;
}

/** The `n` items nearest to `ms` of a list sorted by `at`, in that order. */
function nearest<T>(items: readonly T[], at: (item: T) => number, ms: number, n: number): T[] {
  if (items.length <= n) return [...items];
  let right = firstAtOrAfter(items, at, ms);
  let left = right - 1;
  while (right - left - 1 < n) {
    const takeLeft = left >= 0 && (right >= items.length || ms - at(items[left]!) <= at(items[right]!) - ms);
    if (takeLeft) left--;
    else right++;
  }
  return items.slice(left + 1, right);
}

/** Two different items whose `value`s add up to `target`, the earliest pair found. */
function twoSum<T>(items: readonly T[], value: (item: T) => number, target: number): T[] | undefined {
  const seen = new Map<number, T>();
  for (const item of items) {
    const other = seen.get(target - value(item));
    if (other !== undefined) return [other, item];
    if (!seen.has(value(item))) seen.set(value(item), item);
  }
  return undefined;
}

const shortEntry = (id: string) => id.slice(0, 8);

/**
 * Reconciles `expectations` against statement `entries` (any pages of the range, repeats allowed), with
 * the person's `decisions` (oldest first; the latest about a pair counts).
 */
export function reconcile<E extends ReconEntry>(
  expectations: readonly ReconExpectation[],
  entries: readonly E[],
  decisions: readonly Decision[],
  options: ReconOptions,
): ReconResult<E> {
  const results: Reconciled<E>[] = [];
  // The entries, once each, in time order.
  const items: Item<E>[] = [];
  const itemById = new Map<string, Item<E>>();
  for (const entry of entries) {
    if (itemById.has(entry.id)) continue;
    const ms = parseInstant(entry.confirmedAt);
    const cents = Number.isFinite(entry.amount) ? Math.round(entry.amount * 100) : Number.NaN;
    const party =
      cents < 0 || entry.type === 'OUTCOME'
        ? (entry.debtor ?? entry.creditor)
        : (entry.creditor ?? entry.debtor);
    const item: Item<E> = {
      entry,
      ms: ms ?? Number.NaN,
      cents,
      document: documentDigits(party?.documentNumber),
      name: party?.name,
      claimed: false,
    };
    itemById.set(entry.id, item);
    items.push(item);
  }
  items.sort(byTime);
  const usable = (item: Item<E>) =>
    !item.claimed &&
    item.entry.status === 'CONFIRMED' &&
    Number.isSafeInteger(item.cents) &&
    !Number.isNaN(item.ms);

  const expectationById = new Map<string, ReconExpectation>();
  for (const expectation of expectations) expectationById.set(expectation.id, expectation);
  const open = new Set(expectations.map((expectation) => expectation.id));
  const settle = (result: Reconciled<E>) => {
    for (const expectation of result.expectations) open.delete(expectation.id);
    for (const entry of result.entries) itemById.get(entry.id)!.claimed = true;
    results.push(result);
  };

  // ---- A person's decisions: the latest about each pair counts.
  const latest = new Map<string, Decision>();
  for (const decision of decisions) latest.set(`${decision.expectation}\u0000${decision.entry}`, decision);
  const forbidden = new Set<string>();
  const manualPairs = new Map<string, Set<string>>();
  const staleDecisions: Decision[] = [];
  for (const decision of latest.values()) {
    const pair = `${decision.expectation}\u0000${decision.entry}`;
    if (decision.decision === 'unmatch') {
      forbidden.add(pair);
      continue;
    }
    const expectation = expectationById.get(decision.expectation);
    const item = itemById.get(decision.entry);
    if (!expectation || !item) {
      staleDecisions.push(decision);
      continue;
    }
    const set = manualPairs.get(decision.expectation) ?? new Set<string>();
    manualPairs.set(decision.expectation, set);
    set.add(decision.entry);
  }
  const allowed = (expectation: ReconExpectation, item: Item<E>) =>
    !forbidden.has(`${expectation.id}\u0000${item.entry.id}`);

  // Manual matches: an expectation with its entries, joined into groups that share an entry.
  const done = new Set<string>();
  for (const [first] of manualPairs) {
    if (done.has(first)) continue;
    const groupExpectations = new Set<string>();
    const groupEntries = new Set<string>();
    const queue = [first];
    while (queue.length > 0) {
      const id = queue.pop()!;
      if (groupExpectations.has(id)) continue;
      groupExpectations.add(id);
      for (const entryId of manualPairs.get(id) ?? []) {
        groupEntries.add(entryId);
        for (const [other, set] of manualPairs)
          if (set.has(entryId) && !groupExpectations.has(other)) queue.push(other);
      }
    }
    for (const id of groupExpectations) done.add(id);
    const exps = [...groupExpectations].map((id) => expectationById.get(id)!);
    const its = [...groupEntries].map((id) => itemById.get(id)!).sort(byTime);
    const expected = exps.reduce((sum, e) => sum + e.amountCentavos, 0);
    const paid = its.reduce((sum, i) => sum + Math.abs(i.cents), 0);
    const outcome: Outcome = paid === expected ? 'manual' : paid < expected ? 'partial' : 'overpaid';
    const difference =
      paid === expected
        ? ''
        : `; ${formatBRL(Math.abs(paid - expected))} ${paid < expected ? 'still open' : 'more than expected'}`;
    settle({
      outcome,
      manual: true,
      expectations: exps,
      entries: its.map((i) => i.entry),
      expected,
      paid,
      why: `matched by hand (pix reconcile match)${difference}`,
    });
  }

  // ---- Pix's own payments: each meets its debit.
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

  // ---- The charge ledger's charges: what the ledger recorded, then the ledger's own matcher.
  const charges = expectations.filter((e) => e.source === 'charge' && open.has(e.id) && e.charge);
  for (const charge of charges) {
    const recorded = charge.recorded;
    const item = recorded && itemById.get(recorded.entryId);
    if (!recorded || !item || item.claimed || !allowed(charge, item)) continue;
    settle({
      outcome: recorded.proven ? 'proven' : 'probable',
      manual: false,
      expectations: [charge],
      entries: [item.entry],
      expected: charge.amountCentavos,
      paid: item.cents,
      why: `recorded by the charge ledger: ${recorded.how}`,
    });
  }
  const pendingCharges = charges.filter((charge) => open.has(charge.id));
  if (pendingCharges.length > 0) {
    const credits = items.filter((item) => usable(item) && item.cents > 0).map((item) => item.entry);
    const ledger = pendingCharges.map((charge) => ({
      ...charge.charge!,
      status: 'pending',
      matchedEntryId: undefined,
    }));
    const found = matchCharges(ledger, credits, {
      isBusinessDay: options.isBusinessDay,
      ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }),
    });
    const byChargeId = new Map(pendingCharges.map((charge) => [charge.charge!.id, charge]));
    for (const match of found.matches) {
      const charge = byChargeId.get(match.chargeId)!;
      const item = itemById.get(match.entryId)!;
      if (item.claimed || !allowed(charge, item)) continue;
      settle({
        outcome: match.evidence === 'payer-document' ? 'proven' : 'probable',
        manual: false,
        expectations: [charge],
        entries: [item.entry],
        expected: match.amount,
        paid: item.cents,
        why: match.how,
      });
    }
    for (const ambiguous of found.ambiguous) {
      const charge = byChargeId.get(ambiguous.chargeId)!;
      const ids = ambiguous.candidates.map((c) => shortEntry(c.entryId)).join(', ');
      const rivals =
        ambiguous.rivals.length > 0 ? `; charges ${ambiguous.rivals.join(', ')} could take them too` : '';
      results.push(
        unmatched(
          charge,
          `${ambiguous.candidates.length} entries could have paid it (${ids})${rivals}: match one by hand`,
        ),
      );
      open.delete(charge.id);
    }
    for (const problem of found.unmatchable) {
      const charge = byChargeId.get(problem.chargeId)!;
      results.push(unmatched(charge, `cannot be matched: ${problem.reason}`));
      open.delete(charge.id);
    }
  }

  // ---- The ERP's invoices.
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

  // ---- Whatever is expected and unsettled (charges the ledger matcher passed over), and every entry left.
  for (const id of open) {
    const expectation = expectationById.get(id)!;
    const why =
      expectation.source === 'charge'
        ? chargeUnpaid(expectation, options.now)
        : `no entry of ${formatBRL(expectation.amountCentavos)} found`;
    results.push(unmatched(expectation, why));
  }
  for (const item of items) {
    if (item.claimed) continue;
    const debit = item.cents < 0;
    const status = item.entry.status === 'CONFIRMED' ? '' : ` (status ${item.entry.status}: not counted)`;
    results.push({
      outcome: 'unmatched-entry',
      manual: false,
      expectations: [],
      entries: [item.entry],
      expected: 0,
      paid: Number.isSafeInteger(item.cents) ? Math.abs(item.cents) : 0,
      why:
        status === '' ? (debit ? OUTSIDE_PIX : UNEXPECTED) : `${debit ? OUTSIDE_PIX : UNEXPECTED}${status}`,
      ...(debit && status === '' ? { flag: 'outside-pix' as const } : {}),
    });
  }
  return { results, staleDecisions };
}

/** An expectation nothing settles, and why. */
function unmatched<E extends ReconEntry>(expectation: ReconExpectation, why: string): Reconciled<E> {
  return {
    outcome: 'unmatched-expectation',
    manual: false,
    expectations: [expectation],
    entries: [],
    expected: expectation.amountCentavos,
    paid: 0,
    why,
  };
}

const OUTSIDE_PIX = 'a debit no journal payment explains: made outside pix';
const UNEXPECTED = 'received, and no expectation names it';

function chargeUnpaid(expectation: ReconExpectation, now: number): string {
  const expires = parseInstant(expectation.charge?.expiresAt);
  if (expires !== undefined && expires < now) return 'expired, and no entry paid it';
  return 'not paid yet';
}

/** `2 days after its due date`, `on its due date`. */
function describeDays(ms: number, due: number): string {
  const days = Math.round((ms - due) / DAY_MS);
  if (days === 0) return 'on its due date';
  const n = Math.abs(days);
  return `${n} day${n === 1 ? '' : 's'} ${days > 0 ? 'after' : 'before'} its due date`;
}
