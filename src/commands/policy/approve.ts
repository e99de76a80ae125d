import type { Command } from 'commander';
import { loadPolicy } from '../../approvals/inforce.js';
import { signVerdict } from '../../approvals/sign.js';
import type { Deps } from '../../context.js';
import { ADMINS, describeMissing, POLICY_NAMESPACE } from '../../domain/policy.js';
import { usageError } from '../../errors.js';
import { jsonDocument } from '../../output/format.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { KEY_OPTION } from '../shared/plan.js';

const approveOptionsSchema = z.object({
  file: z.optional(z.string().check(z.minLength(1))),
  key: z.optional(z.string().check(z.minLength(1, 'a key file is required'))),
});

export type PolicyApproveOptions = z.output<typeof approveOptionsSchema>;

/**
 * An admin signs the policy's digest (namespace pix-policy) with their SSH key; the approval is kept
 * beside the policy. pix uses a policy only once the admins' quorum (`policy-change`) has signed its
 * digest: a policy edited since counts none of the signatures of the old one.
 */
export async function runPolicyApprove(options: PolicyApproveOptions, deps: Deps): Promise<void> {
  const before = await loadPolicy(deps, options.file, 'FILE');
  const { policy, file } = before;
  const signed = await signVerdict(deps, {
    policy,
    policyFile: file,
    subjectFile: file,
    subject: policy.digest,
    namespace: POLICY_NAMESPACE,
    verdict: 'approve',
    key: options.key,
    check(approver) {
      if (!approver.groups.includes(ADMINS))
        throw usageError(
          '--key',
          `${approver.name} is not in ${ADMINS}: only the admins approve a policy; nothing was signed`,
        );
    },
  });
  const { stderr, stdout } = deps.io;
  const after = await loadPolicy(deps, file);
  const status = after.review.approved
    ? 'in force: approved by its admins'
    : `not in force yet: it needs ${describeMissing(after.review.quorum.missing)}`;
  stderr.write(
    `approved policy ${policy.digest.slice(0, 19)} (${file}) as ${signed.approver.name} (${signed.record.key}); ${status}\n`,
  );
  if (deps.globals.json)
    stdout.write(jsonDocument({ file: signed.file, approval: signed.record, status }, stdout.isTTY));
  else stdout.write(`${signed.file}\n`);
}

export const verb = describeVerb({
  summary: "sign the policy's digest with your SSH key (admins)",
  examples: ['pix policy approve pix-policy.json', 'git add "$(pix policy approve pix-policy.json)"'],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('[FILE]', "the policy (default: the profile's `policy` setting)")
    .option(...KEY_OPTION)
    .action(async (file: string | undefined, _options, self: Command) => {
      const options = parseOptions(approveOptionsSchema, { ...self.opts(), file }, { file: 'FILE' });
      await runPolicyApprove(options, deps);
    });
}
