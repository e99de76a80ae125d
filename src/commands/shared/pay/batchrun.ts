/**
 * A batch's payment run over rows already read (`payBatchRows`), shared by `pix pay batch`, `pix plan
 * execute` and the scheduled payments: the journal, the consultations, the guards, the confirmation, the
 * transfers and the report, in that order (batchpayment.ts, batchconsult.ts, batchreport.ts its steps).
 */
import type { Deps } from '../../../context.js';
import type { BatchRow } from '../../../domain/batch.js';
import { checkBatchLimits, describeStates, type RowState } from '../../../domain/batchplan.js';
import type { Centavos } from '../../../domain/money.js';
import type { JournalEntry, JournalPlan, PaymentIdentity } from '../../../journal/entries.js';
import { refuseFile } from '../files.js';
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
import { type PayContext, type PayFlags, refuseUnconfirmable, startPayment } from './shared.js';

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;

/** What a batch run pays: the rows of a file, or of an approved plan (`pix plan execute`). */
export interface BatchSource {
  /** The file, as errors name it. */
  file: string;
  /** The batch's id in the journal. */
  batch: string;
  rows: BatchRow[];
}

/** What `--plan FILE` and `pix plan execute` add to a batch run (plan.ts, commands/plan/execute.ts). */
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
  /**
   * Instead of everything after the consultations and the limits (no confirmation, payment or report):
   * what `pix schedule create --code|--file` keeps of the rows, consulted and checked as a payment's.
   */
  keep?(ctx: PayContext, items: BatchItem[]): Promise<void>;
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
  receiver?: string | undefined;
  document?: string | undefined;
  institution?: string | undefined;
  transferId?: string;
  /** Why it was not paid, or what to do about it. */
  error?: string;
  /** The journal entry that made it already paid or held, or this run's entry of a row left unknown. */
  earlier?: JournalEntry;
  /** A payment of the same row id on another account (not this row's: named when the ids collide). */
  elsewhere?: JournalEntry;
  /** The approved plan this row is paid under, when rows have their own (a schedule's standing plans). */
  plan?: JournalPlan;
  /** A code's expiry as its consultation gave it (a schedule made of a dynamic code pays before it). */
  expiresAt?: string;
  /** The receiver as the consultation answered (the whole document where it gave it): the guards' payee. */
  payee?: Pick<PaymentIdentity, 'document' | 'participant'> | undefined;
}

/** What of `pix pay batch`'s flags a run is held to (the schema is the verb's, pay/batch.ts). */
export interface BatchRunOptions {
  concurrency: number;
  maxTotal?: Centavos | undefined;
  dryRun: boolean;
  allowDuplicate: boolean;
  duplicateWindow?: number | undefined;
}

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
  if (hooks.keep) return hooks.keep(ctx, items);
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
