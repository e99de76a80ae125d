/**
 * `pix schedule activate FILE`: starts a schedule approved ahead — a standing plan written by `pix schedule
 * create … --plan FILE` and approved with `pix plan approve` (docs/schedules.md "Under a policy").
 *
 * 1. Offline, as `pix plan execute` judges a plan: its id, the policy in force (the one enforced on the
 *    account first) the one it was made under, the maker's signature, not expired, every verdict verified
 *    (the files beside it and those remembered), the quorum of every rule (night rules are judged at each
 *    occurrence's moment). Short of any: exit 8 naming what is missing; nothing is scheduled.
 * 2. The account the plan was made for, as the API identifies it.
 * 3. The confirmation (or --yes): the schedule kept beside the journal with the plan and the verdicts read
 *    now, so every runner, on any machine, judges each occurrence against them again (standing.ts).
 *    Activated twice: the second says so and changes nothing. Occurrences whose window ended before the
 *    activation are skipped, as a resumed schedule's are.
 */
import type { Command } from 'commander';
import { readApprovals, readPlanFile } from '../../approvals/files.js';
import { refusalOf } from '../../approvals/review.js';
import type { Deps } from '../../context.js';
import { formatBRL } from '../../domain/money.js';
import { type Plan, shortPlanId } from '../../domain/plan.js';
import { eachOccurrence, parseOccurrenceRow } from '../../domain/schedule.js';
import { formatForMessage } from '../../domain/when.js';
import { PixError, usageError } from '../../errors.js';
import { isAccountId, recordedAccount } from '../../journal/rules.js';
import type { Schedule, ScheduleLine } from '../../journal/schedules.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { ask, refuseUnconfirmable } from '../shared/pay/shared.js';
import { openPlanWith, POLICY_OPTION, policyFlag, review, standingRefusal } from '../shared/plan.js';
import {
  accountNow,
  comingOccurrences,
  dueWords,
  receiverWords,
  rowsReceiver,
  ruleWords,
  scheduleJson,
  windowFor,
} from './shared.js';

const activateOptionsSchema = z.object({
  file: z.string().check(z.minLength(1)),
  policy: policyFlag,
});

export type ScheduleActivateOptions = z.output<typeof activateOptionsSchema>;

export async function runScheduleActivate(options: ScheduleActivateOptions, deps: Deps): Promise<void> {
  const plan = readPlanFile(options.file);
  const terms = plan.standing;
  if (terms === undefined) {
    throw usageError(
      options.file,
      'not a standing plan (it was made by `pix pay`): pay it with `pix plan execute`',
      'a schedule under a policy is made with `pix schedule create … --plan FILE`',
    );
  }
  const now = await accountNow(deps);
  const files = readApprovals(options.file);
  const opened = await openPlanWith(deps, plan, options.file, files, options.policy, now);
  const refusal = standingRefusal(opened, now) ?? refusalOf(review(opened, undefined));
  if (refusal !== undefined) {
    throw new PixError(
      'declined',
      `${shortPlanId(plan.id)} cannot be activated: ${refusal}; nothing was scheduled`,
      {
        hint: `the approvers run \`pix plan approve ${options.file}\` (see \`pix plan show ${options.file}\`)`,
      },
    );
  }
  const account = await accountOf(deps);
  if (!isAccountId(plan.account.id, account)) {
    throw new PixError(
      'declined',
      `the plan pays from the account of profile "${plan.account.profile}" via ${plan.account.api}; this is another account (profile "${account.profile}" via ${account.baseUrl}); nothing was scheduled`,
      { hint: 'activate it with credentials of the account it was made for (--profile)' },
    );
  }
  const store = await deps.stores.schedules();
  const known = (await store.read()).find((schedule) => schedule.id === terms.schedule);
  if (known !== undefined) return activeAlready(deps, known);
  const schedule: Schedule = {
    id: terms.schedule,
    account: account.id,
    profile: recordedAccount(account).profile,
    createdAt: now.toISOString(),
    ...(await approvedTarget(plan)),
    recurrence: terms.recurrence,
    time: terms.time,
    timeZone: terms.timeZone,
    state: 'active',
    standing: { plan, approvals: files.map(({ record }) => record) },
  };
  const coming = comingOccurrences(schedule, now, 3);
  const { stderr } = deps.io;
  stderr.write(
    `schedule ${schedule.id}: ${formatBRL(schedule.amountCentavos)} to ${receiverWords(schedule)}, ${ruleWords(schedule)}; standing plan ${shortPlanId(plan.id)} (${plan.total.rows} occurrence${plan.total.rows === 1 ? '' : 's'}, until ${formatForMessage(plan.expiresAt, schedule.timeZone)})\n`,
  );
  if (coming.length > 0)
    stderr.write(`next: ${coming.map((occurrence) => dueWords(schedule, occurrence)).join('; ')}\n`);
  refuseUnconfirmable(deps, { dryRun: false, allowDuplicate: false });
  if (!deps.globals.yes) {
    const yes = await ask(() =>
      deps.prompter.confirm(`Activate ${schedule.id}: ${plan.total.rows} payments as approved?`),
    );
    if (!yes) throw new PixError('declined', 'nothing was scheduled', { ownChoice: true });
  }
  if (!(await store.add(schedule))) {
    // Activated at the same moment elsewhere (the check above saw nothing yet): as activated twice, exit 0.
    const added = (await store.read()).find((each) => each.id === schedule.id);
    return activeAlready(deps, added ?? schedule);
  }
  // Occurrences whose window ended before now are skipped, not missed (as `pix schedule resume` does).
  let passed: string | undefined;
  for (const occurrence of eachOccurrence(schedule.recurrence)) {
    if (windowFor(schedule, occurrence).end > now.getTime()) break;
    passed = occurrence.date;
  }
  if (passed !== undefined) await store.settle(schedule.id, passed);
  const mode = await outputMode(deps, schedule.timeZone);
  if (mode.format === 'json') deps.io.stdout.write(jsonDocument(scheduleJson(schedule, coming), mode.pretty));
  else deps.io.stdout.write(`${schedule.id}\n`);
  stderr.write(
    `activated ${schedule.id}: each occurrence is judged again under the policy in force on its day, and paid by \`pix schedule run-due\` or \`pix schedule run\`\n`,
  );
}

export const verb = describeVerb({
  summary: 'start a schedule approved ahead: a standing plan (create --plan) approved with pix plan approve',
  examples: [
    'pix schedule activate rent.plan.json --yes',
    'pix schedule activate rent.plan.json --yes --json   # the schedule, with its next occurrences',
  ],
  exits: ['usage', 'auth', 'unavailable', 'declined'],
});

/** Activated twice (one after the other, or two at once): contract §8 says exit 0, nothing changed. */
function activeAlready(deps: Deps, known: Schedule): void {
  deps.io.stderr.write(`${known.id} is ${known.state} already: nothing changed\n`);
  deps.io.stdout.write(`${known.id}\n`);
}

/**
 * What the schedule pays, from its standing plan's rows of the first occurrence: a key's or a code's one
 * row, or a batch file's rows (each named after the date by its id; the plan's id covers them all).
 */
async function approvedTarget(
  plan: Plan,
): Promise<Pick<Schedule, 'target' | 'amountCentavos' | 'lines' | 'receiver' | 'description' | 'expect'>> {
  const first = parseOccurrenceRow(plan.rows[0]!.id)?.date;
  const { isDynamicCode } = await import('./make.js');
  const lines: ScheduleLine[] = plan.rows
    .filter((row) => parseOccurrenceRow(row.id)?.date === first)
    .map((row) => ({
      id: parseOccurrenceRow(row.id)?.line,
      target: row.key === undefined ? { code: row.emv!, dynamic: isDynamicCode(row.emv!) } : { key: row.key },
      amountCentavos: row.amountCentavos,
      description: row.description,
      receiver: row.receiver,
      expect: row.expect,
    }));
  const [one] = lines;
  if (one!.id === undefined) {
    const { target, amountCentavos, description, receiver, expect } = one!;
    return { target, amountCentavos, description, receiver, expect };
  }
  const file = plan.source ?? 'a batch file';
  return {
    target: { file, digest: plan.id.replace(/^sha256:/, '') },
    amountCentavos: lines.reduce((sum, line) => sum + line.amountCentavos, 0),
    lines,
    receiver: rowsReceiver(lines.length, file),
  };
}

export function register(command: Command, deps: Deps): void {
  command
    .argument('<FILE>', 'the standing plan written by `pix schedule create … --plan FILE`, approved')
    .option(...POLICY_OPTION)
    .action(async (file: string, _options, self: Command) => {
      await runScheduleActivate(
        parseOptions(activateOptionsSchema, { ...self.opts(), file }, { file: 'FILE' }),
        deps,
      );
    });
}
