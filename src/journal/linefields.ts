/**
 * A journal line's fields read back (the parser, parser.ts): a start line, in either format, as an entry,
 * and the parts of the lines after it (an outcome's `created` and `anomalies`, a ledger line's `match`),
 * each taken only when whole, nothing of a line trusted beyond what it is checked to be.
 */
import { accountBaseUrl } from '../config/types.js';
import type { DueDateModifiers } from '../domain/duedate.js';
import type {
  Anomalies,
  ChargeCreated,
  ChargeMatchRecord,
  JournalEntry,
  JournalPlan,
  PaymentIdentity,
} from './entries.js';

export const FINAL_STATES: ReadonlySet<string> = new Set(['done', 'failed', 'unknown']);
export const RESOLUTIONS: ReadonlySet<string> = new Set(['paid', 'not-paid']);

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `anomalies` of an outcome line: fields named by a string, values kept only when plain. */
export function anomaliesOf(value: unknown): Anomalies | undefined {
  if (!Array.isArray(value)) return undefined;
  const plain = (given: unknown) =>
    typeof given === 'string' || typeof given === 'number' || typeof given === 'boolean' ? given : null;
  const found = value
    .filter(isRecord)
    .filter((item) => typeof item.field === 'string')
    .map((item) => ({ field: item.field as string, sent: plain(item.sent), got: plain(item.got) }));
  return found.length === 0 ? undefined : found;
}

/** The `plan` of a start line; undefined unless it is whole. */
function planOf(value: unknown): JournalPlan | undefined {
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.maker !== 'string') return undefined;
  if (!Array.isArray(value.approvers)) return undefined;
  const approvers = value.approvers
    .filter(isRecord)
    .filter((item) => typeof item.name === 'string' && typeof item.key === 'string')
    .map((item) => ({ name: item.name as string, key: item.key as string }));
  return {
    id: value.id,
    maker: value.maker,
    ...(typeof value.makerKey === 'string' ? { makerKey: value.makerKey } : {}),
    approvers,
  };
}

/** The `created` of an outcome line: its string fields only. */
export function createdOf(value: unknown): ChargeCreated | undefined {
  if (!isRecord(value)) return undefined;
  const created: ChargeCreated = {};
  for (const field of ['txid', 'emv', 'createdAt', 'expiresAt', 'dueDate', 'pixKey'] as const) {
    const given = str(value[field]);
    if (given !== undefined) created[field] = given;
  }
  return created;
}

/** The `match` of a ledger line; undefined unless it is whole. */
export function matchOf(value: unknown): ChargeMatchRecord | undefined {
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
export type Intern = (text: string | undefined) => string | undefined;

/** A start line, in either format, as an entry; undefined when it is not one. */
export function startEntry(record: Record<string, unknown>, intern: Intern): JournalEntry | undefined {
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
    const ref = str(charge?.ref);
    entry.charge = { type };
    if (keyId !== undefined) entry.charge.keyId = keyId;
    if (dueDate !== undefined) entry.charge.dueDate = dueDate;
    if (payerDocument !== undefined) entry.charge.payerDocument = payerDocument;
    if (payerName !== undefined) entry.charge.payerName = payerName;
    if (ref !== undefined) entry.charge.ref = ref;
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
