/**
 * `pix policy enforce [FILE]`: the policy binds the account (docs/approvals.md, "The policy binds the
 * account"). Recorded for the account as the API identifies it — on the shared ledger for every machine, in
 * the config directory for every profile of the account otherwise (approvals/stores.ts) — after checking it
 * carries its own admins' quorum (`policy-change`) and, when it replaces a policy in force, the quorum of
 * that policy's admins too: nobody loosens a bound policy by writing one that names themselves its admins.
 * From then on every payment of the account obeys it, whatever the profile, the flags or the environment.
 * Needs no key: the admins signed already (`pix policy approve FILE`); it needs the account (its credentials).
 */
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { readApprovals, readPolicyFile } from '../../approvals/files.js';
import { approvedBy, enforcedChain, loadPolicy, requireInForce } from '../../approvals/inforce.js';
import type { Deps } from '../../context.js';
import { describeMissing } from '../../domain/policy.js';
import { PixError } from '../../errors.js';
import { jsonDocument } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { boundWords } from './show.js';

const enforceOptionsSchema = z.object({ file: z.optional(z.string().check(z.minLength(1))) });

export type PolicyEnforceOptions = z.output<typeof enforceOptionsSchema>;

export async function runPolicyEnforce(options: PolicyEnforceOptions, deps: Deps): Promise<void> {
  const given = await loadPolicy(deps, options.file, 'FILE');
  requireInForce(given);
  const { policy, file } = given;
  const account = await accountOf(deps);
  const chain = await enforcedChain(deps, account.id);
  const current = chain.current;
  const stores = await deps.stores.approvals();
  const { stderr, stdout } = deps.io;
  const now = deps.clock.now();
  if (current?.policy.digest === policy.digest) {
    stderr.write(
      `policy ${policy.digest.slice(0, 19)} (${file}) binds this account already (${stores.where})\n`,
    );
  } else {
    const approvals = readApprovals(file).map(({ record }) => record);
    if (current !== undefined) {
      const byThem = approvedBy(current.policy, policy.digest, approvals, now.getTime(), file);
      if (!byThem.review.approved) {
        throw new PixError(
          'declined',
          `the policy in force on this account (${current.policy.digest.slice(0, 19)}, since ${current.enforced!.at}) is replaced only with its own admins' approval (${current.policy.policyChange.text}): ${file} needs ${describeMissing(byThem.review.quorum.missing)}; nothing was recorded`,
          { hint: `they sign it with \`pix policy approve ${file}\`` },
        );
      }
    }
    const signer = given.signoffs.find((s) => s.counts)?.approver?.name ?? '?';
    await stores.enforce(
      {
        account: account.id,
        digest: policy.digest,
        ...(current === undefined ? {} : { previous: current.policy.digest }),
        policy: readPolicyFile(file).canonical,
        approvals,
        at: now.toISOString(),
        by: `approved by ${given.review.quorum.counted.flatMap((part) => part.names).join(', ') || signer}; enforced on ${hostname()}`,
      },
      chain.count,
    );
    stderr.write(
      `policy ${policy.digest.slice(0, 19)} (${file}) now binds the account of profile "${account.profile}" via ${account.host}${current === undefined ? '' : `, replacing ${current.policy.digest.slice(0, 19)}`}: recorded in ${stores.where}\n`,
    );
  }
  stderr.write(`${safeText(boundWords(policy), 400)}\n`);
  if (deps.globals.json)
    stdout.write(
      jsonDocument(
        {
          account: account.id,
          digest: policy.digest,
          previous: current?.policy.digest ?? null,
          where: stores.where,
          requirePlan: policy.requirePlan,
          caps: policy.caps,
        },
        stdout.isTTY,
      ),
    );
}

export const verb = describeVerb({
  summary: 'make an approved policy bind the account: every payment of it, whatever the profile',
  examples: ['pix policy enforce pix-policy.json', 'pix policy enforce pix-policy.json --json'],
  exits: ['usage', 'auth', 'unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('[FILE]', "the policy (default: the profile's `policy` setting)")
    .action(async (file: string | undefined, _options, self: Command) => {
      await runPolicyEnforce(
        parseOptions(enforceOptionsSchema, { ...self.opts(), file }, { file: 'FILE' }),
        deps,
      );
    });
}
