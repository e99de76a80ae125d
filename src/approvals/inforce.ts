/**
 * The policy a command works under: `--policy FILE`, else the profile's `policy` setting; read, checked,
 * and its own approvals verified (the admins' quorum over its digest, namespace `pix-policy`). Paying
 * and planning refuse a policy the admins have not approved (exit 8): a policy loosened by whoever can
 * edit the file is not in force until they sign it.
 */
import type { Deps } from '../context.js';
import { describeMissing, POLICY_NAMESPACE, type Policy } from '../domain/policy.js';
import { PixError, usageError } from '../errors.js';
import { readApprovals, readPolicyFile } from './files.js';
import { reviewPolicy, type Signoff, verifySignoffs } from './review.js';

export interface PolicyInForce {
  file: string;
  policy: Policy;
  signoffs: Signoff[];
  review: ReturnType<typeof reviewPolicy>;
}

/**
 * The policy file (`given`, else the profile's) and what its approvals are worth now. `where`: how the
 * command takes a policy, for the error when there is none (`--policy FILE`, or `FILE`).
 */
export async function loadPolicy(
  deps: Deps,
  given: string | undefined,
  where: '--policy' | 'FILE' = '--policy',
): Promise<PolicyInForce> {
  const file = given ?? (await deps.settings()).policy;
  if (file === undefined) {
    throw usageError(
      where,
      `no payment policy: pass ${where === 'FILE' ? 'the file' : '--policy FILE'}`,
      "or set the profile's: `pix config set policy FILE`",
    );
  }
  const { policy } = readPolicyFile(file);
  const signoffs = verifySignoffs(
    policy,
    policy.digest,
    POLICY_NAMESPACE,
    readApprovals(file),
    deps.clock.now().getTime(),
  );
  return { file, policy, signoffs, review: reviewPolicy(policy, signoffs) };
}

/** Why the policy is not in force, or undefined when its admins approved it. */
export function policyRefusal(inForce: PolicyInForce): string | undefined {
  const { review, file, policy } = inForce;
  if (review.approved) return undefined;
  const refusal = review.rejectedBy[0];
  if (refusal !== undefined)
    return `the policy ${file} (${policy.digest.slice(0, 19)}) was refused by ${refusal.approver!.name}`;
  return `the policy ${file} (${policy.digest.slice(0, 19)}) is not approved by its admins: it needs ${describeMissing(review.quorum.missing)}`;
}

/** Exit 8 unless the policy is in force. */
export function requireInForce(inForce: PolicyInForce): void {
  const refusal = policyRefusal(inForce);
  if (refusal === undefined) return;
  throw new PixError('declined', `${refusal}; nothing was sent`, {
    hint: `each admin signs it with \`pix policy approve ${inForce.file}\``,
  });
}
