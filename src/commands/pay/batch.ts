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
import { parseBatchSheet } from '../../domain/batchsheet.js';
import { parseBatchColumnMap, parseBatchFile } from '../../domain/batchtext.js';
import { PixError, stopSignalOf } from '../../errors.js';
import { createProgress } from '../../output/progress.js';
import { safeText } from '../../output/sanitize.js';
import { asUsageAwait } from '../../usage.js';
import * as z from '../../zod.js';
import { fileName, readInputFile, refuseFile, SHOWN_PROBLEMS } from '../shared/files.js';
import { amountFlag, duplicateWindowFlag, fromDomain, integerFlag, parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, payBatchRows } from '../shared/pay/batchrun.js';
import { planFlags, planOptions, planRequestOf } from '../shared/pay/planflags.js';
import { DUPLICATE_WINDOW_OPTION } from '../shared/pay/shared.js';

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

/**
 * Step 1: the whole file read and checked, every row's cell as displayed (exit 2 listing the problems,
 * nothing sent); its warnings on stderr. Also what `pix schedule create --file` keeps: the rows and the
 * digest of the bytes read (the journal's batch id is its start).
 */
export async function readBatchRows(
  deps: Deps,
  options: Pick<PayBatchOptions, 'file' | 'format' | 'map'>,
): Promise<{ rows: BatchRow[]; digest: string }> {
  const { stderr } = deps.io;
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
  return { rows: parsed.rows, digest: createHash('sha256').update(bytes).digest('hex') };
}

export async function runPayBatch(options: PayBatchOptions, deps: Deps): Promise<void> {
  const { rows, digest } = await readBatchRows(deps, options);
  const batch = digest.slice(0, 16);
  const plan = planRequestOf(options);
  // Loaded only for --plan (architecture rule 8).
  const hooks =
    plan === undefined
      ? {}
      : await (await import('../shared/pay/plan.js')).batchPlanHooks(plan, options.file);
  await payBatchRows(deps, options, { file: options.file, batch, rows }, hooks);
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
