/**
 * The journal's rules, pure functions over its entries (architecture rule 11): which state counts, which
 * earlier payment blocks a new one (the duplicate guard, contract §7.6), and finding an entry by id.
 *
 * - The operator's finding wins over what pix recorded: `paid` counts as done, `not-paid` as failed.
 * - A `sending` or `unknown` payment (sent, outcome never known) blocks the same payment with NO time
 *   limit, until `pix journal resolve` records what the statement shows.
 * - A `done` payment blocks the same dynamic code forever, and the same key (or static code) and amount
 *   for 10 minutes; a batch row once paid is never paid again.
 * - A `failed` payment (refused, or never sent) blocks nothing.
 * - Every question is asked of one account (Account): a payment made on another API never blocks or
 *   pays one here, so a sandbox rehearsal does not mark the real batch paid.
 */
import type { Centavos } from '../domain/money.js';
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
}

/**
 * The account a command pays from: its profile and the profile's API. There is no account id in the
 * API, so the API's normalised base URL stands for it (the embedded sandbox has its own,
 * `http://127.0.0.1:0`); `host` is what lines written before the base URL was recorded are compared by.
 */
export interface Account {
  profile: string;
  /** The profile's names before a rename (`pix profile rename`): entries under them are its own. */
  formerNames?: readonly string[] | undefined;
  baseUrl: string;
  host: string;
}

/** Whether the entry was sent to this account's API (whichever profile sent it). */
export function sameApi(entry: JournalEntry, account: Account): boolean {
  return entry.baseUrl === undefined ? entry.host === account.host : entry.baseUrl === account.baseUrl;
}

/** Whether the entry was sent from this profile to this profile's API. */
export function sameAccount(entry: JournalEntry, account: Account): boolean {
  return isProfileOf(entry.profile, account) && sameApi(entry, account);
}

/** Whether `name` is the account's profile, now or before a rename. */
export function isProfileOf(name: string, account: Pick<Account, 'profile' | 'formerNames'>): boolean {
  return name === account.profile || (account.formerNames?.includes(name) ?? false);
}

/** An earlier payment that stops this one, and why: still unresolved, or already paid. */
export interface Blocker {
  entry: JournalEntry;
  why: 'unresolved' | 'paid';
}

/** Whether two payments go to the same key, or by the same code, whatever the amount. */
function sameReceiver(earlier: PaymentIdentity | undefined, identity: PaymentIdentity): boolean {
  if (earlier === undefined || earlier.method !== identity.method) return false;
  const [was, is] =
    identity.method === 'key' ? [earlier.key, identity.key] : [earlier.emvHash, identity.emvHash];
  return was !== undefined && was === is;
}

/** A dynamic code is one payment whatever the amount, and however long ago it was paid. */
function eitherDynamic(entry: JournalEntry, query: DuplicateQuery): boolean {
  return query.method === 'qr' && (query.dynamic === true || entry.payment?.dynamic === true);
}

/** The same payment: the same receiver and, but for a dynamic code, the same amount. */
function samePayee(entry: JournalEntry, query: DuplicateQuery): boolean {
  if (!sameReceiver(entry.payment, query)) return false;
  return eitherDynamic(entry, query) || entry.amountCentavos === query.amountCentavos;
}

/** What an entry's state says to the rules: nothing (failed), or why it blocks. */
function blockingState(entry: JournalEntry): Blocker['why'] | undefined {
  if (entry.kind !== 'payment') return undefined;
  const state = effectiveState(entry);
  if (state === 'failed') return undefined;
  return state === 'done' ? 'paid' : 'unresolved';
}

/** Why `entry` stops the payment `query` at `now`, if it does (the same API, whichever profile). */
function blocks(
  entry: JournalEntry,
  query: DuplicateQuery,
  now: Date,
  account: Account,
): Blocker['why'] | undefined {
  const why = blockingState(entry);
  if (why === undefined || !sameApi(entry, account) || !samePayee(entry, query)) return undefined;
  if (why === 'unresolved') return why;
  if (eitherDynamic(entry, query)) return why;
  const age = now.getTime() - Date.parse(entry.at);
  return age < DUPLICATE_WINDOW_MS ? why : undefined;
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
 * same payee on the same API that stops `query`, if any. `candidates` are the payments to the same key
 * or code (the index's byPayee), oldest first.
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
 * index's byRow), oldest first: a row sent with no known outcome to the same API is held until
 * `pix journal resolve`, whichever profile sent it; a row id paid from this profile on this API is
 * never paid again, whatever file it came from. A row id paid on another account is not paid here
 * (rowPaidElsewhere names it).
 */
export function rowBlocker(
  candidates: readonly JournalEntry[],
  account: Account,
  scope: Scope = {},
): Blocker | undefined {
  return latestBlocker(candidates, scope, (entry) => {
    const why = blockingState(entry);
    if (why === 'unresolved') return sameApi(entry, account) ? why : undefined;
    return why === 'paid' && sameAccount(entry, account) ? why : undefined;
  });
}

/** The latest payment of this row id made on another account (named in the report when ids collide). */
export function rowPaidElsewhere(
  candidates: readonly JournalEntry[],
  account: Account,
): JournalEntry | undefined {
  for (let index = candidates.length - 1; index >= 0; index--) {
    const entry = candidates[index]!;
    if (blockingState(entry) === 'paid' && !sameAccount(entry, account)) return entry;
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
  return sameReceiver(entry.payment, identity) && (amount === undefined || entry.amountCentavos === amount);
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
