import type { Command } from 'commander';
import { policyRefusal } from '../../approvals/inforce.js';
import { signVerdict } from '../../approvals/sign.js';
import type { Deps } from '../../context.js';
import type { Verdict } from '../../domain/plan.js';
import { PLAN_NAMESPACE } from '../../domain/policy.js';
import { formatForMessage } from '../../domain/when.js';
import { PixError } from '../../errors.js';
import { jsonDocument } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import {
  KEY_OPTION,
  type OpenedPlan,
  openPlan,
  POLICY_OPTION,
  planWords,
  policyFlag,
  review,
  statusWords,
} from '../shared/plan.js';

export const verdictOptionsSchema = z.object({
  file: z.string().check(z.minLength(1)),
  policy: policyFlag,
  key: z.optional(z.string().check(z.minLength(1, 'a key file is required'))),
  reason: z.optional(z.string().check(z.minLength(1, 'say why'), z.maxLength(500, 'at most 500 characters'))),
});

export type VerdictOptions = z.output<typeof verdictOptionsSchema>;

/** Exit 8 when approving the plan would be pointless: another policy's plan, or an expired one. */
function refuseStale(opened: OpenedPlan, now: Date): void {
  const { plan, inForce } = opened;
  if (!opened.samePolicy) {
    throw new PixError(
      'declined',
      `the plan was made under policy ${plan.policy.slice(0, 19)}, not ${inForce.policy.digest.slice(0, 19)} (${inForce.file}): nothing was signed`,
      { hint: 'ask for the plan to be made again under the policy in force' },
    );
  }
  if (Date.parse(plan.expiresAt) <= now.getTime())
    throw new PixError(
      'declined',
      `the plan expired at ${formatForMessage(plan.expiresAt, opened.timeZone)}: nothing was signed`,
      {
        hint: 'ask for a new plan',
      },
    );
}

/**
 * Signs the operator's verdict on a plan (`approve`, or `reject` with a reason) with their SSH key, in
 * namespace pix-plan, and keeps it beside the plan (one file per key). Needs no API token: only the
 * plan, the policy and a key. Prints the file it wrote (for `git add`).
 */
export async function runPlanVerdict(options: VerdictOptions, deps: Deps, verdict: Verdict): Promise<void> {
  const opened = await openPlan(deps, options.file, options.policy);
  const now = deps.clock.now();
  refuseStale(opened, now);
  const { plan, inForce } = opened;
  const { stderr, stdout } = deps.io;
  const policyNote = policyRefusal(inForce);
  if (policyNote !== undefined)
    stderr.write(`warning: ${safeText(policyNote, 300)}: the plan cannot be paid until it is\n`);
  const signed = await signVerdict(deps, {
    policy: inForce.policy,
    policyFile: inForce.file,
    subjectFile: options.file,
    subject: plan.id,
    namespace: PLAN_NAMESPACE,
    verdict,
    reason: options.reason,
    key: options.key,
  });
  const name = signed.approver.name;
  stderr.write(
    `${verdict === 'approve' ? 'approved' : 'refused'} ${planWords(plan)} as ${name} (${signed.record.key}, from ${signed.from})\n`,
  );
  const { maker } = opened.judged[0]!;
  if ('approver' in maker && maker.approver.name === name) {
    stderr.write(
      `warning: ${name} made this plan (their key signed it): the maker's own verdict does not count toward any rule\n`,
    );
  }
  // Opened again: the new verdict is read with the others, and remembered where verdicts seen are kept.
  const after = await openPlan(deps, options.file, options.policy);
  const status = statusWords(after, review(after, undefined), now);
  stderr.write(`plan status: ${safeText(status, 600)}\n`);
  if (deps.globals.json) {
    stdout.write(jsonDocument({ file: signed.file, approval: signed.record, status }, stdout.isTTY));
  } else {
    stdout.write(`${signed.file}\n`);
  }
}

export const verb = describeVerb({
  summary: "sign the plan's id with your SSH key (kept beside the plan, one file per key)",
  examples: [
    'pix plan approve payouts.plan.json                       # the key git signs commits with',
    'pix plan approve payouts.plan.json --key ~/.ssh/id_ecdsa     # another key',
    'git add "$(pix plan approve payouts.plan.json)" && git commit -m "approve payouts"',
  ],
  exits: ['usage', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<FILE>', 'the plan (pix pay … --plan FILE)')
    .option(...KEY_OPTION)
    .option(...POLICY_OPTION)
    .action(async (file: string, _options, self: Command) => {
      const options = parseOptions(verdictOptionsSchema, { ...self.opts(), file }, { file: 'FILE' });
      await runPlanVerdict(options, deps, 'approve');
    });
}
