import { type Command, Option } from 'commander';
import type { Deps } from '../../context.js';
import { formatBRL } from '../../domain/money.js';
import { loadBatchFile } from '../../sandbox/index.js';
import * as z from '../../zod.js';
import { integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

const SAMPLE_FORMATS = ['csv', 'ndjson'] as const;
const SAMPLE_ERRORS = ['invalid', 'refused', 'all'] as const;

export const batchFileSchema = z.object({
  rows: integerFlag(1).check(z.refine((n) => n <= 100_000, 'at most 100000')),
  seed: z._default(integerFlag(0).check(z.refine((n) => n <= 0xffff_ffff, 'at most 4294967295')), 1),
  format: z._default(z.enum(SAMPLE_FORMATS), 'csv'),
  // `--with-errors` alone is `true`: every kind of mistake.
  withErrors: z.optional(
    z.pipe(
      z.union([z.literal(true), z.enum(SAMPLE_ERRORS)]),
      z.transform((value) => (value === true ? ('all' as const) : value)),
    ),
  ),
});
export type BatchFileOptions = z.output<typeof batchFileSchema>;

export async function runBatchFile(opts: BatchFileOptions, deps: Deps): Promise<void> {
  const { sampleRows, sampleLines } = await loadBatchFile();
  const rows = sampleRows({
    rows: opts.rows,
    seed: opts.seed,
    ...(opts.withErrors === undefined ? {} : { withErrors: opts.withErrors }),
  });
  const lines = sampleLines(rows, opts.format);
  const out = deps.io.stdout;
  for (let from = 0; from < lines.length; from += 1000) {
    if (!out.write(lines.slice(from, from + 1000).join(''))) await out.drained();
  }
  let keys = 0;
  let sum = 0;
  const expected = { payable: 0, invalid: 0, not_payable: 0, rejected: 0 };
  for (const row of rows) {
    if (row.key !== undefined) keys++;
    expected[row.expect]++;
    if (row.expect === 'payable') sum += row.pays ?? 0;
  }
  const mistakes = [
    expected.invalid && `${expected.invalid} invalid (pix refuses the file)`,
    expected.not_payable && `${expected.not_payable} with a key the sandbox does not know`,
    expected.rejected && `${expected.rejected} with an amount the sandbox refuses`,
  ].filter(Boolean);
  deps.io.stderr.write(
    `sandbox: ${rows.length} row${rows.length === 1 ? '' : 's'} (${keys} by key, ${rows.length - keys} by code), ` +
      `${expected.payable} payable for ${formatBRL(sum)}` +
      (mistakes.length > 0 ? `; on purpose: ${mistakes.join(', ')} (ids ending in -err-<kind>)` : '') +
      '\n',
  );
}

export const verb = describeVerb({
  summary: 'Write a sample batch payout file (for pix pay batch) the sandbox can pay',
  examples: [
    'pix sandbox batch-file --rows 50 > payouts.csv',
    'pix sandbox batch-file --rows 1000 --format ndjson --seed 7 > payouts.ndjson',
    'pix sandbox batch-file --rows 20 --with-errors invalid > broken.csv',
  ],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
    .requiredOption('--rows <n>', 'how many rows (at most 100000)')
    .option('--seed <n>', 'another seed gives other rows and ids (default 1)')
    .addOption(new Option('--format <format>', 'csv or ndjson (default csv)').choices(SAMPLE_FORMATS))
    .addOption(
      new Option(
        '--with-errors [which]',
        'one row in five a mistake: invalid, refused or all (default)',
      ).choices(SAMPLE_ERRORS),
    )
    .action(async (raw) => runBatchFile(parseOptions(batchFileSchema, raw), deps));
}
