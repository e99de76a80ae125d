/**
 * The journal's entries and its file format, pure (no I/O): `<config dir>/journal.jsonl`, one JSON
 * object per line, appended only. Three kinds of line share an `id`:
 *
 * - the start, written (and flushed) BEFORE a transfer or charge is sent:
 *   `{"id","at","kind":"payment"|"charge","state":"sending","profile","host","amountCentavos",…}`;
 * - the outcome, written after: `{"id","at","state":"done"|"failed"|"unknown", transferId?, chargeId?,
 *   status?, reason?}`;
 * - the operator's finding, written by `pix journal resolve`: `{"id","at","resolution":"paid"|"not-paid"}`
 *   (no `state`, so a pix of an earlier version skips it and keeps treating the entry as unresolved);
 * - the payment found for a charge, written by `pix charge wait`/`--wait` (the charge ledger):
 *   `{"id","at","match":{"status":"paid","entryId","amountCentavos","how","day"?}}` (no `state` either).
 *
 * A charge is the ledger's record: its start line carries the due date and due-date rules it was
 * created with (`charge.dueDate`, `charge.terms`), its outcome line what the server gave (`created`:
 * txid, EMV code, creation and expiry times).
 *
 * Lines of the first format (`"kind":"qr"|"key"` on the start line) are read as payments, so no history
 * is lost. No secret is ever written. No BR Code of a PAYMENT is written (a QR payment keeps the
 * code's SHA-256: the journal must not become a list of codes that pay someone); a CHARGE's own code is
 * kept, because it is what pix hands out for anyone to pay (printed, shown as a QR) and `pix charge
 * show` must give the same code again.
 */
import type { DueDateModifiers } from '../domain/duedate.js';
import type { Centavos } from '../domain/money.js';

export const JOURNAL_FILE = 'journal.jsonl';

export type EntryKind = 'payment' | 'charge';
export type FinalState = 'done' | 'failed' | 'unknown';
export type EntryState = 'sending' | FinalState;
/** What the operator found after checking the statement: `paid` counts as done, `not-paid` as failed. */
export type Resolution = 'paid' | 'not-paid';
export type PaymentMethod = 'qr' | 'key';

/** A batch row (pix pay batch): the batch's id and the row's own id in it. */
export interface BatchRow {
  batch: string;
  row: string;
}

/** Who gets paid, as the duplicate rules compare payments. */
export interface PaymentIdentity {
  method: PaymentMethod;
  /** The normalised PIX key (method `key`). */
  key?: string;
  /** SHA-256 (hex) of the BR Code (method `qr`). */
  emvHash?: string;
  /** A dynamic code: meant to be paid once. */
  dynamic?: boolean;
  /** Set for a row of a batch: a row once paid is never paid again. */
  batchRow?: BatchRow;
}

/** What is known when an entry starts, before the request is sent. */
export interface StartFields {
  kind: EntryKind;
  profile: string;
  /** The API host the request goes to. */
  host: string;
  amountCentavos: Centavos;
  /** The receiver's name as the consultation gave it (payments). */
  receiver?: string;
  endToEndId?: string;
  /** Payments: who gets paid. */
  payment?: PaymentIdentity;
  /** Charges: which kind, the id of the key it is for, and a due-date charge's own terms. */
  charge?: ChargeStart;
}

export interface ChargeStart {
  type: 'immediate' | 'duedate';
  keyId?: string;
  /** Due-date charges: `YYYY-MM-DD`. */
  dueDate?: string;
  /** Due-date charges: discount, abatement, fine and interest as the request carried them. */
  terms?: DueDateModifiers;
}

/** What the server gave for a created charge (the ledger's copy; none of it is a secret). */
export interface ChargeCreated {
  /** transactionIdentification (the txid of the code). */
  txid?: string;
  /** The copy-and-paste code (EMV) of the charge. */
  emv?: string;
  /** ISO 8601, the server's clock. */
  createdAt?: string;
  expiresAt?: string;
  dueDate?: string;
}

/** The statement entry found to have paid a charge (domain/matching.ts). */
export interface ChargeMatchRecord {
  status: 'paid';
  entryId: string;
  amountCentavos: Centavos;
  /** "matched by amount (R$ 10,00) and time", … */
  how: string;
  /** Due-date charges: the day whose amount due was paid. */
  day?: string;
}

/** What is known after: the outcome and the ids the server gave. */
export interface FinishFields {
  state: FinalState;
  transferId?: string;
  chargeId?: string;
  /** The status the server gave (PENDING, REJECTED, …). */
  status?: string;
  /** Why it failed or is unknown, in a few words (an error kind; never a secret). */
  reason?: string;
  /** Charges: what the server gave. */
  created?: ChargeCreated;
  /**
   * What the answer contradicted in the request (api/outcomes.ts Anomaly; state `unknown`, reason
   * `anomaly`): each field with the value sent and the one the server gave.
   */
  anomalies?: ReadonlyArray<{ field: string; sent: unknown; got: unknown }>;
}

/** One entry: its start, its latest outcome and the operator's latest finding. */
export interface JournalEntry extends StartFields {
  id: string;
  /** When it started (ISO 8601). */
  at: string;
  /** What pix recorded: `sending` until an outcome line is written. */
  state: EntryState;
  transferId?: string;
  chargeId?: string;
  status?: string;
  reason?: string;
  finishedAt?: string;
  resolution?: Resolution;
  resolvedAt?: string;
  created?: ChargeCreated;
  match?: ChargeMatchRecord;
  matchedAt?: string;
}

const FINAL_STATES: ReadonlySet<string> = new Set(['done', 'failed', 'unknown']);
const RESOLUTIONS: ReadonlySet<string> = new Set(['paid', 'not-paid']);

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `created` of an outcome line: its string fields only. */
function createdOf(value: unknown): ChargeCreated | undefined {
  if (!isRecord(value)) return undefined;
  const created: ChargeCreated = {};
  for (const field of ['txid', 'emv', 'createdAt', 'expiresAt', 'dueDate'] as const) {
    const given = str(value[field]);
    if (given !== undefined) created[field] = given;
  }
  return created;
}

/** The `match` of a ledger line; undefined unless it is whole. */
function matchOf(value: unknown): ChargeMatchRecord | undefined {
  if (!isRecord(value) || value.status !== 'paid') return undefined;
  const { entryId, amountCentavos, how, day } = value;
  if (typeof entryId !== 'string' || typeof how !== 'string') return undefined;
  if (typeof amountCentavos !== 'number' || !Number.isSafeInteger(amountCentavos)) return undefined;
  return { status: 'paid', entryId, amountCentavos, how, ...(typeof day === 'string' ? { day } : {}) };
}

/** A start line, in either format, as an entry; undefined when it is not one. */
function startEntry(record: Record<string, unknown>): JournalEntry | undefined {
  const { id, at, amountCentavos } = record;
  if (typeof id !== 'string' || typeof at !== 'string') return undefined;
  if (typeof amountCentavos !== 'number' || !Number.isSafeInteger(amountCentavos)) return undefined;
  const entry: JournalEntry = {
    id,
    at,
    kind: 'payment',
    state: 'sending',
    profile: str(record.profile) ?? '',
    host: str(record.host) ?? '',
    amountCentavos,
  };
  const receiver = str(record.receiver);
  const endToEndId = str(record.endToEndId);
  if (receiver !== undefined) entry.receiver = receiver;
  if (endToEndId !== undefined) entry.endToEndId = endToEndId;
  // The first format: `kind` was the payment method and the identity sat at the top level.
  const legacy = record.kind === 'qr' || record.kind === 'key';
  if (record.kind === 'charge') {
    entry.kind = 'charge';
    const charge = record.charge as Record<string, unknown> | undefined;
    const type = charge?.type === 'duedate' ? 'duedate' : 'immediate';
    const keyId = str(charge?.keyId);
    const dueDate = str(charge?.dueDate);
    entry.charge = { type };
    if (keyId !== undefined) entry.charge.keyId = keyId;
    if (dueDate !== undefined) entry.charge.dueDate = dueDate;
    if (isRecord(charge?.terms)) entry.charge.terms = charge.terms as DueDateModifiers;
    return entry;
  }
  if (record.kind !== 'payment' && !legacy) return undefined;
  const source = (legacy ? record : record.payment) as Record<string, unknown> | undefined;
  const method = legacy ? record.kind : source?.method;
  if (method !== 'qr' && method !== 'key') return undefined;
  const payment: PaymentIdentity = { method };
  const key = str(source?.key);
  const emvHash = str(source?.emvHash);
  if (key !== undefined) payment.key = key;
  if (emvHash !== undefined) payment.emvHash = emvHash;
  if (typeof source?.dynamic === 'boolean') payment.dynamic = source.dynamic;
  const batchRow = source?.batchRow as Record<string, unknown> | undefined;
  if (typeof batchRow?.batch === 'string' && typeof batchRow.row === 'string') {
    payment.batchRow = { batch: batchRow.batch, row: batchRow.row };
  }
  entry.payment = payment;
  return entry;
}

/**
 * The journal text → its entries in the order they started. Whole lines only: a torn line (a writer
 * killed mid-write), a foreign line, or an outcome for an unknown id is skipped, never fatal.
 */
export function parseJournal(text: string): JournalEntry[] {
  const parser = createJournalParser();
  parser.feed(text);
  return parser.entries();
}

/**
 * parseJournal fed a piece at a time: the journal only grows, so a reader that keeps its parser parses
 * only the lines appended since its last read (a batch reads the journal once per row). Feed whole lines.
 * The entries it returns are its own: a later feed updates them in place.
 */
export interface JournalParser {
  feed(lines: string): void;
  entries(): JournalEntry[];
}

export function createJournalParser(): JournalParser {
  const byId = new Map<string, JournalEntry>();
  const feedLine = (line: string): void => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    const record = value as Record<string, unknown>;
    if (typeof record.id !== 'string') return;
    if (record.state === 'sending') {
      if (byId.has(record.id)) return;
      const entry = startEntry(record);
      if (entry) byId.set(entry.id, entry);
      return;
    }
    const entry = byId.get(record.id);
    if (!entry) return;
    const at = str(record.at);
    if (typeof record.state === 'string' && FINAL_STATES.has(record.state)) {
      entry.state = record.state as FinalState;
      for (const field of ['transferId', 'chargeId', 'status', 'reason'] as const) {
        const given = str(record[field]);
        if (given !== undefined) entry[field] = given;
      }
      const created = createdOf(record.created);
      if (created !== undefined) entry.created = created;
      if (at !== undefined) entry.finishedAt = at;
    } else if (record.match !== undefined) {
      const match = matchOf(record.match);
      if (match === undefined || entry.kind !== 'charge') return;
      entry.match = match;
      if (at !== undefined) entry.matchedAt = at;
    } else if (typeof record.resolution === 'string' && RESOLUTIONS.has(record.resolution)) {
      entry.resolution = record.resolution as Resolution;
      if (at !== undefined) entry.resolvedAt = at;
    }
  };
  return {
    feed(lines) {
      for (const line of lines.split('\n')) feedLine(line);
    },
    entries: () => [...byId.values()],
  };
}

/** The start line of an entry, as written to the file. */
export function startLine(entry: JournalEntry): Record<string, unknown> {
  const { id, at, kind, state, profile, host, amountCentavos, receiver, endToEndId, payment, charge } = entry;
  return {
    id,
    at,
    kind,
    state,
    profile,
    host,
    amountCentavos,
    ...(receiver === undefined ? {} : { receiver }),
    ...(endToEndId === undefined ? {} : { endToEndId }),
    ...(payment === undefined ? {} : { payment }),
    ...(charge === undefined ? {} : { charge }),
  };
}

/** The first 8 characters of an entry's id: what people read and type (`pix journal show 1a2b3c4d`). */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** A BR Code's digest, as the journal keeps it (domain/digest). */
export { emvHash as hashEmv } from '../domain/digest.js';
