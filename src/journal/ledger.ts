/**
 * The charge ledger: the charges pix created, read from the journal (one journal, no second file),
 * pure. A charge is in the ledger once its journal entry is `done` with the charge's id; its record
 * joins the start line (type, amount, due date and rules, profile, host), the outcome line (txid, EMV
 * code, creation and expiry as the server gave them) and the match line written when the statement
 * entry that paid it was found (domain/matching.ts).
 *
 * Status: `paid` once matched by proof (the payer's document); `probable` once matched by amount and
 * time only (a charge made out to nobody: any payment of the amount could be it); `expired` when its
 * expiry (plus the matcher's late tolerance) has passed unpaid; `pending` otherwise. `ambiguous` is
 * never read from the journal: a look at the statement (markAmbiguous) finds it, when more than one
 * entry could have paid the charge or its entry another charge too.
 */
import type { DueDateModifiers } from '../domain/duedate.js';
import { type AmbiguousCharge, LATE_TOLERANCE_MS, type LedgerCharge } from '../domain/matching.js';
import type { Centavos } from '../domain/money.js';
import type { ChargeMatchRecord, JournalEntry } from './entries.js';

export type LedgerStatus = 'pending' | 'paid' | 'probable' | 'ambiguous' | 'expired';
export const LEDGER_STATUSES: readonly LedgerStatus[] = [
  'pending',
  'paid',
  'probable',
  'ambiguous',
  'expired',
];

export interface LedgerRecord {
  /** The charge's id (the server's). */
  id: string;
  /** The journal entry's id. */
  journalId: string;
  type: 'immediate' | 'duedate';
  amountCentavos: Centavos;
  status: LedgerStatus;
  txid?: string | undefined;
  emv?: string | undefined;
  /** The server's creation time, else when pix sent it (ISO 8601). */
  createdAt: string;
  expiresAt?: string | undefined;
  dueDate?: string | undefined;
  terms?: DueDateModifiers | undefined;
  keyId?: string | undefined;
  /** The key itself, when the server named it at creation. */
  pixKey?: string | undefined;
  /** The payer's CPF/CNPJ (digits) it was made out to. */
  payerDocument?: string | undefined;
  payerName?: string | undefined;
  /** The invoice it collects (`--ref`). */
  ref?: string | undefined;
  /** The account it was created on (undefined on lines of older versions: ofAccount attaches them). */
  account?: string | undefined;
  profile: string;
  host: string;
  baseUrl?: string | undefined;
  match?: ChargeMatchRecord | undefined;
  matchedAt?: string | undefined;
  /** Set by markAmbiguous: the entries that could have paid it, and the charges that could take them. */
  ambiguity?: AmbiguousCharge | undefined;
}

function statusOf(entry: JournalEntry, expiresAt: string | undefined, now: Date): LedgerStatus {
  if (entry.match) return entry.match.evidence === 'payer-document' ? 'paid' : 'probable';
  const expires = expiresAt === undefined ? Number.NaN : Date.parse(expiresAt);
  return expires + LATE_TOLERANCE_MS < now.getTime() ? 'expired' : 'pending';
}

/** The journal's entries → the ledger, oldest first (the journal's order). */
export function chargeLedger(entries: readonly JournalEntry[], now: Date): LedgerRecord[] {
  const records: LedgerRecord[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'charge' || entry.chargeId === undefined || entry.charge === undefined) continue;
    if (entry.state !== 'done' && entry.resolution !== 'paid') continue;
    const created = entry.created ?? {};
    records.push({
      id: entry.chargeId,
      journalId: entry.id,
      type: entry.charge.type,
      amountCentavos: entry.amountCentavos,
      status: statusOf(entry, created.expiresAt, now),
      txid: created.txid,
      emv: created.emv,
      createdAt: created.createdAt ?? entry.at,
      expiresAt: created.expiresAt,
      dueDate: created.dueDate ?? entry.charge.dueDate,
      terms: entry.charge.terms,
      keyId: entry.charge.keyId,
      pixKey: created.pixKey,
      payerDocument: entry.charge.payerDocument,
      payerName: entry.charge.payerName,
      ref: entry.charge.ref,
      account: entry.account,
      profile: entry.profile,
      host: entry.host,
      baseUrl: entry.baseUrl,
      match: entry.match,
      matchedAt: entry.matchedAt,
    });
  }
  return records;
}

/** A ledger record as the matcher sees it: unmatched charges are `pending` (the window handles expiry). */
export function asLedgerCharge(record: LedgerRecord): LedgerCharge {
  return {
    id: record.id,
    type: record.type,
    amountCentavos: record.amountCentavos,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    dueDate: record.dueDate,
    terms: record.terms,
    status: record.match ? 'paid' : 'pending',
    matchedEntryId: record.match?.entryId,
    payerDocument: record.payerDocument,
  };
}

/**
 * The records with what a look at the statement found ambiguous (domain/matching.ts): their status
 * `ambiguous` and their candidates. The others are returned as they are.
 */
export function markAmbiguous(
  records: readonly LedgerRecord[],
  ambiguous: readonly AmbiguousCharge[],
): LedgerRecord[] {
  const byId = new Map(ambiguous.map((found) => [found.chargeId, found]));
  return records.map((record) => {
    const found = record.match ? undefined : byId.get(record.id);
    return found ? { ...record, status: 'ambiguous', ambiguity: found } : record;
  });
}

export type FindResult = { record: LedgerRecord } | { ambiguous: LedgerRecord[] } | undefined;

/**
 * The charge named by `id`: its id, its txid, or the start (at least 4 characters) of its id or of its
 * journal entry's id (what `pix charge list` and `pix journal` show).
 */
export function findCharge(records: readonly LedgerRecord[], id: string): FindResult {
  const wanted = id.trim().toLowerCase();
  const exact = records.find((r) => r.id.toLowerCase() === wanted || r.txid?.toLowerCase() === wanted);
  if (exact) return { record: exact };
  if (wanted.length < 4) return undefined;
  const found = records.filter(
    (r) => r.id.toLowerCase().startsWith(wanted) || r.journalId.toLowerCase().startsWith(wanted),
  );
  if (found.length === 1) return { record: found[0]! };
  return found.length ? { ambiguous: found } : undefined;
}
