/**
 * What the approvals kept beside a plan or a policy are worth under a policy: each signature verified
 * with pix's own verifier (domain/sshsig.ts) against the key the policy gives its signer and against
 * the subject's real id (an approval of another plan, replayed, verifies against nothing), then counted
 * by person (one person counts once, whatever keys they hold; the maker never counts for their own
 * plan), and set against the quorum of every rule that applies. Pure but for nothing: the caller reads
 * the files and gives the instant.
 */
import { InvalidValue } from '../domain/invalid.js';
import { type Plan, shortPlanId, verdictMessage } from '../domain/plan.js';
import {
  type Applying,
  type Approver,
  applyingRules,
  checkQuorum,
  describeMissing,
  isMaker,
  type Policy,
  type QuorumResult,
  type RowFacts,
} from '../domain/policy.js';
import { parseArmoredSignature, verifySshSig } from '../domain/sshsig.js';
import { usageError } from '../errors.js';
import type { ApprovalFile } from './files.js';

/** One approval file, judged. */
export interface Signoff {
  file: string;
  verdict: 'approve' | 'reject';
  reason?: string;
  at: string;
  /** The key that signed (from the signature itself). */
  fingerprint: string;
  /** The policy's approver who holds that key. */
  approver?: Approver;
  /** Whether it counts; when not, why. */
  counts: boolean;
  why?: string;
}

/**
 * Verifies each approval of `subject` (a plan's id, a policy's digest) in `namespace`. A file whose
 * signature cannot be read is exit 2 naming it; one that does not verify, or whose key is nobody's in
 * the policy, is kept with why it does not count.
 */
export function verifySignoffs(
  policy: Policy,
  subject: string,
  namespace: string,
  files: readonly ApprovalFile[],
  at: number,
): Signoff[] {
  const byKey = new Map<string, { approver: Approver; index: number }>();
  for (const approver of policy.approvers) {
    approver.keys.forEach((key, index) => {
      byKey.set(key.key.fingerprint, { approver, index });
    });
  }
  return files.map(({ file, record }) => {
    let signature: ReturnType<typeof parseArmoredSignature>;
    try {
      signature = parseArmoredSignature(record.signature, 'its signature');
    } catch (error) {
      if (error instanceof InvalidValue) throw usageError(file, error.message);
      throw error;
    }
    const fingerprint = signature.publicKey.fingerprint;
    const base = {
      file,
      verdict: record.verdict,
      ...(record.reason === undefined ? {} : { reason: record.reason }),
      at: record.at,
      fingerprint,
    };
    const holder = byKey.get(fingerprint);
    if (holder === undefined)
      return { ...base, counts: false, why: `key ${fingerprint} is no approver's in the policy` };
    const { approver, index } = holder;
    const message = verdictMessage(record.verdict, subject, record.reason);
    const result = verifySshSig(signature, message, namespace, approver.keys[index]!, at);
    if (!result.ok) {
      const why =
        record.subject !== subject
          ? `it is ${approver.name}'s ${record.verdict === 'approve' ? 'approval' : 'refusal'} of ${shortPlanId(record.subject)}, not of this one`
          : `${approver.name}'s signature does not verify: ${result.reason}`;
      return { ...base, approver, counts: false, why };
    }
    return { ...base, approver, counts: true };
  });
}

/** One rule that applies, and how far its quorum is met. */
export interface RuleStatus extends Applying {
  quorum: QuorumResult;
}

export interface Review {
  signoffs: Signoff[];
  /** Distinct approvers whose approval counts. */
  approvedBy: Approver[];
  /** Valid refusals: any one stops the plan. */
  rejectedBy: Signoff[];
  rules: RuleStatus[];
  /** Every rule that applies (night rules only when paid at night) is met and nobody refused. */
  approved: boolean;
}

/**
 * The plan's review under `policy`: its signoffs counted per person (the maker's do not count), refusals,
 * and each applying rule's quorum. `rows`: the facts the rules see (the plan's own, or those found again
 * at payment); `night`: whether it is paid at night (undefined before payment: night rules conditional).
 */
export function reviewPlan(
  policy: Policy,
  plan: Pick<Plan, 'maker'>,
  signoffs: Signoff[],
  rows: readonly RowFacts[],
  night: boolean | undefined,
): Review {
  const judged = signoffs.map((signoff): Signoff => {
    if (!signoff.counts || signoff.approver === undefined) return signoff;
    if (isMaker(signoff.approver, plan.maker))
      return {
        ...signoff,
        counts: false,
        why: `${signoff.approver.name} made this plan: the maker's own verdict does not count`,
      };
    return signoff;
  });
  const { rejectedBy, refusers, approvedBy } = tally(judged);
  const excluded = new Set([
    ...refusers,
    ...policy.approvers.filter((approver) => isMaker(approver, plan.maker)).map((approver) => approver.name),
  ]);
  const rules = applyingRules(policy, rows, night).map((applying) => ({
    ...applying,
    quorum: checkQuorum(policy, applying.rule.require, approvedBy, excluded),
  }));
  const approved = rejectedBy.length === 0 && rules.every((rule) => rule.ifNight || rule.quorum.met);
  return { signoffs: judged, approvedBy, rejectedBy, rules, approved };
}

/**
 * The signoffs that count, by person: valid refusals (any one stops the subject), and the distinct
 * approvers who approved and did not also refuse (one person counts once, whatever keys they hold).
 */
function tally(signoffs: readonly Signoff[]): {
  rejectedBy: Signoff[];
  refusers: Set<string>;
  approvedBy: Approver[];
} {
  const rejectedBy = signoffs.filter((s) => s.counts && s.verdict === 'reject');
  const refusers = new Set(rejectedBy.map((s) => s.approver!.name));
  const approvers = new Map<string, Approver>();
  for (const s of signoffs) {
    if (s.counts && s.verdict === 'approve' && !refusers.has(s.approver!.name))
      approvers.set(s.approver!.name, s.approver!);
  }
  return { rejectedBy, refusers, approvedBy: [...approvers.values()] };
}

/** The first reason a review stops a plan, in words: a refusal, or a rule and what it still needs. */
export function refusalOf(review: Review): string | undefined {
  const refusal = review.rejectedBy[0];
  if (refusal !== undefined) {
    const reason = refusal.reason === undefined ? '' : `: ${refusal.reason}`;
    return `${refusal.approver!.name} refused the plan${reason}`;
  }
  const unmet = review.rules.find((rule) => !rule.ifNight && !rule.quorum.met);
  if (unmet === undefined) return undefined;
  const why = unmet.why === 'every plan' ? '' : `; ${unmet.why}`;
  return `rule "${unmet.rule.name}" (${unmet.rule.require.text}${why}) needs ${describeMissing(unmet.quorum.missing)}`;
}

/** The policy's own review: the admins' quorum (`policy-change`) over its approvals in `pix-policy`. */
export function reviewPolicy(
  policy: Policy,
  signoffs: Signoff[],
): { approved: boolean; quorum: QuorumResult; rejectedBy: Signoff[] } {
  const { rejectedBy, refusers, approvedBy } = tally(signoffs);
  const quorum = checkQuorum(policy, policy.policyChange, approvedBy, refusers);
  return { approved: rejectedBy.length === 0 && quorum.met, quorum, rejectedBy };
}
