/**
 * Schedules under a policy (docs/schedules.md "Under a policy"): a recurring schedule approved once as a
 * standing plan — a plan (domain/plan.ts) whose rows are its occurrences, made by `pix schedule create …
 * --plan FILE`, signed by its maker, approved with `pix plan approve`, started by `pix schedule activate`.
 * The plan and the verdicts read at activation are kept with the schedule; nothing of them is trusted as
 * stored. At each occurrence, on the account's clock:
 *
 * - after the consultation (`judgeOccurrences`): the standing plan opened as `pix plan execute` opens a
 *   plan (commands/plan/shared.ts openPlanWith), under the policies in force now (the one enforced on the
 *   account first): the maker's signature, the plan made under the policy in force, not expired, every
 *   verdict verified — those kept and those remembered since by the ledger's store of verdicts (a refusal
 *   signed after activation counts) — and the quorum of every rule; the schedule still the one approved
 *   (its rule, time and zone), and the occurrence one of the plan's rows: the same key, the same receiver,
 *   at most the amount approved for it;
 * - at the moment it is sent (`standingMoment`): the plan's rules at that instant (a night rule once the
 *   night began), its expiry, and the caps of every policy in force counted on that day (pay/moment.ts).
 *
 * Whatever does not hold holds the occurrence (row state `held`, named; the schedule records it and `pix
 * listen` makes `schedule.held` of it); the other occurrences go on.
 */
import type { PolicyInForce } from '../../approvals/inforce.js';
import { refusalOf } from '../../approvals/review.js';
import { canonicalJson } from '../../domain/jsonsource.js';
import { formatBRL } from '../../domain/money.js';
import { shortPlanId } from '../../domain/plan.js';
import { isNight } from '../../domain/policy.js';
import { formatForMessage } from '../../domain/when.js';
import { PixError } from '../../errors.js';
import type { JournalPlan } from '../../journal/entries.js';
import { isAccountId } from '../../journal/rules.js';
import type { Schedule } from '../../journal/schedules.js';
import { safeText } from '../../output/sanitize.js';
import { type Moment, momentChecks } from '../shared/pay/moment.js';
import type { PayContext } from '../shared/pay/shared.js';
import {
  journalPlanOf,
  type OpenedPlan,
  openPlanWith,
  review,
  rulesAt,
  standingRefusal,
} from '../shared/plan.js';
import type { OccurrenceView } from './shared.js';

/** What the policy says of one occurrence after its consultation. */
export interface Judgement {
  /** Why it is held (not sent), or undefined. */
  held?: string;
  /** Its standing plan, opened and approved: judged again at its moment. */
  opened?: OpenedPlan;
  /** What its journal entry keeps of that plan (`pix journal show`). */
  plan?: JournalPlan;
}

/** Where a schedule's kept verdicts are said to come from. */
function keptWhere(schedule: Schedule): string {
  return `schedule ${schedule.id}'s standing approvals`;
}

/** The standing plan of a schedule, opened and judged at `at`: the plan and its journal record, or why it is held. */
async function openStanding(ctx: PayContext, schedule: Schedule, at: Date): Promise<Judgement> {
  const { plan, approvals } = schedule.standing!;
  const name = `standing plan ${shortPlanId(plan.id)}`;
  let opened: OpenedPlan;
  try {
    const where = keptWhere(schedule);
    opened = await openPlanWith(
      ctx.deps,
      plan,
      where,
      approvals.map((record) => ({ file: where, record })),
      undefined,
      at,
    );
  } catch (error) {
    // No policy at all to judge it by (none enforced, none in the profile), or a kept verdict unreadable.
    if (!(error instanceof PixError)) throw error;
    return { held: `its ${name} cannot be judged: ${error.message}` };
  }
  if (!isAccountId(plan.account.id, ctx.account))
    return { held: `its ${name} pays from another account (profile "${plan.account.profile}")` };
  const terms = plan.standing;
  if (
    terms === undefined ||
    terms.schedule !== schedule.id ||
    canonicalJson(terms.recurrence) !== canonicalJson(schedule.recurrence) ||
    terms.time !== schedule.time ||
    terms.timeZone !== schedule.timeZone
  )
    return { held: `the schedule is not the one its ${name} approved (its rule, time or zone differ)` };
  const standing = standingRefusal(opened, at);
  if (standing !== undefined) return { held: `its ${name} does not hold: ${standing}` };
  const verdict = review(opened, ({ policy }) => isNight(policy, at.getTime()));
  const refusal = refusalOf(verdict);
  if (refusal !== undefined) return { held: `its ${name} is not approved: ${refusal}` };
  return {
    opened,
    plan: journalPlanOf(plan, verdict),
  };
}

/** The occurrence against its approved row: one of the plan's dates, the same key and receiver, at most its amount. */
function rowProblem(view: OccurrenceView, opened: OpenedPlan): string | undefined {
  const { plan } = opened;
  const name = `standing plan ${shortPlanId(plan.id)}`;
  const row = plan.rows.find((approved) => approved.id === view.row);
  if (row === undefined)
    return `the occurrence of ${view.occurrence.date} is not one its ${name} approved (${plan.rows.length}, ${plan.rows[0]!.id.slice(-10)} to ${plan.rows.at(-1)!.id.slice(-10)})`;
  const { line } = view;
  const receiver = line.receiver;
  if (
    ('key' in line.target ? row.key !== line.target.key : row.emv !== line.target.code) ||
    row.receiver.name !== receiver.name ||
    (row.receiver.document ?? '') !== (receiver.document ?? '') ||
    (row.receiver.institution ?? '') !== (receiver.institution ?? '')
  )
    return `the schedule pays another key or receiver than its ${name} approved for ${view.occurrence.date} (${safeText(row.receiver.name, 80)})`;
  if (canonicalJson(row.expect ?? null) !== canonicalJson(line.expect ?? null))
    return `the schedule expects another payee than its ${name} approved for ${view.occurrence.date}`;
  if (line.amountCentavos > row.amountCentavos)
    return `${formatBRL(line.amountCentavos)} is over the ${formatBRL(row.amountCentavos)} its ${name} approved for ${view.occurrence.date} (its cap: no more is paid without a new approval)`;
  return undefined;
}

/** Each occurrence of a schedule with a standing plan, judged after its consultation, by row id. */
export async function judgeOccurrences(
  ctx: PayContext,
  views: readonly OccurrenceView[],
  at: Date,
): Promise<Map<string, Judgement>> {
  const bySchedule = new Map<string, Promise<Judgement>>();
  const judged = new Map<string, Judgement>();
  for (const view of views) {
    const { schedule } = view;
    let found = bySchedule.get(schedule.id);
    if (found === undefined) {
      found = openStanding(ctx, schedule, at);
      bySchedule.set(schedule.id, found);
    }
    const standing = await found;
    if (standing.opened === undefined) {
      judged.set(view.row, standing);
      continue;
    }
    const problem = rowProblem(view, standing.opened);
    judged.set(view.row, problem === undefined ? standing : { held: problem });
  }
  return judged;
}

/**
 * The checks at the moment each occurrence is sent, on the account's clock: its standing plan's expiry
 * and rules at that instant, and the caps of the policies in force (the account's, and those its plan is
 * judged under) counted on that day. Built at the first row, once the judgements are known.
 */
export function standingMoment(
  ctx: PayContext,
  judgements: () => Map<string, Judgement>,
  now: () => Date,
): Moment {
  let inner: Moment | undefined;
  const checks = (): Moment => {
    if (inner !== undefined) return inner;
    const policies = new Map<string, PolicyInForce>();
    if (ctx.bound !== undefined) policies.set(ctx.bound.policy.digest, ctx.bound);
    for (const judgement of judgements().values()) {
      for (const { inForce } of judgement.opened?.judged ?? []) {
        if (!policies.has(inForce.policy.digest)) policies.set(inForce.policy.digest, inForce);
      }
    }
    const rules = (at: Date, row: string): string | undefined => {
      const opened = judgements().get(row)?.opened;
      if (opened === undefined) return undefined;
      if (Date.parse(opened.plan.expiresAt) <= at.getTime())
        return `its standing plan ${shortPlanId(opened.plan.id)} expired at ${formatForMessage(opened.plan.expiresAt, opened.timeZone)}`;
      return rulesAt(opened, () => undefined)(at, row);
    };
    inner = momentChecks(ctx, [...policies.values()], rules, now);
    return inner;
  };
  return {
    check: (row) => checks().check(row),
    release: (row) => checks().release(row),
  };
}
