import { type Command, Option } from 'commander';
import type { Deps } from '../../context.js';
import { type JournalEntry, shortId } from '../../journal/entries.js';
import { isUnresolved } from '../../journal/rules.js';
import { PLAIN } from '../../output/format.js';
import { createListWriter } from '../../output/records.js';
import * as z from '../../zod.js';
import { integerFlag, parseOptions } from '../shared/flags.js';
import { completionValues, describeVerb, LIST_FORMATS } from '../shared/help.js';
import { columns, JOURNAL_FIELDS, openJournal, publicEntry, warnIfDamaged } from '../shared/journal.js';

/** The journal's machine columns (`-o csv`), whose names `--fields` takes too. */
const MACHINE = { timeZone: 'UTC', colors: PLAIN, human: false };

export const DEFAULT_JOURNAL_LIMIT = 20;
export const JOURNAL_KINDS = ['payment', 'charge', 'plan'] as const;

const listOptionsSchema = z.object({
  limit: z.optional(integerFlag(1)),
  all: z._default(z.boolean(), false),
  unresolved: z._default(z.boolean(), false),
  kind: z.optional(z.enum(JOURNAL_KINDS)),
});

/** What `--kind` picks: a payment (any), a charge, or a payment made under an approved plan. */
const OF_KIND: Record<(typeof JOURNAL_KINDS)[number], (entry: JournalEntry) => boolean> = {
  payment: (entry) => entry.kind === 'payment',
  charge: (entry) => entry.kind === 'charge',
  plan: (entry) => entry.kind === 'payment' && entry.plan !== undefined,
};

export type JournalListOptions = z.output<typeof listOptionsSchema>;

export async function runJournalList(options: JournalListOptions, deps: Deps): Promise<void> {
  const { mode, journal } = await openJournal(deps);
  await warnIfDamaged(deps, journal);
  const { stdout, stderr } = deps.io;
  const entries = (await journal.read()).reverse();
  const kind = options.kind === undefined ? undefined : OF_KIND[options.kind];
  const matching = entries.filter(
    (entry) => (!options.unresolved || isUnresolved(entry)) && (kind === undefined || kind(entry)),
  );
  const limit = options.all ? matching.length : (options.limit ?? DEFAULT_JOURNAL_LIMIT);
  const shown = matching.slice(0, limit);
  const writer = createListWriter(stdout, {
    ...mode,
    columns: columns(mode),
    listField: 'results',
    sheet: 'Journal',
    raw: publicEntry,
  });
  await writer.begin(matching.length);
  for (const entry of shown) await writer.write(entry);
  await writer.end();
  if (shown.length < matching.length) {
    stderr.write(
      `showing the latest ${shown.length} of ${matching.length} entries; all of them: pix journal --all${options.kind === undefined ? '' : ` --kind ${options.kind}`}\n`,
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

/** `pix journal list`, which `pix journal` alone runs (cli/table.ts). */
export const verb = describeVerb({
  summary: 'the entries, newest first (--unresolved: those with no known outcome)',
  formats: LIST_FORMATS,
  fields: { paths: JOURNAL_FIELDS, columns: () => columns(MACHINE) },
  paged: true,
  examples: [
    'pix journal',
    'pix journal --unresolved',
    'pix journal --kind charge --limit 5',

    'pix journal show 1a2b3c4d',
    'pix journal resolve 1a2b3c4d --not-paid',
    'pix journal --all --json | jq \'.results[] | select(.state == "unknown")\'',
  ],
  exits: ['usage', 'not_found'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--limit <n>', `entries to list, newest first (default ${DEFAULT_JOURNAL_LIMIT})`)
    .option('--all', 'every entry')
    .option('--unresolved', 'only entries whose outcome is unknown and not resolved yet')
    .addOption(
      completionValues(
        new Option(
          '--kind <kind>',
          'only payments, charges, or payments made under an approved plan: payment|charge|plan',
        ),
        JOURNAL_KINDS,
      ),
    )
    .action(async (_options, self: Command) => {
      await runJournalList(parseOptions(listOptionsSchema, self.opts()), deps);
    });
}
