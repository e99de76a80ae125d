/**
 * What `pix charge list`, `show` and `wait` share: the current profile's charge ledger (journal/ledger.ts)
 * and how one of its records is shown. The ledger is per profile, not per host: the embedded sandbox
 * answers as sandbox.localhost, or from a new loopback port each run with PIX_SANDBOX_FAULTS.
 */
import type { Charge } from '../../api/resources/charges.js';
import type { Deps } from '../../deps.js';
import { centavosToApi } from '../../domain/money.js';
import { PixError, usageError } from '../../errors.js';
import { shortId } from '../../journal/entries.js';
import { chargeLedger, findCharge, type LedgerRecord } from '../../journal/ledger.js';
import { journalOf } from '../../journal/record.js';
import type { Journal } from '../../journal/store.js';
import { safeText } from '../../output/sanitize.js';

export interface ProfileLedger {
  journal: Journal;
  profile: string;
  /** The profile's charges, oldest first. */
  records: LedgerRecord[];
  /** Reads the journal again (another pix may have written to it). */
  reload(): LedgerRecord[];
}

export async function openLedger(deps: Deps): Promise<ProfileLedger> {
  const [journal, settings] = await Promise.all([journalOf(deps), deps.settings()]);
  const profile = settings.profile.value;
  const reload = () =>
    chargeLedger(journal.read(), deps.clock.now()).filter((record) => record.profile === profile);
  return { journal, profile, records: reload(), reload };
}

/** The record `id` names, or a not_found (4) / usage (2, ambiguous) error. */
export function chargeNamed(ledger: ProfileLedger, id: string): LedgerRecord {
  const found = findCharge(ledger.records, id);
  if (found && 'record' in found) return found.record;
  if (found) {
    const ids = found.ambiguous.map((record) => record.id).join(', ');
    throw usageError('<id>', `"${safeText(id, 64)}" names ${found.ambiguous.length} charges (${ids})`);
  }
  throw new PixError(
    'not_found',
    `no charge "${safeText(id, 64)}" in the ledger of profile ${ledger.profile}`,
    {
      hint: 'the ledger holds the charges this pix created (`pix charge list --all`; another profile: -p NAME)',
    },
  );
}

/** The record in the API's charge shape, so the charge renderers of shared.ts draw it as at creation. */
export function asApiCharge(record: LedgerRecord): Charge {
  return {
    id: record.id,
    amount: centavosToApi(record.amountCentavos),
    status: record.status.toUpperCase(),
    type: record.type === 'immediate' ? 'IMMEDIATE_QRCODE' : 'DUEDATE_QRCODE',
    emvqrcps: record.emv ?? '',
    ...(record.keyId === undefined ? {} : { pixKeyId: record.keyId }),
    ...(record.txid === undefined ? {} : { transactionIdentification: record.txid }),
    createdAt: record.createdAt,
    ...(record.expiresAt === undefined ? {} : { expiresAt: record.expiresAt }),
    ...(record.dueDate === undefined ? {} : { dueDate: record.dueDate }),
  };
}

/** The record for `--json`/ndjson: stable field names, amounts in reais as the API writes them. */
export function ledgerJson(record: LedgerRecord): Record<string, unknown> {
  return {
    id: record.id,
    journalId: shortId(record.journalId),
    type: record.type,
    status: record.status,
    amount: centavosToApi(record.amountCentavos),
    txid: record.txid ?? null,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt ?? null,
    dueDate: record.dueDate ?? null,
    ...(record.terms === undefined ? {} : { terms: record.terms }),
    profile: record.profile,
    host: record.host,
    paid: record.match
      ? {
          entryId: record.match.entryId,
          amount: centavosToApi(record.match.amountCentavos),
          how: record.match.how,
          ...(record.match.day === undefined ? {} : { day: record.match.day }),
          matchedAt: record.matchedAt ?? null,
        }
      : null,
    emvqrcps: record.emv ?? null,
  };
}
