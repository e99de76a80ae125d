/**
 * `pix reconcile [--expected FILE] [--from WHEN --to WHEN]`: which expectations the statement settles
 * (domain/reconcile.ts): the invoices of an ERP's file, the charge ledger's charges and the journal's
 * payments, against the statement's entries over the range, with a person's decisions
 * (`pix reconcile match|unmatch`, books/store.ts) kept. Reports a closed day the statement now shows
 * otherwise (`pix close`). Output: a table, `--json`, `-o xlsx` (one sheet per outcome), CSV, and with
 * `--settlements FILE` what an ERP imports back (`id;date;amount;entry`).
 */
import { type Command, Option } from 'commander';
import type { StatementEntry } from '../../api/resources/statement.js';
import type { Deps } from '../../context.js';
import { formatDocument } from '../../domain/documents.js';
import { BRASILIA_TIME_ZONE, loadBusinessDayTest } from '../../domain/duedate.js';
import {
  type ColumnMap,
  type ExpectationsResult,
  PRESETS,
  parseColumnMap,
  parseExpectationsCsv,
  parseExpectationsSheet,
} from '../../domain/expectations.js';
import { formatDecimal } from '../../domain/money.js';
import {
  OUTCOMES,
  type Outcome,
  type Reconciled,
  type ReconExpectation,
  type ReconResult,
  reconcile,
} from '../../domain/reconcile.js';
import { formatDateTime, formatDayFirst } from '../../domain/when.js';
import { counted } from '../../domain/words.js';
import { usageError } from '../../errors.js';
import { jsonDocument, money, type OutputMode, outputMode } from '../../output/format.js';
import { type Column, createListWriter } from '../../output/records.js';
import { jsonSafe, safeText } from '../../output/sanitize.js';
import { writeFileAtomic } from '../../storage/files.js';
import { asUsageAwait } from '../../usage.js';
import * as z from '../../zod.js';
import { type ChangedDay, checkClosedDays } from '../shared/books/closed.js';
import { publicResult } from '../shared/books/report.js';
import { chargeExpectations, paymentExpectations, readRange } from '../shared/books/sources.js';
import { openBooks } from '../shared/books/store.js';
import { fileName, readInputFile, refuseFile } from '../shared/files.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { counterpartyOf, resolveRange } from '../shared/statement.js';

const reconcileOptionsSchema = z.object({
  expected: z.optional(z.string().check(z.minLength(1))),
  map: z.optional(fromDomain(parseColumnMap)),
  preset: z.optional(z.enum(Object.keys(PRESETS) as [string, ...string[]])),
  format: z.optional(z.enum(['csv', 'xlsx'])),
  from: z.optional(z.string()),
  to: z.optional(z.string()),
  month: z.optional(z.string()),
  settlements: z.optional(z.string().check(z.minLength(1))),
});

export type ReconcileOptions = z.output<typeof reconcileOptionsSchema>;

/** Without a range: the last 30 days (the statement the sandbox and most ERPs' weeks fit in). */
const DEFAULT_FROM = '-30d';

/** Sheet names of `-o xlsx`, one per outcome. */
const SHEETS: Readonly<Record<Outcome, string>> = {
  proven: 'Proven',
  probable: 'Probable',
  partial: 'Partial',
  overpaid: 'Overpaid',
  manual: 'Manual',
  not_due: 'Not due',
  'unmatched-expectation': 'Unmatched expected',
  'unmatched-entry': 'Unmatched entries',
};

/** One result as a row: a flat view for tables, CSV and sheets. */
interface Row {
  result: Reconciled<StatementEntry>;
  first: StatementEntry | undefined;
}

function expectationIds(result: Reconciled<StatementEntry>): string {
  return result.expectations.map((e) => e.id).join(', ');
}

function counterparty(entry: StatementEntry | undefined): { name: string; document: string } {
  const party = entry && counterpartyOf(entry);
  return {
    name: party?.name ?? '',
    document: party?.documentNumber ? formatDocument(party.documentNumber) : '',
  };
}

function sheetColumns(): Column<Row>[] {
  const none = () => '';
  return [
    { header: 'Expected', human: none, machine: (r) => expectationIds(r.result) },
    { header: 'Source', kind: 'enum', human: none, machine: (r) => r.result.expectations[0]?.source ?? '' },
    { header: 'Due', kind: 'date', human: none, machine: (r) => r.result.expectations[0]?.due },
    {
      header: 'Amount expected',
      kind: 'money',
      human: none,
      machine: (r) => formatDecimal(r.result.expected),
    },
    { header: 'Amount paid', kind: 'money', human: none, machine: (r) => formatDecimal(r.result.paid) },
    {
      header: 'Entries',
      kind: 'id',
      human: none,
      machine: (r) => r.result.entries.map((e) => e.id).join(' '),
    },
    { header: 'Confirmed', kind: 'date', human: none, machine: (r) => r.first?.confirmedAt },
    { header: 'Counterparty', human: none, machine: (r) => counterparty(r.first).name },
    { header: 'Document', human: none, machine: (r) => counterparty(r.first).document },
    { header: 'Manual', kind: 'enum', human: none, machine: (r) => (r.result.manual ? 'yes' : '') },
    { header: 'Why', human: none, machine: (r) => r.result.why },
  ];
}

function listColumns(timeZone: string, human: boolean): Column<Row>[] {
  return [
    {
      header: 'Outcome',
      kind: 'enum',
      human: (r) => `${r.result.outcome}${r.result.manual ? ' (manual)' : ''}`,
      machine: (r) => r.result.outcome,
    },
    ...sheetColumns().map((column) => ({
      ...column,
      human: (r: Row): string => {
        switch (column.header) {
          case 'Amount expected':
            return r.result.expected === 0 ? '' : money(r.result.expected, human);
          case 'Amount paid':
            return r.result.paid === 0 ? '' : money(r.result.paid, human);
          case 'Entries':
            return r.result.entries.map((e) => e.id.slice(0, 8)).join(' ');
          case 'Confirmed':
            return r.first ? formatDateTime(r.first.confirmedAt, timeZone) : '';
          default:
            return String(column.machine(r) ?? '');
        }
      },
      ...(['Source', 'Due', 'Document', 'Manual'].includes(column.header) ? { priority: 3 } : {}),
      ...(column.header === 'Counterparty' ? { priority: 2 } : {}),
    })),
  ];
}

/** `id;date;amount;entry`: each file invoice settled, one line per entry it was settled by. */
function settlementsCsv(results: readonly Reconciled<StatementEntry>[]): string {
  const lines = ['id;date;amount;entry'];
  const field = (text: string) => (/[";\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  for (const result of results) {
    if (result.outcome === 'unmatched-expectation' || result.outcome === 'unmatched-entry') continue;
    const invoices = result.expectations.filter((e) => e.source === 'file');
    for (const invoice of invoices) {
      for (const entry of result.entries) {
        // Several invoices paid by one entry: each its own amount; several entries for one: each theirs.
        const amount =
          invoices.length > 1 ? invoice.amountCentavos : Math.abs(Math.round(entry.amount * 100));
        const date = formatDayFirst(entry.confirmedAt, BRASILIA_TIME_ZONE)?.slice(0, 10) ?? '';
        lines.push(
          [field(invoice.id), date, formatDecimal(amount).replace('.', ','), field(entry.id)].join(';'),
        );
      }
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}

async function readExpectations(options: ReconcileOptions, deps: Deps): Promise<ReconExpectation[]> {
  if (options.expected === undefined) {
    if (options.map || options.preset)
      throw usageError(options.map ? '--map' : '--preset', 'goes with --expected FILE');
    return [];
  }
  if (options.map && options.preset) throw usageError('--map', 'give --map or --preset, not both');
  const map: ColumnMap | undefined = options.map ?? (options.preset ? PRESETS[options.preset] : undefined);
  const file = options.expected;
  const bytes = await readInputFile(file, deps, 'an expectations file');
  const xlsx = options.format === 'xlsx' || (options.format === undefined && /\.xlsx$/i.test(file));
  let result: ExpectationsResult;
  if (xlsx) {
    const { readFirstSheet } = await import('../../domain/xlsxsheet.js');
    const sheet = await asUsageAwait(fileName(file), () => readFirstSheet(bytes));
    result = parseExpectationsSheet(sheet, map);
  } else result = parseExpectationsCsv(bytes.toString('utf8'), map);
  if (!result.ok) {
    refuseFile(
      deps,
      file,
      result.problems,
      'the expectations file has problems',
      'fix them (or name your columns with --map id=…,amount=…), then run it again',
      'nothing was reconciled',
    );
  }
  return result.expectations.map((e) => ({ ...e, source: 'file' as const }));
}

/** What one run found, sorted and counted: what each output format writes (the steps below; rule 14). */
interface Report {
  readonly range: { dateFrom: string; dateTo: string };
  readonly found: ReconResult<StatementEntry>;
  /** The results, in OUTCOMES's order. */
  readonly results: Reconciled<StatementEntry>[];
  readonly counts: ReadonlyArray<readonly [Outcome, number]>;
  readonly changed: ChangedDay[];
  /** The line said on stderr at the end: how many of each outcome, of how many. */
  readonly summary: string;
}

/**
 * The expectations (the file's, the charge ledger's, the journal's payments) against the statement's
 * entries over the range, with the books' decisions; a closed day the statement now shows otherwise warned.
 */
async function reconcileRange(
  options: ReconcileOptions,
  deps: Deps,
  range: { dateFrom: string; dateTo: string },
): Promise<Report> {
  // Everything offline first: a bad file is exit 2 before anything is read from the API.
  const invoices = await readExpectations(options, deps);
  const books = await openBooks(deps);
  const journal = await deps.stores.journal();
  const warning = await journal.damageWarning();
  if (warning !== undefined) deps.io.stderr.write(`${warning}\n`);
  const client = await deps.api();
  const entries = await readRange(deps, client, range.dateFrom, range.dateTo);
  const accountNow = client.clock.now();
  const from = Date.parse(range.dateFrom);
  const to = Date.parse(range.dateTo);
  const journalEntries = await journal.read();
  const expectations = [
    ...invoices,
    ...chargeExpectations(journalEntries, books.account, from, to, accountNow),
    ...paymentExpectations(journalEntries, books.account, from, to),
  ];
  const found = reconcile(expectations, entries, books.decisions(), {
    from,
    to,
    now: accountNow.getTime(),
    isBusinessDay: await loadBusinessDayTest(),
  });
  const changed = checkClosedDays((await books.closes()).closes, entries, from, to);
  const order = new Map(OUTCOMES.map((outcome, index) => [outcome, index]));
  const results = [...found.results].sort((a, b) => order.get(a.outcome)! - order.get(b.outcome)!);
  const counts = OUTCOMES.map(
    (outcome) => [outcome, results.filter((r) => r.outcome === outcome).length] as const,
  );
  const summary = `${counts.map(([outcome, n]) => `${outcome} ${n}`).join(', ')} (${counted(expectations.length, 'expectation')}, ${counted(entries.length, 'entry', 'entries')})`;
  return { range, found, results, counts, changed, summary };
}

/** Streamed a thousand results at a time: 100,000 results are never one string (nor their objects at once). */
async function writeJson(deps: Deps, mode: OutputMode, report: Report): Promise<void> {
  const { stdout } = deps.io;
  const { range, results } = report;
  const head = jsonDocument(
    {
      period: { from: range.dateFrom, to: range.dateTo },
      summary: Object.fromEntries(report.counts),
      changedDays: report.changed.map(({ message: _, ...day }) => day),
      staleDecisions: report.found.staleDecisions,
      results: [],
    },
    mode.pretty,
  ).replace(/\[\]\s*\}\s*$/, '[');
  const write = async (text: string) => {
    if (!stdout.write(jsonSafe(text))) await stdout.drained();
  };
  await write(head);
  for (let at = 0; at < results.length; at += 1000) {
    const page = results.slice(at, at + 1000).map((result) => {
      const text = JSON.stringify(publicResult(result), null, mode.pretty ? 2 : undefined);
      return mode.pretty ? `\n${text.replace(/^/gm, '    ')}` : text;
    });
    await write(`${at === 0 ? '' : ','}${page.join(',')}`);
  }
  await write(mode.pretty ? `${results.length === 0 ? '' : '\n  '}]\n}\n` : ']}\n');
}

/** `-o xlsx`: one sheet per outcome. */
async function writeWorkbook(deps: Deps, timeZone: string, rows: readonly Row[]): Promise<void> {
  const { stdout } = deps.io;
  const { createWorkbookWriter } = await import('../../output/xlsx.js');
  const columns = sheetColumns();
  const workbook = createWorkbookWriter(
    async (chunk) => {
      if (!stdout.write(chunk)) await stdout.drained();
    },
    { sheets: OUTCOMES.map((outcome) => ({ name: SHEETS[outcome], columns })), timeZone },
  );
  for (const [index, outcome] of OUTCOMES.entries()) {
    const mine = rows.filter((row) => row.result.outcome === outcome);
    await workbook.rows(
      index,
      mine.map((row) => columns.map((column) => column.machine(row))),
    );
  }
  await workbook.end();
}

/** The table and the other list formats, through the one list writer. */
async function writeList(
  deps: Deps,
  mode: OutputMode,
  timeZone: string,
  rows: readonly Row[],
): Promise<void> {
  const writer = createListWriter(deps.io.stdout, {
    ...mode,
    columns: listColumns(timeZone, mode.human),
    listField: 'results',
    raw: (row) => publicResult(row.result),
    sheet: 'Reconciliation',
  });
  await writer.begin(rows.length);
  // A page at a time: a statement of 100,000 entries is never one string.
  for (let at = 0; at < rows.length; at += 1000) await writer.writeMany(rows.slice(at, at + 1000));
  await writer.end();
}

export async function runReconcile(options: ReconcileOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const timeZone = settings.timeZone.value;
  const now = deps.clock.now();
  const given = options.from !== undefined || options.to !== undefined || options.month !== undefined;
  const range = resolveRange(given ? options : { from: DEFAULT_FROM }, timeZone, now)!;
  const mode = await outputMode(deps, timeZone);
  const report = await reconcileRange(options, deps, range);
  const { stderr } = deps.io;
  for (const day of report.changed) stderr.write(`warning: ${day.message}\n`);
  for (const stale of report.found.staleDecisions) {
    stderr.write(
      `note: your match of ${safeText(stale.expectation, 64)} and entry ${safeText(stale.entry, 40)} names something this run did not read (another range or file?): kept\n`,
    );
  }
  if (options.settlements !== undefined) writeFileAtomic(options.settlements, settlementsCsv(report.results));
  if (mode.format === 'json') {
    await writeJson(deps, mode, report);
  } else {
    const rows: Row[] = report.results.map((result) => ({ result, first: result.entries[0] }));
    if (mode.format === 'xlsx') await writeWorkbook(deps, timeZone, rows);
    else await writeList(deps, mode, timeZone, rows);
  }
  stderr.write(`${report.summary}\n`);
}

export const verb = describeVerb({
  summary: 'reconcile the expected invoices against the statement (pix reconcile alone runs it)',
  formats: LIST_FORMATS,
  paged: true,
  examples: [
    'pix reconcile --from -7d',
    'pix reconcile --expected receber.csv --map id=Documento,amount=Valor,document=CNPJ,due=Vencimento --from -30d',
    'pix reconcile --expected receber.csv --map id=Documento,amount=Valor -o xlsx --output-file conciliacao.xlsx',
    'pix reconcile --expected receber.csv --map id=Documento,amount=Valor --settlements baixas.csv --jq .summary',
  ],
  exits: ['usage', 'auth', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--expected <file>', "an ERP's invoices: CSV (, or ;) or xlsx; - for stdin")
    .option(
      '--map <fields>',
      "your file's headers: id=Documento,amount=Valor,document=CNPJ,due=Vencimento,name=Cliente",
    )
    .addOption(new Option('--preset <erp>', "a known ERP's headers").choices(Object.keys(PRESETS)))
    .addOption(
      new Option('--format <format>', 'the file format, when its name does not say').choices(['csv', 'xlsx']),
    )
    .option('--from <when>', `start (default ${DEFAULT_FROM}): YYYY-MM-DD, DD/MM/YYYY, -7d, ISO 8601`)
    .option('--to <when>', 'end (default now)')
    .option('--month <yyyy-mm>', 'a whole month (instead of --from/--to)')
    .option('--settlements <file>', 'also write id;date;amount;entry of each settled invoice, for the ERP')
    .action(async (_options, self: Command) => {
      await runReconcile(parseOptions(reconcileOptionsSchema, self.opts()), deps);
    });
}
