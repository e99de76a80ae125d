/**
 * One charge or transfer request between its journal lines — the one way pix sends anything that moves
 * money or creates something (payments, charges, and batch rows next). The `sending` line is on disk
 * before the request leaves; after it, the outcome is recorded by what the answer proves
 * (api/outcomes.ts): `done`, `failed` (an explicit refusal, or nothing sent), or `unknown` (anything
 * else, a crash included). After the request may have left nothing ends as a crash: an error that is not
 * a refusal becomes an `unknown_outcome` PixError (exit 7, or 130/143 when a signal stopped it).
 */
import { journalStateOf } from '../api/outcomes.js';
import type { Deps } from '../deps.js';
import { describeSystemError, PixError } from '../errors.js';
import {
  type ChargeCreated,
  type ChargeStart,
  type FinishFields,
  type JournalEntry,
  shortId,
} from './entries.js';
import { type Journal, openJournal } from './store.js';

/** The journal of the command's config directory. */
export async function journalOf(deps: Deps): Promise<Journal> {
  return openJournal((await deps.config()).dir, deps.clock, deps.processes);
}

/** The command that records what the operator found about an entry. */
export function resolveCommand(entry: Pick<JournalEntry, 'id'>): string {
  return `pix journal resolve ${shortId(entry.id)} --paid|--not-paid`;
}

function reasonOf(error: unknown): string {
  if (error instanceof PixError)
    return error.status === undefined ? error.kind : `${error.kind} ${error.status}`;
  return 'internal';
}

/** Appends an outcome; once the request was sent, a journal that cannot be written must not hide it. */
function record(journal: Journal, id: string, outcome: FinishFields, warn: (line: string) => void): void {
  try {
    journal.finish(id, outcome);
  } catch (error) {
    // A full disk says so and names the file (errors.ts), not in Node's words.
    const why = describeSystemError(error)?.message ?? (error as Error).message;
    warn(`warning: the journal could not record the outcome (${why})`);
  }
}

export interface JournaledRequest<T> {
  journal: Journal;
  /** The entry begun for this request (its `sending` line is written). */
  entry: JournalEntry;
  send(): Promise<T>;
  /** The ids and status the result carries, for the `done` line. */
  outcome(result: T): Omit<FinishFields, 'state'>;
  /** How the operator checks whether it happened (ends the hint of an unknown outcome). */
  check: string;
  warn(line: string): void;
}

/** Sends, records the outcome, and returns the result or throws a PixError saying what is known. */
export async function sendJournaled<T>(request: JournaledRequest<T>): Promise<T> {
  const { journal, entry, warn } = request;
  let result: T;
  try {
    result = await request.send();
  } catch (error) {
    const state = journalStateOf(error);
    record(journal, entry.id, { state, reason: reasonOf(error) }, warn);
    if (state === 'failed') throw error;
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
        hint: `it may have gone through (journal entry ${shortId(entry.id)}, marked unknown): ${request.check}; then record what you found with \`${resolveCommand(entry)}\``,
      },
    );
  }
  let outcome: Omit<FinishFields, 'state'> = {};
  try {
    outcome = request.outcome(result);
  } catch {
    // The ids are a convenience; `done` is what matters.
  }
  record(journal, entry.id, { ...outcome, state: 'done' }, warn);
  return result;
}

export interface ChargeRequest extends ChargeStart {
  amountCentavos: JournalEntry['amountCentavos'];
  keyId: string;
}

/** What a created charge carries that the ledger keeps (entries.ts ChargeCreated). */
interface CreatedCharge {
  id: string;
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
  return created;
}

/**
 * Creates a charge through `send` with its journal entry around it, so a run killed or cut off after
 * the request left can still be found (`pix journal`); the `done` line is the charge ledger's record
 * (`pix charge list/show/wait`). Returns the charge and its journal entry.
 */
export async function journaledCharge<T extends CreatedCharge>(
  deps: Deps,
  charge: ChargeRequest,
  send: () => Promise<T>,
): Promise<{ charge: T; entry: JournalEntry }> {
  const [journal, settings, client] = await Promise.all([journalOf(deps), deps.settings(), deps.api()]);
  // A damaged line may be this charge's record: a charge created twice is a customer asked twice.
  journal.checkSound();
  const entry = journal.begin({
    kind: 'charge',
    profile: settings.profile.value,
    host: new URL(client.baseUrl).host,
    baseUrl: settings.baseUrl.value,
    amountCentavos: charge.amountCentavos,
    charge: {
      type: charge.type,
      keyId: charge.keyId,
      ...(charge.dueDate === undefined ? {} : { dueDate: charge.dueDate }),
      ...(charge.terms === undefined ? {} : { terms: charge.terms }),
      ...(charge.payerDocument === undefined ? {} : { payerDocument: charge.payerDocument }),
    },
  });
  const created = await sendJournaled({
    journal,
    entry,
    send,
    outcome: (created) => ({ chargeId: created.id, status: created.status, created: createdOf(created) }),
    check:
      'a charge that exists shows in `pix statement` once it is paid; create it again only if a second charge does no harm (--paid records that it exists)',
    warn: (line) => deps.io.stderr.write(`${line}\n`),
  });
  return { charge: created, entry };
}
