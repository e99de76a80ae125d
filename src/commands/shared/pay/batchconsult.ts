/**
 * `pix pay batch`, step 3 (batchrun.ts payBatchRows): every open row consulted, a bounded number at a time
 * (the client retries consultations and honours Retry-After); a refused consultation makes the row
 * `not_payable`, and the consultation gives the row its receiver and, for a code, its amount.
 */

import { consultEmv, consultKey, dictEndToEndId } from '../../../api/resources/payments.js';
import { planRowAmount } from '../../../domain/batchplan.js';
import { decodeBrCode } from '../../../domain/brcode.js';
import { centavosFromApi } from '../../../domain/money.js';
import { type ConsultedOwner, merchantMatchesOwner, payeeMismatch } from '../../../domain/payee.js';
import { PixError, stopSignalOf } from '../../../errors.js';
import { createProgress } from '../../../output/progress.js';
import { safeText } from '../../../output/sanitize.js';
import type { Run } from './batchpayment.js';
import type { BatchItem } from './batchrun.js';
import { institution, maskedDocument } from './details.js';
import { checkNotExpired, keyAnswerProblem } from './guards.js';
import type { PayContext } from './shared.js';

/** Runs `work` over `items` with at most `limit` at a time, starting none once `stop()` is true. */
export async function eachBounded<T>(
  items: readonly T[],
  limit: number,
  stop: () => boolean,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Why the server refused a row, as main.ts words an error: pix's words, the status, then the server's
 * own reason, sanitized (it is the server's text, shown to a person and written to the report).
 */
export function refusalOf(error: PixError): string {
  const status = error.status === undefined ? '' : ` (${error.status})`;
  const reason = error.serverMessage ? `: ${safeText(error.serverMessage, 200)}` : '';
  return `${error.message}${status}${reason}`;
}

function notPayable(item: BatchItem, error: unknown): void {
  if (!(error instanceof PixError)) throw error;
  // A refusal of the consultation (404, 400, 422, an expired code): this row cannot be paid as written.
  if (error.kind === 'not_found' || error.kind === 'rejected') {
    item.state = 'not_payable';
    item.error = refusalOf(error);
    return;
  }
  // Auth, a signal, or anything else stops the whole batch: nothing has been sent yet.
  if (error.kind !== 'unavailable') throw error;
  item.state = 'not_sent';
  item.error = `${error.message} (run the file again to pay it)`;
}

async function consultRow(ctx: PayContext, item: BatchItem): Promise<void> {
  const client = await ctx.deps.api();
  const { target } = item.row;
  try {
    if (target.kind === 'key') {
      const consult = await consultKey(client, target.key);
      const other = keyAnswerProblem({ type: target.keyType, key: target.key }, consult);
      if (other) {
        item.state = 'not_payable';
        item.error = other;
        return;
      }
      if (payeeRefused(item, { ...consult.owner, document: consult.owner.documentNumber })) return;
      item.endToEndId = dictEndToEndId(consult);
      item.receiver = consult.owner.name;
      item.document = maskedDocument(consult.owner.documentNumber);
      item.institution = institution(consult.account?.participant);
      item.payee = payeeOf(consult.owner.documentNumber, consult.account?.participant);
      setAmount(item, planRowAmount(item.row));
      return;
    }
    const consult = await consultEmv(client, target.emv);
    const owner = { name: consult.receiver.name, document: consult.receiver.documentNumber };
    if (payeeRefused(item, owner)) return;
    if (!target.dynamic && item.row.expect === undefined && merchantRefused(item, target.emv, owner)) return;
    item.endToEndId = consult.endToEndId;
    item.receiver = consult.receiver.name;
    item.document = maskedDocument(consult.receiver.documentNumber);
    item.institution = institution(consult.receiver.participant);
    item.payee = payeeOf(consult.receiver.documentNumber, consult.receiver.participant);
    checkNotExpired(ctx, consult.calendar?.expirationDate, client.clock.now());
    if (consult.calendar?.expirationDate) item.expiresAt = consult.calendar.expirationDate;
    const final = consult.amount?.final;
    setAmount(
      item,
      planRowAmount(item.row, {
        ...(typeof final === 'number' ? { final: centavosFromApi(final) } : {}),
        ...(typeof consult.amount?.canModifyFinalAmount === 'boolean'
          ? { canModifyFinalAmount: consult.amount.canModifyFinalAmount }
          : {}),
      }),
    );
  } catch (error) {
    notPayable(item, error);
  }
}

/**
 * Contract §7.8: a row that names who it pays (its document and name columns) is paid only to that owner;
 * another one makes it `not_payable`, naming both, and nothing of it is sent.
 */
function payeeRefused(item: BatchItem, owner: ConsultedOwner): boolean {
  if (item.row.expect === undefined) return false;
  const mismatch = payeeMismatch(item.row.expect, owner);
  if (mismatch === undefined) return false;
  item.state = 'not_payable';
  item.error = safeText(mismatch, 400);
  return true;
}

/**
 * A static code whose merchant name shares nothing with the owner of its key: a person paying it alone is
 * asked (pay qr); a batch asks nobody per row, so the row is not paid unless its document or name column
 * says who it pays.
 */
function merchantRefused(item: BatchItem, emv: string, owner: ConsultedOwner): boolean {
  const merchant = merchantNameOf(emv);
  if (merchant === undefined || merchantMatchesOwner(merchant, owner)) return false;
  item.state = 'not_payable';
  item.error = safeText(
    `the code names "${merchant}" but its key belongs to ${owner.name}: fill the row's document or name column to pay it`,
    400,
  );
  return true;
}

/** Field 59 of a code pix already decoded once (batchrow.ts), or undefined. */
function merchantNameOf(emv: string): string | undefined {
  try {
    return decodeBrCode(emv).merchantName;
  } catch {
    return undefined;
  }
}

function payeeOf(
  document: string | null | undefined,
  participant: string | null | undefined,
): BatchItem['payee'] {
  return { ...(document ? { document } : {}), ...(participant ? { participant } : {}) };
}

function setAmount(item: BatchItem, planned: ReturnType<typeof planRowAmount>): void {
  if (!planned.payable) {
    item.state = 'not_payable';
    item.error = planned.reason;
    return;
  }
  item.amount = planned.amount;
  item.sendAmount = planned.sendAmount;
}

/** 3. Consult every open row, `concurrency` at a time; a signal ends it with nothing sent. */
export async function consultAll(
  run: Run,
  toConsult: readonly BatchItem[],
  concurrency: number,
): Promise<void> {
  const { deps } = run.ctx;
  const progress = createProgress(deps.io, 'consulted', { streamsRows: false });
  let consulted = 0;
  await eachBounded(
    toConsult,
    concurrency,
    () => deps.signal.aborted,
    async (item) => {
      await consultRow(run.ctx, item);
      progress.update(++consulted, toConsult.length);
    },
  );
  progress.done();
  if (deps.signal.aborted) {
    throw new PixError('interrupted', 'pix pay batch: interrupted while consulting; nothing was sent', {
      signal: stopSignalOf(deps.signal),
    });
  }
}
