/**
 * Signing a verdict — an approval or a refusal of a plan, an approval of a policy — or a plan its maker
 * makes, with the operator's
 * SSH key (operator.ts: ssh-keygen does the signing), checked with pix's own verifier before it is kept
 * (a key or agent that signs something else is caught here, not at payment), then written beside the
 * subject, one file per key (files.ts).
 */
import type { Deps } from '../context.js';
import { type Verdict, verdictMessage } from '../domain/plan.js';
import type { Approver, Policy } from '../domain/policy.js';
import { parseArmoredSignature, verifySshSig } from '../domain/sshsig.js';
import { PixError } from '../errors.js';
import { APPROVAL_FORMAT, type ApprovalRecord, writeApproval } from './files.js';
import { findSigningKey, type SigningKey, signWith } from './operator.js';

export interface SignedVerdict {
  /** Where it was written. */
  file: string;
  record: ApprovalRecord;
  approver: Approver;
  /** Where the key came from (`--key`, git's user.signingkey, ssh-agent). */
  from: string;
}

/**
 * Signs `message` with the key (ssh-keygen) and verifies the signature with pix's own verifier against the
 * key as the policy gives it: a key or an agent that signs something else is caught here, not at payment.
 */
export async function signChecked(
  deps: Deps,
  key: SigningKey,
  namespace: string,
  message: Buffer,
): Promise<string> {
  const signature = await signWith(deps, key, namespace, message);
  const signer = key.approver.keys.find((k) => k.key.blob.equals(key.publicKey.blob))!;
  const checked = verifySshSig(
    parseArmoredSignature(signature, 'the signature ssh-keygen made'),
    message,
    namespace,
    signer,
    deps.clock.now().getTime(),
  );
  if (!checked.ok) {
    throw new PixError(
      'usage',
      `the signature made with ${key.publicKey.fingerprint} does not verify: ${checked.reason}`,
      { hint: 'check the key (and, for a security key, that it was touched)' },
    );
  }
  return signature;
}

export async function signVerdict(
  deps: Deps,
  request: {
    policy: Policy;
    policyFile: string;
    /** The file the verdict is kept beside. */
    subjectFile: string;
    /** The plan's id, or the policy's digest. */
    subject: string;
    namespace: string;
    verdict: Verdict;
    reason?: string | undefined;
    key: string | undefined;
    /** Throws when the key's holder may not give this verdict (checked before anything is signed). */
    check?(approver: Approver): void;
  },
): Promise<SignedVerdict> {
  const key = await findSigningKey(deps, request.policy, request.policyFile, request.key);
  try {
    request.check?.(key.approver);
    // The time is signed with the verdict: of one key's verdicts the newest counts (review.ts).
    const at = deps.clock.now().toISOString();
    const message = verdictMessage(request.verdict, request.subject, at, request.reason);
    const signature = await signChecked(deps, key, request.namespace, message);
    const record: ApprovalRecord = {
      'pix-approval': APPROVAL_FORMAT,
      verdict: request.verdict,
      subject: request.subject,
      ...(request.reason === undefined ? {} : { reason: request.reason.replace(/\s+/g, ' ').trim() }),
      by: key.approver.name,
      key: key.publicKey.fingerprint,
      at,
      signature,
    };
    const file = writeApproval(request.subjectFile, record);
    return { file, record, approver: key.approver, from: key.from };
  } finally {
    key.cleanup();
  }
}
