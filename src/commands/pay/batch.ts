/**
 * `pix pay batch FILE`: payouts from a spreadsheet, every row paid exactly once.
 *
 * 1. Offline: the whole file is read and checked (domain/batch.ts); any problem → exit 2 listing up
 *    to 20 with their lines, nothing sent. The profile's max-amount (each row) and --max-total (the sum)
 *    are checked on the amounts the file gives.
 * 2. The journal: a row id once paid from this profile is `already_paid` (not consulted, not sent); a
 *    row sent before with no known outcome is held as `unknown` until `pix journal resolve`.
 * 3. Consult every other row (bounded concurrency; the client retries consultations and honours
 *    Retry-After); a refused consultation makes the row `not_payable`. The guards run again on what the
 *    consultations ask. `--dry-run` shows the plan and stops.
 * 4. One confirmation (profile, host, rows, receivers, total), or --yes.
 * 5. Pay (same concurrency): each row journaled before its one transfer (never retried). An unknown
 *    outcome, a refused login or Ctrl-C stops new rows from starting; rows in flight finish.
 * 6. The report: one record per row on stdout; the totals on stderr; the exit code from the states.
 *
 * Here the options, the rows' types and the run in its steps (`payBatchRows`); the steps are in
 * `batchpayment.ts` (2 and 5), `batchconsult.ts` (3) and `batchreport.ts` (4 and 6).
 */
import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import {
  type BatchFormat,
  type BatchParseResult,
  type BatchRow,
  batchFormatFor,
  formatProblem,
} from '../../domain/batch.js';
import { checkBatchLimits, describeStates, type RowState } from '../../domain/batchplan.js';
import { parseBatchSheet } from '../../domain/batchsheet.js';
import { parseBatchColumnMap, parseBatchFile } from '../../domain/batchtext.js';
import type { Centavos } from '../../domain/money.js';
import { PixError, stopSignalOf } from '../../errors.js';
import type { JournalEntry, JournalPlan, PaymentIdentity } from '../../journal/entries.js';
import { createProgress } from '../../output/progress.js';
import { safeText } from '../../output/sanitize.js';
import { asUsageAwait } from '../../usage.js';
import * as z from '../../zod.js';
import { fileName, readInputFile, refuseFile, SHOWN_PROBLEMS } from '../shared/files.js';
import { amountFlag, duplicateWindowFlag, fromDomain, integerFlag, parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';
import { consultAll } from './batchconsult.js';
import {
  guardDuplicates,
  journalQuestions,
  openItems,
  payAll,
  type Run,
  readJournal,
} from './batchpayment.js';
import { confirmPlan, endDryRun, endWithPlan, heldCounts, report, summaryOf } from './batchreport.js';
import { type Moment, momentChecks } from './moment.js';
import { planFlags, planOptions, planRequestOf } from './planflags.js';
import {
  DUPLICATE_WINDOW_OPTION,
  type PayContext,
  type PayFlags,
  refuseUnconfirmable,
  startPayment,
} from './shared.js';

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;

const payBatchOptionsSchema = z.object({
  file: z.string().check(z.minLength(1)),
  format: z.optional(z.enum(['csv', 'ndjson', 'xlsx'])),
  map: z.optional(fromDomain(parseBatchColumnMap)),
  concurrency: z._default(
    integerFlag(1).check(z.refine((n) => n <= MAX_CONCURRENCY, `at most ${MAX_CONCURRENCY}`)),
    DEFAULT_CONCURRENCY,
  ),
  maxTotal: z.optional(amountFlag),
  dryRun: z._default(z.boolean(), false),
  allowDuplicate: z._default(z.boolean(), false),
  duplicateWindow: z.optional(duplicateWindowFlag),
  ...planFlags,
});

export type PayBatchOptions = z.output<typeof payBatchOptionsSchema>;

/** What a batch run pays: the rows of a file, or of an approved plan (`pix plan execute`). */
export interface BatchSource {
  /** The file, as errors name it. */
  file: string;
  /** The batch's id in the journal. */
  batch: string;
  rows: BatchRow[];
}

/** What `--plan FILE` and `pix plan execute` add to a batch run (commands/pay/plan.ts, plan/execute.ts). */
export interface BatchPlanHooks {
  /** `plan` (a plan is written, nothing paid) or `fromPlan` (an approved plan is paid). */
  flags?: Pick<PayFlags, 'plan' | 'fromPlan' | 'plansPerRow'>;
  /** After the consultations and the journal's guards, before the limits: may hold rows, or stop the run. */
  consulted?(ctx: PayContext, items: BatchItem[]): Promise<void>;
  /** The checks at the moment of each payment (moment.ts); default: the caps of the account's policy. */
  moment?(ctx: PayContext): Moment;
  /** Instead of the confirmation and the payments: writes the plan of the rows left to pay. */
  writePlan?(ctx: PayContext, items: BatchItem[]): Promise<void>;
  /**
   * The rows were confirmed before this run (a schedule's occurrences, confirmed when it was made): no
   * question is asked, and no terminal or --yes is needed.
   */
  confirmedAhead?: boolean;
  /** After the payments, before the report: every row as it ended (a schedule records what was refused). */
  paid?(ctx: PayContext, items: readonly BatchItem[]): Promise<void>;
}

/** One row on its way through the batch, and what the report says of it. */
export interface BatchItem {
  row: BatchRow;
  state: RowState | 'planned';
  /** What the row pays (after its consultation, for a code). */
  amount?: Centavos;
  sendAmount?: boolean;
  endToEndId?: string;
  receiver?: string;
  document?: string;
  institution?: string;
  transferId?: string;
  /** Why it was not paid, or what to do about it. */
  error?: string;
  /** The journal entry that made it already paid or held, or this run's entry of a row left unknown. */
  earlier?: JournalEntry;
  /** A payment of the same row id on another account (not this row's: named when the ids collide). */
  elsewhere?: JournalEntry;
  /** The approved plan this row is paid under, when rows have their own (a schedule's standing plans). */
  plan?: JournalPlan;
  /** The receiver as the consultation answered (the whole document where it gave it): the guards' payee. */
  payee?: Pick<PaymentIdentity, 'document' | 'participant'>;
}

// ---------------------------------------------------------------------------------------------
// Reading the file

/**
 * A workbook's first sheet, read (its reader is loaded only for one); one that is not an xlsx, or that
 * shows a person something other than what pix would read, is exit 2. The read yields to the event loop
 * between slices of each part, so Ctrl-C and SIGTERM end it at once (nothing has been sent yet), and on a
 * terminal it shows how far it is.
 */
async function parseWorkbook(
  bytes: Buffer,
  file: string,
  deps: Deps,
  map: PayBatchOptions['map'],
): Promise<BatchParseResult> {
  const { readFirstSheet } = await import('../../domain/xlsxsheet.js');
  const progress = createProgress(deps.io, `reading ${safeText(fileName(file), 60)}, kB`, {
    streamsRows: false,
  });
  const pause = async (done: number, total: number) => {
    await new Promise((resolve) => setImmediate(resolve));
    if (deps.signal.aborted) {
      progress.done();
      throw new PixError(
        'interrupted',
        `pix pay batch: interrupted while reading ${fileName(file)}; nothing was sent`,
        {
          signal: stopSignalOf(deps.signal),
        },
      );
    }
    if (total > 0) progress.update(Math.floor(done / 1024), Math.ceil(total / 1024));
  };
  try {
    return parseBatchSheet(await asUsageAwait(fileName(file), () => readFirstSheet(bytes, { pause })), map);
  } finally {
    progress.done();
  }
}

// ---------------------------------------------------------------------------------------------
// The command

export async function runPayBatch(options: PayBatchOptions, deps: Deps): Promise<void> {
  const { stderr } = deps.io;
  // 1. Offline: the whole file, then the guards on the amounts it gives.
  const bytes = await readInputFile(options.file, deps, 'a batch file');
  const format: BatchFormat = options.format ?? batchFormatFor(options.file);
  const parsed =
    format === 'xlsx'
      ? await parseWorkbook(bytes, options.file, deps, options.map)
      : parseBatchFile(bytes.toString('utf8'), format, options.map);
  if (!parsed.ok) {
    refuseFile(
      deps,
      options.file,
      parsed.problems,
      `the batch file is not valid`,
      'fix the lines above and run it again',
    );
  }
  for (const warning of parsed.warnings.slice(0, SHOWN_PROBLEMS)) {
    stderr.write(`warning: ${safeText(formatProblem(warning), 300)}\n`);
  }
  const batch = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const plan = planRequestOf(options);
  // Loaded only for --plan (architecture rule 8).
  const hooks =
    plan === undefined ? {} : await (await import('./plan.js')).batchPlanHooks(plan, options.file);
  await payBatchRows(deps, options, { file: options.file, batch, rows: parsed.rows }, hooks);
}

type BatchRunOptions = Pick<
  PayBatchOptions,
  'concurrency' | 'maxTotal' | 'dryRun' | 'allowDuplicate' | 'duplicateWindow'
>;

/** The limits every row is held to: the profile's max-amount, and the run's --max-total. */
type Limits = Parameters<typeof checkBatchLimits>[1];

/**
 * Steps 2 to 6 over rows already read: the journal, the consultations, the guards, the confirmation, the
 * payments and the report. `hooks`: what a plan adds (writing one instead of paying, or paying one).
 */
export async function payBatchRows(
  deps: Deps,
  options: BatchRunOptions,
  source: BatchSource,
  hooks: BatchPlanHooks = {},
): Promise<void> {
  const questions = journalQuestions(source.rows, deps.clock.now(), source.batch);
  const ctx = await startPayment(
    deps,
    {
      dryRun: options.dryRun,
      allowDuplicate: options.allowDuplicate,
      duplicateWindowMs: options.duplicateWindow,
      confirmLater: true,
      ...hooks.flags,
    },
    questions.asked,
  );
  const limits: Limits = {
    ...(ctx.settings.maxAmount === undefined ? {} : { maxAmount: ctx.settings.maxAmount }),
    ...(options.maxTotal === undefined ? {} : { maxTotal: options.maxTotal }),
    profile: ctx.account.profile,
  };
  const items: BatchItem[] = source.rows.map((row) => ({
    row,
    state: 'planned',
    ...(row.amount === undefined ? {} : { amount: row.amount }),
  }));
  if (hooks.flags?.plansPerRow && hooks.moment === undefined)
    throw new Error('payBatchRows: plans per row need their checks at the moment of each row');
  const run: Run = { ctx, batch: source.batch, ownRows: questions.ownRow };
  const moment =
    hooks.moment?.(ctx) ?? (ctx.bound === undefined ? undefined : momentChecks(ctx, [ctx.bound]));
  if (moment !== undefined) run.moment = moment;
  await readJournal(run, items, source.file);
  // Rows left to pay need a confirmation (or --yes) before any is consulted; a batch all paid before
  // asks nothing, so it runs without a terminal and reports (exit 0).
  if (openItems(items).length > 0 && !hooks.confirmedAhead) refuseUnconfirmable(deps, ctx.flags);
  refuseOverLimits(deps, source.file, openItems(items), limits, 'the batch is over a limit');
  await consultAll(run, openItems(items), options.concurrency);
  await guardDuplicates(run, openItems(items));
  if (hooks.consulted) await hooks.consulted(ctx, openItems(items));
  const payable = openItems(items);
  refuseOverLimits(deps, source.file, payable, limits, 'the batch is over a limit once consulted');
  const summary = summaryOf(payable);
  const skipped = items.filter((item) => item.state !== 'planned');
  if (skipped.length > 0) {
    deps.io.stderr.write(`not paid in this run: ${describeStates(heldCounts(skipped))}\n`);
  }
  if (options.dryRun) return endDryRun(ctx, items, skipped, summary.text);
  if (hooks.writePlan) return endWithPlan(ctx, items, skipped, hooks.writePlan);
  await confirmPlan(ctx, payable, summary, hooks.confirmedAhead === true);
  await payAll(run, payable, options.concurrency);
  if (hooks.paid) await hooks.paid(ctx, items);
  await report(run, items, payable);
}

function refuseOverLimits(
  deps: Deps,
  file: string,
  items: readonly BatchItem[],
  limits: Limits,
  what: string,
): void {
  const over = checkBatchLimits(
    items.map((item) => ({ id: item.row.id, line: item.row.line, amount: item.amount })),
    limits,
  );
  if (over.length > 0) refuseFile(deps, file, over, what, 'see pix config max-amount');
}

export function register(command: Command, deps: Deps): void {
  command
    .argument(
      '<FILE>',
      'CSV (id,key,amount[,description][,document][,name] or id,emv[,amount]; or id;chave;valor;descrição;documento;nome), NDJSON or xlsx; - for stdin',
    )
    .option(
      '--format <format>',
      'csv, ndjson or xlsx (default: by the file name; .ndjson/.jsonl are NDJSON, .xlsx a workbook)',
    )
    .option(
      '--map <field=Header,…>',
      "your file's headers: key=Chave PIX,amount=Valor Líquido,document=CNPJ (other columns are then ignored)",
    )
    .option('--concurrency <n>', `consultations and transfers at a time (default ${DEFAULT_CONCURRENCY})`)
    .option('--max-total <A>', 'refuse the batch if it pays more than this in all')
    .option('--dry-run', 'check and consult every row, show the plan, send nothing')
    .option(
      '--allow-duplicate',
      'pay rows that repeat a payment made outside this file (the journal within 10 minutes, the statement within --duplicate-window)',
    )
    .option(...DUPLICATE_WINDOW_OPTION);
  planOptions(command).action(async (file: string, _options, self: Command) => {
    await runPayBatch(parseOptions(payBatchOptionsSchema, { ...self.opts(), file }, { file: 'FILE' }), deps);
  });
  addExamples(
    command,
    [
      'pix sandbox batch-file --rows 50 > payouts.csv',
      'pix pay batch payouts.csv --dry-run            # check, consult and show; nothing is paid',
      'pix pay batch payouts.csv --yes -o csv > report.csv',
      'pix pay batch payouts.ndjson --max-total 10000 --concurrency 8 --yes',
      "pix pay batch fornecedores.csv --map 'key=Chave PIX,amount=Valor,document=CNPJ' --dry-run",
    ],
    ['usage', 'auth', 'rejected', 'unavailable', 'unknown_outcome', 'declined'],
  );
}
