/**
 * `pix plan execute FILE`: the machine that holds the token (typically CI) pays an approved plan.
 *
 * 1. Offline: the plan's id against its content; the policy in force (approved by its admins) is the one
 *    the plan was made under; the plan is for this profile and API and has not expired; every approval
 *    verified (pix's own verifier: no OpenSSH needed here), counted per person, the maker's left out; a
 *    valid refusal stops it; the quorum of every rule that applies, night rules by the hour now in
 *    Brasília. Anything short is exit 8 naming the rule and who may still approve; nothing is sent.
 * 2. The rows go the way of `pix pay batch` (commands/shared/pay/batchrun.ts payBatchRows): the journal first (a
 *    row paid before, by this plan or any run on this account, is not paid again; a second execute, or
 *    two at once, pay nothing twice; a partial one resumes), then each receiver consulted again.
 * 3. A row whose receiver is no longer the one approved (name, document, institution) is held as
 *    `receiver_changed` and nothing of it is sent (exit 8); the rules are applied again with what this
 *    machine's journal knows (a receiver new to it brings the new-receiver rule in) and the caps counted
 *    with what it paid today; a refusal then stops the run before anything is sent.
 * 4. The confirmation (or --yes), the payments, the report. Each journal entry keeps the plan's id, its
 *    maker and its approvers' names and key fingerprints (`pix journal show`).
 */
import type { Command } from 'commander';
import { accountHistory, capsBroken, type Payee } from '../../approvals/history.js';
import { refusalOf } from '../../approvals/review.js';
import type { Deps } from '../../context.js';
import { parseBatchFile } from '../../domain/batchtext.js';
import { formatDecimal } from '../../domain/money.js';
import { type PlanRow, rowFacts, shortPlanId } from '../../domain/plan.js';
import { isNight, outsideAllowlist } from '../../domain/policy.js';
import { PixError, usageError } from '../../errors.js';
import { isAccountId } from '../../journal/rules.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import {
  type BatchItem,
  DEFAULT_CONCURRENCY,
  MAX_CONCURRENCY,
  payBatchRows,
} from '../shared/pay/batchrun.js';
import { momentChecks } from '../shared/pay/moment.js';
import type { PayContext } from '../shared/pay/shared.js';
import {
  type Facts,
  journalPlanOf,
  type OpenedPlan,
  openPlan,
  POLICY_OPTION,
  policyFlag,
  review,
  rulesAt,
  standingRefusal,
} from '../shared/plan.js';

const executeOptionsSchema = z.object({
  file: z.string().check(z.minLength(1)),
  policy: policyFlag,
  concurrency: z._default(
    integerFlag(1).check(z.refine((n) => n <= MAX_CONCURRENCY, `at most ${MAX_CONCURRENCY}`)),
    DEFAULT_CONCURRENCY,
  ),
});

export type PlanExecuteOptions = z.output<typeof executeOptionsSchema>;

/**
 * The plan's rows as a batch file's, read by the batch reader itself (domain/batch.ts): the same checks
 * and the same targets as `pix pay batch`. A row it refuses is a plan pix did not write: exit 2.
 */
function batchRowsOf(file: string, rows: readonly PlanRow[]) {
  const lines = rows.map((row) => {
    const fixed = row.emv !== undefined && !row.sendAmount;
    return JSON.stringify({
      id: row.id,
      ...(row.key === undefined ? { emv: row.emv } : { key: row.key }),
      // A code that fixes its own amount takes none from the file: the consultation must ask what was approved.
      ...(fixed ? {} : { amount: formatDecimal(row.amountCentavos) }),
      ...(row.description === undefined ? {} : { description: row.description }),
      // Who the row must pay: the consultation at execute is held to it again (contract §7.8).
      ...(row.expect?.document === undefined ? {} : { document: row.expect.document }),
      ...(row.expect?.name === undefined ? {} : { name: row.expect.name }),
    });
  });
  const parsed = parseBatchFile(`${lines.join('\n')}\n`, 'ndjson');
  if (!parsed.ok) {
    const first = parsed.problems[0]!;
    throw usageError(
      file,
      `a row of the plan cannot be paid as written: ${safeText(first.message, 200)} (row ${first.id ?? first.line})`,
    );
  }
  return parsed.rows.map((row, index) => {
    const approved = rows[index]!;
    // A fixed-amount code's row then pays what the code says, which must be what was approved.
    return row.amount === undefined ? { ...row, amount: approved.amountCentavos } : row;
  });
}

/** `NAME (DOCUMENT, INSTITUTION)`. */
function receiverWords(receiver: {
  name?: string | undefined;
  document?: string | undefined;
  institution?: string | undefined;
}): string {
  const extra = [receiver.document, receiver.institution].filter((part) => part !== undefined && part !== '');
  return `${receiver.name ?? '?'}${extra.length === 0 ? '' : ` (${extra.join(', ')})`}`;
}

/** Who a row pays, as its consultation answered now. */
function payeeOf(row: PlanRow, item: BatchItem): Payee {
  return { ...(row.key === undefined ? {} : { key: row.key }), ...item.payee };
}

/** The facts the rules see of each row, as one policy sees them, with what this machine finds now. */

/**
 * After the consultations, before anything is sent: rows whose receiver changed are held; the rules
 * again, with the facts this machine finds; the caps with what it paid today. Returns the facts, for the
 * checks at each row's moment of payment.
 */
async function checkAtPayment(
  opened: OpenedPlan,
  ctx: PayContext,
  items: BatchItem[],
  now: Date,
): Promise<Facts> {
  const { plan } = opened;
  const byId = new Map(plan.rows.map((row) => [row.id, row]));
  for (const item of items) {
    const approved = byId.get(item.row.id)!;
    const same =
      (item.receiver ?? '') === approved.receiver.name &&
      (item.document ?? '') === (approved.receiver.document ?? '') &&
      (item.institution ?? '') === (approved.receiver.institution ?? '');
    if (same) continue;
    item.state = 'receiver_changed';
    item.error = `the receiver is now ${safeText(receiverWords(item), 200)}; the plan approved ${safeText(receiverWords(approved.receiver), 200)}: nothing was sent for this row`;
  }
  const paying = items.filter((item) => item.state === 'planned');
  const history = accountHistory(await (await ctx.deps.stores.journal()).read(), ctx.account, now);
  const fresh = new Map(paying.map((item) => [item.row.id, item]));
  const facts: Facts = ({ policy }) =>
    plan.rows.map((row) => {
      const item = fresh.get(row.id);
      const own = rowFacts(row);
      if (item === undefined) return own;
      // What the maker's machine found, or what this one finds: either brings its rule in.
      return {
        ...own,
        newReceiver: own.newReceiver || !history.knows(payeeOf(row, item)),
        outsideAllowlist: own.outsideAllowlist || outsideAllowlist(policy, row.key, item.payee?.document),
      };
    });
  const refusal = refusalOf(review(opened, ({ policy }) => isNight(policy, now.getTime()), facts));
  if (refusal !== undefined) {
    throw new PixError('declined', `${shortPlanId(plan.id)} cannot be paid: ${refusal}; nothing was sent`, {
      hint: `the approvers run \`pix plan approve ${opened.file}\` (see \`pix plan show ${opened.file}\`)`,
    });
  }
  for (const { inForce } of opened.judged) {
    const caps = capsBroken(
      inForce.policy,
      history,
      paying.map((item) => {
        const row = byId.get(item.row.id)!;
        return { row, amount: item.amount, payee: payeeOf(row, item) };
      }),
      (name) => safeText(name, 80),
    );
    if (caps.length > 0) {
      throw new PixError(
        'declined',
        `${shortPlanId(plan.id)} would break the policy's caps: ${caps.join('; ')}; nothing was sent`,
        {
          hint: `caps are in ${inForce.file}; no approval lifts them: pay the rest another day, or in a smaller plan`,
        },
      );
    }
  }
  return facts;
}

export async function runPlanExecute(options: PlanExecuteOptions, deps: Deps): Promise<void> {
  // 1. Offline.
  const opened = await openPlan(deps, options.file, options.policy);
  const { plan } = opened;
  if (plan.standing !== undefined) {
    // Its rows are occurrences, each paid on its own day by the schedule: never all at once here.
    throw usageError(
      options.file,
      `a standing plan of schedule ${plan.standing.schedule}: its occurrences are paid on their days, not executed`,
      `start the schedule with \`pix schedule activate ${options.file}\` once it is approved`,
    );
  }
  const now = deps.clock.now();
  const standing = standingRefusal(opened, now);
  if (standing !== undefined) {
    throw new PixError('declined', `${shortPlanId(plan.id)} cannot be paid: ${standing}; nothing was sent`);
  }
  const verdict = review(opened, ({ policy }) => isNight(policy, now.getTime()));
  const refusal = refusalOf(verdict);
  if (refusal !== undefined) {
    throw new PixError('declined', `${shortPlanId(plan.id)} cannot be paid: ${refusal}; nothing was sent`, {
      hint: `the approvers run \`pix plan approve ${options.file}\` (see \`pix plan show ${options.file}\`)`,
    });
  }
  // The account the plan was made for, as the API identifies it (one read of its keys, cached a day).
  const account = await accountOf(deps);
  if (!isAccountId(plan.account.id, account)) {
    throw new PixError(
      'declined',
      `the plan pays from the account of profile "${plan.account.profile}" via ${plan.account.api}; this is another account (profile "${account.profile}" via ${account.baseUrl}); nothing was sent`,
      { hint: 'run it with credentials of the account it was made for (--profile)' },
    );
  }
  const { maker } = opened.judged[0]!;
  const fromPlan = journalPlanOf(plan, verdict);
  const names = [...new Set(fromPlan.approvers.map((a) => a.name))].join(', ');
  deps.io.stderr.write(
    `plan ${shortPlanId(plan.id)} made by ${'approver' in maker ? maker.approver.name : '?'} (${safeText(fromPlan.maker, 120)}, key ${plan.maker.key}), approved by ${names}\n`,
  );

  // 2–4. The batch's way, with the plan's checks after the consultations and at each row's moment.
  let facts: Facts | undefined;
  await payBatchRows(
    deps,
    { concurrency: options.concurrency, maxTotal: undefined, dryRun: false, allowDuplicate: false },
    { file: options.file, batch: `plan-${plan.id.slice(7, 23)}`, rows: batchRowsOf(options.file, plan.rows) },
    {
      flags: { fromPlan },
      consulted: async (ctx, items) => {
        facts = await checkAtPayment(opened, ctx, items, now);
      },
      moment: (ctx) =>
        momentChecks(
          ctx,
          opened.judged.map(({ inForce }) => inForce),
          rulesAt(opened, () => facts),
        ),
    },
  );
}

export const verb = describeVerb({
  summary: 'verify every approval against the policy, then pay each row once',
  formats: LIST_FORMATS,
  examples: [
    'pix plan execute payouts.plan.json --yes',
    'pix plan execute payouts.plan.json --yes -o ndjson > report.ndjson',
  ],
  exits: ['usage', 'auth', 'rejected', 'unavailable', 'unknown_outcome', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<FILE>', 'the approved plan')
    .option(...POLICY_OPTION)
    .option('--concurrency <n>', `consultations and transfers at a time (default ${DEFAULT_CONCURRENCY})`)
    .action(async (file: string, _options, self: Command) => {
      await runPlanExecute(
        parseOptions(executeOptionsSchema, { ...self.opts(), file }, { file: 'FILE' }),
        deps,
      );
    });
}
