import type { Command } from 'commander';
import { statementPages } from '../../api/resources/statement.js';
import type { Deps } from '../../context.js';
import { centavosToApi } from '../../domain/money.js';
import {
  PeriodSummary,
  type PeriodSums,
  type PeriodUnit,
  parsePeriodUnit,
  type Sums,
} from '../../domain/periods.js';
import { formatDate, parseMonth, todayIn } from '../../domain/when.js';
import { renderSummaryChart } from '../../output/chart.js';
import { jsonDocument, money, outputMode } from '../../output/format.js';
import { createProgress } from '../../output/progress.js';
import { type Column, createListWriter } from '../../output/records.js';
import { asUsage } from '../../usage.js';
import * as z from '../../zod.js';
import { ALL_CONCURRENCY, ALL_PAGE_SIZE, finishExport } from '../shared/export.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { type DateRange, resolveRange } from '../shared/statement.js';

const summaryOptionsSchema = z.object({
  from: z.optional(z.string()),
  to: z.optional(z.string()),
  month: z.optional(z.string()),
  by: z.optional(fromDomain(parsePeriodUnit)),
});

export type SummaryOptions = z.output<typeof summaryOptionsSchema>;

const DAY_MS = 86_400_000;

/**
 * The period when `--by` is not given: days for a month or less, weeks up to half a year, months
 * beyond, so a chart stays a screenful or two.
 */
export function defaultUnit(range: DateRange): PeriodUnit {
  const days = (Date.parse(range.dateTo) - Date.parse(range.dateFrom)) / DAY_MS;
  return days <= 31 ? 'day' : days <= 183 ? 'week' : 'month';
}

/**
 * The range read: the flags' (contract §2 rules, `resolveRange`), else the current month of the
 * profile's zone; its end brought back to `now`, as `statement --all` does, so the pages cannot shift
 * under the read and the summary equals `statement --all` over the same flags.
 */
export function summaryRange(options: SummaryOptions, timeZone: string, now: Date): DateRange {
  const given = resolveRange(options, timeZone, now);
  const month = parseMonth(todayIn(timeZone, now).slice(0, 7), timeZone);
  const range = given ?? { dateFrom: month.from, dateTo: month.to };
  const nowIso = now.toISOString();
  const dateTo = Date.parse(range.dateTo) > now.getTime() ? nowIso : range.dateTo;
  const dateFrom = Date.parse(range.dateFrom) > Date.parse(dateTo) ? dateTo : range.dateFrom;
  return { dateFrom, dateTo };
}

/** A row of `--json`, `-o ndjson` and `-o csv`: the contract's fields, amounts in reais as the API writes them. */
/** The sums a period's record has, as `--json` and `-o csv` name them (machineSums writes each). */
const SUM_FIELDS = ['count', 'income', 'outcome', 'fees', 'net'] as const;

function machineSums(sums: Sums): Record<(typeof SUM_FIELDS)[number], number> {
  return {
    count: sums.count,
    income: centavosToApi(sums.income),
    outcome: centavosToApi(sums.outcome),
    fees: centavosToApi(sums.fees),
    net: centavosToApi(sums.net),
  };
}

const machineRow = (row: PeriodSums) => ({ period: row.period, ...machineSums(row) });

/** TSV (piped), CSV and xlsx columns: the period and plain decimals with a dot. */
function columns(): Column<PeriodSums>[] {
  const none = () => '';
  const plain = (pick: (row: PeriodSums) => number) => (row: PeriodSums) => money(pick(row), false);
  return [
    { header: 'period', human: none, machine: (row) => row.period },
    { header: 'count', kind: 'number', human: none, machine: (row) => row.count },
    { header: 'income', kind: 'money', human: none, machine: plain((row) => row.income) },
    { header: 'outcome', kind: 'money', human: none, machine: plain((row) => row.outcome) },
    { header: 'fees', kind: 'money', human: none, machine: plain((row) => row.fees) },
    { header: 'net', kind: 'money', human: none, machine: plain((row) => row.net) },
  ];
}

/** Reads every entry of the range (all pages, concurrently, duplicates dropped) into the summary. */
async function summarise(deps: Deps, range: DateRange, summary: PeriodSummary): Promise<void> {
  const client = await deps.api();
  const progress = createProgress(deps.io, 'statement', { streamsRows: false });
  const { pages } = await statementPages(client, range, {
    pageSize: ALL_PAGE_SIZE,
    concurrency: ALL_CONCURRENCY,
    onProgress: (done, of) => progress.update(done, of),
  });
  let next = await pages.next();
  for (; !next.done; next = await pages.next()) for (const entry of next.value) summary.add(entry);
  progress.done();
  finishExport(deps, next.value, 'statement');
}

export async function runStatementSummary(options: SummaryOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const timeZone = settings.timeZone.value;
  const range = summaryRange(options, timeZone, deps.clock.now());
  const unit = options.by ?? defaultUnit(range);
  const summary = asUsage(
    options.by === undefined ? '--from' : '--by',
    () => new PeriodSummary(unit, { from: range.dateFrom, to: range.dateTo }, timeZone),
  );
  const mode = await outputMode(deps, timeZone);
  await summarise(deps, range, summary);

  const { stdout, stderr } = deps.io;
  if (summary.outside > 0) {
    stderr.write(
      `warning: ${summary.outside} entries outside the range the server was asked for were left out\n`,
    );
  }
  if (summary.unreadable > 0) {
    stderr.write(`warning: ${summary.unreadable} entries with an unreadable time or amount were left out\n`);
  }
  if (summary.uncounted > 0) {
    // The books' rule (domain/sums.ts): only a CONFIRMED entry is known to have moved money.
    const which =
      summary.uncounted === 1
        ? '1 entry not CONFIRMED was'
        : `${summary.uncounted} entries not CONFIRMED were`;
    stderr.write(`warning: ${which} left out of the sums\n`);
  }
  const periods = summary.periods();
  const total = summary.total();
  if (mode.format === 'json') {
    stdout.write(jsonDocument({ periods: periods.map(machineRow), total: machineSums(total) }, mode.pretty));
    return;
  }
  if (mode.human) {
    const [first, last] = [formatDate(range.dateFrom, timeZone), formatDate(range.dateTo, timeZone)];
    const title = `Income and outcome by ${unit}, ${first} to ${last} (${timeZone})`;
    stdout.write(renderSummaryChart(periods, total, { width: stdout.columns, palette: mode.colors, title }));
    return;
  }
  const writer = createListWriter(stdout, {
    ...mode,
    columns: columns(),
    listField: 'periods',
    sheet: 'Summary',
    raw: machineRow,
  });
  await writer.begin(periods.length);
  for (const row of periods) await writer.write(row);
  await writer.end();
}

export const verb = describeVerb({
  summary: 'Income, outcome, fees and net by day, week or month, with a chart',
  formats: LIST_FORMATS,
  fields: { paths: ['period', ...SUM_FIELDS], columns },
  paged: true,
  examples: [
    'pix statement summary',
    'pix statement summary --month 2025-01 --by week',
    'pix statement summary --from 2025-01-01 --to 2025-06-30 --by month --json',
    'pix statement summary --month 2025-01 -o csv > january-by-day.csv',
  ],
  exits: ['usage', 'auth', 'not_found', 'rejected', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option(
      '--from <when>',
      'start: YYYY-MM-DD or DD/MM/YYYY, today, yesterday, -7d, ISO 8601; alone: until now',
    )
    .option('--to <when>', 'end: the same forms, or now; needs --from')
    .option('--month <yyyy-mm>', 'a whole month in the profile time zone (default: the current month)')
    .option('--by <period>', 'day, week (ISO, Monday first) or month (default: by the range length)')
    .action(async (_options, self: Command) => {
      await runStatementSummary(parseOptions(summaryOptionsSchema, self.opts()), deps);
    });
}
