/**
 * What the verdicts kept beside a plan or a policy (and those a store of verdicts has seen: stores.ts) are
 * worth under a policy: each signature verified with pix's own verifier (domain/sshsig.ts) against the key
 * the policy gives its signer, the subject's real id and the time it says it was signed (an approval of
 * another plan, replayed, verifies against nothing); of one key's verdicts the newest counts (an older one,
 * restored, is named as older); then counted by person (one person counts once, whatever keys they hold;
 * the maker — the person whose key signed the plan — never counts for their own plan), and set against
 * the quorum of every rule that applies. Pure: the caller reads the files and stores and gives the instant.
 */
import { InvalidValue } from '../domain/invalid.js';
import { makerMessage, type Plan, shortPlanId, verdictMessage } from '../domain/plan.js';
import {
  type Applying,
  type Approver,
  applyingRules,
  checkQuorum,
  describeMissing,
  PLAN_NAMESPACE,
  type Policy,
  type QuorumResult,
  type RowFacts,
} from '../domain/policy.js';
import { parseArmoredSignature, verifySshSig } from '../domain/sshsig.js';
import { usageError } from '../errors.js';
import type { ApprovalRecord } from './files.js';

/** A verdict to judge, and where it was found (a file beside the subject, or a store of verdicts). */
export interface VerdictSource {
  /** The file, or the store that kept it (`the shared ledger postgres://…`), as shown to people. */
  file: string;
  record: ApprovalRecord;
  /** Found only in a store: its file is gone or was replaced. */
  stored?: boolean;
}

/** One verdict, judged. */
export interface Signoff {
  file: string;
  verdict: 'approve' | 'reject';
  reason?: string;
  /** When it was signed (part of what is signed). */
  at: string;
  /** The key that signed (from the signature itself). */
  fingerprint: string;
  /** The policy's approver who holds that key. */
  approver?: Approver;
  /** Whether it counts; when not, why. */
  counts: boolean;
  why?: string;
  /** The same key's newer verdict, when this one is older: of one key's verdicts the newest counts. */
  supersededBy?: Signoff;
  /** The verdict as signed. */
  record: ApprovalRecord;
}

const signatureOf = (record: ApprovalRecord, file: string) => {
  try {
    return parseArmoredSignature(record.signature, 'its signature');
  } catch (error) {
    if (error instanceof InvalidValue) throw usageError(file, error.message);
    throw error;
  }
};

/** The approver the policy gives a key, and which of their keys it is. */
function holderOf(policy: Policy, fingerprint: string) {
  for (const approver of policy.approvers) {
    const index = approver.keys.findIndex((key) => key.key.fingerprint === fingerprint);
    if (index >= 0) return { approver, signer: approver.keys[index]! };
  }
  return undefined;
}

const newer = (a: Signoff, b: Signoff) =>
  a.at > b.at || (a.at === b.at && a.verdict === 'reject' && b.verdict !== 'reject');

/**
 * Verifies each verdict of `subject` (a plan's id, a policy's digest) in `namespace`. A file whose
 * signature cannot be read is exit 2 naming it; one that does not verify, or whose key is nobody's in
 * the policy, is kept with why it does not count. The same verdict found twice (a file and a store) is
 * judged once, as the file. Of one key's verdicts only the newest counts: the older ones are kept with
 * the newer one that supersedes them.
 */
export function verifySignoffs(
  policy: Policy,
  subject: string,
  namespace: string,
  sources: readonly VerdictSource[],
  at: number,
): Signoff[] {
  const seen = new Set<string>();
  const unique = sources.filter(({ record }) => {
    const key = record.signature.replace(/\s+/g, '');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const judged = unique.map(({ file, record }): Signoff => {
    const signature = signatureOf(record, file);
    const fingerprint = signature.publicKey.fingerprint;
    const base = {
      file,
      record,
      verdict: record.verdict,
      ...(record.reason === undefined ? {} : { reason: record.reason }),
      at: record.at,
      fingerprint,
    };
    const holder = holderOf(policy, fingerprint);
    if (holder === undefined)
      return { ...base, counts: false, why: `key ${fingerprint} is no approver's in the policy` };
    const { approver, signer } = holder;
    const message = verdictMessage(record.verdict, subject, record.at, record.reason);
    const result = verifySshSig(signature, message, namespace, signer, at);
    if (!result.ok) {
      const why =
        record.subject !== subject
          ? `it is ${approver.name}'s ${record.verdict === 'approve' ? 'approval' : 'refusal'} of ${shortPlanId(record.subject)}, not of this one`
          : `${approver.name}'s signature does not verify: ${result.reason}`;
      return { ...base, approver, counts: false, why };
    }
    return { ...base, approver, counts: true };
  });
  // Of one key's verdicts, the newest counts.
  const newest = new Map<string, Signoff>();
  for (const signoff of judged) {
    if (!signoff.counts) continue;
    const known = newest.get(signoff.fingerprint);
    if (known === undefined || newer(signoff, known)) newest.set(signoff.fingerprint, signoff);
  }
  return judged.map((signoff) => {
    const latest = newest.get(signoff.fingerprint);
    if (!signoff.counts || latest === undefined || latest === signoff) return signoff;
    return {
      ...signoff,
      counts: false,
      supersededBy: latest,
      why: `older than ${signoff.approver!.name}'s ${words(latest)} (${latest.file}): of one key's verdicts the newest counts`,
    };
  });
}

/** `refusal of 2026-03-10T12:30:00.000Z`. */
function words(signoff: Signoff): string {
  return `${signoff.verdict === 'approve' ? 'approval' : 'refusal'} of ${signoff.at}`;
}

// ---------------------------------------------------------------------------------------------
// The maker

/** Who made the plan, as the policy knows people: the holder of the key that signed it, or why none. */
export type MakerCheck = { approver: Approver } | { problem: string };

/**
 * The maker's signature of the plan (`make <id>` at its createdAt, namespace pix-plan), by the key the plan
 * names, verified against that key as the policy gives it. Names and e-mails are labels: the maker is the
 * person whose key signed. A plan signed by a key the policy does not know, or not by the key it names,
 * has no maker this policy can tell, and cannot be paid under it.
 */
export function checkMaker(policy: Policy, plan: Plan, at: number): MakerCheck {
  let signature: ReturnType<typeof parseArmoredSignature>;
  try {
    signature = parseArmoredSignature(plan.signature, "the maker's signature");
  } catch (error) {
    if (error instanceof InvalidValue) return { problem: error.message };
    throw error;
  }
  const fingerprint = signature.publicKey.fingerprint;
  if (fingerprint !== plan.maker.key)
    return { problem: `the plan names maker key ${plan.maker.key} but was signed by ${fingerprint}` };
  const holder = holderOf(policy, fingerprint);
  if (holder === undefined)
    return {
      problem: `the maker's key ${fingerprint} is no one's in the policy: the policy cannot tell who made it`,
    };
  const result = verifySshSig(signature, makerMessage(plan), PLAN_NAMESPACE, holder.signer, at);
  if (!result.ok) return { problem: `the maker's signature does not verify: ${result.reason}` };
  return { approver: holder.approver };
}

// ---------------------------------------------------------------------------------------------
// The review

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
 * The plan's review under `policy`: its signoffs counted per person (the maker's, by any of their keys, do
 * not count), refusals, and each applying rule's quorum. `maker`: the person whose key signed the plan
 * (undefined when the policy cannot tell: nobody is then left out, and the plan is refused elsewhere);
 * `rows`: the facts the rules see (the plan's own, or those found again at payment); `night`: whether it is
 * paid at night (undefined before payment: night rules conditional).
 */
export function reviewPlan(
  policy: Policy,
  maker: Approver | undefined,
  signoffs: Signoff[],
  rows: readonly RowFacts[],
  night: boolean | undefined,
): Review {
  const judged = signoffs.map((signoff): Signoff => {
    if (!signoff.counts || signoff.approver === undefined) return signoff;
    if (maker !== undefined && signoff.approver.name === maker.name)
      return {
        ...signoff,
        counts: false,
        why: `${signoff.approver.name} made this plan (their key signed it): the maker's own verdict does not count`,
      };
    return signoff;
  });
  const { rejectedBy, refusers, approvedBy } = tally(judged);
  const excluded = new Set([...refusers, ...(maker === undefined ? [] : [maker.name])]);
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

/**
 * The first reason a review stops a plan, in words: a refusal (naming an older approval of the same key
 * it supersedes: a restored file), or a rule and what it still needs.
 */
export function refusalOf(review: Review): string | undefined {
  const refusal = review.rejectedBy[0];
  if (refusal !== undefined) {
    const reason = refusal.reason === undefined ? '' : `: ${refusal.reason}`;
    const older = review.signoffs.find((s) => s.supersededBy === refusal && s.verdict === 'approve');
    const restored =
      older === undefined
        ? ''
        : `; ${refusal.approver!.name}'s approval of ${older.at} (${older.file}) is older than that refusal and does not count`;
    return `${refusal.approver!.name} refused the plan at ${refusal.at} (${refusal.file})${reason}${restored}`;
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
