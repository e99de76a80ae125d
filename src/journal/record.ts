/**
 * One charge or transfer request between its journal lines — the one way pix sends anything that moves
 * money or creates something (payments, charges, and batch rows next). The `sending` line is on disk
 * before the request leaves; after it, the outcome is recorded by what the answer proves
 * (api/outcomes.ts): `done`, `failed` (an explicit refusal, or nothing sent), or `unknown` (anything
 * else, a crash included). After the request may have left nothing ends as a crash: an error that is not
 * a refusal becomes an `unknown_outcome` PixError (exit 7, or 130/143 when a signal stopped it).
 */
import type { Deps } from '../context.js';
import { type Anomaly, chargeAnomalies, describeAnomalies } from '../domain/anomalies.js';
import { formatBRL, formatDecimal } from '../domain/money.js';
import { formatMinuteWithOffset } from '../domain/when.js';
import { describeSystemError, PixError } from '../errors.js';
import {
  type ChargeCreated,
  type ChargeStart,
  type FinishFields,
  type JournalEntry,
  shortId,
} from './entries.js';
import { type Account, journalStateOf, recordedAccount } from './rules.js';
import { type JournalStore, OutcomeSpilled } from './stores.js';

/** The command that records what the operator found about an entry. */
export function resolveCommand(entry: Pick<JournalEntry, 'id'>): string {
  return `pix journal resolve ${shortId(entry.id)} --paid|--not-paid`;
}

/**
 * The statement window a payment's entry is looked for in: from a few minutes before the attempt (the
 * clocks of pix and the server differ) to a quarter of an hour after it (the statement lists a transfer
 * once it is confirmed, which may come after the answer that never arrived).
 */
export const LOOK_BEFORE_MS = 5 * 60_000;
export const LOOK_AFTER_MS = 15 * 60_000;

/** What the hint of an unknown outcome can say beyond the journal entry. */
export interface LookFor {
  /** The profile's time zone: the window's times are shown on its clock (with their offset). */
  timeZone?: string;
  /** The receiver's document, masked as pix shows documents (the statement shows it the same way). */
  document?: string;
}

/** `pix statement -p PROFILE --from … --to …` over the window around a payment's attempt. */
export function statementWindowCommand(
  entry: Pick<JournalEntry, 'at' | 'profile'>,
  timeZone = 'UTC',
): string {
  const at = Date.parse(entry.at);
  const from = formatMinuteWithOffset(at - LOOK_BEFORE_MS, timeZone);
  // The end rounded up to a whole minute, so the window always covers LOOK_AFTER_MS.
  const to = formatMinuteWithOffset(at + LOOK_AFTER_MS + 59_999, timeZone);
  const profile = entry.profile ? `-p ${entry.profile} ` : '';
  return `pix statement ${profile}--from ${from} --to ${to}`;
}

/**
 * The visible digits of a masked document (`***.982.247-**` → `982247`), which `--counterparty` finds in
 * the statement's full document; undefined when too few show to tell receivers apart.
 */
function documentDigits(masked: string | undefined): string | undefined {
  if (masked === undefined) return undefined;
  const runs = masked.split('*').map((part) => part.replace(/\D/g, ''));
  const longest = runs.reduce((best, run) => (run.length > best.length ? run : best), '');
  return longest.length >= 4 ? longest : undefined;
}

/**
 * The statement filters that find a payment's entry in its window, so the hint is one command that shows
 * the entry (or nothing), not a window of pages to read: outgoing, exactly its amount, its receiver by the
 * document's digits, else by a name that is plain words (server text goes into a command only when it
 * cannot be shell syntax), and `--all` (filters apply per page read).
 */
function findFilters(entry: JournalEntry, look: LookFor): string {
  const amount = formatDecimal(entry.amountCentavos);
  const digits = documentDigits(look.document);
  const name = entry.receiver?.trim();
  const who =
    digits !== undefined
      ? ` --counterparty ${digits}`
      : name !== undefined && /^[\p{L}\p{N} .,&-]{1,80}$/u.test(name)
        ? ` --counterparty '${name}'`
        : '';
  return `--type outcome${who} --min ${amount} --max ${amount} --all`;
}

/**
 * THE hint after an unknown outcome (exit 7), and for a payment held by one, that can be followed: statement
 * entries carry no endToEndId (API §2.1), so it names what they do carry — a window of time, the amount
 * and the counterparty's masked document (or name) — and the two commands that record what was found.
 * Server text in it (the receiver's name) is made safe where it is shown (main.ts, the report writers).
 */
export function recoveryHint(entry: JournalEntry, look: LookFor = {}): string {
  const id = shortId(entry.id);
  const paid = `\`pix journal resolve ${id} --paid\``;
  const notPaid = `\`pix journal resolve ${id} --not-paid\``;
  if (entry.kind === 'charge') {
    return `it may have been created (journal entry ${id}, marked unknown): a charge shows in \`pix statement\` only once it is paid; create it again only if a second charge does no harm, then record what you know with ${paid} (it exists) or ${notPaid} (it does not)`;
  }
  const name = entry.receiver ? ` "${entry.receiver.slice(0, 80)}"` : '';
  const doc = look.document ? ` (document ${look.document})` : '';
  const to = name || doc ? ` to${name}${doc}` : '';
  return `it may have gone through (journal entry ${id}, marked unknown): look for an OUTCOME of ${formatBRL(entry.amountCentavos)}${to} with \`${statementWindowCommand(entry, look.timeZone)} ${findFilters(entry, look)}\`, then run ${paid} if it is there or ${notPaid} if it is not`;
}

function reasonOf(error: unknown): string {
  if (error instanceof PixError)
    return error.status === undefined ? error.kind : `${error.kind} ${error.status}`;
  return 'internal';
}

/**
 * Appends an outcome; once the request was sent, a journal that cannot be written must not hide it.
 * Returns the spill file when a shared store could not be reached and the outcome was kept there.
 */
async function record(
  journal: JournalStore,
  id: string,
  outcome: FinishFields,
  warn: (line: string) => void,
): Promise<OutcomeSpilled | undefined> {
  try {
    await journal.finish(id, outcome);
  } catch (error) {
    if (error instanceof OutcomeSpilled) return error;
    // A full disk says so and names the file (errors.ts), not in Node's words.
    const why = describeSystemError(error)?.message ?? (error as Error).message;
    warn(`warning: the journal could not record the outcome (${why})`);
  }
  return undefined;
}

/**
 * Exit 7 when the outcome is known here but the shared ledger did not receive it: the other machines hold
 * the payment (its lease stops beating) until the next pix here that reaches the database writes it.
 */
function spilledError(entry: JournalEntry, state: FinishFields['state'], spill: OutcomeSpilled): PixError {
  return new PixError(
    'unknown_outcome',
    `the ${entry.kind === 'charge' ? 'charge' : 'transfer'} ended ${state} (journal entry ${shortId(entry.id)}), but the shared ledger could not record it (${spill.message}); it is kept in ${spill.file}`,
    {
      hint: 'the next pix command on this machine that reaches the database writes it there first; until then other machines hold this payment, and this one is never sent again',
      cause: spill,
    },
  );
}

export interface JournaledRequest<T> {
  journal: JournalStore;
  /** The entry begun for this request (its `sending` line is written). */
  entry: JournalEntry;
  send(): Promise<T>;
  /** The ids and status the result carries, for the `done` line. */
  outcome(result: T): Omit<FinishFields, 'state'>;
  /** What the answer contradicts in the request (api/outcomes.ts): any makes the outcome unknown. */
  anomalies?(result: T): Anomaly[];
  /** What the recovery hint of an unknown outcome can name beyond the entry. */
  look: LookFor;
  warn(line: string): void;
}

/** Sends, records the outcome, and returns the result or throws a PixError saying what is known. */
export async function sendJournaled<T>(request: JournaledRequest<T>): Promise<T> {
  const { journal, entry, warn } = request;
  // The claim must still be certainly this process's (a shared ledger's lease): otherwise nothing is sent,
  // and the entry stays as the ledger has it (postgres/leases.ts).
  await journal.beforeSend(entry);
  let result: T;
  try {
    result = await request.send();
  } catch (error) {
    const state = journalStateOf(error);
    const spilled = await record(journal, entry.id, { state, reason: reasonOf(error) }, warn);
    if (state === 'failed') throw spilled === undefined ? error : spilledError(entry, state, spilled);
    const known = error instanceof PixError ? error : undefined;
    throw new PixError(
      'unknown_outcome',
      known?.message ?? `the answer could not be handled (${(error as Error)?.message ?? String(error)})`,
      {
        ...(known?.status === undefined ? {} : { status: known.status }),
        ...(known?.serverMessage === undefined ? {} : { serverMessage: known.serverMessage }),
        ...(known?.server === undefined ? {} : { server: known.server }),
        ...(known?.signal === undefined ? {} : { signal: known.signal }),
        cause: error,
        hint: recoveryHint(entry, request.look),
      },
    );
  }
  let outcome: Omit<FinishFields, 'state'> = {};
  try {
    outcome = request.outcome(result);
  } catch {
    // The ids are a convenience; `done` is what matters.
  }
  let anomalies: Anomaly[];
  try {
    anomalies = request.anomalies?.(result) ?? [];
  } catch (error) {
    // After the request left nothing ends as a crash: an answer that cannot be checked proves nothing.
    anomalies = [
      { field: 'answer', sent: null, got: `not checkable (${(error as Error)?.message ?? error})` },
    ];
  }
  if (anomalies.length > 0) {
    // The server says it did something other than what was asked: nothing is proven, and the journal
    // keeps both values; the duplicate guard holds the payment until the operator resolves it.
    await record(journal, entry.id, { ...outcome, state: 'unknown', reason: 'anomaly', anomalies }, warn);
    const what = entry.kind === 'charge' ? 'charge' : 'transfer';
    throw new PixError(
      'unknown_outcome',
      `the ${what}'s answer does not match the request (${describeAnomalies(anomalies, what)})`,
      { server: result, hint: recoveryHint(entry, request.look) },
    );
  }
  const spilled = await record(journal, entry.id, { ...outcome, state: 'done' }, warn);
  if (spilled !== undefined) throw spilledError(entry, 'done', spilled);
  return result;
}

export interface ChargeRequest extends ChargeStart {
  amountCentavos: JournalEntry['amountCentavos'];
  keyId: string;
}

/** What a created charge carries that the ledger keeps (entries.ts ChargeCreated). */
interface CreatedCharge {
  id: string;
  amount: number;
  pixKeyId?: string | undefined;
  pixKey?: string | undefined;
  status: string;
  emvqrcps?: string;
  transactionIdentification?: string | undefined;
  createdAt?: string | undefined;
  expiresAt?: string | undefined;
  dueDate?: string | undefined;
}

function createdOf(charge: CreatedCharge): ChargeCreated {
  const created: ChargeCreated = {};
  if (charge.transactionIdentification !== undefined) created.txid = charge.transactionIdentification;
  if (charge.emvqrcps !== undefined) created.emv = charge.emvqrcps;
  if (charge.createdAt !== undefined) created.createdAt = charge.createdAt;
  if (charge.expiresAt !== undefined) created.expiresAt = charge.expiresAt;
  if (charge.dueDate !== undefined) created.dueDate = charge.dueDate;
  if (charge.pixKey !== undefined) created.pixKey = charge.pixKey;
  return created;
}

/**
 * Creates a charge through `send` with its journal entry around it, so a run killed or cut off after
 * the request left can still be found (`pix journal`); the `done` line is the charge ledger's record
 * (`pix charge list/show/wait`). Returns the charge and its journal entry.
 */
export async function journaledCharge<T extends CreatedCharge>(
  deps: Deps,
  account: Account,
  charge: ChargeRequest,
  send: () => Promise<T>,
): Promise<{ charge: T; entry: JournalEntry }> {
  const journal = await deps.stores.journal();
  // A damaged line may be this charge's record: a charge created twice is a customer asked twice.
  await journal.checkSound();
  const entry = await journal.begin({
    kind: 'charge',
    ...recordedAccount(account),
    amountCentavos: charge.amountCentavos,
    charge: {
      type: charge.type,
      keyId: charge.keyId,
      ...(charge.dueDate === undefined ? {} : { dueDate: charge.dueDate }),
      ...(charge.terms === undefined ? {} : { terms: charge.terms }),
      ...(charge.payerDocument === undefined ? {} : { payerDocument: charge.payerDocument }),
      ...(charge.payerName === undefined ? {} : { payerName: charge.payerName }),
      ...(charge.ref === undefined ? {} : { ref: charge.ref }),
    },
  });
  const created = await sendJournaled({
    journal,
    entry,
    send,
    outcome: (created) => ({ chargeId: created.id, status: created.status, created: createdOf(created) }),
    anomalies: (created) => chargeAnomalies(charge, created),
    look: {},
    warn: (line) => deps.io.stderr.write(`${line}\n`),
  });
  return { charge: created, entry };
}
