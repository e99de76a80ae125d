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
 * Here the options and the run; step 1 is shared/pay/batchread.ts, the rest `payBatchRows`, whose steps are in
 * `batchpayment.ts` (2 and 5), `batchconsult.ts` (3) and `batchreport.ts` (4 and 6).
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import * as z from '../../zod.js';
import { amountFlag, duplicateWindowFlag, integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { batchFileFlags, batchFileOptions, readBatchRows } from '../shared/pay/batchread.js';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, payBatchRows } from '../shared/pay/batchrun.js';
import { planFlags, planOptions, planRequestOf } from '../shared/pay/planflags.js';
import { DUPLICATE_WINDOW_OPTION } from '../shared/pay/shared.js';

const payBatchOptionsSchema = z.object({
  file: z.string().check(z.minLength(1)),
  ...batchFileFlags,
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
// The command

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

export const verb = describeVerb({
  summary: 'Pay every row of a CSV or NDJSON file, each exactly once',
  formats: LIST_FORMATS,
  examples: [
    'pix sandbox batch-file --rows 50 > payouts.csv',
    'pix pay batch payouts.csv --dry-run            # check, consult and show; nothing is paid',
    'pix pay batch payouts.csv --yes -o csv > report.csv',
    'pix pay batch payouts.ndjson --max-total 10000 --concurrency 8 --yes',
    "pix pay batch fornecedores.csv --map 'key=Chave PIX,amount=Valor,document=CNPJ' --dry-run",
  ],
  exits: ['usage', 'auth', 'rejected', 'unavailable', 'unknown_outcome', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command.argument(
    '<FILE>',
    'CSV (id,key,amount[,description][,document][,name] or id,emv[,amount]; or id;chave;valor;descrição;documento;nome), NDJSON or xlsx; - for stdin',
  );
  batchFileOptions(command)
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
}
