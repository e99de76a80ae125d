/**
 * How a payment is shown: the detail rows of a consultation and a transfer, the confirmation's question,
 * institutions and masked documents. Every server text goes through the one sanitizer (output/sanitize.ts).
 */
import type { TransferResult } from '../../../api/resources/payments.js';
import { institutionName } from '../../../domain/banks.js';
import { maskDocument } from '../../../domain/documents.js';
import { type Centavos, centavosFromApi, formatBRL, formatDecimal } from '../../../domain/money.js';
import { formatDateTime } from '../../../domain/when.js';
import type { OutputMode } from '../../../output/format.js';
import { safeText } from '../../../output/sanitize.js';
import type { DetailRow, PayContext, PaymentPlan } from './shared.js';

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

export function renderDetails(rows: DetailRow[], mode: OutputMode): string {
  return mode.table(
    ['Field', 'Value'],
    rows.map((row) => (mode.human ? [row.label, row.human] : [row.key, row.machine])),
  );
}

export function transferRows(transfer: TransferResult): DetailRow[] {
  const rows: DetailRow[] = [];
  textRow(rows, 'Transfer id', 'transferId', transfer.id);
  textRow(rows, 'Status', 'status', transfer.status);
  if (typeof transfer.fee === 'number') moneyRow(rows, 'Fee', 'fee', centavosFromApi(transfer.fee));
  return rows;
}

export function confirmationQuestion(plan: PaymentPlan, amount: Centavos): string {
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
