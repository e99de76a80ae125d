import type { Command } from 'commander';
import {
  type KeyPage,
  keyPage,
  keySource,
  type RegisteredKey,
  registeredKeySchema,
} from '../../api/resources/keys.js';
import type { Deps } from '../../context.js';
import { formatDateTime } from '../../domain/when.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import { type Column, createListWriter } from '../../output/records.js';
import * as z from '../../zod.js';
import { ALL_CONCURRENCY, ALL_PAGE_SIZE, DEFAULT_PAGE, exportAll, finishExport } from '../shared/export.js';
import { integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { limitFlag, MAX_PAGE, nextPageCommand } from '../shared/pages.js';

const keysOptionsSchema = z.object({
  limit: z.optional(limitFlag),
  offset: z.optional(integerFlag(0)),
  all: z._default(z.boolean(), false),
});

export type KeysOptions = z.output<typeof keysOptionsSchema>;

function columns(timeZone: string): Column<RegisteredKey>[] {
  return [
    { header: 'Key', human: (key) => key.key, machine: (key) => key.key },
    { header: 'Type', kind: 'enum', priority: 2, human: (key) => key.keyType, machine: (key) => key.keyType },
    {
      header: 'Created',
      kind: 'date',
      priority: 3,
      human: (key) => formatDateTime(key.createdAt, timeZone),
      machine: (key) => key.createdAt,
    },
    { header: 'Id', kind: 'id', priority: 2, human: (key) => key.id, machine: (key) => key.id },
  ];
}

export async function runKeys(options: KeysOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const client = await deps.api();
  const mode = await outputMode(deps, settings.timeZone.value);
  const { stdout, stderr } = deps.io;
  const offset = options.offset ?? 0;

  if (!options.all) {
    const page: KeyPage = await keyPage(client, { limit: options.limit ?? DEFAULT_PAGE, offset });
    if (mode.format === 'json') {
      // One page is the API's own object, `result` and all (contract §3).
      stdout.write(jsonDocument(page, mode.pretty));
    } else {
      const writer = createListWriter(stdout, {
        ...mode,
        columns: columns(mode.timeZone),
        listField: 'result',
        sheet: 'Keys',
        raw: (key) => key,
      });
      await writer.begin(page.total);
      for (const key of page.result) await writer.write(key);
      await writer.end();
    }
    const shownTo = offset + page.result.length;
    if (page.result.length > 0 && shownTo < page.total) {
      const next = nextPageCommand(
        ['keys'],
        deps.globals,
        {
          limit: options.limit ?? DEFAULT_PAGE,
          defaultLimit: DEFAULT_PAGE,
          offset: shownTo,
        },
        deps.env,
      );
      stderr.write(`showing ${offset + 1}-${shownTo} of ${page.total} keys; next page: ${next}\n`);
    }
    return;
  }

  const summary = await exportAll(deps, {
    subject: 'key list',
    read: (paging) => client.pager.pages(keySource(client), paging),
    pageSize: options.limit ?? ALL_PAGE_SIZE,
    concurrency: ALL_CONCURRENCY,
    startOffset: offset,
    writer: { ...mode, columns: columns(mode.timeZone), raw: (key) => key, sheet: 'Keys' },
  });
  finishExport(deps, summary, 'key list');
}

export const verb = describeVerb({
  summary: 'the keys, a page or every one (--all)',
  formats: LIST_FORMATS,
  fields: { schema: registeredKeySchema, columns: () => columns('UTC') },
  paged: true,
  examples: ['pix keys', "pix keys --json | jq -r '.result[].id'", 'pix keys --all -o csv > keys.csv'],
  exits: ['usage', 'auth', 'rejected', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option(
      '--limit <n>',
      `keys per page, at most ${MAX_PAGE} (default ${DEFAULT_PAGE}; with --all, ${ALL_PAGE_SIZE})`,
    )
    .option('--offset <n>', 'keys to skip (default 0)')
    .option('--all', 'every key, fetching pages concurrently')
    .action(async (_options, self: Command) => {
      await runKeys(parseOptions(keysOptionsSchema, self.opts()), deps);
    });
}
