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
 * `pix journal verify --accept` appends `{"at","accepted":[…],"prev"}` (acceptLine); the parser follows
 * the chain as it reads (what breaks it is damage, like a line it cannot take).
 */
import { accountBaseUrl } from '../config/types.js';
import type { DueDateModifiers } from '../domain/duedate.js';
import { lineText, markTorn, TORN_MARK } from '../domain/lines.js';
import type { Evidence } from '../domain/matching.js';
import type { Centavos } from '../domain/money.js';
import { type ChainTail, createChainFollower, lineDigest } from './chain.js';

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
  maker: string;
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
  terms?: DueDateModifiers;
  /** The payer's CPF/CNPJ (digits) the charge was made out to: only that payer's entry proves it paid. */
  payerDocument?: string;
  /** The payer's name as sent, for `pix charge show` (what was sent is what is shown). */
  payerName?: string;
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

/** The `anomalies` of an outcome line: fields named by a string, values kept only when plain. */
function anomaliesOf(value: unknown): Anomalies | undefined {
  if (!Array.isArray(value)) return undefined;
  const plain = (given: unknown) =>
    typeof given === 'string' || typeof given === 'number' || typeof given === 'boolean' ? given : null;
  const found = value
    .filter(isRecord)
    .filter((item) => typeof item.field === 'string')
    .map((item) => ({ field: item.field as string, sent: plain(item.sent), got: plain(item.got) }));
  return found.length === 0 ? undefined : found;
}

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

const FINAL_STATES: ReadonlySet<string> = new Set(['done', 'failed', 'unknown']);
const RESOLUTIONS: ReadonlySet<string> = new Set(['paid', 'not-paid']);

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `plan` of a start line; undefined unless it is whole. */
function planOf(value: unknown): JournalPlan | undefined {
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.maker !== 'string') return undefined;
  if (!Array.isArray(value.approvers)) return undefined;
  const approvers = value.approvers
    .filter(isRecord)
    .filter((item) => typeof item.name === 'string' && typeof item.key === 'string')
    .map((item) => ({ name: item.name as string, key: item.key as string }));
  return { id: value.id, maker: value.maker, approvers };
}

/** The `created` of an outcome line: its string fields only. */
function createdOf(value: unknown): ChargeCreated | undefined {
  if (!isRecord(value)) return undefined;
  const created: ChargeCreated = {};
  for (const field of ['txid', 'emv', 'createdAt', 'expiresAt', 'dueDate', 'pixKey'] as const) {
    const given = str(value[field]);
    if (given !== undefined) created[field] = given;
  }
  return created;
}

/** The `match` of a ledger line; undefined unless it is whole. */
function matchOf(value: unknown): ChargeMatchRecord | undefined {
  if (!isRecord(value) || value.status !== 'paid') return undefined;
  const { entryId, amountCentavos, how, day, evidence } = value;
  if (typeof entryId !== 'string' || typeof how !== 'string') return undefined;
  if (typeof amountCentavos !== 'number' || !Number.isSafeInteger(amountCentavos)) return undefined;
  const proof = evidence === 'payer-document' ? ({ evidence } as const) : {};
  return {
    status: 'paid',
    entryId,
    amountCentavos,
    how,
    ...(typeof day === 'string' ? { day } : {}),
    ...proof,
  };
}

/** Keeps one copy of a text many lines repeat (a profile, a host, a receiver's name). */
type Intern = (text: string | undefined) => string | undefined;

/** A start line, in either format, as an entry; undefined when it is not one. */
function startEntry(record: Record<string, unknown>, intern: Intern): JournalEntry | undefined {
  const { id, at, amountCentavos } = record;
  if (typeof id !== 'string' || typeof at !== 'string') return undefined;
  if (typeof amountCentavos !== 'number' || !Number.isSafeInteger(amountCentavos)) return undefined;
  const entry: JournalEntry = {
    id,
    seq: 0,
    at,
    kind: 'payment',
    state: 'sending',
    profile: intern(str(record.profile)) ?? '',
    host: intern(str(record.host)) ?? '',
    amountCentavos,
  };
  const recorded = str(record.baseUrl);
  const baseUrl = intern(recorded === undefined ? undefined : accountBaseUrl(recorded));
  if (baseUrl !== undefined) entry.baseUrl = baseUrl;
  const account = intern(str(record.account));
  if (account !== undefined) entry.account = account;
  if (typeof record.pid === 'number' && Number.isSafeInteger(record.pid)) entry.pid = record.pid;
  const receiver = intern(str(record.receiver));
  const endToEndId = str(record.endToEndId);
  if (receiver !== undefined) entry.receiver = receiver;
  if (endToEndId !== undefined) entry.endToEndId = endToEndId;
  const description = str(record.description);
  if (description !== undefined) entry.description = description;
  const plan = planOf(record.plan);
  if (plan !== undefined) entry.plan = plan;
  // The first format: `kind` was the payment method and the identity sat at the top level.
  const legacy = record.kind === 'qr' || record.kind === 'key';
  if (record.kind === 'charge') {
    entry.kind = 'charge';
    const charge = record.charge as Record<string, unknown> | undefined;
    const type = charge?.type === 'duedate' ? 'duedate' : 'immediate';
    const keyId = str(charge?.keyId);
    const dueDate = str(charge?.dueDate);
    const payerDocument = str(charge?.payerDocument);
    const payerName = str(charge?.payerName);
    entry.charge = { type };
    if (keyId !== undefined) entry.charge.keyId = keyId;
    if (dueDate !== undefined) entry.charge.dueDate = dueDate;
    if (payerDocument !== undefined) entry.charge.payerDocument = payerDocument;
    if (payerName !== undefined) entry.charge.payerName = payerName;
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
  const document = str(source?.document);
  const participant = intern(str(source?.participant));
  if (document !== undefined) payment.document = document;
  if (participant !== undefined) payment.participant = participant;
  if (typeof source?.dynamic === 'boolean') payment.dynamic = source.dynamic;
  const batchRow = source?.batchRow as Record<string, unknown> | undefined;
  if (typeof batchRow?.batch === 'string' && typeof batchRow.row === 'string') {
    payment.batchRow = { batch: intern(batchRow.batch)!, row: batchRow.row };
  }
  entry.payment = payment;
  return entry;
}

/**
 * A line the reader could not take: not JSON, not a journal line, a start line with missing or invalid
 * fields, or an outcome for an entry with no start line. `line` counts from 1, blank lines included,
 * as an editor numbers them. Nothing in a damaged line is trusted, so nothing it might say is lost
 * silently: money-moving commands stop until the operator has looked (`pix journal verify`).
 */
export interface JournalDamage {
  line: number;
  reason: string;
}

/** A damaged line and its text, as the parser keeps it. */
interface Damaged extends JournalDamage {
  text: string;
}

/**
 * The mark of a torn line (domain/lines.ts). In the journal: a write cut short never returned, so its
 * transfer was never sent and any outcome it carried is still unknown (the rules then hold the entry), and
 * skipping it loses nothing.
 */
export { TORN_MARK };

/**
 * A damaged line the operator has looked at (`pix journal verify --accept`): its number, what was
 * wrong, and the digest of its text (chain.ts lineDigest) when it is a line of the file; damage of the
 * journal's end (a cut) has none. The acceptance line, `{"at","accepted":[…],"prev"}`, lists them: a
 * damaged line with that number and text is no longer damage; the same number with other text still is.
 */
export interface AcceptedDamage {
  line: number;
  reason: string;
  digest?: string;
}

/** The line `pix journal verify --accept` appends (its `prev` is added by the store, as on every line). */
export function acceptLine(at: string, accepted: readonly AcceptedDamage[]): Record<string, unknown> {
  return { at, accepted };
}

/** What an acceptance line accepted, and when (for `pix journal verify`). */
export interface Acceptance {
  /** The acceptance line's number. */
  line: number;
  at: string;
  accepted: AcceptedDamage[];
}

/**
 * The journal text → its entries in the order they started (damaged lines left out: see
 * createJournalParser for what the reader says of them).
 */
export function parseJournal(text: string): JournalEntry[] {
  const parser = createJournalParser();
  parser.feed(text.endsWith('\n') ? text : `${text}\n`);
  return parser.entries();
}

/**
 * parseJournal fed a piece at a time: the journal only grows, so a reader that keeps its parser parses
 * only the lines appended since its last read. Feed whole lines. The entries it returns are its own: a
 * later feed updates them in place. Every line it cannot take is in `damage()`, with its number, except
 * a torn line followed by TORN_MARK (`torn()`): none is skipped without a word.
 */
export interface JournalParser {
  feed(lines: string): void;
  entries(): JournalEntry[];
  /** The entry with this exact id. */
  get(id: string): JournalEntry | undefined;
  damage(): JournalDamage[];
  /** Line numbers of torn writes (followed by TORN_MARK): skipped, and harmless. */
  torn(): number[];
  /** The damage with the digest of each damaged line's text (for `pix journal verify --accept`). */
  damageToAccept(): AcceptedDamage[];
  /** The acceptance lines read (`pix journal verify --accept`), oldest first. */
  acceptances(): Acceptance[];
  /** The digest the next line appended must name as its `prev` (chain.ts). */
  head(): string;
  /** Where the lines read end, for the checkpoint (chain.ts judgeCheckpoint); `bytes`: their length. */
  tail(bytes: number): ChainTail;
  /**
   * Where this parser stands, holding the entries `still` keeps, to resume from (`from`); undefined when
   * it is no place to resume: a damaged line was read, or the last line is no line of the chain.
   */
  state(still: (entry: JournalEntry) => boolean): ParserState | undefined;
}

/**
 * Where a parser stands after the lines it read, with the entries that still matter: enough to read on
 * from there (the journal's index, resume.ts) without the lines before.
 */
export interface ParserState {
  /** Lines read, as an editor numbers them. */
  lines: number;
  /** The `seq` the next entry gets. */
  seq: number;
  /** The chain's tail there (its `bytes` are the store's to say). */
  chain: ChainTail;
  entries: JournalEntry[];
}

/**
 * A parser resumed from a ParserState met a line of an entry it does not hold (an outcome, a finding or a
 * match of an entry it let go of): that line can only be judged with the history, which must be read.
 */
export class HistoryNeeded extends Error {
  constructor(id: string) {
    super(`a line of entry ${shortId(id)}, which the index does not hold`);
    this.name = 'HistoryNeeded';
  }
}

/** The kinds of line that change an entry after its start. */
export type ChangeLine = 'outcome' | 'match' | 'resolution';

/**
 * A reader that follows the journal as it grows (pix listen): told of every line that changes an entry it
 * holds, it lets go of an entry once nothing more can come of it, and keeps nothing of the entries it does
 * not hold, not even their ids (a year of paid batches is 50,000 ids, 13 MB of a listener's memory). So it
 * cannot tell a line of an entry it let go from one whose start is missing: it passes over both, and
 * `pix journal verify` is the judge of those. A line that cannot be read at all, or out of the chain, is
 * damage, as for any reader.
 */
export interface JournalWatch {
  /** Called after each line that changes a held entry, with what the line was. */
  changed(entry: JournalEntry, line: ChangeLine): void;
  /** Whether the entry, as it now is, is settled: it is let go. */
  settled(entry: JournalEntry): boolean;
}

/**
 * `onStart` is called with each entry as its start line is read (the journal's index keeps up this way).
 * `keep`, when given, says which entries to hold: the others are parsed (so damage is still found) and
 * counted, and only their ids are kept, so that their later lines are known to belong to them. `watch`
 * (JournalWatch) hears of each change to a held entry and lets settled ones go (and then no id is kept).
 * `from` resumes where a parser's `state()` stood (the lines before it are not read again): a later line
 * of an entry it does not hold throws HistoryNeeded.
 */
export function createJournalParser(
  onStart?: (entry: JournalEntry) => void,
  keep?: (entry: JournalEntry) => boolean,
  watch?: JournalWatch,
  from?: ParserState,
): JournalParser {
  const byId = new Map<string, JournalEntry>();
  for (const entry of from?.entries ?? []) {
    byId.set(entry.id, entry);
    onStart?.(entry);
  }
  const passed = new Set<string>();
  /** Each damaged line with its text: an acceptance names the text it accepted by its digest. */
  const damaged: Damaged[] = [];
  const acceptances: Acceptance[] = [];
  const chain = createChainFollower(from?.chain);
  const torn: number[] = [];
  let lineNumber = from?.lines ?? 0;
  let seq = from?.seq ?? 0;
  const texts = new Map<string, string>();
  const intern: Intern = (text) => {
    if (text === undefined) return undefined;
    const known = texts.get(text);
    if (known !== undefined) return known;
    if (texts.size < 10_000) texts.set(text, text);
    return text;
  };
  /** An unreadable line is torn if the next line is TORN_MARK, else damaged: it waits for that line. */
  let unreadable: Damaged | undefined;
  /** An acceptance line: the damage it names (by line number and text) is damage no longer. */
  const accept = (record: Record<string, unknown>): string | undefined => {
    const items: AcceptedDamage[] = [];
    for (const item of record.accepted as unknown[]) {
      if (!isRecord(item) || !Number.isSafeInteger(item.line) || typeof item.reason !== 'string')
        return 'an acceptance line with missing or invalid fields';
      const digest = str(item.digest);
      items.push({
        line: item.line as number,
        reason: item.reason,
        ...(digest === undefined ? {} : { digest }),
      });
    }
    for (const item of items) {
      const at = damaged.findIndex((one) => one.line === item.line && lineDigest(one.text) === item.digest);
      if (at >= 0) damaged.splice(at, 1);
    }
    acceptances.push({ line: lineNumber, at: str(record.at) ?? '', accepted: items });
    return undefined;
  };
  const take = (record: Record<string, unknown> | undefined): string | undefined => {
    if (record === undefined) return 'not a journal line';
    if (Array.isArray(record.accepted)) return accept(record);
    if (typeof record.id !== 'string') return 'not a journal line (no id)';
    if (record.state === 'sending') {
      if (byId.has(record.id) || passed.has(record.id))
        return `a second start line for entry ${shortId(record.id)}`;
      const entry = startEntry(record, intern);
      if (!entry) return `the start line of entry ${shortId(record.id)} has missing or invalid fields`;
      entry.seq = seq++;
      if (keep !== undefined && !keep(entry)) {
        if (watch === undefined) passed.add(entry.id);
        return undefined;
      }
      byId.set(entry.id, entry);
      onStart?.(entry);
      return undefined;
    }
    const entry = byId.get(record.id);
    if (!entry) {
      if (passed.has(record.id) || watch !== undefined) return undefined;
      if (from !== undefined) throw new HistoryNeeded(record.id);
      return `an outcome for entry ${shortId(record.id)}, whose start line is missing or damaged`;
    }
    const applied = update(entry, record);
    if (typeof applied !== 'object') return applied;
    if (watch !== undefined) {
      watch.changed(entry, applied.line);
      if (watch.settled(entry)) byId.delete(entry.id);
    }
    return undefined;
  };
  /** Applies a line after the start to its entry: what kind of line it was, or why it could not be. */
  const update = (entry: JournalEntry, record: Record<string, unknown>): string | { line: ChangeLine } => {
    const at = str(record.at);
    if (typeof record.state === 'string') {
      if (!FINAL_STATES.has(record.state)) return `entry ${shortId(entry.id)}: unknown state`;
      entry.state = record.state as FinalState;
      for (const field of ['transferId', 'chargeId'] as const) {
        const given = str(record[field]);
        if (given !== undefined) entry[field] = given;
      }
      // A status or reason is one of a few words, on every line.
      for (const field of ['status', 'reason'] as const) {
        const given = intern(str(record[field]));
        if (given !== undefined) entry[field] = given;
      }
      const created = createdOf(record.created);
      if (created !== undefined) entry.created = created;
      const anomalies = anomaliesOf(record.anomalies);
      if (anomalies !== undefined) entry.anomalies = anomalies;
      if (at !== undefined) entry.finishedAt = at;
      return { line: 'outcome' };
    }
    if (record.match !== undefined) {
      const match = matchOf(record.match);
      if (match === undefined || entry.kind !== 'charge') return `entry ${shortId(entry.id)}: invalid match`;
      entry.match = match;
      if (at !== undefined) entry.matchedAt = at;
      return { line: 'match' };
    }
    if (typeof record.resolution === 'string' && RESOLUTIONS.has(record.resolution)) {
      entry.resolution = record.resolution as Resolution;
      if (at !== undefined) entry.resolvedAt = at;
      return { line: 'resolution' };
    }
    return `entry ${shortId(entry.id)}: a line with no state, match or resolution`;
  };
  const feedLine = (raw: string): void => {
    lineNumber++;
    const line = lineText(raw, lineNumber);
    if (line === undefined) return;
    if (line === TORN_MARK) {
      unreadable = markTorn(unreadable, torn);
      return;
    }
    if (unreadable !== undefined) {
      // Not torn after all: damage, and a line of the chain as the file has it.
      damaged.push(unreadable);
      chain.follow(unreadable.line, unreadable.text, null, true);
    }
    unreadable = undefined;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // Only a line that is not JSON at all can be a write cut short.
      unreadable = { line: lineNumber, reason: 'not JSON', text: line };
      return;
    }
    const record = isRecord(value) ? value : undefined;
    const reason = take(record);
    const prev = record === undefined ? null : record.prev;
    const broken = chain.follow(lineNumber, line, prev, reason !== undefined);
    // A line out of its place (chain.ts) is said so first: that is what happened to it.
    const problem = broken ?? reason;
    if (problem !== undefined) damaged.push({ line: lineNumber, reason: problem, text: line });
  };
  const damagedNow = () => (unreadable === undefined ? damaged : [...damaged, unreadable]);
  return {
    feed(lines) {
      // Only whole lines count: what follows the last newline is empty, or a torn tail still being written.
      const pieces = lines.split('\n');
      pieces.pop();
      for (const piece of pieces) feedLine(piece);
    },
    entries: () => [...byId.values()],
    get: (id) => byId.get(id),
    damage: () => damagedNow().map(({ line, reason }) => ({ line, reason })),
    torn: () => [...torn],
    damageToAccept: () =>
      damagedNow().map(({ line, reason, text }) => ({ line, reason, digest: lineDigest(text) })),
    acceptances: () => [...acceptances],
    head: () => (unreadable === undefined ? chain.head() : lineDigest(unreadable.text)),
    tail: (bytes) => chain.tail(lineNumber, bytes, unreadable),
    state(still) {
      // Only a sound place to resume: no damage, and the last line read a line of the chain.
      if (damagedNow().length > 0) return undefined;
      const tail = chain.tail(lineNumber, 0);
      if (tail.last?.line !== lineNumber) return undefined;
      return { lines: lineNumber, seq, chain: tail, entries: [...byId.values()].filter(still) };
    },
  };
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
