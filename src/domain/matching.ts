/**
 * Which statement entry paid which charge of the local ledger. The API has no endpoint to read a
 * charge back, so `pix charge wait`/`--wait` and `pix charge list`/`show` find the payment in the
 * statement. A statement entry carries no txid and no endToEndId (API §2.1): what it carries that
 * names the payer is its counterparty's document (`creditor.documentNumber` on an INCOME entry).
 *
 * Rules (README, "Following charges"):
 * - Only charges with status `pending` and no entry yet are matched. Only INCOME entries with status
 *   CONFIRMED and a positive amount can pay one.
 * - An entry could pay a charge when it was confirmed inside the charge's window — from its creation
 *   (less EARLY_TOLERANCE_MS, for a creation time taken from a clock a little ahead of the server's) to
 *   its expiry (plus LATE_TOLERANCE_MS, for a payment made in the last moment and confirmed just after)
 *   — and its amount is:
 *   - an immediate charge: the charge's amount;
 *   - a due-date charge: the amount due on the entry's calendar day in the time zone, under the
 *     charge's own abatement, discount, fine and interest (domain/duedate.ts); an entry confirmed less
 *     than LATE_TOLERANCE_MS after midnight may also carry the amount due the day before (paid at
 *     23:59:59, confirmed at 00:00:02, must not need a day of fine and interest to match).
 * - Evidence. A charge with a payer document (the immediate charge's `--payer-tax-id`, the due-date
 *   debtor's CPF/CNPJ) can be paid only by an entry whose counterparty document is the same: that is
 *   proof (`payer-document`). A charge without one can be paid by any entry of the amount in its
 *   window: that is only `amount-and-time`, a probable match, never reported as proof. An entry that
 *   could prove a charge is that charge's, never a probable match of another.
 * - Ambiguity. A charge is matched only when it has exactly one such entry and that entry could pay no
 *   other pending charge. When two pending charges could take the same entry, or one charge two
 *   entries, none of them is matched: each is `ambiguous`, with its candidate entries and the charges
 *   it competes with. Guessing (the oldest charge takes the first payment) would mark paid a charge
 *   whose payer never paid.
 * - An entry already claimed by a charge of the ledger (its `matchedEntryId`) is never matched again.
 * - Results are in the charges' order: window start, then id. The same inputs give the same answer.
 *
 * Pure: no clock, no I/O. A charge whose own record cannot be priced (unreadable times, a bad due
 * date, an amount that is not whole centavos) is reported in `unmatchable`, never guessed at.
 */
import { dayLookup, parseInstant, type ZonedDay } from './days.js';
import {
  type Amounts,
  BRASILIA_TIME_ZONE,
  type BusinessDayTest,
  type DueDateModifiers,
  hasValidDueDate,
} from './duedate.js';
import { byTimeThenId, type Pairing, payingDueDate, payingImmediate } from './matchcandidates.js';
import { type Centavos, centavosFromApi } from './money.js';

/** Before its recorded creation, an entry may still pay a charge by this much (clock differences). */
export const EARLY_TOLERANCE_MS = 60_000;
/** After its expiry (and after midnight, for a due-date charge's day), by this much (confirmation lag). */
export const LATE_TOLERANCE_MS = 5 * 60_000;

/** What matching needs of a charge of the ledger. */
export interface LedgerCharge {
  id: string;
  type: 'immediate' | 'duedate';
  /** The charge's amount (a due-date charge's original amount), in centavos. */
  amountCentavos: Centavos;
  /** ISO 8601 instant. */
  createdAt: string;
  /** ISO 8601 instant; absent: no end. */
  expiresAt?: string | undefined;
  /** Due-date charges: `YYYY-MM-DD`. */
  dueDate?: string | undefined;
  /** Due-date charges: the modifiers as the API request carried them. */
  terms?: DueDateModifiers | undefined;
  /** `pending` is matched; anything else (paid, expired, …) is not. */
  status: string;
  /** The statement entry that paid it, once known. */
  matchedEntryId?: string | undefined;
  /** The payer's CPF or CNPJ the charge was created for (digits); absent: anyone may pay it. */
  payerDocument?: string | undefined;
}

/** What matching reads of a statement entry (the API's fields, amount in reais). */
export interface MatchableEntry {
  id: string;
  type: string;
  amount: number;
  status: string;
  confirmedAt: string;
  /** Who paid (API §2.1: present on INCOME entries); its `documentNumber` is the payer's CPF/CNPJ. */
  creditor?: { documentNumber?: string | undefined } | null | undefined;
}

/** What a match rests on: the payer's document (proof), or only the amount and the time (probable). */
export type Evidence = 'payer-document' | 'amount-and-time';

export interface MatchOptions {
  /** Business days, for the *_BUSINESS_DAY discounts and *_WORKING_DAYS interest (loadBusinessDayTest). */
  isBusinessDay: BusinessDayTest;
  /** The zone of the calendar days of due-date amounts; default America/Sao_Paulo. */
  timeZone?: string;
  earlyToleranceMs?: number;
  lateToleranceMs?: number;
}

export interface ChargeMatch<E extends MatchableEntry = MatchableEntry> {
  chargeId: string;
  entryId: string;
  entry: E;
  /** The amount paid, in centavos. */
  amount: Centavos;
  /** `payer-document`: the entry's payer is the charge's; `amount-and-time`: probable only. */
  evidence: Evidence;
  /** `amount`: an immediate charge's amount; `amount-due`: a due-date charge's amount due on `day`. */
  basis: 'amount' | 'amount-due';
  /** Due-date charges: the day whose amount due was paid, and its parts. */
  day?: string;
  amounts?: Amounts;
  /** For people: "matched by amount (R$ 10,00) and time", "matched by the amount due on …". */
  how: string;
}

export interface Unmatchable {
  chargeId: string;
  reason: string;
}

/** A charge that more than one entry could have paid, or whose entry another charge could have taken. */
export interface AmbiguousCharge<E extends MatchableEntry = MatchableEntry> {
  chargeId: string;
  /** Every entry that could have paid it, each as the match it would be (by confirmation time). */
  candidates: ChargeMatch<E>[];
  /** The other pending charges that could take one of those entries. */
  rivals: string[];
}

export interface MatchResult<E extends MatchableEntry> {
  /** In the charges' order: window start, then id. */
  matches: ChargeMatch<E>[];
  ambiguous: AmbiguousCharge<E>[];
  unmatchable: Unmatchable[];
}

/** The instants (ms) between which an entry may pay `charge`; undefined when its times cannot be read. */
export function matchWindow(
  charge: Pick<LedgerCharge, 'createdAt' | 'expiresAt'>,
  options: Pick<MatchOptions, 'earlyToleranceMs' | 'lateToleranceMs'> = {},
): { from: number; to: number } | undefined {
  const created = parseInstant(charge.createdAt);
  const expires = charge.expiresAt === undefined ? Number.POSITIVE_INFINITY : parseInstant(charge.expiresAt);
  if (created === undefined || expires === undefined) return undefined;
  return {
    from: created - (options.earlyToleranceMs ?? EARLY_TOLERANCE_MS),
    to: expires + (options.lateToleranceMs ?? LATE_TOLERANCE_MS),
  };
}

export interface Candidate<E extends MatchableEntry> {
  entry: E;
  ms: number;
  amount: Centavos;
  day: ZonedDay;
  /** The payer's document, digits; undefined when the entry has none that can be read in full. */
  document: string | undefined;
}

/**
 * A CPF or CNPJ as digits (punctuation dropped), or undefined when it is not one in full: a masked
 * document (`***.456.789-**`) proves nothing.
 */
export function documentDigits(text: unknown): string | undefined {
  if (typeof text !== 'string' || !/^[\d.\-/\s]+$/.test(text)) return undefined;
  const digits = text.replace(/\D/g, '');
  return digits.length === 11 || digits.length === 14 ? digits : undefined;
}

/** Why a charge of the ledger cannot be matched, or undefined when it can. */
function problemOf(charge: LedgerCharge): string | undefined {
  if (!Number.isSafeInteger(charge.amountCentavos) || charge.amountCentavos <= 0)
    return 'its amount is not a positive whole number of centavos';
  if (parseInstant(charge.createdAt) === undefined) return 'its creation time cannot be read';
  if (charge.expiresAt !== undefined && parseInstant(charge.expiresAt) === undefined)
    return 'its expiry time cannot be read';
  if (charge.type === 'duedate') {
    if (charge.dueDate === undefined || !hasValidDueDate({ dueDate: charge.dueDate }))
      return 'its due date cannot be read';
  } else if (charge.type !== 'immediate') return 'its type is neither immediate nor duedate';
  return undefined;
}

/**
 * The entries that could pay something (income, confirmed, not claimed, each once), by amount, each list in
 * time order; and their distinct days, in order (a due-date charge is priced once per day).
 */
function candidatesOf<E extends MatchableEntry>(
  entries: readonly E[],
  claimed: ReadonlySet<string>,
  timeZone: string,
): { byAmount: Map<Centavos, Candidate<E>[]>; days: ZonedDay[] } {
  const dayOf = dayLookup(timeZone);
  const seen = new Set<string>();
  const candidates: Candidate<E>[] = [];
  for (const entry of entries) {
    if (entry.type !== 'INCOME' || entry.status !== 'CONFIRMED') continue;
    if (claimed.has(entry.id) || seen.has(entry.id)) continue;
    const ms = parseInstant(entry.confirmedAt);
    const amount =
      typeof entry.amount === 'number' && Number.isFinite(entry.amount) ? centavosFromApi(entry.amount) : 0;
    if (ms === undefined || !Number.isSafeInteger(amount) || amount <= 0) continue;
    seen.add(entry.id);
    const document = documentDigits(entry.creditor?.documentNumber);
    candidates.push({ entry, ms, amount, day: dayOf(ms), document });
  }
  candidates.sort(byTimeThenId);
  const byAmount = new Map<Centavos, Candidate<E>[]>();
  for (const c of candidates) {
    const list = byAmount.get(c.amount);
    if (list) list.push(c);
    else byAmount.set(c.amount, [c]);
  }
  const days: ZonedDay[] = [];
  for (const c of candidates) if (days.at(-1)?.date !== c.day.date) days.push(c.day);
  return { byAmount, days };
}

/** The pending, unclaimed charges in order of their windows; one that cannot be matched is said why. */
function pendingCharges(charges: readonly LedgerCharge[], options: MatchOptions, unmatchable: Unmatchable[]) {
  return charges
    .filter((charge) => charge.status === 'pending' && charge.matchedEntryId === undefined)
    .filter((charge) => {
      const reason = problemOf(charge);
      if (reason !== undefined) unmatchable.push({ chargeId: charge.id, reason });
      return reason === undefined;
    })
    .map((charge) => ({ charge, window: matchWindow(charge, options)! }))
    .sort(
      (a, b) =>
        a.window.from - b.window.from || (a.charge.id < b.charge.id ? -1 : a.charge.id > b.charge.id ? 1 : 0),
    );
}

/** One charge and the entries it could take. */
interface Possible<E extends MatchableEntry> {
  charge: LedgerCharge;
  document: string | undefined;
  pairs: Pairing<E>[];
}

/**
 * An entry that could prove a charge is that charge's: no probable match of another takes it. Narrows the
 * others' pairs so; returns each entry's takers (the charges it could still pay).
 */
function narrowToProving<E extends MatchableEntry>(possible: Possible<E>[]): Map<string, string[]> {
  const proving = new Set<string>();
  for (const { document, pairs } of possible)
    if (document !== undefined) for (const pair of pairs) proving.add(pair.candidate.entry.id);
  const takers = new Map<string, string[]>();
  for (const item of possible) {
    if (item.document === undefined)
      item.pairs = item.pairs.filter((p) => !proving.has(p.candidate.entry.id));
    for (const pair of item.pairs) {
      const list = takers.get(pair.candidate.entry.id);
      if (list) list.push(item.charge.id);
      else takers.set(pair.candidate.entry.id, [item.charge.id]);
    }
  }
  return takers;
}

/** A charge's pair as a match, said with its evidence. */
function asMatch<E extends MatchableEntry>(
  charge: LedgerCharge,
  evidence: Evidence,
  { candidate, found }: Pairing<E>,
): ChargeMatch<E> {
  return {
    chargeId: charge.id,
    entryId: candidate.entry.id,
    entry: candidate.entry,
    amount: candidate.amount,
    evidence,
    ...found,
    how:
      evidence === 'payer-document'
        ? found.how.replace(/^matched by /, "matched by the payer's document, ")
        : found.how,
  };
}

/**
 * Matches statement entries to the pending charges of a ledger (the rules are at the top of this
 * file). `charges` is the whole ledger (its claimed entries are skipped); `entries` any pages of the
 * statement, in any order, repeats allowed.
 */
export function matchCharges<E extends MatchableEntry>(
  charges: readonly LedgerCharge[],
  entries: readonly E[],
  options: MatchOptions,
): MatchResult<E> {
  const claimed = new Set<string>();
  for (const charge of charges) if (charge.matchedEntryId !== undefined) claimed.add(charge.matchedEntryId);
  const { byAmount, days } = candidatesOf(entries, claimed, options.timeZone ?? BRASILIA_TIME_ZONE);
  const unmatchable: Unmatchable[] = [];
  const pending = pendingCharges(charges, options, unmatchable);
  // Every entry each charge could take; a charge with a payer document only its payer's entries.
  const late = options.lateToleranceMs ?? LATE_TOLERANCE_MS;
  const lookup = { byAmount, days, late, isBusinessDay: options.isBusinessDay };
  const possible = pending.map(({ charge, window }): Possible<E> => {
    const document = documentDigits(charge.payerDocument);
    const all =
      charge.type === 'immediate'
        ? payingImmediate(charge, window, lookup)
        : payingDueDate(charge, window, lookup);
    return {
      charge,
      document,
      pairs: document === undefined ? all : all.filter((p) => p.candidate.document === document),
    };
  });
  const takers = narrowToProving(possible);
  const matches: ChargeMatch<E>[] = [];
  const ambiguous: AmbiguousCharge<E>[] = [];
  for (const { charge, document, pairs } of possible) {
    if (pairs.length === 0) continue;
    const evidence: Evidence = document === undefined ? 'amount-and-time' : 'payer-document';
    const rivals = new Set<string>();
    for (const pair of pairs)
      for (const id of takers.get(pair.candidate.entry.id) ?? []) if (id !== charge.id) rivals.add(id);
    if (pairs.length === 1 && rivals.size === 0) matches.push(asMatch(charge, evidence, pairs[0]!));
    else {
      const candidates = pairs.map((pair) => asMatch(charge, evidence, pair));
      ambiguous.push({ chargeId: charge.id, candidates, rivals: [...rivals].sort() });
    }
  }
  return { matches, ambiguous, unmatchable };
}
