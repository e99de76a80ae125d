/**
 * What `pix charge list`, `show` and `wait` share: the account's charge ledger (journal/ledger.ts), one
 * look at the statement for the payments of its charges, and how one of its records is shown. The ledger
 * is the account's, as the API identifies it (commands/shared/account.ts): two profiles of one account
 * share its charges (one payment is never claimed by both), and another account's charges are not here.
 */
import type { ApiClient } from '../../api/client.js';
import type { Charge } from '../../api/resources/charges.js';
import { type StatementEntry, statementWindow } from '../../api/resources/statement.js';
import type { Deps } from '../../context.js';
import { loadBusinessDayTest } from '../../domain/duedate.js';
import { type ChargeMatch, matchCharges, matchWindow } from '../../domain/matching.js';
import { centavosToApi } from '../../domain/money.js';
import { formatDateTime } from '../../domain/when.js';
import { PixError, usageError } from '../../errors.js';
import { type JournalEntry, shortId } from '../../journal/entries.js';
import {
  asLedgerCharge,
  chargeLedger,
  findCharge,
  type LedgerRecord,
  markAmbiguous,
} from '../../journal/ledger.js';
import { type Account, ofAccount } from '../../journal/rules.js';
import type { JournalStore } from '../../journal/stores.js';
import { safeText } from '../../output/sanitize.js';
import { accountOf } from './account.js';
import { nowOnBothClocks, SKEW_MARGIN_MS } from './clocks.js';

export interface ProfileLedger {
  /** Where a look records the payments it finds (journal match lines). */
  journal: Pick<JournalStore, 'match'>;
  profile: string;
  account: Account;
  /** The profile's charges, oldest first. */
  records: LedgerRecord[];
  /**
   * Reads the journal again (another pix may have written to it); statuses by `now` (the account's
   * clock, api/clock.ts, once the API answered; else this machine's).
   */
  reload(now?: Date): Promise<LedgerRecord[]>;
}

export async function openLedger(deps: Deps): Promise<ProfileLedger> {
  const [journal, account] = await Promise.all([deps.stores.journal(), accountOf(deps)]);
  const warning = await journal.damageWarning();
  if (warning !== undefined) deps.io.stderr.write(`${warning}\n`);
  return ledgerOf(journal, () => journal.read(), account, deps);
}

/**
 * The ledger of `account` over journal entries `read` gives (all of them, or only those a follower holds:
 * pix listen), its looks recorded through `journal`.
 */
export async function ledgerOf(
  journal: Pick<JournalStore, 'match'>,
  read: () => Promise<readonly JournalEntry[]>,
  account: Account,
  deps: Deps,
): Promise<ProfileLedger> {
  const reload = async (now = deps.clock.now()) =>
    chargeLedger(await read(), now).filter((record) => ofAccount(record, account));
  return { journal, profile: account.profile, account, records: await reload(), reload };
}

// ---------------------------------------------------------------------------------------------
// One look at the statement

const DAY_MS = 86_400_000;

/**
 * The start of the statement to read for `targets`: the oldest start of their windows, or of an
 * unmatched charge's window that overlaps one of theirs (it competes for the same entries: an entry it
 * could take makes theirs ambiguous).
 */
function readFrom(records: readonly LedgerRecord[], targets: readonly LedgerRecord[], now: number): number {
  let from = Number.POSITIVE_INFINITY;
  for (const target of targets) from = Math.min(from, matchWindow(target)?.from ?? now - DAY_MS);
  for (const record of records) {
    if (record.match) continue;
    const window = matchWindow(record);
    if (window && window.from < from && window.to >= from) from = window.from;
  }
  return from;
}

/**
 * The end of the statement to read: a day past now, or past the latest end of the targets' windows (a
 * payment the sandbox's clock put days ahead of this machine's is still read, before any answer told
 * pix that clock). A day ahead: a server clock ahead of ours still shows its newest entries.
 */
function readTo(targets: readonly LedgerRecord[], from: number, now: number): number {
  let to = Math.max(now, from);
  for (const target of targets) {
    const end = matchWindow(target)?.to;
    if (end !== undefined && Number.isFinite(end)) to = Math.max(to, end);
  }
  return to + DAY_MS;
}

/**
 * The statement entries read by the looks of one wait, and where they were read: a later look reads from
 * the time of the one before it (less SKEW_MARGIN_MS) on, whatever order the server lists entries in (API
 * §4: not shown), not the whole window again.
 */
export class SeenStatement {
  readonly entries = new Map<string, StatementEntry>();
  /** The start of the range read (ms). */
  from: number | undefined;
  /** The earlier clock's time (shared/clocks.ts) when the last look read: entries since may be new. */
  readAt: number | undefined;
}

/**
 * Reads the statement from `from` to `to` into `seen`: the whole range the first time, and from the time
 * of the look before (less the margin for clocks and late entries) after, each read whole through the pager
 * or exit 6 (errors.ts incompleteList): matching on a statement read short could take a charge for unpaid.
 */
async function readNewest(client: ApiClient, seen: SeenStatement, from: number, to: number): Promise<void> {
  const { early } = nowOnBothClocks(client);
  const start =
    seen.readAt !== undefined && seen.from !== undefined && from >= seen.from
      ? Math.max(from, seen.readAt - SKEW_MARGIN_MS)
      : from;
  const entries = await statementWindow(client, new Date(start), new Date(to), {
    consequence: 'run it again later',
  });
  for (const entry of entries) seen.entries.set(entry.id, entry);
  seen.from = Math.min(seen.from ?? from, from);
  seen.readAt = early;
}

export interface StatementLook {
  /** The ledger after the look: matches recorded, ambiguous charges marked, statuses by the account's clock. */
  records: LedgerRecord[];
  /** The matches this look found (and recorded in the journal). */
  matches: ChargeMatch<StatementEntry>[];
  /** When the statement was read, by the account's clock (ISO 8601); undefined: nothing to look for. */
  checkedAt: string | undefined;
}

/**
 * One look at the statement for the payments of `targets` (records of the ledger): reads the newest
 * pages from the start of the windows that concern them, matches every unmatched charge of the ledger
 * (domain/matching.ts), records each match in the journal, and marks the ambiguous charges. `seen`
 * keeps the entries read across the looks of one wait, so later looks read only what is new since.
 * Throws what reading the statement throws (an `unavailable` PixError when the API is down).
 */
export async function lookAtStatement(
  ledger: ProfileLedger,
  client: ApiClient,
  targets: readonly LedgerRecord[],
  seen: SeenStatement = new SeenStatement(),
): Promise<StatementLook> {
  const records = await ledger.reload(client.clock.now());
  const ids = new Set(targets.map((target) => target.id));
  const current = records.filter((record) => ids.has(record.id));
  const unmatched = current.filter((record) => !record.match);
  let checkedAt: string | undefined;
  let from = Number.POSITIVE_INFINITY;
  if (unmatched.length > 0) {
    const now = client.clock.now().getTime();
    from = readFrom(records, unmatched, now);
    await readNewest(client, seen, from, readTo(unmatched, from, now));
    // The statement's answer set the account's clock (the sandbox's, api/clock.ts): read it after.
    checkedAt = client.clock.now().toISOString();
  }
  const isBusinessDay = await loadBusinessDayTest();
  const found = matchCharges(records.map(asLedgerCharge), [...seen.entries.values()], { isBusinessDay });
  for (const match of found.matches) {
    const record = records.find((r) => r.id === match.chargeId);
    // Only a charge whose whole window was read is matched: an entry before the part read could be
    // a second candidate, which would make it ambiguous.
    const window = record && matchWindow(record);
    if (!record || !window || window.from < from) continue;
    await ledger.journal.match(record.journalId, {
      status: 'paid',
      entryId: match.entryId,
      amountCentavos: match.amount,
      how: match.how,
      ...(match.day === undefined ? {} : { day: match.day }),
      evidence: match.evidence,
    });
  }
  const after = await ledger.reload(client.clock.now());
  const recorded = found.matches.filter((match) => after.some((r) => r.id === match.chargeId && r.match));
  return { records: markAmbiguous(after, found.ambiguous), matches: recorded, checkedAt };
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

/**
 * `pix charge list`/`show`: one look at the statement for `targets` before they are shown, unless
 * `offline`. When the statement cannot be read (API down, credentials refused) the ledger is shown as
 * last recorded, with a warning saying so: a status that may be stale is never passed off as fresh.
 */
export async function refreshLedger(
  ledger: ProfileLedger,
  targets: readonly LedgerRecord[],
  offline: boolean,
  deps: Deps,
): Promise<StatementLook | undefined> {
  if (offline || !targets.some((record) => !record.match)) return undefined;
  try {
    return await lookAtStatement(ledger, await deps.api(), targets);
  } catch (error) {
    if (!(error instanceof PixError) || !REFRESH_FAULTS.has(error.kind) || deps.signal.aborted) throw error;
    deps.io.stderr.write(
      `warning: the statement could not be read (${error.message}): statuses as the ledger last recorded them\n`,
    );
    return undefined;
  }
}

/** The failures of a look that leave the ledger to be shown as it was (each said on stderr). */
const REFRESH_FAULTS: ReadonlySet<string> = new Set(['unavailable', 'auth', 'not_found', 'rejected']);

/** Says on stderr when the statement was read for what is shown (JSON carries it as `checkedAt`). */
export function sayChecked(
  look: StatementLook | undefined,
  offline: boolean,
  timeZone: string,
  deps: Deps,
): void {
  if (look?.checkedAt !== undefined) {
    deps.io.stderr.write(`checked the statement at ${formatDateTime(look.checkedAt, timeZone)}\n`);
  } else if (offline) {
    deps.io.stderr.write(
      'not checked against the statement (--offline): statuses as the ledger last recorded them\n',
    );
  }
}

/** The record in the API's charge shape, so the charge renderers of shared.ts draw it as at creation. */
export function asApiCharge(record: LedgerRecord): Charge {
  return {
    id: record.id,
    amount: centavosToApi(record.amountCentavos),
    // The ledger's word, as `charge list` shows it (paid, probable, expired…), not the API's PAID.
    status: record.status,
    type: record.type === 'immediate' ? 'IMMEDIATE_QRCODE' : 'DUEDATE_QRCODE',
    emvqrcps: record.emv ?? '',
    ...(record.keyId === undefined ? {} : { pixKeyId: record.keyId }),
    ...(record.pixKey === undefined ? {} : { pixKey: record.pixKey }),
    ...(record.txid === undefined ? {} : { transactionIdentification: record.txid }),
    createdAt: record.createdAt,
    ...(record.expiresAt === undefined ? {} : { expiresAt: record.expiresAt }),
    ...(record.dueDate === undefined ? {} : { dueDate: record.dueDate }),
  };
}

/** The fields of ledgerJson's record, nested ones dotted: what `--fields` picks from a charge. */
export const CHARGE_FIELDS = [
  'id',
  'journalId',
  'type',
  'status',
  'amount',
  'txid',
  'createdAt',
  'expiresAt',
  'dueDate',
  'terms',
  'profile',
  'host',
  'paid.entryId',
  'paid.amount',
  'paid.match',
  'paid.how',
  'paid.day',
  'paid.matchedAt',
  'ambiguous.candidates',
  'ambiguous.rivals',
  'checkedAt',
  'emvqrcps',
] as const;

/**
 * The record for `--json`/ndjson: stable field names, amounts in reais as the API writes them.
 * `checkedAt`: when the statement was read for it in this run (null: not read — offline, or already paid).
 */
export function ledgerJson(record: LedgerRecord, checkedAt?: string): Record<string, unknown> {
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
          // `payer-document`: proof; `amount-and-time`: probable (the charge names no payer).
          match: record.match.evidence ?? 'amount-and-time',
          how: record.match.how,
          ...(record.match.day === undefined ? {} : { day: record.match.day }),
          matchedAt: record.matchedAt ?? null,
        }
      : null,
    ...(record.ambiguity === undefined
      ? {}
      : {
          ambiguous: {
            candidates: record.ambiguity.candidates.map((c) => ({
              entryId: c.entryId,
              amount: centavosToApi(c.amount),
              confirmedAt: c.entry.confirmedAt,
              match: c.evidence,
              how: c.how,
            })),
            rivals: record.ambiguity.rivals,
          },
        }),
    checkedAt: checkedAt ?? null,
    emvqrcps: record.emv ?? null,
  };
}
