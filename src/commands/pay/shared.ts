/**
 * What `pix pay qr` and `pix pay key` share (contract §7): the guards that run before money moves
 * (a way to confirm, max-amount, the duplicate guard, expiry), the confirmation, the journal around
 * the one transfer request (never retried), and the output.
 */
import { sendTransfer, type TransferResult } from '../../api/resources/payments.js';
import type { Settings } from '../../config/types.js';
import type { Deps } from '../../deps.js';
import { institutionName } from '../../domain/banks.js';
import { maskDocument } from '../../domain/documents.js';
import {
  type Centavos,
  centavosFromApi,
  centavosToApi,
  formatBRL,
  formatDecimal,
} from '../../domain/money.js';
import { formatDateTime } from '../../domain/when.js';
import { PixError, usageError } from '../../errors.js';
import {
  type DuplicateQuery,
  type Journal,
  openJournal,
  type Payment,
  type PaymentKind,
} from '../../journal.js';
import { jsonDocument, type OutputMode, outputMode } from '../../output/format.js';

export interface PayFlags {
  dryRun: boolean;
  allowDuplicate: boolean;
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
  kind: PaymentKind;
  /** The consultation as the API returned it (for `--json`). */
  consult: unknown;
  endToEndId: string;
  /** What will be paid; undefined only on a dry run of a code whose payer chooses the amount. */
  amount: Centavos | undefined;
  /** Whether the transfer carries `amount` (required or allowed by the consultation). */
  sendAmount: boolean;
  receiver: Receiver;
  details: DetailRow[];
  /** Identifies the payment for the duplicate guard and the journal. */
  identity: Omit<DuplicateQuery, 'amountCentavos'>;
}

/** The profile, output mode and journal of one payment command. */
export interface PayContext {
  deps: Deps;
  settings: Settings;
  mode: OutputMode;
  journal: Journal;
  flags: PayFlags;
}

/**
 * Starts a payment command. Without a terminal to confirm on and without --yes, fails (exit 2)
 * before anything is sent, the consultation included: it could not be confirmed anyway. A dry run
 * needs no confirmation.
 */
export async function startPayment(deps: Deps, flags: PayFlags): Promise<PayContext> {
  if (!flags.dryRun && !deps.globals.yes && !deps.prompter.canPrompt()) {
    throw usageError(
      undefined,
      'cannot ask for confirmation: not a terminal (or --no-input); nothing was sent',
      'pass --yes (-y) to pay without asking, or --dry-run to only look',
    );
  }
  const settings = await deps.settings();
  const config = await deps.config();
  return {
    deps,
    settings,
    mode: await outputMode(deps, settings.timeZone.value),
    journal: openJournal(config.dir, deps.clock),
    flags,
  };
}

// ---------------------------------------------------------------------------------------------
// Guards

function describePayment(ctx: PayContext, payment: Payment): string {
  const when = formatDateTime(payment.at, ctx.settings.timeZone.value);
  const state = payment.state === 'done' ? 'paid' : 'sent with no known outcome';
  const to = payment.receiver ? ` to ${payment.receiver}` : '';
  return `${formatBRL(payment.amountCentavos)}${to} ${state} at ${when} (endToEndId ${payment.endToEndId})`;
}

function duplicateError(ctx: PayContext, payment: Payment): PixError {
  const what = ctx.flags.dryRun ? 'would be refused: ' : '';
  return new PixError('declined', `${what}already paid: ${describePayment(ctx, payment)}`, {
    hint: 'check `pix statement`; pass --allow-duplicate to pay again anyway',
  });
}

/** The duplicate guard (exit 8 unless --allow-duplicate, which only warns). */
export function checkDuplicate(ctx: PayContext, query: DuplicateQuery): void {
  const earlier = ctx.journal.findDuplicate(query);
  if (!earlier) return;
  if (!ctx.flags.allowDuplicate) throw duplicateError(ctx, earlier);
  ctx.deps.io.stderr.write(`warning: paying again (--allow-duplicate): ${describePayment(ctx, earlier)}\n`);
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
  const { name, document, institution: at } = plan.receiver;
  return `Pay ${formatBRL(amount)} to ${name}${document ? ` (${document})` : ''}${at ? ` at ${at}` : ''}?`;
}

function statementCommand(ctx: PayContext): string {
  return `pix statement -p ${ctx.settings.profile.value} --from today --to today`;
}

// ---------------------------------------------------------------------------------------------
// Paying

/** A prompt before money moves: Ctrl-C or a closed terminal is a "no" (exit 8), not a crash. */
export async function ask<T>(prompt: () => Promise<T>): Promise<T> {
  try {
    return await prompt();
  } catch (error) {
    if (error instanceof PixError) throw error;
    throw new PixError('declined', 'payment cancelled (no answer); nothing was sent', { cause: error });
  }
}

/**
 * Shows the plan, then (unless --dry-run) names the profile and host, confirms, journals, sends the
 * transfer once and records its outcome. Guards specific to a flow run before this.
 */
export async function confirmAndPay(ctx: PayContext, plan: PaymentPlan): Promise<void> {
  const { deps, mode, journal } = ctx;
  const { stdout, stderr } = deps.io;
  if (mode.human) stdout.write(renderDetails(plan.details, mode));

  if (ctx.flags.dryRun) {
    if (mode.format === 'json')
      stdout.write(jsonDocument({ consult: plan.consult, transfer: null }, mode.pretty));
    else if (!mode.human) stdout.write(renderDetails(plan.details, mode));
    stderr.write('dry run: nothing was sent\n');
    return;
  }
  const amount = plan.amount;
  if (amount === undefined) throw new Error('pay: no amount outside a dry run');

  const client = await deps.api();
  const host = new URL(client.baseUrl).host;
  const profile = ctx.settings.profile.value;
  stderr.write(`paying from profile "${profile}" via ${host}${ctx.settings.sandbox ? ' (sandbox)' : ''}\n`);
  if (!deps.globals.yes) {
    const yes = await ask(() => deps.prompter.confirm(confirmationQuestion(plan, amount)));
    if (!yes) throw new PixError('declined', 'payment cancelled; nothing was sent');
  }

  const query: DuplicateQuery = { ...plan.identity, amountCentavos: amount };
  const start = journal.begin({
    profile,
    host,
    ...plan.identity,
    amountCentavos: amount,
    endToEndId: plan.endToEndId,
    receiver: plan.receiver.name,
  });
  if (!ctx.flags.allowDuplicate) {
    // Another pix may have started the same payment since the first check: the earlier line wins.
    const earlier = journal.findDuplicate(query, start.id);
    if (earlier) {
      journal.finish(start.id, { state: 'failed', reason: 'duplicate' });
      throw duplicateError(ctx, earlier);
    }
  }

  // Once the transfer is sent, a journal that cannot be written must not hide what happened to the money.
  const record = (outcome: Parameters<Journal['finish']>[1]) => {
    try {
      journal.finish(start.id, outcome);
    } catch (error) {
      stderr.write(`warning: the journal could not record the outcome (${(error as Error).message})\n`);
    }
  };
  let transfer: TransferResult;
  try {
    transfer = await sendTransfer(client, {
      endToEndId: plan.endToEndId,
      ...(plan.sendAmount ? { amount: centavosToApi(amount) } : {}),
    });
  } catch (error) {
    const known = error instanceof PixError && error.kind !== 'unknown_outcome';
    record({
      state: known ? 'failed' : 'unknown',
      reason: error instanceof PixError ? error.kind : 'internal',
    });
    if (known) throw error;
    stderr.write(
      `the transfer of ${formatBRL(amount)} to ${plan.receiver.name} may or may not have gone through\n` +
        `endToEndId: ${plan.endToEndId}\n` +
        `check before paying again: ${statementCommand(ctx)}\n`,
    );
    if (!(error instanceof PixError)) throw error;
    throw new PixError('unknown_outcome', error.message, {
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.serverMessage === undefined ? {} : { serverMessage: error.serverMessage }),
      server: error.server,
      cause: error,
      hint: `it may have been applied: look for it in \`${statementCommand(ctx)}\` before paying again (endToEndId ${plan.endToEndId}; journal entry ${start.id} is marked unknown)`,
    });
  }
  record({
    state: 'done',
    ...(transfer.id ? { transferId: transfer.id } : {}),
    ...(transfer.status ? { status: transfer.status } : {}),
  });

  if (mode.format === 'json') {
    stdout.write(jsonDocument({ consult: plan.consult, transfer }, mode.pretty));
  } else if (mode.human) {
    stdout.write(
      `${mode.colors.green('Sent')} ${formatBRL(amount)} to ${plan.receiver.name}: ${transfer.status ?? 'accepted'}\n`,
    );
    stdout.write(renderDetails(transferRows(transfer), mode));
  } else {
    stdout.write(renderDetails([...plan.details, ...transferRows(transfer)], mode));
  }
}
