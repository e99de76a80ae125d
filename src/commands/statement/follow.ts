import type { Command } from 'commander';
import type { ApiClient } from '../../api/client.js';
import { type StatementEntry, statementPage } from '../../api/resources/statement.js';
import type { Deps } from '../../context.js';
import { PixError, stopSignalOf, usageError } from '../../errors.js';
import { type OutputMode, outputMode } from '../../output/format.js';
import { type Column, createListWriter, type ListWriter } from '../../output/records.js';
import { safeText } from '../../output/sanitize.js';
import type { Cell } from '../../output/table.js';
import { cutToWidth, displayWidth } from '../../output/width.js';
import * as z from '../../zod.js';
import { nowOnBothClocks } from '../shared/clocks.js';
import { DEFAULT_PAGE } from '../shared/export.js';
import { durationFlag, integerFlag, parseOptions } from '../shared/flags.js';
import { newEntries, newestFirst, oldestFirst, RecentIds } from '../shared/newentries.js';
import { MAX_PAGE } from '../shared/pages.js';
import { type EntryKeep, humanColumns, machineColumns } from '../shared/statement.js';

const followOptionsSchema = z.object({
  interval: z.optional(durationFlag),
  limit: z.optional(integerFlag(0)),
});

export type FollowOptions = z.output<typeof followOptionsSchema>;

export const DEFAULT_INTERVAL_MS = 5_000;
/** The newest entries --follow reads first (printed up to --limit), which count as seen. */
export const FOLLOW_PAGE = 100;
/** The longest wait between polls while the statement cannot be read (unavailable, 429). */
const MAX_BACKOFF_MS = 60_000;

/** `statement` flags that make no sense while following (it shows what arrives from now on). */
const NOT_WITH_FOLLOW = ['from', 'to', 'month', 'offset', 'all', 'concurrency'] as const;

/**
 * Commander's raw `statement` options → the follow request, or undefined when `--follow` was not
 * given. Refuses, naming the flag, `--interval` without `--follow` and the range/paging flags with it.
 */
export function parseFollow(raw: Record<string, unknown>): FollowOptions | undefined {
  if (raw.follow !== true) {
    if (raw.interval !== undefined) throw usageError('--interval', 'only goes with --follow');
    return undefined;
  }
  for (const key of NOT_WITH_FOLLOW) {
    if (raw[key] !== undefined && raw[key] !== false) {
      throw usageError(
        `--${key}`,
        'cannot be combined with --follow (it shows the newest entries, then what arrives)',
      );
    }
  }
  const options = parseOptions(followOptionsSchema, { interval: raw.interval, limit: raw.limit });
  if (options.limit !== undefined && options.limit > MAX_PAGE) {
    throw usageError('--limit', `${options.limit} is more than ${MAX_PAGE}, the most pix shows in one page`);
  }
  return options;
}

/**
 * The newest `limit` entries of the statement, newest first, whatever order the server lists them in (API
 * §4: not shown): its first page and, when there are more, its last, of which the newest are kept. A page
 * a person looks at (the first screen of --follow), not a read anything is decided on.
 */
export async function newestEntries(client: ApiClient, limit: number): Promise<StatementEntry[]> {
  const first = await statementPage(client, { limit, offset: 0 });
  const pages = [first.results];
  if (first.total > first.results.length) {
    pages.push((await statementPage(client, { limit, offset: Math.max(0, first.total - limit) })).results);
  }
  const byId = new Map<string, StatementEntry>();
  for (const entry of pages.flat()) byId.set(entry.id, entry);
  return newestFirst([...byId.values()]).slice(0, limit);
}

/** Fixed widths of the live table (the counterparty takes what the terminal has left). */
const LIVE_WIDTHS: Record<string, number> = {
  Date: 16,
  Type: 7,
  Amount: 14,
  Fee: 9,
  Method: 6,
  Status: 9,
  Id: 36,
};
const RIGHT = new Set(['Amount', 'Fee']);
/** Dropped in this order when the terminal is too narrow for every column. */
const DROP_ORDER = ['Id', 'Method', 'Fee', 'Status'];
const MIN_COUNTERPARTY = 20;
const MAX_COUNTERPARTY = 40;

/**
 * The terminal's rows: one line per entry as it arrives (a boxed table cannot grow), columns aligned
 * to fixed widths that fit `width`, cells sanitized then painted, as the table renderer does.
 */
export function liveRows(columns: Column<StatementEntry>[], width: number) {
  let shown = columns;
  const widthOf = (header: string) => LIVE_WIDTHS[header] ?? MIN_COUNTERPARTY;
  const total = () => shown.reduce((sum, column) => sum + widthOf(column.header) + 1, -1);
  for (const header of DROP_ORDER) {
    if (total() <= width) break;
    shown = shown.filter((column) => column.header !== header);
  }
  const flexible = Math.max(MIN_COUNTERPARTY, Math.min(MAX_COUNTERPARTY, width - total() + MIN_COUNTERPARTY));
  const layout = shown.map((column) => ({
    column,
    width: LIVE_WIDTHS[column.header] ?? flexible,
    right: RIGHT.has(column.header),
  }));
  const cell = (value: Cell, size: number, right: boolean): string => {
    const text = cutToWidth(safeText(typeof value === 'string' ? value : value.text), size);
    const padding = ' '.repeat(Math.max(0, size - displayWidth(text)));
    const painted = typeof value !== 'string' && value.paint ? value.paint(text) : text;
    return right ? padding + painted : painted + padding;
  };
  const line = (cells: Array<{ value: Cell; width: number; right: boolean }>) =>
    `${cells
      .map(({ value, width: size, right }) => cell(value, size, right))
      .join(' ')
      .trimEnd()}\n`;
  return {
    header: () =>
      line(layout.map(({ column, width: size, right }) => ({ value: column.header, width: size, right }))),
    row: (entry: StatementEntry) =>
      line(
        layout.map(({ column, width: size, right }) => ({ value: column.human(entry), width: size, right })),
      ),
  };
}

/** Where entries go: the live rows on a terminal, the list writer (TSV, ndjson, CSV) otherwise. */
async function entryPrinter(
  deps: Deps,
  mode: OutputMode,
): Promise<(entries: StatementEntry[]) => Promise<void>> {
  const { stdout } = deps.io;
  if (mode.human) {
    const rows = liveRows(humanColumns(mode), stdout.columns);
    stdout.write(rows.header());
    return async (entries) => {
      for (const entry of entries) stdout.write(rows.row(entry));
    };
  }
  const writer: ListWriter<StatementEntry> = createListWriter(stdout, {
    ...mode,
    columns: machineColumns(),
    listField: 'results',
    raw: (entry) => entry,
  });
  await writer.begin(0); // the CSV header
  return async (entries) => {
    for (const entry of entries) await writer.write(entry);
  };
}

/**
 * `pix statement --follow`: the newest `--limit` entries (default 10), oldest first, then every new
 * entry as a poll finds it, until Ctrl-C, which ends it with exit 130 as a signal ends any command (an
 * `--output-file` keeps what was followed, rather than being thrown away as unfinished). A read the API client could not
 * complete (unavailable, 429 after its own Retry-After waits) is said on stderr and tried again later,
 * each time waiting twice as long up to a minute; any other error ends it with its exit code.
 */
export async function runStatementFollow(
  options: FollowOptions,
  deps: Deps,
  keep: EntryKeep = undefined,
): Promise<void> {
  await follow(options, deps, keep);
  if (deps.signal.aborted) {
    // What was followed is kept: an --output-file is put in place before the exit (whole records only).
    if (deps.globals.outputFile !== undefined) await deps.output.keep();
    // Ctrl-C is how a live view ends, not a failure: nothing is said, and the exit code is the signal's.
    throw new PixError('interrupted', '', { signal: stopSignalOf(deps.signal) });
  }
}

async function follow(options: FollowOptions, deps: Deps, keep: EntryKeep): Promise<void> {
  const settings = await deps.settings();
  const mode = await outputMode(deps, settings.timeZone.value);
  if (mode.format === 'json') {
    throw usageError('--follow', 'cannot write one JSON document (it would never end); use -o ndjson');
  }
  if (mode.format === 'xlsx' || mode.format === 'ofx') {
    throw usageError(
      '--follow',
      `cannot write -o ${mode.format}, a document that would never be complete; use -o csv or ndjson`,
    );
  }
  const interval = options.interval?.milliseconds ?? DEFAULT_INTERVAL_MS;
  const { stderr } = deps.io;
  const client = await deps.api();
  const seen = new RecentIds();
  const stopped = () => deps.signal.aborted;
  try {
    const limit = options.limit ?? DEFAULT_PAGE;
    // The newest entries count as seen, printed or not: the polls print what is new in the window from
    // now (less the margin for clocks and late entries) on.
    let since = nowOnBothClocks(client).early;
    const newest = await newestEntries(client, Math.max(FOLLOW_PAGE, limit));
    for (const entry of [...newest].reverse()) seen.add(entry.id);
    // With filters, only what they keep is shown: the newest --limit of those, then the new ones.
    const kept = (entries: StatementEntry[]) => (keep ? entries.filter(keep) : entries);
    const print = await entryPrinter(deps, mode);
    await print(oldestFirst(kept(newest).slice(0, limit)));
    if (stderr.isTTY) stderr.write(`following the statement every ${interval / 1000} s; Ctrl-C to stop\n`);
    let wait = interval;
    let started = deps.clock.now().getTime();
    for (;;) {
      const elapsed = deps.clock.now().getTime() - started;
      if (!(await deps.pause(Math.max(0, wait - elapsed)))) return;
      started = deps.clock.now().getTime();
      try {
        const read = await newEntries(client, seen, since);
        since = read.readAt;
        await print(oldestFirst(kept(read.fresh)));
        wait = interval;
      } catch (error) {
        if (stopped()) return;
        if (!(error instanceof PixError) || error.kind !== 'unavailable') throw error;
        wait = Math.min(MAX_BACKOFF_MS, wait * 2);
        stderr.write(`warning: ${error.message}; trying again in ${Math.round(wait / 1000)} s\n`);
      }
    }
  } catch (error) {
    // Ctrl-C while a read was in flight is the end the user asked for, not a failure.
    if (stopped()) return;
    throw error;
  }
}

/** The flags `--follow` adds to `pix statement` (`--limit` is the statement's own). */
export function addFollowOptions(command: Command): void {
  command
    .option('--follow', 'print the newest entries, then each new one as it arrives, until Ctrl-C')
    .option(
      '--interval <duration>',
      `time between polls with --follow (default ${DEFAULT_INTERVAL_MS / 1000}s)`,
    );
}
