/**
 * `pix journal`: what pix asked of the server that moves money or creates something (payments and
 * charges), with the outcome it knows, and the operator's finding where it could not know
 * (contract §8). The rules are the journal's (src/journal/rules.ts); its verbs (list.ts, show.ts,
 * resolve.ts, verify.ts) only list, show and record a resolution; this file holds what they share.
 *
 *   pix journal [--limit N | --all] [--unresolved]
 *   pix journal show ID
 *   pix journal resolve ID --paid|--not-paid
 *   pix journal verify
 */
import type { Deps } from '../../context.js';
import { centavosToApi, formatBRL, formatDecimal } from '../../domain/money.js';
import { formatDateTime } from '../../domain/when.js';
import { PixError, usageError } from '../../errors.js';
import { type JournalEntry, type Resolution, shortId } from '../../journal/entries.js';
import { findEntry, isUnresolved } from '../../journal/rules.js';
import type { JournalStore } from '../../journal/stores.js';
import { type OutputMode, outputMode } from '../../output/format.js';
import type { Column } from '../../output/records.js';
import { safeText } from '../../output/sanitize.js';

/** What every verb reads first: the profile's time zone, the output mode and the journal. */
export async function openJournal(
  deps: Deps,
): Promise<{ timeZone: string; mode: OutputMode; journal: JournalStore }> {
  const settings = await deps.settings();
  const timeZone = settings.timeZone.value;
  const mode = await outputMode(deps, timeZone);
  const journal = await deps.stores.journal();
  return { timeZone, mode, journal };
}

/** The journal's damage, said on stderr before anything else is read from it (verify reports it itself). */
export async function warnIfDamaged(deps: Deps, journal: JournalStore): Promise<void> {
  const warning = await journal.damageWarning();
  if (warning !== undefined) deps.io.stderr.write(`${warning}\n`);
}

/** The fields of publicEntry's record, nested ones dotted: what `--fields` picks from an entry. */
export const JOURNAL_FIELDS = [
  'id',
  'kind',
  'state',
  'at',
  'amount',
  'amountCentavos',
  'receiver',
  'endToEndId',
  'description',
  'resolution',
  'resolvedAt',
  'profile',
  'host',
  'baseUrl',
  'method',
  'key',
  'emvHash',
  'dynamic',
  'batchRow.batch',
  'batchRow.row',
  'chargeType',
  'keyId',
  'transferId',
  'chargeId',
  'status',
  'reason',
  'finishedAt',
  'anomalies',
] as const;

/** An entry as `--json` shows it: the contract's fields first, `amount` in reais as the API writes money. */
export function publicEntry(entry: JournalEntry): Record<string, unknown> {
  const { payment, charge } = entry;
  return {
    id: entry.id,
    kind: entry.kind,
    state: entry.state,
    at: entry.at,
    amount: centavosToApi(entry.amountCentavos),
    amountCentavos: entry.amountCentavos,
    receiver: entry.receiver ?? null,
    endToEndId: entry.endToEndId ?? null,
    ...(entry.description === undefined ? {} : { description: entry.description }),
    ...(entry.resolution === undefined ? {} : { resolution: entry.resolution, resolvedAt: entry.resolvedAt }),
    profile: entry.profile,
    host: entry.host,
    ...(entry.baseUrl === undefined ? {} : { baseUrl: entry.baseUrl }),
    ...(payment === undefined
      ? {}
      : {
          method: payment.method,
          ...(payment.key === undefined ? {} : { key: payment.key }),
          ...(payment.emvHash === undefined ? {} : { emvHash: payment.emvHash }),
          ...(payment.dynamic === undefined ? {} : { dynamic: payment.dynamic }),
          ...(payment.batchRow === undefined ? {} : { batchRow: payment.batchRow }),
        }),
    ...(charge === undefined
      ? {}
      : {
          chargeType: charge.type,
          ...(charge.keyId === undefined ? {} : { keyId: charge.keyId }),
          ...(charge.ref === undefined ? {} : { ref: charge.ref }),
        }),
    ...(entry.transferId === undefined ? {} : { transferId: entry.transferId }),
    ...(entry.chargeId === undefined ? {} : { chargeId: entry.chargeId }),
    ...(entry.status === undefined ? {} : { status: entry.status }),
    ...(entry.reason === undefined ? {} : { reason: entry.reason }),
    ...(entry.finishedAt === undefined ? {} : { finishedAt: entry.finishedAt }),
    ...(entry.anomalies === undefined ? {} : { anomalies: entry.anomalies }),
    ...(entry.plan === undefined ? {} : { plan: entry.plan }),
  };
}

/** `payment (key)`, `charge (duedate)`. */
function kindWords(entry: JournalEntry): string {
  if (entry.kind === 'charge') return `charge (${entry.charge?.type ?? 'immediate'})`;
  return `payment (${entry.payment?.method ?? '?'})`;
}

/** What the resolution means for this kind of entry. */
export function resolutionWords(entry: JournalEntry, resolution: Resolution): string {
  if (entry.kind === 'charge') return resolution === 'paid' ? 'created' : 'not created';
  return resolution;
}

/** The server's reference: the endToEndId of a payment, the id of a charge. */
function reference(entry: JournalEntry): string | undefined {
  return entry.kind === 'charge' ? entry.chargeId : entry.endToEndId;
}

/**
 * The kind for people, short enough that the receiver keeps its room at 80 columns: `key`, `qr`, a batch
 * row by its id in the file (`row r2`), `charge`, `due date`.
 */
function shortKind(entry: JournalEntry): string {
  if (entry.kind === 'charge') return entry.charge?.type === 'duedate' ? 'due date' : 'charge';
  const row = entry.payment?.batchRow?.row;
  if (row !== undefined) return `row ${row}`;
  return entry.payment?.method ?? 'payment';
}

/**
 * The journal as a list. For people the columns an operator reads first keep their place at 80 columns
 * (id, kind, state, amount, receiver); the start time goes before the receiver when it does not fit. For
 * machines the columns keep their places, and the profile and the batch row id come last, so a journal
 * that holds several profiles says whose each line is.
 */
export function columns(mode: Pick<OutputMode, 'timeZone' | 'colors' | 'human'>): Column<JournalEntry>[] {
  const { timeZone, colors } = mode;
  return [
    { header: 'Id', kind: 'id', human: (entry) => shortId(entry.id), machine: (entry) => entry.id },
    {
      header: 'Started',
      kind: 'date',
      priority: 2,
      human: (entry) => formatDateTime(entry.at, timeZone),
      machine: (entry) => entry.at,
    },
    // Kind outranks Reference: without it a charge and a payment look alike.
    {
      header: 'Kind',
      kind: 'enum',
      human: shortKind,
      machine: (entry) => entry.kind,
    },
    {
      header: 'State',
      kind: 'enum',
      human: (entry) => ({ text: entry.state, ...(isUnresolved(entry) ? { paint: colors.yellow } : {}) }),
      machine: (entry) => entry.state,
    },
    {
      header: 'Resolution',
      priority: 3,
      human: (entry) => (entry.resolution ? resolutionWords(entry, entry.resolution) : ''),
      machine: (entry) => entry.resolution,
    },
    {
      header: 'Amount',
      kind: 'money',
      human: (entry) => formatBRL(entry.amountCentavos),
      machine: (entry) => formatDecimal(entry.amountCentavos),
    },
    { header: 'Receiver', human: (entry) => entry.receiver ?? '', machine: (entry) => entry.receiver },
    {
      header: 'Reference',
      kind: 'id',
      priority: 4,
      human: (entry) => reference(entry) ?? '',
      machine: reference,
    },
    { header: 'Profile', priority: 4, human: (entry) => entry.profile, machine: (entry) => entry.profile },
    ...(mode.human
      ? []
      : [
          {
            header: 'Row',
            human: () => '',
            machine: (entry: JournalEntry) => entry.payment?.batchRow?.row,
          },
        ]),
  ];
}

/** The details of one entry, for people (a Field/Value table) or pipes (`field<TAB>value`). */
export function renderEntry(entry: JournalEntry, mode: OutputMode): string {
  const zone = mode.timeZone;
  const rows: Array<[string, string, string | undefined]> = [
    ['Id', 'id', entry.id],
    ['Kind', 'kind', mode.human ? kindWords(entry) : entry.kind],
    ['State', 'state', entry.state],
    [
      'Resolution',
      'resolution',
      entry.resolution && (mode.human ? resolutionWords(entry, entry.resolution) : entry.resolution),
    ],
    [
      'Resolved',
      'resolvedAt',
      entry.resolvedAt && (mode.human ? formatDateTime(entry.resolvedAt, zone) : entry.resolvedAt),
    ],
    ['Started', 'at', mode.human ? formatDateTime(entry.at, zone) : entry.at],
    [
      'Finished',
      'finishedAt',
      entry.finishedAt && (mode.human ? formatDateTime(entry.finishedAt, zone) : entry.finishedAt),
    ],
    ['Amount', 'amount', mode.human ? formatBRL(entry.amountCentavos) : formatDecimal(entry.amountCentavos)],
    ['Receiver', 'receiver', entry.receiver],
    ['Description', 'description', entry.description],
    // Who made and who approved the plan it was paid under (pix plan execute).
    ['Plan', 'plan', entry.plan?.id],
    ['Made by', 'planMaker', entry.plan?.maker],
    [
      'Approved by',
      'planApprovers',
      entry.plan?.approvers.map(({ name, key }) => `${name} (${key})`).join(', '),
    ],
    ['Key', 'key', entry.payment?.key],
    ['Code (SHA-256)', 'emvHash', entry.payment?.emvHash],
    [
      'Dynamic code',
      'dynamic',
      entry.payment?.dynamic === undefined ? undefined : String(entry.payment.dynamic),
    ],
    ['endToEndId', 'endToEndId', entry.endToEndId],
    ['Transfer id', 'transferId', entry.transferId],
    ['Charge id', 'chargeId', entry.chargeId],
    ['Charge key id', 'keyId', entry.charge?.keyId],
    ['Status', 'status', entry.status],
    ['Reason', 'reason', entry.reason],
    [
      'Answer differed',
      'anomalies',
      entry.anomalies
        ?.map(({ field, sent, got }) => `${field}: sent ${String(sent)}, answered ${String(got)}`)
        .join('; '),
    ],
    ['Profile', 'profile', entry.profile],
    ['Account', 'baseUrl', entry.baseUrl],
    ['Host', 'host', entry.host],
  ];
  const shown = rows.filter((row): row is [string, string, string] => row[2] !== undefined && row[2] !== '');
  return mode.table(
    ['Field', 'Value'],
    shown.map(([label, key, value]) => (mode.human ? [label, value] : [key, value])),
  );
}

/** The entry `id` names (a unique prefix will do), or a usage error saying why not. */
export async function lookUp(journal: JournalStore, id: string): Promise<JournalEntry> {
  const lookup = findEntry(await journal.read(), id);
  if (lookup.found) return lookup.found;
  const shownId = safeText(id, 40);
  if (lookup.matches.length === 0) {
    throw new PixError('not_found', `no journal entry ${shownId}`, {
      hint: 'list them with `pix journal --all`',
    });
  }
  const some = lookup.matches
    .slice(0, 5)
    .map((entry) => shortId(entry.id))
    .join(', ');
  throw usageError(
    'ID',
    `"${shownId}" starts ${lookup.matches.length} entries (${some}…)`,
    'type more of the id',
  );
}
