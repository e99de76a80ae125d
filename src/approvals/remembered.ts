/**
 * What the approvals' stores hold and promise (stores.ts chooses one; postgres.ts is the shared ledger's):
 * the verdicts seen and the policies enforced on an account, as records, and how a verdict is known.
 */
import { createHash } from 'node:crypto';
import { PixError } from '../errors.js';
import type { ApprovalRecord } from './files.js';

/** A verdict a store has seen. */
export interface StoredVerdict {
  record: ApprovalRecord;
  /** When this store first saw it (its own clock). */
  seenAt: string;
}

/** A policy put in force for an account by `pix policy enforce`. */
export interface PolicyRecord {
  account: string;
  digest: string;
  /** The digest of the policy it replaced (none for the first). */
  previous?: string;
  /** The policy as enforced: its canonical JSON, so every machine reads the same policy. */
  policy: string;
  /** Approvals of its digest (namespace pix-policy): its admins', and the previous policy's admins'. */
  approvals: ApprovalRecord[];
  at: string;
  /** Who enforced it, for people: the signer's name and the machine. */
  by: string;
}

export interface ApprovalStores {
  /** `the shared ledger postgres://HOST:PORT/DB`, or `this config directory (DIR)`. */
  where: string;
  /** Keeps `records` (verdicts of `subject`, verified by the caller), each once; every verdict known of it. */
  remember(namespace: string, subject: string, records: readonly ApprovalRecord[]): Promise<StoredVerdict[]>;
  /** Every policy enforced on the account, oldest first. */
  policies(account: string): Promise<PolicyRecord[]>;
  /**
   * Records a policy in force, only while the account still has `count` records (what the caller read and
   * judged); otherwise exit 8: another enforce came first.
   */
  enforce(record: PolicyRecord, count: number): Promise<void>;
}

/** A verdict is known by its signature: the same verdict read from a file and a store is one. */
export function verdictDigest(record: Pick<ApprovalRecord, 'signature'>): string {
  return createHash('sha256').update(record.signature.replace(/\s+/g, ''), 'utf8').digest('hex');
}

/** Exit 8: another `pix policy enforce` recorded a policy since this one read the newest. */
export function enforcedMeanwhile(where: string): PixError {
  return new PixError('declined', `another policy was enforced on ${where} meanwhile; nothing was recorded`, {
    hint: 'run `pix policy show` and enforce again if this policy is still the one to bind',
  });
}
