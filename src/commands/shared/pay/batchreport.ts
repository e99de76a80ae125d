/**
 * `pix pay batch`, steps 4 and 6 (batchrun.ts payBatchRows): what a person sees of a run — the plan to
 * confirm, the report (one record per row on stdout, the totals and why rows were not paid on stderr),
 * `--dry-run` and `--plan FILE` ending early — and the exit code the rows' states give (contract §4).
 */

import type { Deps } from '../../../context.js';
import { batchOutcome, countStates, describeStates, type RowState } from '../../../domain/batchplan.js';
import { type Centavos, centavosToApi, formatBRL, formatDecimal } from '../../../domain/money.js';
import { PixError, stopSignalOf } from '../../../errors.js';
import { recoveryHint } from '../../../journal/record.js';
import { preparePager } from '../../../output/pager.js';
import { type Column, createListWriter } from '../../../output/records.js';
import { safeText } from '../../../output/sanitize.js';
import { renderTable, type TableColumn } from '../../../output/table.js';
import { SHOWN_PROBLEMS } from '../files.js';
import { lookOf, type Run } from './batchpayment.js';
import type { BatchItem, BatchPlanHooks } from './batchrun.js';
import { ask, type PayContext } from './shared.js';

const STATE_PAINT: Partial<Record<RowState, 'green' | 'red' | 'yellow'>> = {
  paid: 'green',
  already_paid: 'green',
  not_payable: 'red',
  rejected: 'red',
  unknown: 'yellow',
  not_sent: 'yellow',
  duplicate: 'yellow',
  in_progress: 'yellow',
  receiver_changed: 'red',
  held: 'yellow',
};

function reportColumns(ctx: PayContext): Column<BatchItem>[] {
  const text = (value: string | undefined) => value ?? '';
  // The operator's note: beside the receiver for people; last for machines, so the columns scripts
  // already read by position (TSV has no header) keep their places.
  const description: Column<BatchItem> = {
    header: 'description',
    priority: 3,
    human: (item) => text(item.row.description),
    machine: (item) => item.row.description,
  };
  return [
    { header: 'id', human: (item) => item.row.id, machine: (item) => item.row.id },
    {
      header: 'state',
      kind: 'enum',
      human: (item) => {
        const paint = item.state === 'planned' ? undefined : STATE_PAINT[item.state];
        return paint === undefined ? item.state : { text: item.state, paint: ctx.mode.colors[paint] };
      },
      machine: (item) => item.state,
    },
    {
      header: 'amount',
      kind: 'money',
      human: (item) => (item.amount === undefined ? '' : formatBRL(item.amount)),
      machine: (item) => (item.amount === undefined ? undefined : formatDecimal(item.amount)),
    },
    { header: 'receiver', human: (item) => text(item.receiver), machine: (item) => item.receiver },
    ...(ctx.mode.human
      ? [description]
      : [
          { header: 'document', human: () => '', machine: (item: BatchItem) => item.document },
          { header: 'institution', human: () => '', machine: (item: BatchItem) => item.institution },
        ]),
    {
      header: 'endToEndId',
      kind: 'id',
      // Every endToEndId starts E + the institution's ISPB + the date: the end is what tells them apart.
      keepEnd: true,
      priority: 3,
      human: (item) => text(item.endToEndId),
      machine: (item) => item.endToEndId,
    },
    ...(ctx.mode.human
      ? []
      : [{ header: 'transferId', human: () => '', machine: (item: BatchItem) => item.transferId }]),
    { header: 'error', priority: 2, human: (item) => text(item.error), machine: (item) => item.error },
    ...(ctx.mode.human ? [] : [description]),
  ];
}

function rawRecord(item: BatchItem): Record<string, unknown> {
  return {
    id: item.row.id,
    line: item.row.line,
    state: item.state,
    amount: item.amount === undefined ? null : centavosToApi(item.amount),
    receiver: item.receiver ?? null,
    description: item.row.description ?? null,
    document: item.document ?? null,
    institution: item.institution ?? null,
    endToEndId: item.endToEndId ?? null,
    transferId: item.transferId ?? null,
    error: item.error ?? null,
    ...(item.earlier === undefined ? {} : { journalEntry: item.earlier.id }),
    ...(item.elsewhere === undefined ? {} : { paidElsewhere: item.elsewhere.id }),
  };
}

async function writeRecords(ctx: PayContext, items: readonly BatchItem[]): Promise<void> {
  const writer = createListWriter(ctx.deps.io.stdout, {
    format: ctx.mode.format,
    human: ctx.mode.human,
    pretty: ctx.mode.pretty,
    columns: reportColumns(ctx),
    listField: 'results',
    raw: rawRecord,
    openTable: ctx.mode.openTable,
    tally: ctx.deps.output.records(items.length),
    timeZone: ctx.mode.timeZone,
    sheet: 'Batch',
  });
  await writer.begin(items.length);
  for (const item of items) await writer.write(item);
  await writer.end();
}

/** Distinct receivers by what identifies them to the bank: the masked document and the name. */
function receiverCount(items: readonly BatchItem[]): number {
  return new Set(items.map((item) => `${item.document ?? ''}|${item.receiver ?? ''}`)).size;
}

/** The columns of the plan a person confirms: who gets what, as the consultations answered. */
const PLAN_COLUMNS: TableColumn[] = [
  { header: 'id', kind: 'id' },
  { header: 'receiver' },
  { header: 'document', priority: 2 },
  { header: 'institution', priority: 3 },
  { header: 'amount', kind: 'money' },
];

/**
 * The plan before the question (contract §7.2, for every row): each row's id, the receiver as its
 * consultation answered, and its amount, fitted to the terminal; longer than the screen, it goes through
 * the pager (PIX_PAGER, PAGER, `less -FRX`; `--no-pager`), so a long batch can be read before it is paid.
 */
async function showPlan(deps: Deps, payable: readonly BatchItem[]): Promise<void> {
  const { stderr } = deps.io;
  const rows = payable.map((item) => [
    item.row.id,
    item.receiver ?? '',
    item.document ?? '',
    item.institution ?? '',
    formatBRL(item.amount!),
  ]);
  const text = renderTable(PLAN_COLUMNS, rows, {
    width: stderr.isTTY ? stderr.columns : undefined,
    wide: deps.globals.wide,
  });
  const height = stderr.rows;
  const start =
    stderr.isTTY && deps.globals.pager && height !== undefined && text.split('\n').length > height - 3
      ? await preparePager(deps.env)
      : undefined;
  if (start === undefined) {
    if (!stderr.write(text)) await stderr.drained();
    return;
  }
  const pager = start();
  // Quitting the pager early (q) is reading enough: the question comes next either way.
  pager.input.write(text, () => {});
  await pager.close();
}

/**
 * Why each row was not paid, under the report, one line a row, whatever the width (the report's error
 * column is the first a narrow table leaves out). Unknown rows get their recovery lines instead.
 */
function writeReasons(deps: Deps, items: readonly BatchItem[]): void {
  const failed = items.filter(
    (item) => item.error !== undefined && item.state !== 'unknown' && item.state !== 'planned',
  );
  for (const item of failed.slice(0, SHOWN_PROBLEMS)) {
    deps.io.stderr.write(
      `${item.state.replace('_', ' ')}: row ${safeText(item.row.id, 80)}: ${safeText(item.error!, 600)}\n`,
    );
  }
  if (failed.length > SHOWN_PROBLEMS)
    deps.io.stderr.write(`  … and ${failed.length - SHOWN_PROBLEMS} more\n`);
}

export function heldCounts(items: readonly BatchItem[]) {
  return countStates(items.map((item) => item.state as RowState));
}

interface Summary {
  total: Centavos;
  receivers: number;
  /** "N rows to pay, R$ …, M receivers". */
  text: string;
}

export function summaryOf(payable: readonly BatchItem[]): Summary {
  const total = payable.reduce((sum, item) => sum + item.amount!, 0) as Centavos;
  const receivers = receiverCount(payable);
  const text =
    `${payable.length} row${payable.length === 1 ? '' : 's'} to pay, ${formatBRL(total)}, ` +
    `${receivers} receiver${receivers === 1 ? '' : 's'}`;
  return { total, receivers, text };
}

/** `--dry-run`: the report and the plan, nothing sent, and the exit code the real run would end with. */
export async function endDryRun(
  ctx: PayContext,
  items: readonly BatchItem[],
  skipped: readonly BatchItem[],
  summary: string,
): Promise<void> {
  await writeRecords(ctx, items);
  writeReasons(ctx.deps, items);
  ctx.deps.io.stderr.write(`dry run: ${summary}; nothing was sent\n`);
  // A row the real run could not pay is not a success (contract §4).
  const held = heldCounts(skipped);
  const outcome = batchOutcome(held);
  if (outcome.kind === undefined) return;
  throw new PixError(outcome.kind, `dry run: the batch would not complete: ${describeStates(held)}`, {
    hint: 'nothing was sent; fix or remove the rows named above, or run it as it is to pay the others',
  });
}

/** `--plan FILE`: the plan of the rows left to pay is written instead of paying them. */
export async function endWithPlan(
  ctx: PayContext,
  items: BatchItem[],
  skipped: readonly BatchItem[],
  writePlan: NonNullable<BatchPlanHooks['writePlan']>,
): Promise<void> {
  await writePlan(ctx, items);
  await writeRecords(ctx, items);
  // Rows the plan leaves out (not payable, held) say so in the exit code, as a run would.
  const held = heldCounts(skipped);
  const left = batchOutcome(held);
  if (left.kind === undefined) return;
  throw new PixError(left.kind, `the plan leaves out ${describeStates(held)}`, {
    hint: 'the report says why of each; fix or remove those rows to have them in a plan',
  });
}

/** 4. Confirm once, the plan shown first (or `--yes`, or confirmed ahead: a schedule's occurrences). */
export async function confirmPlan(
  ctx: PayContext,
  payable: readonly BatchItem[],
  summary: Summary,
  confirmedAhead = false,
): Promise<void> {
  const { deps } = ctx;
  const { profile, host } = ctx.account;
  const asking = payable.length > 0 && !deps.globals.yes && !confirmedAhead;
  if (asking) await showPlan(deps, payable);
  deps.io.stderr.write(
    `paying from profile "${profile}" via ${host}${ctx.settings.sandbox ? ' (sandbox)' : ''}: ${summary.text}\n`,
  );
  if (!asking) return;
  const yes = await ask(() =>
    deps.prompter.confirm(
      `Pay ${payable.length} rows, ${formatBRL(summary.total)} in all, to ${summary.receivers} receivers?`,
    ),
  );
  if (!yes) throw new PixError('declined', 'batch cancelled; nothing was sent', { ownChoice: true });
}

/** 6. The report, why rows were not paid, how to settle unknown ones, and the exit code (contract §4). */
export async function report(
  run: Run,
  items: readonly BatchItem[],
  payable: readonly BatchItem[],
): Promise<void> {
  const { ctx } = run;
  const { stderr } = ctx.deps.io;
  const counts = heldCounts(items);
  const paidNow = payable
    .filter((item) => item.state === 'paid')
    .reduce((sum, item) => sum + item.amount!, 0);
  try {
    await writeRecords(ctx, items);
  } catch (error) {
    stderr.write(
      `warning: the report could not be written (${safeText((error as Error)?.message ?? error, 120)}); the journal has every row\n`,
    );
    throw error;
  }
  writeReasons(ctx.deps, items);
  stderr.write(`batch: ${describeStates(counts)}; ${formatBRL(paidNow)} paid in this run\n`);
  // Each unknown row, with where to look and how to record it (the report's error column has the same).
  const unknown = items.filter((item) => item.state === 'unknown' && item.earlier !== undefined);
  for (const item of unknown.slice(0, SHOWN_PROBLEMS)) {
    stderr.write(
      `unknown: row ${safeText(item.row.id, 80)}: ${safeText(recoveryHint(item.earlier!, lookOf(ctx, item)), 600)}\n`,
    );
  }
  if (unknown.length > SHOWN_PROBLEMS) stderr.write(`  … and ${unknown.length - SHOWN_PROBLEMS} more\n`);
  if (run.spilled !== undefined) {
    stderr.write(
      `the shared ledger could not record the outcome of ${items.filter((i) => i.state === 'unknown' && i.earlier === undefined).length} row(s): it is kept in ${run.spilled}, written there by the next pix command on this machine that reaches the database; run the file again then\n`,
    );
  }
  endOfRun(run, counts);
}

/** The exit code of a run that paid: a disk fault, an unknown row, a signal, a refused login, a row not paid. */
function endOfRun(run: Run, counts: ReturnType<typeof heldCounts>): void {
  const { deps } = run.ctx;
  const outcome = batchOutcome(counts);
  const signal = deps.signal.aborted ? stopSignalOf(deps.signal) : undefined;
  if (run.fault !== undefined) {
    const { fault } = run;
    const hint = `${fault.hint}, then run the file again: paid rows are skipped, rows not sent are paid`;
    // An unknown row or a signal still decides the exit code (7, 130/143); the disk is said first.
    if (counts.unknown > 0 || signal !== undefined) {
      deps.io.stderr.write(`warning: the batch stopped: ${fault.message} (${hint})\n`);
    } else {
      throw new PixError('internal', `the batch stopped: ${fault.message}`, { hint, cause: fault.error });
    }
  }
  if (outcome.kind === undefined && signal === undefined) return;
  // A refused login stopped the batch: the contract's auth exit (3), unless a row's outcome is unknown
  // (7 comes first: those rows need the operator before anything else).
  const login = counts.unknown === 0 ? run.refusedLogin : undefined;
  const hint =
    counts.unknown > 0
      ? 'look for each unknown row in the statement window named above, record what you find with its `pix journal resolve` command, then run the file again'
      : login !== undefined
        ? `the API refused the credentials (${login}): log in again (\`pix login\`, or a new PIX_TOKEN), then run the file again; rows paid are never paid twice`
        : 'fix or remove the rows that were not paid; running the file again never pays a row twice';
  const kind = login === undefined ? outcome.kind : 'auth';
  throw new PixError(kind ?? 'interrupted', `batch not complete: ${describeStates(counts)}`, {
    hint,
    ...(signal === undefined ? {} : { signal }),
  });
}
