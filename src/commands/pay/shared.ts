/**
 * What `pix pay qr` and `pix pay key` share (contract §7): the guards that run before money moves
 * (a way to confirm, max-amount, the duplicate guard, expiry), the confirmation, the journal around
 * the one transfer request (never retried), and the output. Every server-provided text shown here
 * (names, statuses, ids) goes through the one sanitizer (output/sanitize.ts).
 */
import { transferAnomalies } from '../../api/outcomes.js';
import { type DictConsultation, sendTransfer, type TransferResult } from '../../api/resources/payments.js';
import type { Settings } from '../../config/types.js';
import type { Deps } from '../../context.js';
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
import { formatDateTime } from '../../domain/when.js';
import { describeSystemError, PixError, usageError } from '../../errors.js';
import { type JournalEntry, type PaymentIdentity, shortId } from '../../journal/entries.js';
import { journalOf, recoveryHint, sendJournaled } from '../../journal/record.js';
import type { Account, Blocker, DuplicateQuery } from '../../journal/rules.js';
import type { Journal } from '../../journal/store.js';
import { jsonDocument, type OutputMode, outputMode } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';

export interface PayFlags {
  dryRun: boolean;
  allowDuplicate: boolean;
  /**
   * The caller refuses an unconfirmable run itself (refuseUnconfirmable), once it knows there is
   * something to pay: a batch whose rows are all paid already asks nothing, so it needs no terminal.
   */
  confirmLater?: boolean;
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
  journal: Journal;
  flags: PayFlags;
}

/** The account of the resolved profile: its name, its API's base URL and the host requests go to. */
export async function accountOf(deps: Deps, settings: Settings): Promise<Account> {
  const client = await deps.api();
  return {
    profile: settings.profile.value,
    formerNames: settings.formerNames,
    baseUrl: settings.baseUrl.value,
    host: new URL(client.baseUrl).host,
  };
}

/**
 * Exit 2 when the payment would need a confirmation that cannot be asked: no terminal (or --no-input),
 * no --yes, not a dry run.
 */
export function refuseUnconfirmable(deps: Deps, flags: PayFlags): void {
  if (!flags.dryRun && !deps.globals.yes && !deps.prompter.canPrompt()) {
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
  if (!flags.confirmLater) refuseUnconfirmable(deps, flags);
  const settings = await deps.settings();
  const journal = await journalOf(deps, only);
  journal.checkSound();
  return {
    deps,
    settings,
    account: await accountOf(deps, settings),
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

/** Exit 8 naming the earlier payment and what to do about it. */
function blockedError(ctx: PayContext, blocker: Blocker): PixError {
  const would = ctx.flags.dryRun ? 'would be refused: ' : '';
  const { entry } = blocker;
  const pid = blocker.why === 'unresolved' ? ctx.journal.inFlightElsewhere(entry) : undefined;
  if (pid !== undefined) {
    return new PixError(
      'declined',
      `${would}the same payment is in progress elsewhere: pix process ${pid} is sending ${describeEntry(ctx, entry, 'started')}; nothing was sent`,
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
export function checkDuplicate(ctx: PayContext, query: DuplicateQuery): void {
  const blocker = ctx.journal.findBlocking(query, ctx.account);
  if (!blocker) return;
  if (blocker.why === 'unresolved' || !ctx.flags.allowDuplicate) throw blockedError(ctx, blocker);
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

  if (ctx.flags.dryRun) {
    if (mode.format === 'json')
      stdout.write(jsonDocument({ consult: plan.consult, transfer: null }, mode.pretty));
    else if (!mode.human) stdout.write(renderDetails(plan.details, mode));
    stderr.write('dry run: nothing was sent\n');
    return;
  }
  const amount = plan.amount;
  if (amount === undefined) throw new Error('pay: no amount outside a dry run');

  const { profile, host, baseUrl } = ctx.account;
  stderr.write(`paying from profile "${profile}" via ${host}${ctx.settings.sandbox ? ' (sandbox)' : ''}\n`);
  if (!deps.globals.yes) {
    const yes = await ask(() => deps.prompter.confirm(confirmationQuestion(plan, amount)));
    if (!yes) throw new PixError('declined', 'payment cancelled; nothing was sent', { ownChoice: true });
  }

  const query: DuplicateQuery = { ...plan.identity, amountCentavos: amount };
  const entry = journal.begin({
    kind: 'payment',
    profile,
    host,
    baseUrl,
    amountCentavos: amount,
    receiver: plan.receiver.name,
    endToEndId: plan.endToEndId,
    payment: plan.identity,
  });
  // Another pix may have started the same payment since the first check: the earlier line wins.
  const earlier = journal.findBlocking(query, ctx.account, { before: entry.id });
  if (earlier && (earlier.why === 'unresolved' || !ctx.flags.allowDuplicate)) {
    journal.finish(entry.id, { state: 'failed', reason: 'duplicate' });
    throw blockedError(ctx, earlier);
  }

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
