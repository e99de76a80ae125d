/**
 * What the approvals remember beyond the files in the repository (one of the stores the wiring chooses,
 * src/wiring-stores.ts: file or PostgreSQL):
 *
 * - **Verdicts seen.** Every verdict of a plan a pix has read and verified is kept, each once (by its
 *   signature), with when it was seen. Of one key's verdicts the newest counts (review.ts), so an older
 *   approval file restored after a refusal was seen is older than that refusal and does not count. On the
 *   shared ledger every machine sees what any of them saw; with files only, the config directory of the
 *   machine that read it (docs/approvals.md says what a restored file can and cannot do then).
 * - **The policy in force for an account.** `pix policy enforce` records a policy (its canonical text and
 *   the admins' approvals of its digest, the previous policy's admins' among them) for the account as the
 *   API identifies it; every payment of that account obeys it, whatever the profile, flags or environment.
 *   Each record names the one before it, and is written only while that one is still the newest.
 *
 * Nothing here is trusted as written: a store is something a person with the database role or the
 * config directory can write to, so every verdict and every policy record is verified again when read
 * (enforced.ts, review.ts). Records hold no secret.
 */
import { join } from 'node:path';
import type { Deps } from '../context.js';
import { InvalidValue } from '../domain/invalid.js';
import { parseJsonSource } from '../domain/jsonsource.js';
import { PixError } from '../errors.js';
import { appendPrivateLine } from '../storage/append.js';
import { ensurePrivateDir } from '../storage/dirs.js';
import { readPrivateFile } from '../storage/files.js';
import { withFileLock } from '../storage/locks.js';
import { approvalOf } from './files.js';
import {
  type ApprovalStores,
  enforcedMeanwhile,
  type PolicyRecord,
  type StoredVerdict,
  verdictDigest,
} from './remembered.js';

export type { ApprovalStores, PolicyRecord, StoredVerdict } from './remembered.js';

// ---------------------------------------------------------------------------------------------
// Files

export const VERDICTS_FILE = 'verdicts.jsonl';
export const POLICIES_FILE = 'policies.jsonl';

/**
 * The lines of one of these files, read without a prototype (domain/jsonsource.ts). A last line without
 * its newline is one whose writer died mid-write: it was never recorded. Any other line that cannot be
 * read is exit 8 naming the file: a damaged record of a policy in force is never read as no policy.
 */
function readRecords(path: string): unknown[] {
  const text = readPrivateFile(path) ?? '';
  // The piece after the last newline is empty, or a line whose writer died mid-write.
  return text
    .split('\n')
    .slice(0, -1)
    .flatMap((line, index) => {
      if (line.trim() === '') return [];
      try {
        return [parseJsonSource(line).value];
      } catch (error) {
        if (!(error instanceof InvalidValue)) throw error;
        throw new PixError('declined', `${path} line ${index + 1} cannot be read (${error.message})`, {
          hint: 'restore the file from a backup: pix refuses to guess what it held',
        });
      }
    });
}

/** The verdicts and policies of the config directory `dir` (the wiring's choice on a file ledger). */
export function fileApprovalStores(dir: string, deps: Deps): ApprovalStores {
  const verdicts = join(dir, VERDICTS_FILE);
  const policies = join(dir, POLICIES_FILE);
  const host = { clock: deps.clock, random: deps.random, processes: deps.processes };
  const storedVerdicts = (): Array<StoredVerdict & { namespace: string; subject: string }> =>
    readRecords(verdicts).flatMap((value) => {
      const line = value as Record<string, unknown>;
      const read = approvalOf(line.record);
      const { namespace, subject, seenAt } = line;
      if ('problem' in read || typeof namespace !== 'string' || typeof subject !== 'string') return [];
      return [{ record: read.record, namespace, subject, seenAt: typeof seenAt === 'string' ? seenAt : '' }];
    });
  const storedPolicies = (account: string): PolicyRecord[] =>
    readRecords(policies)
      .map((value) => value as PolicyRecord)
      .filter((record) => record.account === account);
  return {
    where: `this config directory (${dir})`,
    async remember(namespace, subject, records) {
      ensurePrivateDir(dir);
      return withFileLock(verdicts, 'the verdicts seen', host, async () => {
        const known = storedVerdicts();
        const have = new Set(known.map((verdict) => verdictDigest(verdict.record)));
        const seenAt = deps.clock.now().toISOString();
        for (const record of records) {
          const digest = verdictDigest(record);
          if (have.has(digest)) continue;
          have.add(digest);
          appendPrivateLine(verdicts, `${JSON.stringify({ namespace, subject, seenAt, record })}\n`);
          known.push({ record, namespace, subject, seenAt });
        }
        return known
          .filter((verdict) => verdict.namespace === namespace && verdict.subject === subject)
          .map(({ record, seenAt: at }) => ({ record, seenAt: at }));
      });
    },
    policies: async (account) => storedPolicies(account),
    async enforce(record, count) {
      ensurePrivateDir(dir);
      await withFileLock(policies, 'the policies in force', host, async () => {
        if (storedPolicies(record.account).length !== count)
          throw enforcedMeanwhile(`this config directory (${dir})`);
        appendPrivateLine(policies, `${JSON.stringify(record)}\n`);
      });
    },
  };
}
