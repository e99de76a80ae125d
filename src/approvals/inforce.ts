/**
 * The policies a command works under.
 *
 * - **The policy bound to the account** (`pix policy enforce`, stores.ts): recorded for the account as the
 *   API identifies it, on the shared ledger for every machine or in the config directory for every profile
 *   of that account. It binds whatever the profile, the flags or the environment say; it is read again and
 *   verified each time (its own admins approved its digest, and each replacement was approved by the admins
 *   of the policy it replaced): a record that does not hold is ignored, loudly, and the one before it binds.
 * - **A policy file**: `--policy FILE`, else the profile's `policy` setting; read, checked, and its own
 *   approvals verified (the admins' quorum over its digest, namespace `pix-policy`). Without a bound policy
 *   it is the one in force; with one, it can only add to it (tighten, never loosen): both apply.
 *
 * Paying and planning refuse a policy the admins have not approved (exit 8): a policy loosened by whoever
 * can edit the file is not in force until they sign it.
 */
import type { Deps } from '../context.js';
import { InvalidValue } from '../domain/invalid.js';
import { describeMissing, POLICY_NAMESPACE, type Policy } from '../domain/policy.js';
import { parsePolicy } from '../domain/policyfile.js';
import { PixError, usageError } from '../errors.js';
import { safeText } from '../output/sanitize.js';
import { readApprovals, readPolicyFile } from './files.js';
import { reviewPolicy, type Signoff, verifySignoffs } from './review.js';
import type { PolicyRecord } from './stores.js';

export interface PolicyInForce {
  /** The file, or `the policy enforced on the account (STORE)`: how messages name it. */
  file: string;
  policy: Policy;
  signoffs: Signoff[];
  review: ReturnType<typeof reviewPolicy>;
  /** Set for the policy bound to the account: when, by whom, and where it is recorded. */
  enforced?: { at: string; by: string; where: string };
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

/** Whether `approvals` give `policy`'s admins' quorum over `digest`; when not, what is missing. */
export function approvedBy(
  policy: Policy,
  digest: string,
  approvals: PolicyRecord['approvals'],
  at: number,
  where: string,
): { signoffs: Signoff[]; review: ReturnType<typeof reviewPolicy> } {
  const signoffs = verifySignoffs(
    policy,
    digest,
    POLICY_NAMESPACE,
    approvals.map((record) => ({ file: where, record })),
    at,
  );
  return { signoffs, review: reviewPolicy(policy, signoffs) };
}

/** The chain of an account's records, judged: the one that binds, and the records that do not hold. */
export interface EnforcedChain {
  /** The newest record that holds, read as a policy: what binds the account. */
  current?: PolicyInForce & { record: PolicyRecord };
  /** How many records the store holds for the account (a new one is written only while this is so). */
  count: number;
  ignored: Array<{ record: PolicyRecord; why: string }>;
}

/**
 * Walks the account's records in order: the first must carry its own admins' quorum, each later one also
 * the quorum of the admins of the one it replaces (named by `previous`). A record that does not hold
 * (written by hand, or its approvals do not verify) is ignored: the one before it still binds.
 */
export async function enforcedChain(deps: Deps, account: string): Promise<EnforcedChain> {
  const stores = await deps.stores.approvals();
  const records = await stores.policies(account);
  const at = deps.clock.now().getTime();
  const chain: EnforcedChain = { count: records.length, ignored: [] };
  for (const record of records) {
    const where = `the policy enforced on account ${account} (${stores.where})`;
    let policy: Policy;
    try {
      policy = parsePolicy(record.policy, where);
    } catch (error) {
      if (!(error instanceof InvalidValue)) throw error;
      chain.ignored.push({ record, why: error.message });
      continue;
    }
    const current = chain.current;
    const own = approvedBy(policy, policy.digest, record.approvals, at, where);
    const why =
      policy.digest !== record.digest
        ? 'its text is not the policy its digest names'
        : (record.previous ?? undefined) !== current?.policy.digest
          ? `it replaces ${record.previous ?? 'no policy'}, and the policy in force was ${current?.policy.digest ?? 'none'}`
          : !own.review.approved
            ? `its own admins did not approve it (it needs ${describeMissing(own.review.quorum.missing)})`
            : current !== undefined &&
                !approvedBy(current.policy, policy.digest, record.approvals, at, where).review.approved
              ? `the admins of the policy it replaces did not approve it (${current.policy.policyChange.text})`
              : undefined;
    if (why !== undefined) {
      chain.ignored.push({ record, why });
      continue;
    }
    chain.current = {
      file: where,
      policy,
      signoffs: own.signoffs,
      review: own.review,
      enforced: { at: record.at, by: record.by, where: stores.where },
      record,
    };
  }
  return chain;
}

/** The policy bound to the account, or undefined; a record that does not hold is said once on stderr. */
export async function enforcedPolicy(deps: Deps, account: string): Promise<PolicyInForce | undefined> {
  const chain = await enforcedChain(deps, account);
  for (const { record, why } of chain.ignored) {
    deps.io.stderr.write(
      `warning: a policy record of this account (${record.digest.slice(0, 19)}, ${safeText(record.by, 80)}) does not hold and is ignored: ${safeText(why, 300)}\n`,
    );
  }
  return chain.current;
}

/**
 * Every policy a command works under, the binding one first: the account's (when `account` is known and
 * one is enforced), then the file (`given`, else the profile's) when it is another policy. With neither,
 * exit 2 naming how to give one.
 */
export async function policiesFor(
  deps: Deps,
  account: string | undefined,
  given: string | undefined,
  where: '--policy' | 'FILE' = '--policy',
): Promise<PolicyInForce[]> {
  const bound = account === undefined ? undefined : await enforcedPolicy(deps, account);
  const file = given ?? (await deps.settings()).policy;
  if (bound === undefined) return [await loadPolicy(deps, given, where)];
  if (file === undefined) return [bound];
  const extra = await loadPolicy(deps, file, where);
  return extra.policy.digest === bound.policy.digest ? [bound] : [bound, extra];
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
