/**
 * `pix pay batch`, steps 2 and 5 (batchrun.ts payBatchRows): what the journal says of each row (paid before,
 * sent with no known outcome, a different payment under the same id), the duplicate guards once every
 * receiver is known, and the payments: each row journaled before its one transfer, never retried; an
 * unknown outcome, a refused login or a signal stops new rows from starting.
 */
import type { TransferResult } from '../../../api/resources/payments.js';
import type { BatchProblem, BatchRow } from '../../../domain/batch.js';
import { formatBRL } from '../../../domain/money.js';
import { describeSystemError, PixError, stopSignalOf } from '../../../errors.js';
import { type JournalEntry, type PaymentIdentity, shortId } from '../../../journal/entries.js';
import { type LookFor, recoveryHint } from '../../../journal/record.js';
import {
  type Blocker,
  DUPLICATE_WINDOW_MS,
  type DuplicateQuery,
  effectiveState,
  isUnresolved,
  recordedAccount,
  rowPaidElsewhere,
  type Scope,
  sameRowPayment,
} from '../../../journal/rules.js';
import { type ClaimQuestion, judgeClaim, OutcomeSpilled } from '../../../journal/stores.js';
import { createProgress } from '../../../output/progress.js';
import { safeText } from '../../../output/sanitize.js';
import { refuseFile, SHOWN_PROBLEMS } from '../files.js';
import { eachBounded, refusalOf } from './batchconsult.js';
import type { BatchItem } from './batchrun.js';
import { describeDebit, holderWords, statementDuplicate } from './guards.js';
import type { Moment, MomentRow } from './moment.js';
import { journaledTransfer, type PayContext } from './shared.js';

/** Entries of a row's amount a batch holds: those started within the duplicate window, and more. */
const RECENT_MS = 2 * DUPLICATE_WINDOW_MS;

export interface Run {
  ctx: PayContext;
  batch: string;
  /** The journal's questions leave out the rows of this file: rows with distinct ids are the operator's intent. */
  ownRows: Scope['skip'];
  /** Set once no new row may start, with why. */
  stopped?: string;
  /** The first file the machine would not let pix write (a full disk): the batch's error once reported. */
  fault?: { message: string; hint: string; error: unknown };
  /** The spill file that kept outcomes the shared ledger could not take (journal/postgres/spill.ts). */
  spilled?: string;
  /** The API refused the credentials (a 401 even after a fresh token, or a static token): exit 3. */
  refusedLogin?: string;
  /** The policies' checks at the moment of each payment (moment.ts): a row they refuse is held. */
  moment?: Moment;
}

/**
 * A row whose journal could not be written (a full disk, a read-only directory): its transfer was never
 * sent — every journal write after the transfer leaves is caught and warned about by sendJournaled — so
 * the row is `not_sent` and no new row starts. The rows done so far are still reported.
 */
function journalFault(run: Run, item: BatchItem, error: unknown): void {
  if (error instanceof PixError && error.kind === 'unavailable') {
    // A shared ledger that cannot be reached before the claim: nothing was sent (exit 6).
    item.state = 'not_sent';
    item.error = `not sent: ${error.message}`;
    run.stopped ??= error.message;
    return;
  }
  const system = describeSystemError(error);
  if (system === undefined) throw error;
  item.state = 'not_sent';
  item.error = `not sent: ${system.message} (run the file again to pay it)`;
  run.fault ??= { ...system, error };
  run.stopped ??= system.message;
}

/** Who a row pays: its key or code, and once consulted, its receiver's document and institution. */
function identityOf(batch: string, row: BatchRow, payee: BatchItem['payee'] = {}): PaymentIdentity {
  const batchRow = { batch, row: row.id };
  return row.target.kind === 'key'
    ? { method: 'key', key: row.target.key, batchRow, ...payee }
    : { method: 'qr', emvHash: row.target.emvHash, dynamic: row.target.dynamic, batchRow, ...payee };
}

/**
 * What a file's rows ask of the journal. `asked`: the entries a batch holds in memory — its row ids', its
 * payees', and the recent ones of its amounts (a receiver is also known by its document, whatever key
 * named it, within the duplicate window) — since the rules (rules.ts) look at no others, and a long journal then costs a row nothing
 * more. `ownRow`: an entry that is a row of this file (or of `batch`), left out of the duplicate guard (rows
 * of one file with distinct ids are the operator's intent).
 */
export function journalQuestions(
  rows: readonly BatchRow[],
  now: Date,
  batch?: string,
): { asked: (entry: JournalEntry) => boolean; ownRow: NonNullable<Scope['skip']> } {
  const ids = new Set<string>();
  const keys = new Set<string>();
  const codes = new Set<string>();
  const amounts = new Set<number>();
  const recent = now.getTime() - RECENT_MS;
  for (const { id, target, amount } of rows) {
    ids.add(id);
    if (target.kind === 'key') keys.add(target.key);
    else codes.add(target.emvHash);
    if (amount !== undefined) amounts.add(amount);
  }
  // A row of this batch: of this file (its ids; an edited file has another batch id), or of the schedules,
  // whose occurrences, each confirmed when its schedule was made, are one batch (commands/schedule/payment.ts).
  const ownRow = ({ payment }: JournalEntry) =>
    payment?.batchRow !== undefined && (ids.has(payment.batchRow.row) || payment.batchRow.batch === batch);
  return {
    ownRow,
    asked: (entry) => {
      const { payment } = entry;
      if (payment === undefined) return false;
      if (ownRow(entry)) return true;
      if (amounts.has(entry.amountCentavos) && Date.parse(entry.at) >= recent) return true;
      if (payment.method === 'key') return payment.key !== undefined && keys.has(payment.key);
      return payment.emvHash !== undefined && codes.has(payment.emvHash);
    },
  };
}

/**
 * A row held by an earlier attempt with no known outcome, and how the operator settles it. Without
 * `look` the statement window is given in UTC (with its offset, so it is still exact).
 */
function heldMessage(entry: JournalEntry, look: LookFor = {}): string {
  return `sent before (journal entry ${shortId(entry.id)}) with no known outcome; ${recoveryHint(entry, look)}`;
}

/** What the recovery hint of a row can name: the profile's time zone and the receiver's document. */
export function lookOf(ctx: PayContext, item: BatchItem): LookFor {
  return {
    timeZone: ctx.settings.timeZone.value,
    ...(item.document === undefined ? {} : { document: item.document }),
  };
}

/** `R$ 10,00 to ana@example.com via api.example.com (profile "prod") on 2026-11-24T10:00:00Z`. */
function paymentWords(entry: JournalEntry): string {
  const payee = entry.payment?.key ?? (entry.payment?.method === 'qr' ? 'a code' : 'someone');
  return `${formatBRL(entry.amountCentavos)} to ${safeText(payee, 80)} via ${safeText(entry.baseUrl ?? entry.host, 80)} (profile "${safeText(entry.profile, 40)}") at ${entry.at}, journal entry ${shortId(entry.id)}`;
}

/**
 * What an earlier journal entry does to a row: paid → already_paid; sent with no known outcome →
 * held as unknown, or in_progress while the pix process sending it still runs; the same payment made
 * outside this file within the window → duplicate (unless --allow-duplicate).
 */
async function applyBlocker(run: Run, item: BatchItem, blocker: Blocker, byRow: boolean): Promise<void> {
  const { entry } = blocker;
  item.earlier = entry;
  // Who still sends it, if anyone: asking also brings a shared store's entry up to date (stores.ts holder).
  const holder = isUnresolved(entry) ? await run.ctx.journal.holder(entry) : undefined;
  // The entry is the journal's own, read again since it was found (appending our line reads what other
  // writers appended first): another pix may have finished it meanwhile. It is judged as it is now.
  const state = effectiveState(entry);
  if (state === 'failed') {
    item.state = 'not_sent';
    item.error = `another attempt (journal entry ${shortId(entry.id)}) was refused meanwhile; run the file again to pay it`;
    return;
  }
  if (blocker.why === 'paid' || state === 'done') {
    item.state = byRow ? 'already_paid' : 'duplicate';
    if (!byRow) {
      item.error = `the same payment was made outside this file (${paymentWords(entry)}): pass --allow-duplicate to pay it again`;
    }
    return;
  }
  if (holder !== undefined) {
    item.state = 'in_progress';
    item.error = `in progress ${holder.here ? 'elsewhere' : `on ${safeText(holder.host, 80)}`}: ${holderWords(holder)} is sending it (journal entry ${shortId(entry.id)}); its report will say how it ended`;
    return;
  }
  item.state = 'unknown';
  const held = heldMessage(entry, lookOf(run.ctx, item));
  item.error = byRow ? held : `the same payment ${held}`;
}

/** What stops a row: an earlier payment of its id first, then (unless allowed) the same payment. */
function claimQuestion(run: Run, item: BatchItem, query: DuplicateQuery): ClaimQuestion {
  const { account, flags } = run.ctx;
  return { account, query, row: item.row.id, skip: run.ownRows, allowPaid: flags.allowDuplicate };
}

async function payRow(run: Run, item: BatchItem): Promise<void> {
  const amount = item.amount!;
  const payment = identityOf(run.batch, item.row, item.payee);
  // The policies at this very moment (the day's caps, a plan's night rules): not when the run started.
  const moment = momentRow(item);
  const held = await run.moment?.check(moment);
  if (held !== undefined) {
    item.state = 'held';
    item.error = held;
    return;
  }
  try {
    await claimAndSend(run, item, payment, amount);
  } finally {
    // Refused before it applied, or never sent: it no longer counts against the day's caps.
    if (item.state === 'rejected' || item.state === 'not_sent' || item.state === 'planned')
      run.moment?.release(moment);
  }
}

/** A row as the checks at its moment of payment see it. */
function momentRow(item: BatchItem): MomentRow {
  const { target } = item.row;
  return {
    id: item.row.id,
    amount: item.amount!,
    payee: { ...(target.kind === 'key' ? { key: target.key } : {}), ...item.payee },
    receiverName: item.receiver ?? '',
  };
}

async function claimAndSend(
  run: Run,
  item: BatchItem,
  payment: PaymentIdentity,
  amount: number,
): Promise<void> {
  const { ctx } = run;
  const { journal, account } = ctx;
  // Another pix (here, or on another machine sharing the ledger) may have begun this row, or the same
  // payment, since the plan: the claim stands only if none did (journal/stores.ts).
  const claim = await journal.claim(
    {
      kind: 'payment',
      ...recordedAccount(account),
      amountCentavos: amount,
      ...(item.receiver === undefined ? {} : { receiver: item.receiver }),
      endToEndId: item.endToEndId!,
      payment,
      ...(item.row.description === undefined ? {} : { description: item.row.description }),
      ...((item.plan ?? ctx.flags.fromPlan) === undefined ? {} : { plan: item.plan ?? ctx.flags.fromPlan }),
    },
    claimQuestion(run, item, { ...payment, amountCentavos: amount, receiver: item.receiver }),
  );
  if (claim.entry === undefined) {
    await applyBlocker(run, item, claim.blocked.blocker, claim.blocked.byRow);
    return;
  }
  const { entry } = claim;
  let transfer: TransferResult;
  try {
    transfer = await journaledTransfer(ctx, entry, {
      endToEndId: item.endToEndId!,
      amount: item.sendAmount ? amount : undefined,
      document: item.document,
      // Ctrl-C stops new rows; the ones in flight finish, so their outcome is known, not unknown.
      finishOnSignal: true,
    });
  } catch (error) {
    if (!(error instanceof PixError)) throw error;
    item.error = error.message;
    if (error.name === 'ClaimLapsed') {
      // Not sent: its claim could have lapsed while pix was paused (journal/postgres/leases.ts). The ledger
      // holds the row as unknown until it is resolved, as every later run will report it.
      item.state = 'unknown';
      item.earlier = entry;
      item.error = `${error.message}; ${error.hint}`;
      run.stopped ??= `row ${item.row.id}'s claim could have lapsed before it was sent`;
    } else if (error.kind === 'unknown_outcome' && error.cause instanceof OutcomeSpilled) {
      // Known here, kept in the spill file: written to the shared ledger by the next command here, not
      // for the operator to resolve.
      item.state = 'unknown';
      item.error = `${error.message}; ${error.hint}`;
      run.spilled = error.cause.file;
      run.stopped ??= `row ${item.row.id}'s outcome could not be written to the shared ledger`;
    } else if (error.kind === 'unknown_outcome') {
      item.state = 'unknown';
      item.earlier = entry;
      // The hint is recoveryHint's: a statement window, the amount, the document, the resolve commands.
      item.error = `${error.message}; ${error.hint ?? recoveryHint(entry, lookOf(ctx, item))}`;
      run.stopped ??= `row ${item.row.id} has an unknown outcome`;
    } else if (error.kind === 'rejected' || error.kind === 'not_found') {
      item.state = 'rejected';
      item.error = refusalOf(error);
    } else {
      // Nothing was applied (429, a refused login, a request that never left): a rerun pays it.
      item.state = 'not_sent';
      if (error.kind !== 'unavailable') run.stopped ??= error.message;
      if (error.kind === 'auth') run.refusedLogin ??= error.message;
    }
    return;
  }
  item.state = 'paid';
  if (transfer.id) item.transferId = transfer.id;
}

/** The rows nothing has decided yet. */
export function openItems(items: readonly BatchItem[]): BatchItem[] {
  return items.filter((item) => item.state === 'planned');
}

/**
 * 2. The journal, of this account: rows paid before are skipped, rows sent with no known outcome are held,
 * and a row id whose earlier payment differs from the row now refuses the file.
 */
export async function readJournal(run: Run, items: readonly BatchItem[], file: string): Promise<void> {
  const { ctx, batch } = run;
  const { account } = ctx;
  const changed: BatchProblem[] = [];
  for (const item of items) {
    const blocker = await ctx.journal.rowBlocker(item.row.id, account);
    if (!blocker) {
      const elsewhere = rowPaidElsewhere(await ctx.journal.rowEntries(item.row.id), account);
      if (elsewhere !== undefined) item.elsewhere = elsewhere;
      continue;
    }
    const { entry } = blocker;
    if (!sameRowPayment(entry, identityOf(batch, item.row), item.row.amount)) {
      changed.push({
        line: item.row.line,
        id: item.row.id,
        message: `this row id was ${blocker.why === 'paid' ? 'paid' : 'sent'} before as ${paymentWords(entry)}, and the row now asks another payment`,
      });
      continue;
    }
    await applyBlocker(run, item, blocker, true);
    item.amount = entry.amountCentavos;
    if (entry.receiver !== undefined) item.receiver = entry.receiver;
    if (entry.endToEndId !== undefined) item.endToEndId = entry.endToEndId;
    if (entry.transferId !== undefined) item.transferId = entry.transferId;
  }
  if (changed.length > 0) {
    refuseFile(
      ctx.deps,
      file,
      changed,
      'rows already paid on this account ask another payment now',
      'a row id is paid once: give the new payment a new id (the old row stays paid)',
    );
  }
  for (const item of items.filter((i) => i.elsewhere !== undefined).slice(0, SHOWN_PROBLEMS)) {
    ctx.deps.io.stderr.write(
      `note: row ${safeText(item.row.id, 80)}: this id was paid on another account (${paymentWords(item.elsewhere!)}); here it is a payment of its own\n`,
    );
  }
}

/**
 * The duplicate guards, as for pay key and pay qr, once every amount and receiver is known: the
 * journal's, then the statement's (read once for the whole file).
 */
export async function guardDuplicates(run: Run, open: readonly BatchItem[]): Promise<void> {
  const { ctx } = run;
  for (const item of open) {
    const query = {
      ...identityOf(run.batch, item.row, item.payee),
      amountCentavos: item.amount!,
      receiver: item.receiver,
    };
    const earlier = await judgeClaim(ctx.journal, claimQuestion(run, item, query));
    if (earlier) await applyBlocker(run, item, earlier.blocker, earlier.byRow);
  }
  for (const item of openItems(open)) {
    const paidTo = { amount: item.amount!, document: item.payee?.document, name: item.receiver };
    const debit = await statementDuplicate(ctx, paidTo);
    if (debit === undefined) continue;
    if (ctx.flags.allowDuplicate) {
      ctx.deps.io.stderr.write(
        `warning: row ${safeText(item.row.id, 80)}: paying again (--allow-duplicate): the statement shows ${describeDebit(ctx, debit)}\n`,
      );
      continue;
    }
    item.state = 'duplicate';
    item.error = `the statement shows ${describeDebit(ctx, debit)}, which no payment in this journal explains: it may be this row paid from another machine or app; pass --allow-duplicate to pay it anyway`;
  }
}

/** 5. Pay, `concurrency` at a time, until a signal, a full disk or a refused login stops new rows. */
export async function payAll(run: Run, payable: readonly BatchItem[], concurrency: number): Promise<void> {
  const { deps } = run.ctx;
  const paying = createProgress(deps.io, 'paid', { streamsRows: false });
  let done = 0;
  await eachBounded(
    payable,
    concurrency,
    () => {
      if (deps.signal.aborted) run.stopped ??= `stopped by ${stopSignalOf(deps.signal)}`;
      return run.stopped !== undefined;
    },
    async (item) => {
      try {
        await payRow(run, item);
      } catch (error) {
        journalFault(run, item, error);
      }
      paying.update(++done, payable.length);
    },
  );
  paying.done();
  for (const item of openItems(payable)) {
    item.state = 'not_sent';
    item.error = `not started: ${run.stopped ?? 'the batch stopped'} (run the file again to pay it)`;
  }
}
