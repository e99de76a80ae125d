/**
 * What `pix pay qr`, `pix pay key` and `pix pay batch` share (contract §7): the payment's context (its
 * account, flags and journal), a way to confirm, the confirmation, the journal around the one transfer
 * request (never retried), and its output. The guards that run before money moves are in guards.ts, how a
 * payment is shown in details.ts. Every server-provided text shown here goes through the one sanitizer.
 */
import { sendTransfer, type TransferResult } from '../../../api/resources/payments.js';
import type { PolicyInForce } from '../../../approvals/inforce.js';
import type { Settings } from '../../../config/types.js';
import type { Deps } from '../../../context.js';
import { transferAnomalies } from '../../../domain/anomalies.js';
import { type Centavos, centavosToApi, formatBRL } from '../../../domain/money.js';
import type { PayeeExpectation } from '../../../domain/payee.js';
import type { Debit, PaidTo } from '../../../domain/statementguard.js';
import { describeSystemError, PixError, usageError } from '../../../errors.js';
import {
  type JournalEntry,
  type JournalPlan,
  type PaymentIdentity,
  shortId,
} from '../../../journal/entries.js';
import { sendJournaled } from '../../../journal/record.js';
import { type Account, type DuplicateQuery, recordedAccount } from '../../../journal/rules.js';
import type { JournalStore } from '../../../journal/stores.js';
import { jsonDocument, type OutputMode, outputMode } from '../../../output/format.js';
import { safeText } from '../../../output/sanitize.js';
import { accountOf } from '../account.js';
import { confirmationQuestion, renderDetails, transferRows } from './details.js';
import { blockedError, checkReceiver } from './guards.js';
import type { PlanMaking } from './plan.js';

/** `--duplicate-window DUR`, as pay key, qr and batch declare it. */
export const DUPLICATE_WINDOW_OPTION = [
  '--duplicate-window <DUR>',
  'how far back the statement is looked at for this payment made elsewhere (default 24h; 0: not at all)',
] as const;

export interface PayFlags {
  dryRun: boolean;
  allowDuplicate: boolean;
  /** How far back the statement guard looks (`--duplicate-window`); 0 turns it off. */
  duplicateWindowMs?: number | undefined;
  /**
   * The caller refuses an unconfirmable run itself (refuseUnconfirmable), once it knows there is
   * something to pay: a batch whose rows are all paid already asks nothing, so it needs no terminal.
   */
  confirmLater?: boolean;
  /**
   * `--plan FILE`: everything up to the confirmation, then a plan written instead of paying
   * (shared/pay/plan.ts); no confirmation is needed, and require-plan lets it through.
   */
  plan?: PlanRequest;
  /** Paying an approved plan (`pix plan execute`): kept in every journal entry it begins. */
  fromPlan?: JournalPlan;
  /**
   * Each row is judged under the policy by its own approval at its moment (a schedule's occurrences,
   * commands/schedule/standing.ts): require-plan is enforced there, row by row (a row without an approved
   * plan is held), not by refusing the whole run.
   */
  plansPerRow?: true;
}

/** What `--plan FILE` asks: where, who makes it, how long it stays valid, and what a single payment pays. */
export interface PlanRequest {
  file: string;
  /** A label for the maker (`--by`). */
  by: string | undefined;
  /** The SSH key the maker signs with (`--signing-key`). */
  signingKey: string | undefined;
  expiresInMs: number;
  /** pay key and pay qr: the key or code (a batch's rows carry their own). */
  target?: { key: string } | { emv: string };
}

/** One line of the details shown before paying: a label for people, a key for TSV. */
export interface DetailRow {
  label: string;
  key: string;
  human: string;
  machine: string;
}

export interface Receiver {
  name: string;
  /** Already masked. */
  document: string | undefined;
  institution: string | undefined;
}

/** Everything the shared part needs to confirm, journal, send and show one payment. */
export interface PaymentPlan {
  /** The consultation as the API returned it (for `--json`). */
  consult: unknown;
  endToEndId: string;
  /** What will be paid; undefined only on a dry run of a code whose payer chooses the amount. */
  amount: Centavos | undefined;
  /** Whether the transfer carries `amount` (required or allowed by the consultation). */
  sendAmount: boolean;
  receiver: Receiver;
  details: DetailRow[];
  /** Who gets paid, for the duplicate guard and the journal. */
  identity: PaymentIdentity;
  /** The details were shown already (before asking a payer-chosen amount). */
  detailsShown?: boolean;
  /** Who the operator expects to pay (`--expect-document`, `--expect-name`), already checked; kept in a plan. */
  expect?: PayeeExpectation | undefined;
  /**
   * A check that needs a person's yes (a static code's merchant against its key's owner): run after the
   * guards that say more (a payment made already), before the dry run, the plan or the question.
   */
  beforeConfirm?: () => void;
}

/** The profile, account, output mode and journal of one payment command. */
export interface PayContext {
  deps: Deps;
  settings: Settings;
  /** The account paid from: every journal question is asked of it. */
  account: Account;
  /** The policy enforced on the account (`pix policy enforce`): it binds this payment whatever else says. */
  bound?: PolicyInForce | undefined;
  /** `--plan`: the policies and the maker's key, found before anything is consulted. */
  making?: PlanMaking | undefined;
  mode: OutputMode;
  journal: JournalStore;
  flags: PayFlags;
  /** The statement's debits of the window: read once, by the first payment that asks. */
  debits?: Promise<Debit[]>;
  /** The journal payments that may explain debits, by amount (read once per amount). */
  explained?: Map<Centavos, Promise<PaidTo[]>>;
  /** Journal entries a `--allow-duplicate` warning named already. */
  warned?: Set<string>;
}

/**
 * Exit 8 when the payment is neither a plan being written (`--plan`), nor an approved plan being paid, nor
 * a dry run, and either the profile says `require-plan true` (never the built-in sandbox: resolve.ts) or
 * the policy enforced on the account does (`bound`): whatever --yes says, money leaves only through `pix
 * plan execute`. The profile's setting can add the requirement, never lift the account's.
 */
function refuseWithoutPlan(settings: Settings, flags: PayFlags, bound?: PolicyInForce): void {
  if (flags.plan || flags.fromPlan || flags.plansPerRow || flags.dryRun) return;
  const hint =
    'write a plan with --plan FILE, have it approved (`pix plan approve FILE`), then pay it with `pix plan execute FILE`';
  if (bound?.policy.requirePlan) {
    throw new PixError(
      'declined',
      `this account pays only approved plans: the policy enforced on it (${bound.policy.digest.slice(0, 19)}, ${bound.enforced?.where ?? ''}) says require-plan; nothing was sent`,
      { hint },
    );
  }
  if (!settings.requirePlan) return;
  throw new PixError(
    'declined',
    `profile "${settings.profile.value}" pays only approved plans (require-plan true); nothing was sent`,
    { hint },
  );
}

/**
 * Exit 2 when the payment would need a confirmation that cannot be asked: no terminal (or --no-input),
 * no --yes, not a dry run, not a plan being written.
 */
export function refuseUnconfirmable(deps: Deps, flags: PayFlags): void {
  if (!flags.dryRun && !flags.plan && !deps.globals.yes && !deps.prompter.canPrompt()) {
    throw usageError(
      undefined,
      'cannot ask for confirmation: not a terminal (or --no-input); nothing was sent',
      'pass --yes (-y) to pay without asking, or --dry-run to only look',
    );
  }
}

/**
 * Starts a payment command. Without a terminal to confirm on and without --yes, fails (exit 2)
 * before anything is sent, the consultation included: it could not be confirmed anyway. A dry run
 * needs no confirmation. A damaged journal stops it here too (exit 8): the damaged line may be the
 * record of this very payment.
 */
export async function startPayment(
  deps: Deps,
  flags: PayFlags,
  only?: (entry: JournalEntry) => boolean,
): Promise<PayContext> {
  const settings = await deps.settings();
  refuseWithoutPlan(settings, flags);
  if (!flags.confirmLater) refuseUnconfirmable(deps, flags);
  const journal = await deps.stores.journal(only);
  await journal.checkSound();
  const account = await accountOf(deps);
  // The account's policy binds every payment of it, whatever the profile, flags or environment (loaded
  // only here: a payment of an account with no policy reads one small file or one row).
  const { enforcedPolicy } = await import('../../../approvals/inforce.js');
  const bound = await enforcedPolicy(deps, account.id);
  refuseWithoutPlan(settings, flags, bound);
  const making =
    flags.plan === undefined
      ? undefined
      : await (await import('./plan.js')).prepareMaking(deps, account, flags.plan);
  return {
    deps,
    settings,
    account,
    bound,
    making,
    mode: await outputMode(deps, settings.timeZone.value),
    journal,
    flags,
  };
}

// ---------------------------------------------------------------------------------------------
// Paying

/** A prompt before money moves: Ctrl-C or a closed terminal is a "no" (exit 8), not a crash. */
export async function ask<T>(prompt: () => Promise<T>): Promise<T> {
  try {
    return await prompt();
  } catch (error) {
    if (error instanceof PixError) throw error;
    throw new PixError('declined', 'payment cancelled (no answer); nothing was sent', {
      cause: error,
      ownChoice: true,
    });
  }
}

/** The result for stdout: the consultation and the transfer (json), "Sent …" and a table, or TSV rows. */
function showTransfer(ctx: PayContext, plan: PaymentPlan, amount: Centavos, transfer: TransferResult): void {
  const { mode } = ctx;
  const { stdout } = ctx.deps.io;
  if (mode.format === 'json') {
    stdout.write(jsonDocument({ consult: plan.consult, transfer }, mode.pretty));
  } else if (mode.human) {
    const status = safeText(transfer.status ?? 'accepted', 40);
    stdout.write(
      `${mode.colors.green('Sent')} ${formatBRL(amount)} to ${safeText(plan.receiver.name, 120)}: ${status}\n`,
    );
    stdout.write(renderDetails(transferRows(transfer), mode));
  } else {
    stdout.write(renderDetails([...plan.details, ...transferRows(transfer)], mode));
  }
}

/**
 * The one transfer of a payment, between its journal lines (begun by the caller): sent once, never
 * retried; its outcome recorded by what the answer proves. `amount` is sent only when given.
 * `finishOnSignal`: a Ctrl-C after it left waits for its answer instead of cutting it off (batch rows).
 */
export async function journaledTransfer(
  ctx: PayContext,
  entry: JournalEntry,
  transfer: {
    endToEndId: string;
    amount: Centavos | undefined;
    /** The receiver's masked document, for the recovery hint. */
    document?: string | undefined;
    finishOnSignal?: boolean;
  },
): Promise<TransferResult> {
  const client = await ctx.deps.api();
  const { endToEndId, amount, document, finishOnSignal = false } = transfer;
  return sendJournaled({
    journal: ctx.journal,
    entry,
    send: () =>
      sendTransfer(
        client,
        { endToEndId, ...(amount === undefined ? {} : { amount: centavosToApi(amount) }) },
        { finishOnSignal },
      ),
    outcome: (result) => ({
      ...(result.id ? { transferId: result.id } : {}),
      ...(result.status ? { status: result.status } : {}),
    }),
    // Checked against what the operator confirmed (entry.amountCentavos), sent or not.
    anomalies: (result) => transferAnomalies({ endToEndId, amountCentavos: entry.amountCentavos }, result),
    look: { timeZone: ctx.settings.timeZone.value, ...(document === undefined ? {} : { document }) },
    warn: (line) => ctx.deps.io.stderr.write(`${line}\n`),
  });
}

/**
 * Shows the plan, then (unless --dry-run) names the profile and host, confirms, journals, sends the
 * transfer once and records its outcome. Guards specific to a flow run before this.
 */
export async function confirmAndPay(ctx: PayContext, plan: PaymentPlan): Promise<void> {
  const { deps, mode, journal } = ctx;
  const { stdout, stderr } = deps.io;
  if (mode.human && !plan.detailsShown) stdout.write(renderDetails(plan.details, mode));
  if (plan.amount !== undefined) await checkReceiver(ctx, plan, plan.amount);
  plan.beforeConfirm?.();

  if (ctx.flags.dryRun) {
    if (mode.format === 'json')
      stdout.write(jsonDocument({ consult: plan.consult, transfer: null }, mode.pretty));
    else if (!mode.human) stdout.write(renderDetails(plan.details, mode));
    stderr.write('dry run: nothing was sent\n');
    return;
  }
  if (ctx.flags.plan) {
    const { writePaymentPlan } = await import('./plan.js');
    await writePaymentPlan(ctx, plan);
    return;
  }
  const amount = plan.amount;
  if (amount === undefined) throw new Error('pay: no amount outside a dry run');

  const { profile, host } = ctx.account;
  stderr.write(`paying from profile "${profile}" via ${host}${ctx.settings.sandbox ? ' (sandbox)' : ''}\n`);
  if (!deps.globals.yes) {
    const yes = await ask(() => deps.prompter.confirm(confirmationQuestion(plan, amount)));
    if (!yes) throw new PixError('declined', 'payment cancelled; nothing was sent', { ownChoice: true });
  }

  // The account's policy at this very moment: its caps, on the day it is now (moment.ts).
  if (ctx.bound !== undefined) {
    const { momentChecks } = await import('./moment.js');
    const { key, document, participant } = plan.identity;
    const held = await momentChecks(ctx, [ctx.bound]).check({
      id: 'payment',
      amount,
      payee: {
        ...(key === undefined ? {} : { key }),
        ...(document === undefined ? {} : { document }),
        ...(participant === undefined ? {} : { participant }),
      },
      receiverName: plan.receiver.name,
    });
    if (held !== undefined) {
      throw new PixError('declined', `the account's policy refuses this payment: ${held}`, {
        hint: 'caps are the policy enforced on the account (`pix policy show`); no approval lifts them',
      });
    }
  }

  const query: DuplicateQuery = { ...plan.identity, amountCentavos: amount, receiver: plan.receiver.name };
  // Another pix (on this machine, or another sharing the ledger) may have started the same payment since
  // the first check: the claim stands only if none did (journal/stores.ts).
  const claim = await journal.claim(
    {
      kind: 'payment',
      ...recordedAccount(ctx.account),
      amountCentavos: amount,
      receiver: plan.receiver.name,
      endToEndId: plan.endToEndId,
      payment: plan.identity,
    },
    { account: ctx.account, query, allowPaid: ctx.flags.allowDuplicate },
  );
  if (claim.entry === undefined) throw await blockedError(ctx, claim.blocked.blocker);
  const { entry } = claim;

  const e2e = safeText(plan.endToEndId, 64);
  let transfer: TransferResult;
  try {
    transfer = await journaledTransfer(ctx, entry, {
      endToEndId: plan.endToEndId,
      amount: plan.sendAmount ? amount : undefined,
      document: plan.receiver.document,
    });
  } catch (error) {
    if (error instanceof PixError && error.kind === 'unknown_outcome') {
      // The endToEndId is for the provider's support desk: the statement does not show it (the hint
      // says what to look for there instead).
      stderr.write(
        `the transfer of ${formatBRL(amount)} to ${safeText(plan.receiver.name, 120)} may or may not have gone through\n` +
          `endToEndId: ${e2e}\n`,
      );
    }
    throw error;
  }

  try {
    showTransfer(ctx, plan, amount, transfer);
  } catch (error) {
    // The money moved and the journal says so: only a failure to write the output may end this badly.
    if (error instanceof PixError || describeSystemError(error)) throw error;
    stderr.write(
      `warning: the transfer was sent (${safeText(transfer.status ?? 'accepted', 40)}, journal entry ${shortId(entry.id)} done) but could not be shown: ${safeText((error as Error)?.message ?? error, 120)}\n`,
    );
  }
}
