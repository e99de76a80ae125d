/**
 * `pix journal`: what pix asked of the server that moves money or creates something (payments and
 * charges), with the outcome it knows, and the operator's finding where it could not know
 * (contract §8). The rules are the journal's (src/journal/rules.ts); this file only lists, shows and
 * records a resolution.
 *
 *   pix journal [--limit N | --all] [--unresolved]
 *   pix journal show ID
 *   pix journal resolve ID --paid|--not-paid
 *   pix journal verify
 */
import type { Command } from 'commander';
import type { Deps } from '../context.js';
import { centavosToApi, formatBRL, formatDecimal } from '../domain/money.js';
import { formatDateTime } from '../domain/when.js';
import { PixError, usageError } from '../errors.js';
import { type JournalEntry, type Resolution, shortId } from '../journal/entries.js';
import { journalOf, recoveryHint } from '../journal/record.js';
import { effectiveState, findEntry, isResolvable, isUnresolved } from '../journal/rules.js';
import { damageWarning, describeDamage, type Journal } from '../journal/store.js';
import { jsonDocument, type OutputMode, outputMode } from '../output/format.js';
import { type Column, createListWriter } from '../output/records.js';
import { safeText } from '../output/sanitize.js';
import * as z from '../zod.js';
import { integerFlag, parseOptions } from './shared/flags.js';
import { addExamples } from './shared/help.js';

export const DEFAULT_JOURNAL_LIMIT = 20;

const listOptionsSchema = z.object({
  limit: z.optional(integerFlag(1)),
  all: z._default(z.boolean(), false),
  unresolved: z._default(z.boolean(), false),
});
const showOptionsSchema = z.object({ id: z.string().check(z.minLength(1)) });
const resolveOptionsSchema = z.object({
  id: z.string().check(z.minLength(1)),
  paid: z._default(z.boolean(), false),
  notPaid: z._default(z.boolean(), false),
});

export type JournalOptions =
  | { action: 'verify' }
  | ({ action: 'list' } & z.output<typeof listOptionsSchema>)
  | ({ action: 'show' } & z.output<typeof showOptionsSchema>)
  | ({ action: 'resolve' } & z.output<typeof resolveOptionsSchema>);

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
      : { chargeType: charge.type, ...(charge.keyId === undefined ? {} : { keyId: charge.keyId }) }),
    ...(entry.transferId === undefined ? {} : { transferId: entry.transferId }),
    ...(entry.chargeId === undefined ? {} : { chargeId: entry.chargeId }),
    ...(entry.status === undefined ? {} : { status: entry.status }),
    ...(entry.reason === undefined ? {} : { reason: entry.reason }),
    ...(entry.finishedAt === undefined ? {} : { finishedAt: entry.finishedAt }),
    ...(entry.anomalies === undefined ? {} : { anomalies: entry.anomalies }),
  };
}

/** `payment (key)`, `charge (duedate)`. */
function kindWords(entry: JournalEntry): string {
  if (entry.kind === 'charge') return `charge (${entry.charge?.type ?? 'immediate'})`;
  return `payment (${entry.payment?.method ?? '?'})`;
}

/** What the resolution means for this kind of entry. */
function resolutionWords(entry: JournalEntry, resolution: Resolution): string {
  if (entry.kind === 'charge') return resolution === 'paid' ? 'created' : 'not created';
  return resolution;
}

/** The server's reference: the endToEndId of a payment, the id of a charge. */
function reference(entry: JournalEntry): string | undefined {
  return entry.kind === 'charge' ? entry.chargeId : entry.endToEndId;
}

function columns(mode: OutputMode): Column<JournalEntry>[] {
  const { timeZone, colors } = mode;
  return [
    { header: 'Id', kind: 'id', human: (entry) => shortId(entry.id), machine: (entry) => entry.id },
    {
      header: 'Started',
      kind: 'date',
      human: (entry) => formatDateTime(entry.at, timeZone),
      machine: (entry) => entry.at,
    },
    { header: 'Kind', kind: 'enum', priority: 3, human: kindWords, machine: (entry) => entry.kind },
    {
      header: 'State',
      kind: 'enum',
      human: (entry) => ({ text: entry.state, ...(isUnresolved(entry) ? { paint: colors.yellow } : {}) }),
      machine: (entry) => entry.state,
    },
    {
      header: 'Resolution',
      priority: 2,
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
      priority: 2,
      human: (entry) => reference(entry) ?? '',
      machine: reference,
    },
  ];
}

/** The details of one entry, for people (a Field/Value table) or pipes (`field<TAB>value`). */
function renderEntry(entry: JournalEntry, mode: OutputMode): string {
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
function lookUp(journal: Journal, id: string): JournalEntry {
  const lookup = findEntry(journal.read(), id);
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

async function list(
  options: z.output<typeof listOptionsSchema>,
  deps: Deps,
  mode: OutputMode,
  journal: Journal,
) {
  const { stdout, stderr } = deps.io;
  const entries = journal.read().reverse();
  const matching = options.unresolved ? entries.filter(isUnresolved) : entries;
  const limit = options.all ? matching.length : (options.limit ?? DEFAULT_JOURNAL_LIMIT);
  const shown = matching.slice(0, limit);
  const writer = createListWriter(stdout, {
    ...mode,
    columns: columns(mode),
    listField: 'results',
    raw: publicEntry,
  });
  await writer.begin(matching.length);
  for (const entry of shown) await writer.write(entry);
  await writer.end();
  if (shown.length < matching.length) {
    stderr.write(
      `showing the latest ${shown.length} of ${matching.length} entries; all of them: pix journal --all\n`,
    );
  }
  const open = entries.filter(isUnresolved);
  if (open.length > 0 && mode.format !== 'json') {
    const ids = open
      .slice(0, 3)
      .map((entry) => shortId(entry.id))
      .join(', ');
    stderr.write(
      `${open.length} ${open.length === 1 ? 'entry has' : 'entries have'} no known outcome (${ids}${open.length > 3 ? ', …' : ''}): \`pix journal show ID\` says where to look in the statement, then \`pix journal resolve ID --paid|--not-paid\`\n`,
    );
  }
}

/**
 * `pix journal verify`: every line the reader could not take, by number (exit 8 when there is one:
 * payments and charges are stopped until it is repaired), and the torn writes it skips harmlessly.
 */
function verify(deps: Deps, mode: OutputMode, journal: Journal): void {
  const { stdout, stderr } = deps.io;
  const { damage, torn } = journal.verify();
  const entries = journal.read().length;
  if (mode.format === 'json') {
    stdout.write(jsonDocument({ path: journal.path, entries, damaged: damage, torn }, mode.pretty));
  } else if (damage.length > 0) {
    stdout.write(
      mode.table(
        ['Line', 'Problem'],
        damage.map((problem) => [String(problem.line), problem.reason]),
      ),
    );
  }
  if (torn.length > 0) {
    stderr.write(
      `${torn.length} torn write${torn.length === 1 ? '' : 's'} skipped (line ${torn.slice(0, 5).join(', ')}${torn.length > 5 ? ', …' : ''}): writes cut short, which never sent anything\n`,
    );
  }
  if (damage.length === 0) {
    stderr.write(`journal ${journal.path}: ${entries} entries, no damaged line\n`);
    return;
  }
  throw new PixError('declined', `the journal is damaged: ${describeDamage(journal.path, damage)}`, {
    hint: 'payments and charges are stopped until each damaged line is repaired or removed by hand (keep a copy of the file first); a damaged line may record a payment: check `pix statement` around the times of the lines next to it',
  });
}

export async function runJournal(options: JournalOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const mode = await outputMode(deps, settings.timeZone.value);
  const journal = await journalOf(deps);
  const { stdout, stderr } = deps.io;
  if (options.action === 'verify') {
    verify(deps, mode, journal);
    return;
  }
  const warning = damageWarning(journal);
  if (warning !== undefined) stderr.write(`${warning}\n`);
  if (options.action === 'list') {
    await list(options, deps, mode, journal);
    return;
  }
  if (options.action === 'show') {
    const entry = lookUp(journal, options.id);
    stdout.write(
      mode.format === 'json' ? jsonDocument(publicEntry(entry), mode.pretty) : renderEntry(entry, mode),
    );
    // The same instructions as when it was left unknown: where to look, and the two ways to record it.
    if (isUnresolved(entry)) {
      stderr.write(`hint: ${safeText(recoveryHint(entry, { timeZone: settings.timeZone.value }), 600)}\n`);
    }
    return;
  }
  if (options.paid === options.notPaid) {
    throw usageError(
      options.paid ? '--not-paid' : '--paid',
      options.paid
        ? 'give --paid or --not-paid, not both'
        : 'say what the statement shows: --paid or --not-paid',
    );
  }
  const entry = lookUp(journal, options.id);
  if (!isResolvable(entry)) {
    throw usageError(
      'ID',
      `journal entry ${shortId(entry.id)} is ${entry.state}: pix knows its outcome, there is nothing to resolve`,
    );
  }
  const resolution: Resolution = options.paid ? 'paid' : 'not-paid';
  journal.resolve(entry.id, resolution);
  const resolved = { ...entry, resolution, resolvedAt: deps.clock.now().toISOString() };
  const effect =
    effectiveState(resolved) === 'done'
      ? 'it counts as done'
      : `it no longer blocks ${entry.kind === 'payment' ? 'paying again' : 'anything'}`;
  const was = entry.resolution === undefined ? '' : ` (was ${resolutionWords(entry, entry.resolution)})`;
  stderr.write(
    `journal entry ${shortId(entry.id)} resolved: ${resolutionWords(entry, resolution)}${was}; ${effect}\n`,
  );
  if (mode.format === 'json') stdout.write(jsonDocument(publicEntry(resolved), mode.pretty));
}

export function register(command: Command, deps: Deps): void {
  command
    .option('--limit <n>', `entries to list, newest first (default ${DEFAULT_JOURNAL_LIMIT})`)
    .option('--all', 'every entry')
    .option('--unresolved', 'only entries whose outcome is unknown and not resolved yet')
    .action(async (_options, self: Command) => {
      await runJournal({ action: 'list', ...parseOptions(listOptionsSchema, self.opts()) }, deps);
    });
  const show = command
    .command('show')
    .description('one entry, by its id (the first characters will do)')
    .argument('<ID>')
    .action(async (id: string) => {
      await runJournal({ action: 'show', ...parseOptions(showOptionsSchema, { id }, { id: 'ID' }) }, deps);
    });
  addExamples(show, ['pix journal show 1a2b3c4d', 'pix journal show 1a2b --json'], ['usage', 'not_found']);
  const resolve = command
    .command('resolve')
    .description('record what the statement shows about an entry whose outcome pix could not know')
    .argument('<ID>')
    .option('--paid', 'it went through (a charge: it was created): counts as done')
    .option('--not-paid', 'it did not: no longer blocks paying again')
    .action(async (id: string, _options, self: Command) => {
      const parsed = parseOptions(resolveOptionsSchema, { ...self.opts(), id }, { id: 'ID' });
      await runJournal({ action: 'resolve', ...parsed }, deps);
    });
  addExamples(
    resolve,
    ['pix journal resolve 1a2b3c4d --not-paid', 'pix journal resolve 1a2b3c4d --paid'],
    ['usage', 'not_found'],
  );
  const check = command
    .command('verify')
    .description('list the lines of the journal that cannot be read (exit 8 if any)')
    .action(async () => {
      await runJournal({ action: 'verify' }, deps);
    });
  addExamples(check, ['pix journal verify', 'pix journal verify --json'], ['declined']);
  addExamples(
    command,
    [
      'pix journal',
      'pix journal --unresolved',
      'pix journal show 1a2b3c4d',
      'pix journal resolve 1a2b3c4d --not-paid',
      'pix journal --all --json | jq \'.results[] | select(.state == "unknown")\'',
    ],
    ['usage', 'not_found'],
  );
}
