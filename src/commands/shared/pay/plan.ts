/**
 * `pix pay key|qr|batch … --plan FILE`: everything a payment does up to its confirmation (the checks,
 * the consultations, the guards), then, instead of asking and paying, a plan written to FILE for others
 * to approve (`pix plan approve`) and the machine with the token to pay (`pix plan execute`). Loaded
 * only when `--plan` is given (architecture rule 8).
 *
 * The plan records the receivers as the consultations answered, the amounts, who made it and when, its
 * expiry and the digest of the policy in force, which must be approved by its admins; the facts the
 * policy's rules look at (a new receiver, one outside the allowlist) as this machine's journal tells
 * them; and it is refused here already when it would break a cap.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readPlanFile, writePlanFile } from '../../../approvals/files.js';
import { accountHistory, capsBroken, type Payee } from '../../../approvals/history.js';
import { type PolicyInForce, policiesFor, requireInForce } from '../../../approvals/inforce.js';
import { findSigningKey, type SigningKey, whoMakes } from '../../../approvals/operator.js';
import { signChecked } from '../../../approvals/sign.js';
import type { Deps } from '../../../context.js';
import type { Centavos } from '../../../domain/money.js';
import { formatBRL } from '../../../domain/money.js';
import type { PayeeExpectation } from '../../../domain/payee.js';
import {
  makerMessage,
  PLAN_FORMAT,
  type Plan,
  type PlanBody,
  type PlanRow,
  rowFacts,
  type StandingTerms,
  sealPlan,
  shortPlanId,
} from '../../../domain/plan.js';
import { applyingRules, outsideAllowlist, PLAN_NAMESPACE } from '../../../domain/policy.js';
import { formatForMessage } from '../../../domain/when.js';
import { PixError, usageError } from '../../../errors.js';
import type { Account } from '../../../journal/rules.js';
import { jsonDocument } from '../../../output/format.js';
import { safeText } from '../../../output/sanitize.js';
import type { BatchItem, BatchPlanHooks } from './batchrun.js';
import type { PayContext, PaymentPlan, PlanRequest } from './shared.js';

/** One row before its facts: what was consulted. */
export interface RowInput {
  id: string;
  key?: string;
  emv?: string;
  receiver: { name: string; document?: string | undefined; institution?: string | undefined };
  /** Who it pays, as the consultation answered (the whole document where it gave one). */
  payee: Payee;
  amount: Centavos;
  sendAmount: boolean;
  description?: string | undefined;
  expect?: PayeeExpectation | undefined;
}

/** What making a plan needs before anything is consulted: its policies and the maker's key. */
export interface PlanMaking {
  /** The policies of the account, the binding one first (inforce.ts policiesFor), each in force. */
  policies: PolicyInForce[];
  /** The key the maker signs with: a key the policies know (the maker, as they know people). */
  key: SigningKey;
}

/**
 * Before the first consultation: the policies the plan is made under, each approved by its admins, and
 * the maker's key, which every one of them must know (a plan whose maker a policy cannot tell is refused
 * under it). A key nobody's in a policy is exit 2, before anything is sent.
 */
export async function prepareMaking(deps: Deps, account: Account, request: PlanRequest): Promise<PlanMaking> {
  const policies = await policiesFor(deps, account.id, undefined);
  for (const inForce of policies) requireInForce(inForce);
  const [first, ...rest] = policies;
  const key = await findSigningKey(deps, first!.policy, first!.file, request.signingKey, '--signing-key');
  deps.defer(() => key.cleanup());
  for (const other of rest) {
    if (
      !other.policy.approvers.some((approver) =>
        approver.keys.some((k) => k.key.blob.equals(key.publicKey.blob)),
      )
    )
      throw usageError(
        '--signing-key',
        `key ${key.publicKey.fingerprint} is no one's in ${other.file}: that policy could not tell who made the plan`,
        'sign with a key every policy in force lists',
      );
  }
  return { policies, key };
}

/** Builds the plan of `inputs`, checks it against the policies in force, has the maker sign it, writes it. */
async function writePlan(
  ctx: PayContext,
  request: PlanRequest,
  kind: PlanBody['kind'],
  inputs: readonly RowInput[],
  source?: string,
  standing?: { terms: StandingTerms; expiresAt: string },
): Promise<Plan> {
  const { deps, account } = ctx;
  const { policies, key } = ctx.making!;
  const { policy } = policies[0]!;
  const now = deps.clock.now();
  // The whole journal: a batch holds only its own rows' entries, and the history needs every payment.
  const history = accountHistory(await (await deps.stores.journal()).read(), account, now);
  const rows: PlanRow[] = inputs.map((input) => {
    const receiver = {
      name: input.receiver.name,
      ...(input.receiver.document === undefined ? {} : { document: input.receiver.document }),
      ...(input.receiver.institution === undefined ? {} : { institution: input.receiver.institution }),
    };
    return {
      id: input.id,
      ...(input.key === undefined ? {} : { key: input.key }),
      ...(input.emv === undefined ? {} : { emv: input.emv }),
      receiver,
      amountCentavos: input.amount,
      sendAmount: input.sendAmount,
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.expect === undefined ? {} : { expect: input.expect }),
      newReceiver: !history.knows(input.payee),
      outsideAllowlist: outsideAllowlist(policy, input.key, input.payee.document),
    };
  });
  // A standing plan's rows are paid on their own days: each is held to the caps alone here (as on a day
  // with nothing else paid), and counted with that day's payments at its moment (moment.ts).
  const nothingPaid = accountHistory([], account, now);
  const groups = standing === undefined ? [rows.map((_, index) => index)] : rows.map((_, index) => [index]);
  for (const inForce of policies) {
    const caps = groups.flatMap((group) =>
      capsBroken(
        inForce.policy,
        standing === undefined ? history : nothingPaid,
        group.map((index) => ({ row: rows[index]!, payee: inputs[index]!.payee })),
        (name) => safeText(name, 80),
      ),
    );
    if (caps.length > 0) {
      throw new PixError(
        'declined',
        `the plan would break the policy's caps: ${caps.join('; ')}; no plan was written`,
        { hint: `caps are in ${inForce.file}; no approval lifts them` },
      );
    }
  }
  const label = await whoMakes(deps, request.by, key.approver.name);
  const total = rows.reduce((sum, row) => sum + row.amountCentavos, 0);
  const sealed = sealPlan({
    'pix-plan': PLAN_FORMAT,
    account: { id: account.id, profile: account.profile, api: account.baseUrl },
    kind,
    ...(source === undefined ? {} : { source }),
    ...(standing === undefined ? {} : { standing: standing.terms }),
    rows,
    total: { rows: rows.length, amountCentavos: total },
    maker: { ...label, key: key.publicKey.fingerprint },
    createdAt: now.toISOString(),
    expiresAt: standing?.expiresAt ?? new Date(now.getTime() + request.expiresInMs).toISOString(),
    policy: policy.digest,
  });
  // The maker signs the id (every field of the body, every row's): the plan is theirs, by their key.
  const plan: Plan = {
    ...sealed,
    signature: await signChecked(deps, key, PLAN_NAMESPACE, makerMessage(sealed)),
  };
  replacing(ctx, request.file, plan.id);
  writePlanFile(request.file, plan);
  const needs = applyingRules(policy, rows.map(rowFacts), undefined)
    .map(({ rule, ifNight }) => `${rule.name}: ${rule.require.text}${ifNight ? ' if paid at night' : ''}`)
    .join('; ');
  ctx.deps.io.stderr.write(
    `plan ${shortPlanId(plan.id)} written to ${request.file}, signed by ${key.approver.name} (${key.publicKey.fingerprint}, from ${key.from}): ${rows.length} row${rows.length === 1 ? '' : 's'}, ${formatBRL(total)}, from profile "${account.profile}" via ${account.host}, until ${formatForMessage(plan.expiresAt, ctx.settings.timeZone.value)}\n` +
      `it needs ${needs}; next: \`pix plan approve ${request.file}\` by the approvers (not ${key.approver.name}: the maker's own approval does not count), then \`pix ${standing === undefined ? 'plan execute' : 'schedule activate'} ${request.file}\`\n`,
  );
  return plan;
}

/** A warning when FILE holds another plan: its approvals do not carry over to this one. */
function replacing(ctx: PayContext, file: string, id: string): void {
  if (!existsSync(file)) return;
  try {
    const before = readPlanFile(file);
    if (before.id !== id)
      ctx.deps.io.stderr.write(
        `warning: ${file} held plan ${shortPlanId(before.id)}: replaced; its approvals do not count for the new one\n`,
      );
  } catch {
    // Not a plan (or an edited one): replaced all the same.
  }
}

/** pay key / pay qr with --plan: the one payment, as a plan of one row. */
export async function writePaymentPlan(ctx: PayContext, payment: PaymentPlan): Promise<void> {
  const request = ctx.flags.plan!;
  const target = request.target;
  if (target === undefined || payment.amount === undefined)
    throw new Error('pay --plan: no target or amount');
  const plan = await writePlan(ctx, request, 'key' in target ? 'key' : 'qr', [
    {
      id: `pay-${randomBytes(6).toString('hex')}`,
      ...target,
      receiver: payment.receiver,
      payee: {
        ...(payment.identity.key === undefined ? {} : { key: payment.identity.key }),
        ...(payment.identity.document === undefined ? {} : { document: payment.identity.document }),
        ...(payment.identity.participant === undefined ? {} : { participant: payment.identity.participant }),
      },
      amount: payment.amount,
      sendAmount: payment.sendAmount,
      expect: payment.expect,
    },
  ]);
  if (ctx.mode.format === 'json') ctx.deps.io.stdout.write(jsonDocument(plan, ctx.mode.pretty));
}

/**
 * `pix schedule create … --plan FILE`: the schedule's occurrences as a standing plan, valid until the
 * last one's window ends (`expiresAt`), for the approvers to sign once and `pix schedule activate` to start.
 */
export function writeStandingPlan(
  ctx: PayContext,
  inputs: readonly RowInput[],
  terms: StandingTerms,
  expiresAt: string,
  source?: string,
): Promise<Plan> {
  return writePlan(ctx, ctx.flags.plan!, 'schedule', inputs, source, { terms, expiresAt });
}

/** pay batch with --plan: the rows left to pay, as a plan. */
export async function batchPlanHooks(request: PlanRequest, file: string): Promise<BatchPlanHooks> {
  return {
    flags: { plan: request },
    async writePlan(ctx: PayContext, items: BatchItem[]) {
      const payable = items.filter((item) => item.state === 'planned');
      if (payable.length === 0) {
        throw new PixError('declined', 'no row is left to pay: no plan was written', {
          hint: 'the report above says what became of each row',
        });
      }
      await writePlan(
        ctx,
        request,
        'batch',
        payable.map((item) => {
          const { target } = item.row;
          return {
            id: item.row.id,
            ...(target.kind === 'key' ? { key: target.key } : { emv: target.emv }),
            receiver: { name: item.receiver ?? '', document: item.document, institution: item.institution },
            payee: { ...(target.kind === 'key' ? { key: target.key } : {}), ...item.payee },
            amount: item.amount!,
            sendAmount: item.sendAmount ?? true,
            description: item.row.description,
            expect: item.row.expect,
          };
        }),
        file === '-' ? undefined : file,
      );
    },
  };
}
