/**
 * Reconciliation (`pix reconcile`): which expectations the statement's entries settle, and how sure that
 * is. Pure: expectations, entries and a person's decisions in, one result per settled expectation or
 * unmatched item out, each saying why. A statement entry carries no txid and no endToEndId (API §2.1),
 * only its counterparty's name and CPF/CNPJ, so the evidence is graded:
 *
 * - proven: the payer's document and the amount (an invoice, paid within its proof window around its due
 *   date, reconcileinvoices.ts; or a pix charge made out to that payer); a journal payment whose transfer
 *   id is the debit's own id; an invoice a pix charge names (`--ref`) by the charge's own evidence;
 * - probable: the amount inside the expectation's window and nothing to name the payer — accepted only
 *   when that entry is the only one that fits and it fits no other expectation (a counterparty name equal
 *   to the expected one picks one among several);
 * - partial: several entries from one payer that add up to one invoice, one entry that pays several
 *   invoices of its payer, or one entry from the payer for less than the invoice;
 * - overpaid: one entry from the payer for more than the invoice;
 * - manual: a person's decision (`pix reconcile match`), kept whatever the matcher thinks; a person's
 *   `unmatch` forbids that pair to the matcher (and an expectation left open says so);
 * - not_due: an invoice nothing settles whose due date has not come (Brasília's calendar);
 * - unmatched-expectation / unmatched-entry: what is left, with the candidates that made it ambiguous. A
 *   debit no journal payment explains was made outside pix; a journal payment whose debit is still
 *   missing a day after it was sent is flagged.
 *
 * Every entry settles at most one result (several expectations only as one partial or manual result).
 * Same inputs, same answer: candidates are taken in time order, then by id.
 */

import { parseInstant } from './days.js';
import type { BusinessDayTest } from './duedate.js';
import { documentDigits, type LedgerCharge, matchCharges } from './matching.js';
import { type Centavos, formatBRL } from './money.js';
import { settleInvoices } from './reconcileinvoices.js';
import { byHandWords, byTime, type Item, type Pass, shortEntry, unmatched } from './reconcilepass.js';
import { settlePayments } from './reconcilepayments.js';
import { BOOKS, centavosOf, countsStatus } from './sums.js';

/** The outcomes, in the order reports show them. */
export const OUTCOMES = [
  'proven',
  'probable',
  'partial',
  'overpaid',
  'manual',
  'not_due',
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
  /** Charge: the invoice it collects (`pix charge … --ref`), an id of the ERP's file. */
  ref?: string | undefined;
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

/** The entries as items, once each, in time order. */
function itemsOf<E extends ReconEntry>(
  entries: readonly E[],
): { items: Item<E>[]; itemById: Map<string, Item<E>> } {
  const items: Item<E>[] = [];
  const itemById = new Map<string, Item<E>>();
  for (const entry of entries) {
    if (itemById.has(entry.id)) continue;
    const ms = parseInstant(entry.confirmedAt);
    const cents = centavosOf(entry.amount) ?? Number.NaN;
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
  return { items, itemById };
}

/** A person's decisions, the latest about each pair: the pairs unmatched, matched, and those naming nothing read. */
interface ByHand {
  forbidden: Set<string>;
  manualPairs: Map<string, Set<string>>;
  staleDecisions: Decision[];
}

function byHandOf<E extends ReconEntry>(
  decisions: readonly Decision[],
  expectationById: ReadonlyMap<string, ReconExpectation>,
  itemById: ReadonlyMap<string, Item<E>>,
): ByHand {
  const latest = new Map<string, Decision>();
  for (const decision of decisions) latest.set(`${decision.expectation}\u0000${decision.entry}`, decision);
  const hand: ByHand = { forbidden: new Set(), manualPairs: new Map(), staleDecisions: [] };
  for (const decision of latest.values()) {
    if (decision.decision === 'unmatch') {
      hand.forbidden.add(`${decision.expectation}\u0000${decision.entry}`);
      continue;
    }
    if (!expectationById.has(decision.expectation) || !itemById.has(decision.entry)) {
      hand.staleDecisions.push(decision);
      continue;
    }
    const set = hand.manualPairs.get(decision.expectation) ?? new Set<string>();
    hand.manualPairs.set(decision.expectation, set);
    set.add(decision.entry);
  }
  return hand;
}

/** The expectations and entries joined to `first` by the pairs a person matched (sharing an entry joins). */
function manualGroup(first: string, manualPairs: ReadonlyMap<string, Set<string>>) {
  const expectations = new Set<string>();
  const entries = new Set<string>();
  const queue = [first];
  while (queue.length > 0) {
    const id = queue.pop()!;
    if (expectations.has(id)) continue;
    expectations.add(id);
    for (const entryId of manualPairs.get(id) ?? []) {
      entries.add(entryId);
      for (const [other, set] of manualPairs)
        if (set.has(entryId) && !expectations.has(other)) queue.push(other);
    }
  }
  return { expectations, entries };
}

/** Manual matches: an expectation with its entries, joined into groups that share an entry. */
function settleManual<E extends ReconEntry>(
  pass: Pass<E>,
  manualPairs: ReadonlyMap<string, Set<string>>,
  expectationById: ReadonlyMap<string, ReconExpectation>,
): void {
  const done = new Set<string>();
  for (const [first] of manualPairs) {
    if (done.has(first)) continue;
    const group = manualGroup(first, manualPairs);
    for (const id of group.expectations) done.add(id);
    const exps = [...group.expectations].map((id) => expectationById.get(id)!);
    const its = [...group.entries].map((id) => pass.itemById.get(id)!).sort(byTime);
    const expected = exps.reduce((sum, e) => sum + e.amountCentavos, 0);
    const paid = its.reduce((sum, i) => sum + Math.abs(i.cents), 0);
    const outcome: Outcome = paid === expected ? 'manual' : paid < expected ? 'partial' : 'overpaid';
    const difference =
      paid === expected
        ? ''
        : `; ${formatBRL(Math.abs(paid - expected))} ${paid < expected ? 'still open' : 'more than expected'}`;
    pass.settle({
      outcome,
      manual: true,
      expectations: exps,
      entries: its.map((i) => i.entry),
      expected,
      paid,
      why: `matched by hand (pix reconcile match)${difference}`,
    });
  }
}

/** The charge ledger's charges: what the ledger recorded, then the ledger's own matcher. */
function settleCharges<E extends ReconEntry>(pass: Pass<E>): void {
  const { open, itemById } = pass;
  const charges = pass.expectations.filter((e) => e.source === 'charge' && open.has(e.id) && e.charge);
  for (const charge of charges) {
    const recorded = charge.recorded;
    const item = recorded && itemById.get(recorded.entryId);
    if (!recorded || !item || item.claimed || !pass.allowed(charge, item)) continue;
    pass.settle({
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
  if (pendingCharges.length > 0) matchPendingCharges(pass, pendingCharges);
}

/** The charges the ledger recorded nothing for, by the ledger's matcher over the credits left. */
function matchPendingCharges<E extends ReconEntry>(pass: Pass<E>, pendingCharges: ReconExpectation[]): void {
  const { options, results, open, itemById } = pass;
  const credits = pass.items.filter((item) => pass.usable(item) && item.cents > 0).map((item) => item.entry);
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
    if (item.claimed || !pass.allowed(charge, item)) continue;
    pass.settle({
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

/** Whatever is expected and unsettled (charges the ledger matcher passed over), and every entry left. */
function settleLeftOver<E extends ReconEntry>(
  pass: Pass<E>,
  expectationById: ReadonlyMap<string, ReconExpectation>,
): void {
  const { results } = pass;
  for (const id of pass.open) {
    const expectation = expectationById.get(id)!;
    const why =
      expectation.source === 'charge'
        ? chargeUnpaid(expectation, pass.options.now)
        : `no entry of ${formatBRL(expectation.amountCentavos)} found`;
    results.push(unmatched(expectation, `${why}${byHandWords(pass.unmatchedByHand(expectation))}`));
  }
  for (const item of pass.items) {
    if (item.claimed) continue;
    const debit = item.cents < 0;
    const status = countsStatus(BOOKS, item.entry.status)
      ? ''
      : ` (status ${item.entry.status}: not counted)`;
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
}

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
  const { items, itemById } = itemsOf(entries);
  const expectationById = new Map<string, ReconExpectation>();
  for (const expectation of expectations) expectationById.set(expectation.id, expectation);
  const open = new Set(expectations.map((expectation) => expectation.id));
  const { forbidden, manualPairs, staleDecisions } = byHandOf(decisions, expectationById, itemById);
  const pass: Pass<E> = {
    expectations,
    options,
    results,
    items,
    itemById,
    open,
    settle: (result) => {
      for (const expectation of result.expectations) open.delete(expectation.id);
      for (const entry of result.entries) itemById.get(entry.id)!.claimed = true;
      results.push(result);
    },
    usable: (item) =>
      !item.claimed &&
      countsStatus(BOOKS, item.entry.status) &&
      Number.isSafeInteger(item.cents) &&
      !Number.isNaN(item.ms),
    allowed: (expectation, item) => !forbidden.has(`${expectation.id}\u0000${item.entry.id}`),
    /** The entries a person unmatched from an expectation (`pix reconcile unmatch`). */
    unmatchedByHand: (expectation) =>
      [...forbidden]
        .filter((pair) => pair.startsWith(`${expectation.id}\u0000`))
        .map((pair) => pair.slice(expectation.id.length + 1)),
  };
  settleManual(pass, manualPairs, expectationById);
  // Pix's own payments (reconcilepayments.ts), the charge ledger's charges, then the ERP's invoices
  // (reconcileinvoices.ts): each pass settles what it can of what is still open.
  settlePayments(pass);
  settleCharges(pass);
  // An invoice a charge collects (`--ref`): settled with the charge, by the charge's own evidence.
  collectedByCharges(pass, expectationById);
  settleInvoices(pass);
  settleLeftOver(pass, expectationById);
  return { results, staleDecisions };
}

const OUTSIDE_PIX = 'a debit no journal payment explains: made outside pix';
const UNEXPECTED = 'received, and no expectation names it';

/**
 * Invoices of the ERP's file that a pix charge names as the one it collects (`pix charge … --ref ID`):
 * when the charge is settled, the invoice is settled with it, by the same entry and evidence (the payer
 * paid the charge made for that invoice, which their document or the window proves of the charge). When
 * the charge is not paid, the invoice is left to its own pass, and says which charge collects it.
 */
function collectedByCharges<E extends ReconEntry>(
  pass: Pass<E>,
  expectationById: ReadonlyMap<string, ReconExpectation>,
): void {
  for (const result of pass.results) {
    const charge = result.expectations.find((e) => e.source === 'charge' && e.ref !== undefined);
    if (charge === undefined || result.entries.length === 0) continue;
    const invoice = expectationById.get(charge.ref!);
    if (invoice === undefined || invoice.source !== 'file' || !pass.open.has(invoice.id)) continue;
    pass.open.delete(invoice.id);
    result.expectations.push(invoice);
    const differs =
      invoice.amountCentavos === charge.amountCentavos
        ? ''
        : `; the invoice is ${formatBRL(invoice.amountCentavos)}, the charge ${formatBRL(charge.amountCentavos)}`;
    result.why = `${result.why}; ${invoice.id} is the invoice charge ${charge.id.replace(/^charge:/, '')} collects (--ref)${differs}`;
  }
}

function chargeUnpaid(expectation: ReconExpectation, now: number): string {
  const expires = parseInstant(expectation.charge?.expiresAt);
  if (expires !== undefined && expires < now) return 'expired, and no entry paid it';
  return 'not paid yet';
}
