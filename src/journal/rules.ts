/**
 * The journal's rules, pure functions over its entries (architecture rule 11): which state counts, which
 * earlier payment blocks a new one (the duplicate guard, contract §7.6), and finding an entry by id.
 *
 * - The operator's finding wins over what pix recorded: `paid` counts as done, `not-paid` as failed.
 * - A `sending` or `unknown` payment (sent, outcome never known) blocks the same payment with NO time
 *   limit, until `pix journal resolve` records what the statement shows.
 * - A `done` payment blocks the same dynamic code forever, and the same receiver (sameRecipient: the
 *   same key, or document at any institution, or without a document the name at the same institution)
 *   and amount for 10 minutes; a batch row once paid is never paid again.
 * - A `failed` payment (refused, or never sent) blocks nothing.
 * - Every question is asked of one account (Account), as the API identifies it: a payment made on
 *   another account never blocks or pays one here (a sandbox rehearsal does not mark the real batch
 *   paid), and one made on this account counts whichever profile, spelling of the URL or machine's
 *   record made it.
 */

import { accountBaseUrl } from '../config/types.js';
import { documentsAgree } from '../domain/documents.js';
import type { Centavos } from '../domain/money.js';
import { sameName } from '../domain/names.js';
import { type ErrorKind, PixError } from '../errors.js';
import type { LegacyClaim } from './accounts.js';
import type { EntryState, JournalEntry, PaymentIdentity } from './entries.js';

/** The same key (or static code) and amount within this window of a `done` payment is a duplicate. */
export const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;

/** The state the rules act on: the recorded one, unless the operator resolved it. */
export function effectiveState(entry: JournalEntry): EntryState {
  if (entry.resolution === 'paid') return 'done';
  if (entry.resolution === 'not-paid') return 'failed';
  return entry.state;
}

/** Sent with no known outcome and not resolved by the operator: it must be looked at. */
export function isUnresolved(entry: JournalEntry): boolean {
  const state = effectiveState(entry);
  return state === 'sending' || state === 'unknown';
}

/** Whether `resolve` may be used on the entry: only an outcome pix could not know is the operator's to say. */
export function isResolvable(entry: JournalEntry): boolean {
  return entry.state === 'sending' || entry.state === 'unknown';
}

export interface DuplicateQuery extends PaymentIdentity {
  amountCentavos: Centavos;
  /** The receiver's name as the consultation answered it (sameRecipient, when there is no document). */
  receiver?: string | undefined;
}

/**
 * The account a command pays from, as the API identifies it (journal/accounts.ts): its id (from its bank
 * details, the same on every machine), and what a new record also names for people (the profile, the base
 * URL, the host). Records written under its former names (`formerIds`: the key-based names of earlier
 * versions) are its own; records written before accounts were known carry only a base URL or a host:
 * those of the URLs the account claimed (`legacy`) are its own.
 */
export interface Account {
  /** The account's stable id: `acct_` and a digest of its bank details. */
  id: string;
  profile: string;
  baseUrl: string;
  host: string;
  legacy: readonly LegacyClaim[];
  formerIds: readonly string[];
}

/** Whether an account id a record (a plan, an entry) names is this account's, now or by a former name. */
export function isAccountId(id: string | undefined, account: Pick<Account, 'id' | 'formerIds'>): boolean {
  return id !== undefined && (id === account.id || account.formerIds.includes(id));
}

/** What a new journal entry records of the account it was made on. */
export function recordedAccount(account: Account): {
  account: string;
  profile: string;
  host: string;
  baseUrl: string;
} {
  return { account: account.id, profile: account.profile, host: account.host, baseUrl: account.baseUrl };
}

/** Whether a record (a journal entry, a charge of the ledger) belongs to this account. */
export function ofAccount(
  record: { account?: string | undefined; baseUrl?: string | undefined; host: string },
  account: Account,
): boolean {
  if (record.account !== undefined) return isAccountId(record.account, account);
  // A claim of an earlier version may name the embedded sandbox by its placeholder (config/types.ts).
  return account.legacy.some((claim) =>
    record.baseUrl === undefined
      ? record.host === claim.host
      : record.baseUrl === accountBaseUrl(claim.baseUrl),
  );
}

/** An earlier payment that stops this one, and why: still unresolved, or already paid. */
export interface Blocker {
  entry: JournalEntry;
  why: 'unresolved' | 'paid';
}

/** Whether two payments name the same key, or the same code, as they were given (a batch row's target). */
function sameTarget(earlier: PaymentIdentity | undefined, identity: PaymentIdentity): boolean {
  if (earlier === undefined || earlier.method !== identity.method) return false;
  const [was, is] =
    identity.method === 'key' ? [earlier.key, identity.key] : [earlier.emvHash, identity.emvHash];
  return was !== undefined && was === is;
}

/** The same code, whatever the amount. */
function sameCode(earlier: PaymentIdentity, identity: PaymentIdentity): boolean {
  return earlier.emvHash !== undefined && earlier.emvHash === identity.emvHash;
}

/**
 * The same receiver, as the consultations answered: the same key (a static code's own key included); else
 * the same document (as far as the masks show: domain/documents.ts), at whatever institution (a CPF or CNPJ
 * is one person's or company's at any bank: keys at two banks are one receiver); else, when a consultation
 * gave no document, the same name as banks write it (domain/names.ts) at the same institution (`names`:
 * the earlier receiver's and this one's; without them, no name is compared). A key, a static code of it,
 * that code with another txid or another merchant name: one receiver.
 */
export function sameRecipient(
  earlier: PaymentIdentity,
  identity: PaymentIdentity,
  names?: { earlier: string | undefined; now: string | undefined },
): boolean {
  if (earlier.key !== undefined && earlier.key === identity.key) return true;
  if (earlier.document !== undefined && identity.document !== undefined) {
    return documentsAgree(earlier.document, identity.document);
  }
  return (
    names !== undefined &&
    earlier.participant !== undefined &&
    earlier.participant === identity.participant &&
    sameName(names.earlier, names.now)
  );
}

/** A dynamic code is one payment whatever the amount, and however long ago it was paid. */
function eitherDynamic(entry: JournalEntry, query: DuplicateQuery): boolean {
  return query.method === 'qr' && (query.dynamic === true || entry.payment?.dynamic === true);
}

/**
 * The same payment: the same dynamic code, whatever the amount; else the same amount to the same code or
 * receiver. Two dynamic codes are two charges, even of one merchant and amount: the server pays each once.
 */
function samePayee(entry: JournalEntry, query: DuplicateQuery): boolean {
  const earlier = entry.payment;
  if (earlier === undefined) return false;
  if (eitherDynamic(entry, query)) return sameCode(earlier, query);
  if (entry.amountCentavos !== query.amountCentavos) return false;
  return (
    sameCode(earlier, query) ||
    sameRecipient(earlier, query, { earlier: entry.receiver, now: query.receiver })
  );
}

/** What an entry's state says to the rules: nothing (failed), or why it blocks. */
function blockingState(entry: JournalEntry): Blocker['why'] | undefined {
  if (entry.kind !== 'payment') return undefined;
  const state = effectiveState(entry);
  if (state === 'failed') return undefined;
  return state === 'done' ? 'paid' : 'unresolved';
}

/** Why `entry` stops the payment `query` at `now`, if it does (the same account, whichever profile). */
function blocks(
  entry: JournalEntry,
  query: DuplicateQuery,
  now: Date,
  account: Account,
): Blocker['why'] | undefined {
  const why = blockingState(entry);
  if (why === undefined || !ofAccount(entry, account) || !samePayee(entry, query)) return undefined;
  if (why === 'unresolved') return why;
  if (eitherDynamic(entry, query)) return why;
  const age = now.getTime() - Date.parse(entry.at);
  return age < DUPLICATE_WINDOW_MS ? why : undefined;
}

/**
 * Whether an entry can still matter to a payment's questions once every question asks only about entries
 * started within some window (the journal's index keeps these from before its window, and every entry
 * within it: resume.ts): an unresolved entry holds a payment with no time limit, and a dynamic code paid,
 * or held, is one payment forever (blocks). A code's digest names its bytes, and so whether it is dynamic:
 * only a code recorded as static (`dynamic: false`) is let go of. The rest (paid, refused) stops the same
 * payment only within DUPLICATE_WINDOW_MS, and a batch row's history is asked of the whole journal.
 */
export function mattersBeyondWindow(entry: JournalEntry): boolean {
  if (isUnresolved(entry)) return true;
  const { payment } = entry;
  if (entry.kind !== 'payment' || payment?.emvHash === undefined || payment.dynamic === false) return false;
  return blockingState(entry) !== undefined;
}

/** Which earlier entries a question looks at. */
export interface Scope {
  /** Only entries started before this one (by `seq`): after appending our own line, to close the race. */
  before?: number;
  /** Entries the question leaves out (a batch's own rows: rows of one file are the operator's intent). */
  skip?: (entry: JournalEntry) => boolean;
}

function inScope(entry: JournalEntry, scope: Scope): boolean {
  return (scope.before === undefined || entry.seq < scope.before) && !scope.skip?.(entry);
}

/**
 * The latest unresolved entry of `candidates` (oldest first) in `scope`, else the latest paid one, as
 * `why` judges each: resolving the unresolved one is what the operator must do first.
 */
function latestBlocker(
  candidates: readonly JournalEntry[],
  scope: Scope,
  why: (entry: JournalEntry) => Blocker['why'] | undefined,
): Blocker | undefined {
  let paid: JournalEntry | undefined;
  for (let index = candidates.length - 1; index >= 0; index--) {
    const entry = candidates[index]!;
    if (!inScope(entry, scope)) continue;
    const found = why(entry);
    if (found === 'unresolved') return { entry, why: found };
    if (found === 'paid') paid ??= entry;
  }
  return paid && { entry: paid, why: 'paid' };
}

/**
 * The duplicate guard, one for all money (pay key, pay qr, each batch row): the earlier payment to the
 * same payee on the same account that stops `query`, if any. `candidates` are the payments that may be
 * to the same payee (the index's byPayee: the same key, code or amount), oldest first.
 */
export function findBlocking(
  candidates: readonly JournalEntry[],
  query: DuplicateQuery,
  now: Date,
  account: Account,
  scope: Scope = {},
): Blocker | undefined {
  return latestBlocker(candidates, scope, (entry) => blocks(entry, query, now, account));
}

/**
 * What stops a batch row id from being paid (pix pay batch), from the payments of that row id (the
 * index's byRow), oldest first: a row of this account sent with no known outcome is held until
 * `pix journal resolve`, and one paid is never paid again, whatever file, profile or spelling of the URL
 * it came from. A row id paid on another account is not paid here (rowPaidElsewhere names it).
 */
export function rowBlocker(
  candidates: readonly JournalEntry[],
  account: Account,
  scope: Scope = {},
): Blocker | undefined {
  return latestBlocker(candidates, scope, (entry) => {
    const why = blockingState(entry);
    return why !== undefined && ofAccount(entry, account) ? why : undefined;
  });
}

/** The latest payment of this row id made on another account (named in the report when ids collide). */
export function rowPaidElsewhere(
  candidates: readonly JournalEntry[],
  account: Account,
): JournalEntry | undefined {
  for (let index = candidates.length - 1; index >= 0; index--) {
    const entry = candidates[index]!;
    if (blockingState(entry) === 'paid' && !ofAccount(entry, account)) return entry;
  }
  return undefined;
}

/**
 * Whether an earlier entry of a row id paid (or may have paid) what the row asks now: the same key or
 * code and, where the row gives one, the same amount. A row id whose payment changed since (an edited
 * file) is not the same row: paying it would pay what the operator did not see, skipping it would
 * never pay the new receiver.
 */
export function sameRowPayment(
  entry: JournalEntry,
  identity: PaymentIdentity,
  amount: Centavos | undefined,
): boolean {
  return sameTarget(entry.payment, identity) && (amount === undefined || entry.amountCentavos === amount);
}

export type Lookup =
  | { found: JournalEntry }
  | { found: undefined; matches: JournalEntry[] /* none, or more than one */ };

/** The entry whose id is `idOrPrefix` or, failing that, the only one whose id starts with it. */
export function findEntry(entries: readonly JournalEntry[], idOrPrefix: string): Lookup {
  const wanted = idOrPrefix.trim().toLowerCase();
  const exact = entries.find((entry) => entry.id.toLowerCase() === wanted);
  if (exact) return { found: exact };
  const matches = wanted === '' ? [] : entries.filter((entry) => entry.id.toLowerCase().startsWith(wanted));
  return matches.length === 1 ? { found: matches[0]! } : { found: undefined, matches };
}

/**
 * Kinds the API client raises for a write only when nothing was applied (a refusal, or nothing sent): the
 * client decides which answers prove that (api/outcomes.ts), the journal reads it from the kind.
 */
const NOT_APPLIED_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  'usage',
  'auth',
  'not_found',
  'rejected',
  'unavailable',
  'interrupted',
]);

/**
 * What the journal records for a charge or transfer that ended in `error`: `failed` only when the error
 * proves nothing was applied; anything else — an unknown outcome, a crash, an error pix does not know —
 * is `unknown`.
 */
export function journalStateOf(error: unknown): 'failed' | 'unknown' {
  return error instanceof PixError && NOT_APPLIED_KINDS.has(error.kind) ? 'failed' : 'unknown';
}
