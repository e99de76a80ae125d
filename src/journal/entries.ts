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
 *   `{"id","at","match":{"status":"paid","entryId","amountCentavos","how","day"?,"evidence"?}}` (no `state`
 *   either; `evidence` is `payer-document` for proof, and absent or `amount-and-time` for a probable match).
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
 *
 * Every line the store appends also carries `prev`, the digest of the line before it (chain.ts), and
 * `pix journal verify --accept` appends `{"at","accepted":[…],"prev"}` (parser.ts acceptLine); the parser follows
 * the chain as it reads (what breaks it is damage, like a line it cannot take).
 */
import type { DueDateModifiers } from '../domain/duedate.js';
import type { Evidence } from '../domain/matching.js';
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
  /**
   * The receiver's CPF/CNPJ as the consultation answered it: whole from a key consultation, masked from a
   * code's (compared as far as the masks show).
   */
  document?: string;
  /** The receiver's institution (ISPB) as the consultation answered it. */
  participant?: string;
}

/**
 * An approved plan a payment was made under (`pix plan execute`): the plan's id, who made it and who
 * approved it (names as the policy gives them, and the fingerprints of the keys that signed).
 */
export interface JournalPlan {
  id: string;
  /** The maker's label (`Carla <carla@example.com>`). */
  maker: string;
  /** The fingerprint of the key that signed the plan: the maker, as the policy knows people. */
  makerKey?: string;
  approvers: ReadonlyArray<{ name: string; key: string }>;
}

/** What is known when an entry starts, before the request is sent. */
export interface StartFields {
  kind: EntryKind;
  /**
   * The account, as the API identifies it (journal/accounts.ts): every rule asks its question of it. Lines
   * written before it was recorded are attached by their base URL or host (rules.ts ofAccount).
   */
  account?: string;
  /** The profile that sent it: for people; the rules never ask (a profile is a name, not an account). */
  profile: string;
  /** The API host the request goes to. */
  host: string;
  /**
   * The account: the profile's normalised API base URL (`http://sandbox.localhost` for the embedded
   * sandbox; lines of earlier versions say `http://127.0.0.1:0`, read as the same: config/types.ts).
   * Lines written before it was recorded have only `host`, which the rules compare instead.
   */
  baseUrl?: string;
  /** The process that wrote the start line: a `sending` entry of a live process is in flight, not unknown. */
  pid?: number;
  amountCentavos: Centavos;
  /** The receiver's name as the consultation gave it (payments). */
  receiver?: string;
  /** The approved plan the payment was made under. */
  plan?: JournalPlan;
  endToEndId?: string;
  /** Payments: who gets paid. */
  payment?: PaymentIdentity;
  /** Charges: which kind, the id of the key it is for, and a due-date charge's own terms. */
  charge?: ChargeStart;
  /** The operator's note on a payment (a batch row's `description`): kept here, never sent (API §4.5). */
  description?: string;
}

export interface ChargeStart {
  type: 'immediate' | 'duedate';
  keyId?: string;
  /** Due-date charges: `YYYY-MM-DD`. */
  dueDate?: string;
  /** Due-date charges: discount, abatement, fine and interest as the request carried them. */
  terms?: DueDateModifiers | undefined;
  /** The payer's CPF/CNPJ (digits) the charge was made out to: only that payer's entry proves it paid. */
  payerDocument?: string | undefined;
  /** The payer's name as sent, for `pix charge show` (what was sent is what is shown). */
  payerName?: string | undefined;
  /** The invoice it collects (`--ref`): the ERP file's id, for `pix reconcile`. */
  ref?: string;
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
  /** The PIX key the charge is for, as the server named it (the journal start has only its id). */
  pixKey?: string;
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
  /** What the match rests on (domain/matching.ts); absent on lines of earlier versions: amount and time. */
  evidence?: Evidence;
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
  anomalies?: Anomalies;
}

export type Anomalies = ReadonlyArray<{ field: string; sent: unknown; got: unknown }>;

/** One entry: its start, its latest outcome and the operator's latest finding. */
export interface JournalEntry extends StartFields {
  id: string;
  /** Its place in the journal: entries started earlier have a lower one. */
  seq: number;
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
  /** What the answer contradicted in the request (FinishFields). */
  anomalies?: Anomalies;
  match?: ChargeMatchRecord;
  matchedAt?: string;
}

/** The start line of an entry, as written to the file. */
export function startLine(entry: JournalEntry): Record<string, unknown> {
  const { id, at, kind, state, account, profile, host, baseUrl, pid, amountCentavos } = entry;
  const { receiver, endToEndId, payment, charge } = entry;
  return {
    id,
    at,
    kind,
    state,
    ...(account === undefined ? {} : { account }),
    profile,
    host,
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(pid === undefined ? {} : { pid }),
    amountCentavos,
    ...(receiver === undefined ? {} : { receiver }),
    ...(endToEndId === undefined ? {} : { endToEndId }),
    ...(payment === undefined ? {} : { payment }),
    ...(charge === undefined ? {} : { charge }),
    ...(entry.description === undefined ? {} : { description: entry.description }),
    ...(entry.plan === undefined ? {} : { plan: entry.plan }),
  };
}

/** The first 8 characters of an entry's id: what people read and type (`pix journal show 1a2b3c4d`). */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** A BR Code's digest, as the journal keeps it (domain/digest). */
export { emvHash as hashEmv } from '../domain/digest.js';
