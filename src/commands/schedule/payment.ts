/**
 * Paying occurrences, whatever triggers them (`pix schedule run-due`, a `pix schedule run` worker, `pix
 * schedule pay`): each occurrence is a row of `pix pay batch`'s own path (commands/shared/pay/batchrun.ts
 * payBatchRows), its id the schedule's id and the rule's date (domain/schedule.ts occurrenceRow), so
 * every guard of a payment applies and the journal pays a row once per account, however many runners,
 * cron lines or people reach it (journal/stores.ts claims).
 *
 * What a schedule adds after the consultation, before anything is sent:
 * - the receiver must still be the one confirmed when the schedule was made (name, masked document,
 *   institution): another is `receiver_changed`, nothing sent, and recorded as refused;
 * - a runner pays only within the occurrence's window (its day, from its time to 20:00): the window
 *   checked again on the account's clock right before the claim;
 * - a consultation that refuses the key, or a guard that finds the same payment made elsewhere, is
 *   recorded as refused too: an occurrence refused is not tried again on its own.
 *
 * A refusal and a miss are journal entries of the row that were never sent (`failed`, reason `refused: …`
 * or `missed`): they block no payment (an explicit `pix schedule pay` may pay the row), and `pix listen`
 * makes them `schedule.failed` and `schedule.missed` events, as a paid row is `schedule.paid`.
 */
import type { Deps } from '../../context.js';
import { parseBatchFile } from '../../domain/batchtext.js';
import { decodeBrCode } from '../../domain/brcode.js';
import { emvHash } from '../../domain/digest.js';
import { formatDecimal } from '../../domain/money.js';
import { HELD_PREFIX, MISSED_REASON, REFUSED_PREFIX, type Window } from '../../domain/schedule.js';
import { formatDateTime } from '../../domain/when.js';
import { usageError } from '../../errors.js';
import { type Account, recordedAccount } from '../../journal/rules.js';
import type { ScheduleLine } from '../../journal/schedules.js';
import type { JournalStore } from '../../journal/stores.js';
import { safeText } from '../../output/sanitize.js';
import { type BatchItem, DEFAULT_CONCURRENCY, payBatchRows } from '../shared/pay/batchrun.js';
import { momentChecks } from '../shared/pay/moment.js';
import type { PayContext } from '../shared/pay/shared.js';
import { type OccurrenceView, receiverWords } from './shared.js';
import type { Judgement } from './standing.js';

/** The journal batch every occurrence is a row of: rows of one batch never hold each other as duplicates. */
export const SCHEDULE_BATCH = 'schedules';

/** The row states that end an occurrence as refused (recorded, and not tried again on its own). */
const REFUSALS: ReadonlySet<string> = new Set(['receiver_changed', 'not_payable', 'duplicate']);

/** Whether a code carries its own amount (field 54): the batch reader then takes none from the row. */
function fixesItsAmount(code: string): boolean {
  try {
    return decodeBrCode(code).amount !== undefined;
  } catch {
    return false; // the batch reader names the damage
  }
}

/**
 * An occurrence's journal row for the batch reader: a key or a code, the amount confirmed when the schedule
 * was made (a code's own amount must still be it: domain/batchplan.ts planRowAmount), the note. A code that
 * fixes its amount carries none, as `plan execute` writes it: the reader takes the code's, the one shown.
 */
function rowLine(view: OccurrenceView): string {
  const { line } = view;
  const { target } = line;
  return JSON.stringify({
    id: view.row,
    ...('key' in target
      ? { key: target.key, ...(target.keyType === undefined ? {} : { key_type: target.keyType }) }
      : { emv: target.code }),
    ...('code' in target && fixesItsAmount(target.code)
      ? {}
      : { amount: formatDecimal(line.amountCentavos) }),
    ...(line.description === undefined || !('key' in target) ? {} : { description: line.description }),
    // Who it must pay (contract §7.8): the batch's consultation holds the row to it (not_payable otherwise).
    ...(line.expect?.document === undefined ? {} : { document: line.expect.document }),
    ...(line.expect?.name === undefined ? {} : { name: line.expect.name }),
  });
}

/** The occurrences as batch rows, read by the batch reader itself: the same checks as a file's. */
function rowsOf(views: readonly OccurrenceView[]) {
  const parsed = parseBatchFile(`${views.map(rowLine).join('\n')}\n`, 'ndjson');
  if (!parsed.ok) {
    const first = parsed.problems[0]!;
    throw usageError(
      'schedule',
      `an occurrence cannot be paid as written: ${safeText(first.message, 200)} (${first.id ?? first.line})`,
    );
  }
  return parsed.rows;
}

function sameReceiver(line: ScheduleLine, item: BatchItem): boolean {
  const approved = line.receiver;
  return (
    (item.receiver ?? '') === approved.name &&
    (item.document ?? '') === (approved.document ?? '') &&
    (item.institution ?? '') === (approved.institution ?? '')
  );
}

/** `NAME (DOC, INSTITUTION)` of a consultation's answer. */
function answeredWords(item: BatchItem): string {
  const extra = [item.document, item.institution].filter((part) => part !== undefined && part !== '');
  return `${safeText(item.receiver ?? '?', 80)}${extra.length === 0 ? '' : ` (${safeText(extra.join(', '), 120)})`}`;
}

/**
 * Records that an occurrence ends unpaid (`missed`, or `refused: …`): a journal entry of its row that is
 * never sent. It blocks nothing: only an explicit command pays the row afterwards.
 */
export async function recordUnpaid(
  journal: JournalStore,
  account: Account,
  view: Pick<OccurrenceView, 'line' | 'row'>,
  reason: string,
  receiver?: string,
): Promise<void> {
  const { line } = view;
  const batchRow = { batch: SCHEDULE_BATCH, row: view.row };
  const entry = await journal.begin({
    kind: 'payment',
    ...recordedAccount(account),
    amountCentavos: line.amountCentavos,
    receiver: receiver ?? line.receiver.name,
    payment:
      'key' in line.target
        ? { method: 'key', key: line.target.key, batchRow }
        : { method: 'qr', emvHash: emvHash(line.target.code), dynamic: line.target.dynamic, batchRow },
    ...(line.description === undefined ? {} : { description: line.description }),
  });
  await journal.finish(entry.id, { state: 'failed', reason });
}

export interface PayOccurrencesOptions {
  /** The account's clock: the window is checked on it right before each claim. */
  now: () => Promise<Date>;
  /** A runner pays only within the window; `pix schedule pay` (an explicit, confirmed payment) at any time. */
  withinWindow: boolean;
  /** The run was confirmed when the schedules were made (runners); `pix schedule pay` asks (or --yes). */
  confirmedAhead: boolean;
  concurrency?: number;
  allowDuplicate?: boolean;
  /** Told each occurrence's row as it ended (paid, held, refused, …). */
  ended?: (view: OccurrenceView, item: BatchItem) => void;
}

/**
 * Pays the occurrences through the batch's path (report on stdout, exit code by the rows' states, as
 * `pix pay batch`), each to the receiver its schedule confirmed, each once.
 */
export async function payOccurrences(
  deps: Deps,
  views: readonly OccurrenceView[],
  options: PayOccurrencesOptions,
): Promise<void> {
  const byRow = new Map(views.map((view) => [view.row, view]));
  const windowEnded = (window: Window, now: Date) => options.withinWindow && now.getTime() >= window.end;
  // The account's clock (the sandbox's under `pix sandbox clock`): the moment each occurrence is judged at.
  const client = await deps.api();
  const clockNow = () => client.clock.now();
  // Loaded only when a schedule was approved under a policy (architecture rule 8).
  const standing = views.some((view) => view.schedule.standing !== undefined)
    ? await import('./standing.js')
    : undefined;
  let judgements = new Map<string, Judgement>();
  await payBatchRows(
    deps,
    {
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      maxTotal: undefined,
      dryRun: false,
      allowDuplicate: options.allowDuplicate ?? false,
      duplicateWindow: undefined,
    },
    { file: 'the schedule', batch: SCHEDULE_BATCH, rows: rowsOf(views) },
    {
      // Each occurrence is judged under the policy by its own schedule's approval (standing.ts), at its
      // moment: one without an approved plan, where the account needs one, is held, not the whole run.
      flags: { plansPerRow: true },
      confirmedAhead: options.confirmedAhead,
      consulted: async (ctx, items) => {
        const now = await options.now();
        for (const item of items) {
          const view = byRow.get(item.row.id)!;
          if (!sameReceiver(view.line, item)) {
            item.state = 'receiver_changed';
            item.error = `the receiver is now ${answeredWords(item)}; the schedule was confirmed for ${receiverWords(view.line)}: nothing was sent for this occurrence`;
          } else if (windowEnded(view.window, now)) {
            item.state = 'not_sent';
            item.error = `its window ended at ${formatDateTime(new Date(view.window.end).toISOString(), view.schedule.timeZone)}: missed, never paid late on its own (\`pix schedule pay ${view.schedule.id} ${view.occurrence.date}\` pays it)`;
          }
        }
        const open = items.filter((item) => item.state === 'planned');
        const requirePlan = ctx.bound?.policy.requirePlan
          ? `this account pays only approved plans (the policy enforced on it, ${ctx.bound.policy.digest.slice(0, 19)}, says require-plan)`
          : ctx.settings.requirePlan
            ? `profile "${ctx.settings.profile.value}" pays only approved plans (require-plan true)`
            : undefined;
        const occurrences = open.map((item) => byRow.get(item.row.id)!);
        judgements = new Map(
          occurrences
            .filter((view) => view.schedule.standing === undefined)
            .map((view) => [
              view.row,
              requirePlan === undefined
                ? {}
                : {
                    held: `${requirePlan}: schedule ${view.schedule.id} has no standing approval (make one with \`pix schedule create … --plan FILE\`)`,
                  },
            ]),
        );
        const approved = occurrences.filter((view) => view.schedule.standing !== undefined);
        if (standing !== undefined) {
          for (const [row, judgement] of await standing.judgeOccurrences(ctx, approved, now))
            judgements.set(row, judgement);
        }
        for (const item of open) {
          const judgement = judgements.get(item.row.id);
          if (judgement?.held !== undefined) {
            item.state = 'held';
            item.error = `${judgement.held}: nothing was sent for this occurrence`;
          } else if (judgement?.plan !== undefined) item.plan = judgement.plan;
        }
      },
      moment: (ctx) =>
        standing === undefined
          ? momentChecks(ctx, ctx.bound === undefined ? [] : [ctx.bound], undefined, clockNow)
          : standing.standingMoment(ctx, () => judgements, clockNow),
      paid: async (ctx: PayContext, items) => {
        for (const item of items) {
          const view = byRow.get(item.row.id)!;
          if (REFUSALS.has(item.state) || item.state === 'held') {
            await recordUnpaid(
              ctx.journal,
              ctx.account,
              view,
              item.state === 'held'
                ? `${HELD_PREFIX}${item.error ?? 'held by the policy'}`
                : `${REFUSED_PREFIX}${item.state}`,
              item.receiver,
            );
          }
          options.ended?.(view, item);
        }
      },
    },
  );
}

/** Records a missed occurrence (its window ended with nothing sent). */
export function recordMissed(journal: JournalStore, account: Account, view: OccurrenceView): Promise<void> {
  return recordUnpaid(journal, account, view, MISSED_REASON);
}
