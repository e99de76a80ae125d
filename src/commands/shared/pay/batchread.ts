/**
 * `pix pay batch`'s step 1, shared with `pix schedule create --file` (which keeps the rows it reads): the
 * whole file read and checked as the person sees it — CSV or NDJSON as text, an xlsx workbook's first sheet
 * cell by cell as displayed (domain/batch.ts, batchtext.ts, batchsheet.ts) — and the digest of its bytes.
 */
import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import type { Deps } from '../../../context.js';
import {
  type BatchColumnMap,
  type BatchFormat,
  type BatchParseResult,
  type BatchRow,
  batchFormatFor,
  formatProblem,
} from '../../../domain/batch.js';
import { parseBatchSheet } from '../../../domain/batchsheet.js';
import { parseBatchColumnMap, parseBatchFile } from '../../../domain/batchtext.js';
import { PixError, stopSignalOf } from '../../../errors.js';
import { createProgress } from '../../../output/progress.js';
import { safeText } from '../../../output/sanitize.js';
import { asUsageAwait } from '../../../usage.js';
import * as z from '../../../zod.js';
import { fileName, readInputFile, refuseFile, SHOWN_PROBLEMS } from '../files.js';
import { fromDomain } from '../flags.js';

/** `--format` and `--map`: how a batch file is read, for `pix pay batch` and `pix schedule create --file`. */
export const batchFileFlags = {
  format: z.optional(z.enum(['csv', 'ndjson', 'xlsx'])),
  map: z.optional(fromDomain(parseBatchColumnMap)),
};

/** Declares the two flags; `lead` starts their help (schedule create's "with --file: "). */
export function batchFileOptions(command: Command, lead = ''): Command {
  return command
    .option(
      '--format <format>',
      `${lead}csv, ndjson or xlsx (default: by the file name; .ndjson/.jsonl are NDJSON, .xlsx a workbook)`,
    )
    .option(
      '--map <field=Header,…>',
      `${lead}your file's headers: key=Chave PIX,amount=Valor Líquido,document=CNPJ (other columns are then ignored)`,
    );
}

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
  map: BatchColumnMap | undefined,
): Promise<BatchParseResult> {
  const { readFirstSheet } = await import('../../../domain/xlsxsheet.js');
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

/**
 * Step 1: the whole file read and checked, every row's cell as displayed (exit 2 listing the problems,
 * nothing sent); its warnings on stderr. Also what `pix schedule create --file` keeps: the rows and the
 * digest of the bytes read (the journal's batch id is its start).
 */
export async function readBatchRows(
  deps: Deps,
  options: { file: string; format?: BatchFormat | undefined; map?: BatchColumnMap | undefined },
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
