/**
 * `pix charge list`: the charges this pix created for the current profile (the ledger, read from the
 * journal), newest first. Before they are shown, one look at the statement finds the payments of the
 * unpaid ones among them (ledger.ts lookAtStatement, as one poll of `pix charge wait`), unless
 * `--offline`. Statuses: `paid` (proven by the payer's document), `probable` (amount and time only),
 * `ambiguous` (more than one entry or charge could be it: none marked paid), `expired`, `pending`.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { InvalidValue } from '../../domain/invalid.js';
import { formatBRL, formatDecimal } from '../../domain/money.js';
import { formatDateTime } from '../../domain/when.js';
import { LEDGER_STATUSES, type LedgerRecord, type LedgerStatus } from '../../journal/ledger.js';
import { outputMode, type Palette, PLAIN } from '../../output/format.js';
import { type Column, createListWriter } from '../../output/records.js';
import * as z from '../../zod.js';
import { CHARGE_FIELDS, ledgerJson, openLedger, refreshLedger, sayChecked } from '../shared/chargeledger.js';
import { fromDomain, integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';

export const DEFAULT_LIST = 20;

function parseStatus(text: string): LedgerStatus {
  const value = text.trim().toLowerCase();
  if (!(LEDGER_STATUSES as readonly string[]).includes(value))
    throw new InvalidValue(`"${text}" is not a status (${LEDGER_STATUSES.join(', ')})`);
  return value as LedgerStatus;
}

const listOptionsSchema = z.object({
  all: z._default(z.boolean(), false),
  limit: z.optional(integerFlag(1)),
  status: z.optional(fromDomain(parseStatus)),
  offline: z._default(z.boolean(), false),
});

export type ListOptions = z.output<typeof listOptionsSchema>;

function painter(status: LedgerStatus, colors: Palette): (text: string) => string {
  if (status === 'paid') return colors.green;
  if (status === 'expired') return colors.dim;
  if (status === 'ambiguous') return colors.red;
  return colors.yellow;
}

function columns(timeZone: string, colors: Palette): Column<LedgerRecord>[] {
  return [
    { header: 'Id', kind: 'id', human: (r) => r.id, machine: (r) => r.id },
    {
      header: 'Status',
      kind: 'enum',
      human: (r) => ({ text: r.status, paint: painter(r.status, colors) }),
      machine: (r) => r.status,
    },
    {
      header: 'Type',
      kind: 'enum',
      priority: 2,
      human: (r) => (r.type === 'duedate' ? 'due date' : 'immediate'),
      machine: (r) => r.type,
    },
    {
      header: 'Amount',
      kind: 'money',
      human: (r) => formatBRL(r.amountCentavos),
      machine: (r) => formatDecimal(r.amountCentavos),
    },
    {
      header: 'Created',
      kind: 'date',
      human: (r) => formatDateTime(r.createdAt, timeZone),
      machine: (r) => r.createdAt,
    },
    {
      header: 'Due/Expires',
      kind: 'date',
      priority: 2,
      human: (r) => r.dueDate ?? (r.expiresAt ? formatDateTime(r.expiresAt, timeZone) : ''),
      machine: (r) => r.dueDate ?? r.expiresAt ?? '',
    },
    { header: 'Txid', kind: 'id', priority: 3, human: (r) => r.txid ?? '', machine: (r) => r.txid ?? '' },
    {
      header: 'Paid by',
      kind: 'id',
      priority: 2,
      human: (r) => r.match?.entryId ?? '',
      machine: (r) => r.match?.entryId ?? '',
    },
  ];
}

export async function runChargeList(options: ListOptions, deps: Deps): Promise<void> {
  const ledger = await openLedger(deps);
  // What could be shown is looked at: every charge with --all or --status, else the newest.
  const newest = [...ledger.records].reverse();
  const everyOne = options.all || options.status !== undefined;
  const targets = everyOne ? newest : newest.slice(0, options.limit ?? DEFAULT_LIST);
  const look = await refreshLedger(ledger, targets, options.offline, deps);
  const looked = new Set(look?.checkedAt === undefined ? [] : targets.map((record) => record.id));
  const matching = (look?.records ?? ledger.records)
    .filter((record) => options.status === undefined || record.status === options.status)
    .reverse();
  const shown = options.all ? matching : matching.slice(0, options.limit ?? DEFAULT_LIST);
  const timeZone = (await deps.settings()).timeZone.value;
  const mode = await outputMode(deps, timeZone);
  const writer = createListWriter(deps.io.stdout, {
    ...mode,
    columns: columns(timeZone, mode.colors),
    listField: 'results',
    sheet: 'Charges',
    raw: (record: LedgerRecord) => ledgerJson(record, looked.has(record.id) ? look?.checkedAt : undefined),
  });
  await writer.begin(matching.length);
  for (const record of shown) await writer.write(record);
  await writer.end();
  if (shown.length < matching.length && deps.io.stderr.isTTY) {
    deps.io.stderr.write(`${shown.length} of ${matching.length} charges shown; --all shows every one\n`);
  }
  if (matching.length === 0 && mode.human) {
    deps.io.stderr.write(`no charges in the ledger of profile ${ledger.profile}\n`);
  }
  // JSON and ndjson carry it as `checkedAt`.
  if (mode.format !== 'json' && mode.format !== 'ndjson') sayChecked(look, options.offline, timeZone, deps);
}

export const verb = describeVerb({
  summary: 'The charges pix created (the local ledger), newest first',
  formats: LIST_FORMATS,
  fields: { paths: CHARGE_FIELDS, columns: () => columns('UTC', PLAIN) },
  paged: true,
  examples: [
    'pix charge list',
    'pix charge list --status pending --all -o csv > pending.csv',
    'pix charge list --json | jq ".results[0].id"',
    'pix charge list --offline',
  ],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--all', 'every charge, not only the newest')
    .option('--limit <n>', `how many of the newest to show (default ${DEFAULT_LIST})`)
    .option('--status <status>', `only charges with this status: ${LEDGER_STATUSES.join(', ')}`)
    .option('--offline', 'do not read the statement for their payments: the ledger as last recorded')
    .action(async (_options, self: Command) => {
      await runChargeList(parseOptions(listOptionsSchema, self.opts()), deps);
    });
}
