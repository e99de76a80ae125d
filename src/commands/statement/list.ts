import { type Command, Option } from 'commander';
import type { ApiClient } from '../../api/client.js';
import {
  type StatementEntry,
  type StatementPage,
  statementEntrySchema,
  statementPage,
  statementPages,
} from '../../api/resources/statement.js';
import type { Deps } from '../../context.js';
import { BOOKS, Tally } from '../../domain/sums.js';
import { formatDateTime } from '../../domain/when.js';
import { counted } from '../../domain/words.js';
import { jsonDocument, money, type OutputMode, outputMode } from '../../output/format.js';
import { createListWriter } from '../../output/records.js';
import * as z from '../../zod.js';
import { ALL_CONCURRENCY, ALL_PAGE_SIZE, DEFAULT_PAGE, exportAll, finishExport } from '../shared/export.js';
import { integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { limitFlag, MAX_PAGE, nextPageCommand } from '../shared/pages.js';
import {
  addFilterOptions,
  type DateRange,
  type EntryKeep,
  entryFilterOf,
  FILTER_FLAGS,
  humanColumns,
  machineColumns,
  ofxHooks,
  resolveRange,
} from '../shared/statement.js';
import { addFollowOptions, parseFollow, runStatementFollow } from './follow.js';

/**
 * `--all` without --to pins dateTo to the moment the export started; the API takes dateFrom and dateTo
 * together or not at all (API §4.1 rule 1), so dateFrom is then this instant, before any PIX existed.
 */
export const FAR_PAST = '2000-01-01T00:00:00.000Z';

const statementOptionsSchema = z.object({
  from: z.optional(z.string()),
  to: z.optional(z.string()),
  month: z.optional(z.string()),
  limit: z.optional(limitFlag),
  offset: z.optional(integerFlag(0)),
  all: z._default(z.boolean(), false),
  concurrency: z.optional(integerFlag(1)),
});

export type StatementOptions = z.output<typeof statementOptionsSchema>;

/**
 * The totals under the table: the books' sums (domain/sums.ts BOOKS: CONFIRMED entries, each fee as a
 * charge; net = in + out − fees) of the entries shown, and the entries they leave out, said.
 */
export class Totals {
  private readonly tally = new Tally(BOOKS);

  add(entry: StatementEntry): void {
    this.tally.add(entry);
  }

  /** Entries shown, counted or not. */
  get seen(): number {
    return this.tally.count + this.tally.uncounted + this.tally.unreadable;
  }

  line(human: boolean): string {
    const m = (centavos: number) => money(centavos, human);
    const { count, income, outcome, fees, net } = this.tally.sums();
    const { uncounted, unreadable } = this.tally;
    const apart = [
      uncounted > 0 ? `${counted(uncounted, 'entry', 'entries')} not CONFIRMED (not counted)` : '',
      unreadable > 0
        ? `${counted(unreadable, 'entry', 'entries')} with an unreadable amount (not counted)`
        : '',
    ].filter(Boolean);
    return `${counted(count, 'entry', 'entries')}: in ${m(income)}, out ${m(outcome)}, fees ${m(fees)}, net ${m(net)}${apart.map((part) => `; ${part}`).join('')}`;
  }
}

/**
 * The command that shows the next page, with the user's own range flags and global flags. `--from`
 * alone ran until now: the next page is given the same end (`--to` the instant read), so entries that
 * arrive meanwhile do not shift it.
 */
function nextCommand(
  options: StatementOptions,
  range: DateRange | undefined,
  deps: Deps,
  limit: number,
  offset: number,
  filterFlags: Record<string, unknown>,
): string {
  const words = ['statement'];
  if (options.month !== undefined) words.push('--month', options.month);
  if (options.from !== undefined) words.push('--from', options.from);
  if (options.to !== undefined) words.push('--to', options.to);
  else if (options.from !== undefined && range) words.push('--to', range.dateTo);
  for (const key of FILTER_FLAGS) {
    const value = filterFlags[key];
    if (typeof value === 'string') words.push(`--${key}`, value);
  }
  return nextPageCommand(words, deps.globals, { limit, defaultLimit: DEFAULT_PAGE, offset }, deps.env);
}

/**
 * `no entries from 2026-11-23 00:00 to 2026-11-24 18:03 (America/Sao_Paulo)`: an empty result, said.
 * `read` entries came and the filters (`filtered`) kept none of them, or none came.
 */
function nothingIn(
  range: DateRange | undefined,
  timeZone: string,
  page: { total: number; offset: number; read: number; filtered: boolean },
): string {
  const { total, offset, read, filtered } = page;
  const none = filtered ? 'no entries match the filters' : 'no entries';
  // A filter sees one page: what it left out, and how to filter every entry, are said (never a bare "0").
  if (read > 0 && filtered) {
    return `${none} among entries ${offset + 1}-${offset + read} of ${total} (${read} left out): the filters apply to this page; add --all to filter every entry`;
  }
  if (read > 0) return `${none} among entries ${offset + 1}-${offset + read} of ${total}`;
  if (total > 0) return `no entries at --offset ${offset}: the statement has ${total}`;
  if (!range) return `${none} in the statement`;
  const at = (iso: string) => formatDateTime(iso, timeZone);
  return `${none} from ${at(range.dateFrom)} to ${at(range.dateTo)} (${timeZone})`;
}

/** The table of `--all` on a terminal, but nothing at all when no row came: an empty range is said instead. */
function noEmptyBox(mode: OutputMode): OutputMode['openTable'] {
  return (columns, style) => {
    const table = mode.openTable(columns, style);
    let rows = 0;
    return {
      row: (cells) => {
        rows++;
        return table.row(cells);
      },
      get held() {
        return table.held;
      },
      get hidden() {
        return table.hidden;
      },
      get shortened() {
        return table.shortened;
      },
      end: () => (rows === 0 ? '' : table.end()),
    };
  };
}

/** What `pix statement` resolved before it reads: the flags' filter and range, the output, the totals. */
interface StatementRun {
  keep: EntryKeep;
  filterFlags: Record<string, unknown>;
  range: DateRange | undefined;
  mode: OutputMode;
  columns: ReturnType<typeof humanColumns>;
  totals: Totals;
  startedAt: Date;
  client: ApiClient;
  timeZone: string;
  profile: string;
}

/** One page (`--limit`, `--offset`): its entries, its totals, and the command for the next page. */
async function showPage(options: StatementOptions, deps: Deps, run: StatementRun): Promise<void> {
  const { keep, filterFlags, range, mode, columns, totals, startedAt, client, timeZone } = run;
  const { stdout, stderr } = deps.io;
  const offset = options.offset ?? 0;
  const limit = options.limit ?? DEFAULT_PAGE;
  const page: StatementPage = await statementPage(client, { ...range, limit, offset });
  const shown = keep ? page.results.filter(keep) : page.results;
  const read = page.results.length;
  const next =
    offset + read < page.total ? nextCommand(options, range, deps, limit, offset + read, filterFlags) : '';
  if (mode.format === 'json') {
    // One page is the API's own object (contract §3); filtered, its results are the entries kept.
    stdout.write(jsonDocument(keep ? { ...page, results: shown } : page, mode.pretty));
  } else if (mode.format === 'table' && mode.human && shown.length === 0) {
    // Nothing to box: say what was read, and the totals of nothing.
    const nothing = nothingIn(range, timeZone, { total: page.total, offset, read, filtered: !!keep });
    stderr.write(`${nothing}\n${totals.line(true)}\n`);
    if (next !== '') stderr.write(`next: ${next}\n`);
    return;
  } else {
    // OFX's period: the range asked, else from the oldest entry shown until now.
    const oldest = shown.reduce(
      (min, e) => (e.confirmedAt < min ? e.confirmedAt : min),
      startedAt.toISOString(),
    );
    const period = range ?? { dateFrom: oldest, dateTo: startedAt.toISOString() };
    const writer = createListWriter(stdout, {
      ...mode,
      columns,
      listField: 'results',
      raw: (e) => e,
      sheet: 'Statement',
      ...(mode.format === 'ofx' ? { ofx: await ofxHooks(period, run.profile, timeZone, startedAt) } : {}),
    });
    await writer.begin(page.total);
    for (const entry of shown) {
      totals.add(entry);
      await writer.write(entry);
    }
    await writer.end();
  }
  if (mode.format === 'table' && shown.length > 0) stderr.write(`${totals.line(mode.human)}\n`);
  if (read > 0 && next !== '') {
    const left = read - shown.length;
    const matched = keep
      ? ` (${shown.length} matched the filters, ${left} left out; --all filters every entry)`
      : '';
    stderr.write(`showing ${offset + 1}-${offset + read} of ${page.total}${matched}; next: ${next}\n`);
  }
}

/**
 * `pix statement`: one page, or with `--all` every page. `keep` is the filter flags' predicate (shared.ts),
 * applied to the entries each page brings; `filterFlags` are those flags as typed, for the next-page hint.
 */
export async function runStatement(
  options: StatementOptions,
  deps: Deps,
  keep: EntryKeep = undefined,
  filterFlags: Record<string, unknown> = {},
): Promise<void> {
  const settings = await deps.settings();
  const timeZone = settings.timeZone.value;
  const startedAt = deps.clock.now();
  const range = resolveRange(options, timeZone, startedAt);
  const mode = await outputMode(deps, timeZone);
  const { stderr } = deps.io;
  const offset = options.offset ?? 0;
  const columns = mode.human ? humanColumns(mode) : machineColumns();
  const totals = new Totals();
  const client = await deps.api();

  if (!options.all) {
    const profile = settings.profile.value;
    const run = { keep, filterFlags, range, mode, columns, totals, startedAt, client, timeZone, profile };
    await showPage(options, deps, run);
    return;
  }

  // --all: pin the end of the range to the start of the export, so entries arriving meanwhile
  // cannot shift the pages under us (contract: never miss or repeat an entry).
  const nowIso = startedAt.toISOString();
  const pinned: DateRange = range ?? { dateFrom: FAR_PAST, dateTo: nowIso };
  if (Date.parse(pinned.dateTo) > startedAt.getTime()) pinned.dateTo = nowIso;
  if (Date.parse(pinned.dateFrom) > Date.parse(pinned.dateTo)) pinned.dateFrom = pinned.dateTo;

  const summary = await exportAll(deps, {
    subject: 'statement',
    read: (paging) => statementPages(client, pinned, paging),
    pageSize: options.limit ?? ALL_PAGE_SIZE,
    concurrency: options.concurrency ?? ALL_CONCURRENCY,
    startOffset: offset,
    keep,
    writer: {
      ...mode,
      columns,
      raw: (entry) => entry,
      openTable: noEmptyBox(mode),
      sheet: 'Statement',
      ...(mode.format === 'ofx'
        ? { ofx: await ofxHooks(pinned, settings.profile.value, timeZone, startedAt) }
        : {}),
    },
    onRecord: (entry) => totals.add(entry),
  });
  if (mode.format === 'table' && totals.seen > 0) stderr.write(`${totals.line(mode.human)}\n`);
  else if (mode.format === 'table' && mode.human) {
    const nothing = nothingIn(range && pinned, timeZone, { total: 0, offset, read: 0, filtered: !!keep });
    stderr.write(`${nothing}\n${totals.line(true)}\n`);
  }
  finishExport(deps, summary, 'statement');
}

export const verb = describeVerb({
  summary: 'entries of a period, a page, every one (--all) or as they arrive (--follow)',
  formats: [...LIST_FORMATS, 'ofx'],
  fields: { schema: statementEntrySchema, columns: machineColumns },
  paged: { unless: 'follow' },
  examples: [
    'pix statement',
    'pix statement --from yesterday --to today',
    'pix statement --from -7d',
    'pix statement --from -30d --type income --min 100',
    'pix statement --all --counterparty "maria" -o csv > maria.csv',
    'pix statement --from 01/11/2026 --to 30/11/2026',
    'pix statement --from 2025-01-01 --to 2025-01-31 --limit 50',
    'pix statement --month 2025-01 --all -o csv > january.csv',
    'pix statement --all -o ndjson | jq -c "select(.type == \\"INCOME\\")"',
    "pix statement --json | jq '.results[].amount'",
    'pix statement --follow -o ndjson',
  ],
  exits: ['usage', 'auth', 'not_found', 'rejected', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option(
      '--from <when>',
      'start: YYYY-MM-DD or DD/MM/YYYY (start of day), today, yesterday, -7d, ISO 8601; alone: until now',
    )
    .option('--to <when>', 'end: the same forms (end of day), or now; needs --from')
    .option('--month <yyyy-mm>', 'a whole month in the profile time zone (instead of --from/--to)')
    .option(
      '--limit <n>',
      `entries per page, at most ${MAX_PAGE} (default ${DEFAULT_PAGE}; with --all, ${ALL_PAGE_SIZE})`,
    )
    .option('--offset <n>', 'entries to skip (default 0)')
    .option('--all', 'every entry, pages fetched concurrently; use with -o ndjson or -o csv to export')
    .addOption(new Option('--concurrency <n>', 'pages in flight with --all').hideHelp())
    .action(async (_options, self: Command) => {
      const raw = self.opts();
      const keep = entryFilterOf(raw);
      const follow = parseFollow(raw);
      if (follow) return runStatementFollow(follow, deps, keep);
      await runStatement(parseOptions(statementOptionsSchema, raw), deps, keep, raw);
    });
  addFilterOptions(command);
  addFollowOptions(command);
}
