/**
 * What `pix pay qr` and `pix pay key` share (contract §7): the guards that run before money moves
 * (a way to confirm, max-amount, the duplicate guard, expiry), the confirmation, the journal around
 * the one transfer request (never retried), and the output. Every server-provided text shown here
 * (names, statuses, ids) goes through the one sanitizer (output/sanitize.ts).
 */
import { type DictConsultation, sendTransfer, type TransferResult } from '../../api/resources/payments.js';
import { statementPages } from '../../api/resources/statement.js';
import type { Settings } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { transferAnomalies } from '../../domain/anomalies.js';
import { institutionName } from '../../domain/banks.js';
import { maskDocument } from '../../domain/documents.js';
import {
  type Centavos,
  centavosFromApi,
  centavosToApi,
  formatBRL,
  formatDecimal,
} from '../../domain/money.js';
import { answersForKey, type PixKey } from '../../domain/pixkey.js';
import { type Debit, duplicateDebit, type PaidTo, unexplainedDebits } from '../../domain/statementguard.js';
import { formatDateTime } from '../../domain/when.js';
import { describeSystemError, PixError, usageError } from '../../errors.js';
import { type JournalEntry, type JournalPlan, type PaymentIdentity, shortId } from '../../journal/entries.js';
import { journalOf, recoveryHint, sendJournaled } from '../../journal/record.js';
import {
  type Account,
  type Blocker,
  type DuplicateQuery,
  effectiveState,
  ofAccount,
  recordedAccount,
} from '../../journal/rules.js';
import type { Holder, JournalStore } from '../../journal/stores.js';
import { jsonDocument, type OutputMode, outputMode } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import { accountOf } from '../shared/account.js';
import { DEFAULT_DUPLICATE_WINDOW_MS } from '../shared/flags.js';

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
   * (commands/pay/plan.ts); no confirmation is needed, and require-plan lets it through.
   */
  plan?: PlanRequest;
  /** Paying an approved plan (`pix plan execute`): kept in every journal entry it begins. */
  fromPlan?: JournalPlan;
}

/** What `--plan FILE` asks: where, who makes it, how long it stays valid, and what a single payment pays. */
export interface PlanRequest {
  file: string;
  by: string | undefined;
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
}

/** The profile, account, output mode and journal of one payment command. */
export interface PayContext {
  deps: Deps;
  settings: Settings;
  /** The account paid from: every journal question is asked of it. */
  account: Account;
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
 * Exit 8 on a profile with `require-plan true` (never the built-in sandbox: resolve.ts) when the payment
 * is neither a plan being written (`--plan`), nor an approved plan being paid, nor a dry run: whatever
 * --yes says, money leaves only through `pix plan execute`.
 */
function refuseWithoutPlan(settings: Settings, flags: PayFlags): void {
  if (!settings.requirePlan || flags.plan || flags.fromPlan || flags.dryRun) return;
  throw new PixError(
    'declined',
    `profile "${settings.profile.value}" pays only approved plans (require-plan true); nothing was sent`,
    {
      hint: 'write a plan with --plan FILE, have it approved (`pix plan approve FILE`), then pay it with `pix plan execute FILE`',
    },
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
  const journal = await journalOf(deps, only);
  await journal.checkSound();
  return {
    deps,
    settings,
    account: await accountOf(deps),
    mode: await outputMode(deps, settings.timeZone.value),
    journal,
    flags,
  };
}

// ---------------------------------------------------------------------------------------------
// Guards

/** `R$ 10,50 to NAME paid at 2026-03-10 09:00 (endToEndId E…; journal entry 1a2b3c4d)`. */
function describeEntry(ctx: PayContext, entry: JournalEntry, what: string): string {
  const when = formatDateTime(entry.at, ctx.settings.timeZone.value);
  const to = entry.receiver ? ` to ${safeText(entry.receiver, 80)}` : '';
  const e2e = entry.endToEndId ? `endToEndId ${safeText(entry.endToEndId, 64)}; ` : '';
  return `${formatBRL(entry.amountCentavos)}${to} ${what} at ${when} (${e2e}journal entry ${shortId(entry.id)})`;
}

/** `pix process 1234` on this machine, `pix process 1234 on HOST` on another (a shared ledger's lease). */
export function holderWords(holder: Holder): string {
  return holder.here
    ? `pix process ${holder.pid}`
    : `pix process ${holder.pid} on ${safeText(holder.host, 80)}`;
}

/** Exit 8 naming the earlier payment and what to do about it. */
async function blockedError(ctx: PayContext, blocker: Blocker): Promise<PixError> {
  const would = ctx.flags.dryRun ? 'would be refused: ' : '';
  const { entry } = blocker;
  const holder = blocker.why === 'unresolved' ? await ctx.journal.holder(entry) : undefined;
  if (holder !== undefined) {
    return new PixError(
      'declined',
      `${would}the same payment is in progress ${holder.here ? 'elsewhere' : `on ${safeText(holder.host, 80)}`}: ${holderWords(holder)} is sending ${describeEntry(ctx, entry, 'started')}; nothing was sent`,
      { hint: `wait for that pix to end, then look at \`pix journal show ${shortId(entry.id)}\`` },
    );
  }
  if (blocker.why === 'unresolved') {
    return new PixError(
      'declined',
      `${would}an earlier payment has no known outcome: ${describeEntry(ctx, entry, 'sent')}; nothing was sent`,
      { hint: recoveryHint(entry, { timeZone: ctx.settings.timeZone.value }) },
    );
  }
  return new PixError('declined', `${would}already paid: ${describeEntry(ctx, entry, 'paid')}`, {
    hint: 'check `pix statement`; pass --allow-duplicate to pay again anyway',
  });
}

/**
 * The duplicate guard (exit 8). --allow-duplicate lets a payment already `done` be paid again (with a
 * warning), never one whose outcome is unknown: that needs `pix journal resolve` first.
 */
export async function checkDuplicate(ctx: PayContext, query: DuplicateQuery): Promise<void> {
  const blocker = await ctx.journal.findBlocking(query, ctx.account);
  if (!blocker) return;
  if (blocker.why === 'unresolved' || !ctx.flags.allowDuplicate) throw await blockedError(ctx, blocker);
  // Asked again once the consultation named the receiver: the warning is said once.
  ctx.warned ??= new Set();
  if (ctx.warned.has(blocker.entry.id)) return;
  ctx.warned.add(blocker.entry.id);
  ctx.deps.io.stderr.write(
    `warning: paying again (--allow-duplicate): ${describeEntry(ctx, blocker.entry, 'paid')}\n`,
  );
}

/** The profile's max-amount (exit 8 above it). */
export function checkMaxAmount(ctx: PayContext, amount: Centavos): void {
  const max = ctx.settings.maxAmount;
  if (max !== undefined && amount > max) {
    throw new PixError(
      'declined',
      `${formatBRL(amount)} is above the max-amount of profile "${ctx.settings.profile.value}" (${formatBRL(max)}); nothing was sent`,
      { hint: 'raise it with `pix config set max-amount A` if this payment is intended' },
    );
  }
}

/** A code whose expiry has passed is refused before paying (exit 5, as the server itself would). */
export function checkNotExpired(ctx: PayContext, expiration: string | null | undefined): void {
  if (!expiration) return;
  const at = Date.parse(expiration);
  if (Number.isNaN(at) || at > ctx.deps.clock.now().getTime()) return;
  throw new PixError(
    'rejected',
    `the code expired at ${formatDateTime(expiration, ctx.settings.timeZone.value)}; nothing was sent`,
    { hint: 'ask the receiver for a new code' },
  );
}

/**
 * Why a key consultation does not answer for the key asked, or undefined. A consultation of another key
 * names another receiver than the one asked for: nothing is sent (`pay key` exit 8, a batch row
 * `not_payable`), whatever its owner's name looks like.
 */
export function keyAnswerProblem(asked: PixKey, consult: DictConsultation): string | undefined {
  if (answersForKey(asked, consult.key)) return undefined;
  return typeof consult.key === 'string' && consult.key.trim() !== ''
    ? `the consultation answers for the key ${safeText(consult.key, 80)}, not ${asked.key}, the key asked`
    : `the consultation does not say which key it answers for (asked ${asked.key})`;
}

// ---------------------------------------------------------------------------------------------
// The statement guard

/** Journal payments started this long before the window still explain its debits (they settle later). */
const EXPLAIN_SLACK_MS = 60 * 60_000;
const STATEMENT_PAGE = 1000;

function windowOf(flags: PayFlags): number {
  return flags.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
}

/**
 * The account's debits of the window (domain/statementguard.ts): one statement read per command (every
 * page of the window), in the account's time (the sandbox's clock).
 */
async function readDebits(ctx: PayContext): Promise<Debit[]> {
  const client = await ctx.deps.api();
  const to = client.clock.now();
  const from = new Date(to.getTime() - windowOf(ctx.flags));
  const { pages } = await statementPages(client, from, to, STATEMENT_PAGE);
  const debits: Debit[] = [];
  for await (const page of pages) {
    for (const entry of page) {
      if (entry.type !== 'OUTCOME' && entry.amount >= 0) continue;
      const party = entry.debtor ?? entry.creditor ?? undefined;
      debits.push({
        id: entry.id,
        at: entry.confirmedAt,
        amount: Math.abs(centavosFromApi(entry.amount)) as Centavos,
        document: party?.documentNumber,
        name: party?.name,
      });
    }
  }
  return debits;
}

/**
 * This account's payments of `amount` that may explain a debit of the window: not refused, started since
 * a little before it (a transfer settles after it is sent). Asked only for the amount of a debit that looks
 * like the payment, so a batch holding few entries of a long journal reads it again only then.
 */
async function explanations(ctx: PayContext, amount: Centavos): Promise<PaidTo[]> {
  const { deps, account } = ctx;
  const since = new Date(deps.clock.now().getTime() - windowOf(ctx.flags) - EXPLAIN_SLACK_MS);
  return (await ctx.journal.payments(amount, since))
    .filter((entry) => effectiveState(entry) !== 'failed' && ofAccount(entry, account))
    .map((entry) => ({ amount, document: entry.payment?.document, name: entry.receiver }));
}

/**
 * The guards that need the receiver as the consultation answered it: the journal's (the same receiver by
 * key, code or document and institution, whatever key or code names them now) and the statement's.
 */
export async function checkReceiver(
  ctx: PayContext,
  plan: Pick<PaymentPlan, 'identity' | 'receiver'>,
  amount: Centavos,
): Promise<void> {
  await checkDuplicate(ctx, { ...plan.identity, amountCentavos: amount });
  await checkStatement(ctx, { amount, document: plan.identity.document, name: plan.receiver.name });
}

/**
 * The statement as the last guard (exit 8): a debit of the same amount to the same receiver, in the last
 * `--duplicate-window` (24 h), that no payment of this journal explains — the same payment made from
 * another machine, profile or the bank's app. `--allow-duplicate` pays it anyway, with a warning.
 * The statement is read once per command; a statement that cannot be read stops the payment (exit 6).
 */
export async function checkStatement(ctx: PayContext, payment: PaidTo): Promise<void> {
  const debit = await statementDuplicate(ctx, payment);
  if (debit === undefined) return;
  const words = describeDebit(ctx, debit);
  if (ctx.flags.allowDuplicate) {
    ctx.deps.io.stderr.write(`warning: paying again (--allow-duplicate): the statement shows ${words}\n`);
    return;
  }
  const would = ctx.flags.dryRun ? 'would be refused: ' : '';
  throw new PixError(
    'declined',
    `${would}the statement shows ${words}, which no payment in this journal explains: it may be this payment, made from another machine, profile or app; nothing was sent`,
    {
      hint: `look at \`${debitCommand(ctx, debit)}\`; pass --allow-duplicate to pay it anyway`,
    },
  );
}

/**
 * The latest debit of the statement's window that may be `payment` made elsewhere, if any (none when
 * `--duplicate-window 0`). The statement is read once per command, by the first payment that asks; one
 * that cannot be read stops the payment (exit 6, nothing sent).
 */
export async function statementDuplicate(ctx: PayContext, payment: PaidTo): Promise<Debit | undefined> {
  if (windowOf(ctx.flags) === 0) return undefined;
  ctx.debits ??= readDebits(ctx).catch((error: unknown) => {
    if (error instanceof PixError && error.kind === 'unavailable') {
      throw new PixError(
        'unavailable',
        `the statement could not be read to look for this payment made elsewhere (${error.message}); nothing was sent`,
        { hint: 'run it again; --duplicate-window 0 pays without looking' },
      );
    }
    throw error;
  });
  const alike = (await ctx.debits).filter((debit) => debit.amount === payment.amount);
  if (duplicateDebit(alike, payment) === undefined) return undefined;
  ctx.explained ??= new Map();
  let explained = ctx.explained.get(payment.amount);
  if (explained === undefined) {
    explained = explanations(ctx, payment.amount);
    ctx.explained.set(payment.amount, explained);
  }
  return duplicateDebit(unexplainedDebits(alike, await explained), payment);
}

/** `R$ 50,00 to NAME (doc ***.456.789-**) at 2026-03-10 09:00 (statement entry 1a2b3c4d)`. */
export function describeDebit(ctx: PayContext, debit: Debit): string {
  const to = debit.name ? ` to ${safeText(debit.name, 80)}` : '';
  const doc = debit.document ? ` (${safeText(maskedDocument(debit.document) ?? '', 40)})` : '';
  const when = formatDateTime(debit.at, ctx.settings.timeZone.value);
  return `${formatBRL(debit.amount)}${to}${doc} paid at ${when} (statement entry ${safeText(debit.id, 40)})`;
}

/** The statement command that shows the debit: its day, its receiver's document, its amount. */
function debitCommand(ctx: PayContext, debit: Debit): string {
  const amount = formatDecimal(debit.amount);
  const who = debit.document ? ` --counterparty ${debit.document.replace(/[^0-9A-Za-z*]/g, '')}` : '';
  return `pix statement -p ${ctx.account.profile} --from -1d --all${who} --min ${amount} --max ${amount}`;
}

// ---------------------------------------------------------------------------------------------
// Presentation

/** `Banco Inter (00416968)`, or the bare ISPB when it is not in the list. */
export function institution(participant: string | null | undefined): string | undefined {
  if (!participant) return undefined;
  const name = institutionName(participant);
  return name ? `${name} (${participant})` : participant;
}

export function maskedDocument(document: string | null | undefined): string | undefined {
  return document ? maskDocument(document) : undefined;
}

/** A text row, left out when there is no value. */
export function textRow(
  rows: DetailRow[],
  label: string,
  key: string,
  value: string | null | undefined,
): void {
  if (value === undefined || value === null || value === '') return;
  rows.push({ label, key, human: value, machine: value });
}

export function moneyRow(
  rows: DetailRow[],
  label: string,
  key: string,
  centavos: Centavos | undefined,
): void {
  if (centavos === undefined) return;
  rows.push({ label, key, human: formatBRL(centavos), machine: formatDecimal(centavos) });
}

export function timeRow(
  rows: DetailRow[],
  label: string,
  key: string,
  iso: string | null | undefined,
  timeZone: string,
): void {
  if (!iso) return;
  rows.push({ label, key, human: formatDateTime(iso, timeZone), machine: iso });
}

function renderDetails(rows: DetailRow[], mode: OutputMode): string {
  return mode.table(
    ['Field', 'Value'],
    rows.map((row) => (mode.human ? [row.label, row.human] : [row.key, row.machine])),
  );
}

function transferRows(transfer: TransferResult): DetailRow[] {
  const rows: DetailRow[] = [];
  textRow(rows, 'Transfer id', 'transferId', transfer.id);
  textRow(rows, 'Status', 'status', transfer.status);
  if (typeof transfer.fee === 'number') moneyRow(rows, 'Fee', 'fee', centavosFromApi(transfer.fee));
  return rows;
}

function confirmationQuestion(plan: PaymentPlan, amount: Centavos): string {
  // The amount comes first and every quoted part is cut: a 100,000-character name cannot push it off screen.
  const { name, document, institution: at } = plan.receiver;
  const doc = document ? ` (${safeText(document, 40)})` : '';
  const bank = at ? ` at ${safeText(at, 80)}` : '';
  return `Pay ${formatBRL(amount)} to ${safeText(name, 120)}${doc}${bank}?`;
}

/**
 * Shows the details before a question that needs them (the amount of a code whose payer chooses it):
 * the table on a terminal, else who gets paid on stderr. confirmAndPay then does not show them again.
 */
export function showDetailsFirst(ctx: PayContext, plan: Pick<PaymentPlan, 'details' | 'receiver'>): void {
  const { stdout, stderr } = ctx.deps.io;
  if (ctx.mode.human) {
    stdout.write(renderDetails(plan.details, ctx.mode));
    return;
  }
  const { name, document, institution: at } = plan.receiver;
  stderr.write(
    `receiver: ${safeText(name, 120)}${document ? ` (${safeText(document, 40)})` : ''}${at ? ` at ${safeText(at, 80)}` : ''}\n`,
  );
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

  const query: DuplicateQuery = { ...plan.identity, amountCentavos: amount };
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
