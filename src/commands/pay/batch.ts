/**
 * `pix pay batch FILE`: payouts from a spreadsheet, every row paid exactly once.
 *
 * 1. Offline: the whole file is read and checked (domain/batch.ts); any problem → exit 2 listing up
 *    to 20 with their lines, nothing sent. The profile's max-amount (each row) and --max-total (the sum)
 *    are checked on the amounts the file gives.
 * 2. The journal: a row id once paid from this profile is `already_paid` (not consulted, not sent); a
 *    row sent before with no known outcome is held as `unknown` until `pix journal resolve`.
 * 3. Consult every other row (bounded concurrency; the client retries consultations and honours
 *    Retry-After); a refused consultation makes the row `not_payable`. The guards run again on what the
 *    consultations ask. `--dry-run` shows the plan and stops.
 * 4. One confirmation (profile, host, rows, receivers, total), or --yes.
 * 5. Pay (same concurrency): each row journaled before its one transfer (never retried). An unknown
 *    outcome, a refused login or Ctrl-C stops new rows from starting; rows in flight finish.
 * 6. The report: one record per row on stdout; the totals on stderr; the exit code from the states.
 */
import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import { consultEmv, consultKey, dictEndToEndId, type TransferResult } from '../../api/resources/payments.js';
import type { Deps } from '../../context.js';
import {
  type BatchFormat,
  type BatchParseResult,
  type BatchProblem,
  type BatchRow,
  batchFormatFor,
  formatProblem,
} from '../../domain/batch.js';
import {
  batchOutcome,
  checkBatchLimits,
  countStates,
  describeStates,
  planRowAmount,
  type RowState,
} from '../../domain/batchplan.js';
import { parseBatchSheet } from '../../domain/batchsheet.js';
import { parseBatchFile } from '../../domain/batchtext.js';
import {
  type Centavos,
  centavosFromApi,
  centavosToApi,
  formatBRL,
  formatDecimal,
} from '../../domain/money.js';
import { describeSystemError, PixError, stopSignalOf } from '../../errors.js';
import { type JournalEntry, type PaymentIdentity, shortId } from '../../journal/entries.js';
import { type LookFor, recoveryHint } from '../../journal/record.js';
import {
  type Blocker,
  DUPLICATE_WINDOW_MS,
  type DuplicateQuery,
  effectiveState,
  recordedAccount,
  rowPaidElsewhere,
  type Scope,
  sameRowPayment,
} from '../../journal/rules.js';
import { type ClaimQuestion, judgeClaim, OutcomeSpilled } from '../../journal/stores.js';
import { preparePager } from '../../output/pager.js';
import { createProgress } from '../../output/progress.js';
import { type Column, createListWriter } from '../../output/records.js';
import { safeText } from '../../output/sanitize.js';
import { renderTable, type TableColumn } from '../../output/table.js';
import { asUsageAwait } from '../../usage.js';
import * as z from '../../zod.js';
import { fileName, readInputFile, refuseFile, SHOWN_PROBLEMS } from '../shared/files.js';
import { amountFlag, duplicateWindowFlag, integerFlag, parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';
import { planFlags, planOptions, planRequestOf } from './planflags.js';
import {
  ask,
  checkNotExpired,
  DUPLICATE_WINDOW_OPTION,
  describeDebit,
  holderWords,
  institution,
  journaledTransfer,
  keyAnswerProblem,
  maskedDocument,
  type PayContext,
  type PayFlags,
  refuseUnconfirmable,
  startPayment,
  statementDuplicate,
} from './shared.js';

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;
/** Entries of a row's amount a batch holds: those started within the duplicate window, and more. */
const RECENT_MS = 2 * DUPLICATE_WINDOW_MS;

const payBatchOptionsSchema = z.object({
  file: z.string().check(z.minLength(1)),
  format: z.optional(z.enum(['csv', 'ndjson', 'xlsx'])),
  concurrency: z._default(
    integerFlag(1).check(z.refine((n) => n <= MAX_CONCURRENCY, `at most ${MAX_CONCURRENCY}`)),
    DEFAULT_CONCURRENCY,
  ),
  maxTotal: z.optional(amountFlag),
  dryRun: z._default(z.boolean(), false),
  allowDuplicate: z._default(z.boolean(), false),
  duplicateWindow: z.optional(duplicateWindowFlag),
  ...planFlags,
});

export type PayBatchOptions = z.output<typeof payBatchOptionsSchema>;

/** What a batch run pays: the rows of a file, or of an approved plan (`pix plan execute`). */
export interface BatchSource {
  /** The file, as errors name it. */
  file: string;
  /** The batch's id in the journal. */
  batch: string;
  rows: BatchRow[];
}

/** What `--plan FILE` and `pix plan execute` add to a batch run (commands/pay/plan.ts, plan/execute.ts). */
export interface BatchPlanHooks {
  /** `plan` (a plan is written, nothing paid) or `fromPlan` (an approved plan is paid). */
  flags?: Pick<PayFlags, 'plan' | 'fromPlan'>;
  /** After the consultations and the journal's guards, before the limits: may hold rows, or stop the run. */
  consulted?(ctx: PayContext, items: BatchItem[]): Promise<void>;
  /** Instead of the confirmation and the payments: writes the plan of the rows left to pay. */
  writePlan?(ctx: PayContext, items: BatchItem[]): Promise<void>;
}

/** One row on its way through the batch, and what the report says of it. */
export interface BatchItem {
  row: BatchRow;
  state: RowState | 'planned';
  /** What the row pays (after its consultation, for a code). */
  amount?: Centavos;
  sendAmount?: boolean;
  endToEndId?: string;
  receiver?: string;
  document?: string;
  institution?: string;
  transferId?: string;
  /** Why it was not paid, or what to do about it. */
  error?: string;
  /** The journal entry that made it already paid or held, or this run's entry of a row left unknown. */
  earlier?: JournalEntry;
  /** A payment of the same row id on another account (not this row's: named when the ids collide). */
  elsewhere?: JournalEntry;
  /** The receiver as the consultation answered (the whole document where it gave it): the guards' payee. */
  payee?: Pick<PaymentIdentity, 'document' | 'participant'>;
}

// ---------------------------------------------------------------------------------------------
// Reading the file

/**
 * A workbook's first sheet, read (its reader is loaded only for one); one that is not an xlsx, or that
 * shows a person something other than what pix would read, is exit 2. The read yields to the event loop
 * between slices of each part, so Ctrl-C and SIGTERM end it at once (nothing has been sent yet), and on a
 * terminal it shows how far it is.
 */
async function parseWorkbook(bytes: Buffer, file: string, deps: Deps): Promise<BatchParseResult> {
  const { readFirstSheet } = await import('../../domain/xlsxsheet.js');
  const progress = createProgress(deps.io, `reading ${safeText(fileName(file), 60)}, kB`, {
    streamsRows: false,
  });
  const pause = async (done: number, total: number) => {
    await new Promise((resolve) => setImmediate(resolve));
    if (deps.signal.aborted) {
      progress.done();
      throw new PixError(
        'interrupted',
        `pix pay batch: interrupted while reading ${fileName(file)}; nothing was sent`,
        {
          signal: stopSignalOf(deps.signal),
        },
      );
    }
    if (total > 0) progress.update(Math.floor(done / 1024), Math.ceil(total / 1024));
  };
  try {
    return parseBatchSheet(await asUsageAwait(fileName(file), () => readFirstSheet(bytes, { pause })));
  } finally {
    progress.done();
  }
}

// ---------------------------------------------------------------------------------------------
// Concurrency

/** Runs `work` over `items` with at most `limit` at a time, starting none once `stop()` is true. */
async function eachBounded<T>(
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

// ---------------------------------------------------------------------------------------------
// Consulting

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
      item.endToEndId = dictEndToEndId(consult);
      item.receiver = consult.owner.name;
      item.document = maskedDocument(consult.owner.documentNumber);
      item.institution = institution(consult.account?.participant);
      item.payee = payeeOf(consult.owner.documentNumber, consult.account?.participant);
      setAmount(item, planRowAmount(item.row));
      return;
    }
    const consult = await consultEmv(client, target.emv);
    item.endToEndId = consult.endToEndId;
    item.receiver = consult.receiver.name;
    item.document = maskedDocument(consult.receiver.documentNumber);
    item.institution = institution(consult.receiver.participant);
    item.payee = payeeOf(consult.receiver.documentNumber, consult.receiver.participant);
    checkNotExpired(ctx, consult.calendar?.expirationDate);
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

// ---------------------------------------------------------------------------------------------
// Paying

interface Run {
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
 * more. `ownRow`: an entry that is a row of this file, left out of the duplicate guard (rows of one file
 * with distinct ids are the operator's intent).
 */
function journalQuestions(
  rows: readonly BatchRow[],
  now: Date,
): {
  asked: (entry: JournalEntry) => boolean;
  ownRow: NonNullable<Scope['skip']>;
} {
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
  const ownRow = ({ payment }: JournalEntry) =>
    payment?.batchRow !== undefined && ids.has(payment.batchRow.row);
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
function lookOf(ctx: PayContext, item: BatchItem): LookFor {
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
  const holder = await run.ctx.journal.holder(entry);
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
  const { ctx } = run;
  const { journal, account } = ctx;
  const amount = item.amount!;
  const payment = identityOf(run.batch, item.row, item.payee);
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
      ...(ctx.flags.fromPlan === undefined ? {} : { plan: ctx.flags.fromPlan }),
    },
    claimQuestion(run, item, { ...payment, amountCentavos: amount }),
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
    if (error.kind === 'unknown_outcome' && error.cause instanceof OutcomeSpilled) {
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

// ---------------------------------------------------------------------------------------------
// Output

const STATE_PAINT: Partial<Record<RowState, 'green' | 'red' | 'yellow'>> = {
  paid: 'green',
  already_paid: 'green',
  not_payable: 'red',
  rejected: 'red',
  unknown: 'yellow',
  not_sent: 'yellow',
  duplicate: 'yellow',
  in_progress: 'yellow',
  receiver_changed: 'red',
};

function reportColumns(ctx: PayContext): Column<BatchItem>[] {
  const text = (value: string | undefined) => value ?? '';
  // The operator's note: beside the receiver for people; last for machines, so the columns scripts
  // already read by position (TSV has no header) keep their places.
  const description: Column<BatchItem> = {
    header: 'description',
    priority: 3,
    human: (item) => text(item.row.description),
    machine: (item) => item.row.description,
  };
  return [
    { header: 'id', human: (item) => item.row.id, machine: (item) => item.row.id },
    {
      header: 'state',
      kind: 'enum',
      human: (item) => {
        const paint = item.state === 'planned' ? undefined : STATE_PAINT[item.state];
        return paint === undefined ? item.state : { text: item.state, paint: ctx.mode.colors[paint] };
      },
      machine: (item) => item.state,
    },
    {
      header: 'amount',
      kind: 'money',
      human: (item) => (item.amount === undefined ? '' : formatBRL(item.amount)),
      machine: (item) => (item.amount === undefined ? undefined : formatDecimal(item.amount)),
    },
    { header: 'receiver', human: (item) => text(item.receiver), machine: (item) => item.receiver },
    ...(ctx.mode.human
      ? [description]
      : [
          { header: 'document', human: () => '', machine: (item: BatchItem) => item.document },
          { header: 'institution', human: () => '', machine: (item: BatchItem) => item.institution },
        ]),
    {
      header: 'endToEndId',
      kind: 'id',
      // Every endToEndId starts E + the institution's ISPB + the date: the end is what tells them apart.
      keepEnd: true,
      priority: 3,
      human: (item) => text(item.endToEndId),
      machine: (item) => item.endToEndId,
    },
    ...(ctx.mode.human
      ? []
      : [{ header: 'transferId', human: () => '', machine: (item: BatchItem) => item.transferId }]),
    { header: 'error', priority: 2, human: (item) => text(item.error), machine: (item) => item.error },
    ...(ctx.mode.human ? [] : [description]),
  ];
}

function rawRecord(item: BatchItem): Record<string, unknown> {
  return {
    id: item.row.id,
    line: item.row.line,
    state: item.state,
    amount: item.amount === undefined ? null : centavosToApi(item.amount),
    receiver: item.receiver ?? null,
    description: item.row.description ?? null,
    document: item.document ?? null,
    institution: item.institution ?? null,
    endToEndId: item.endToEndId ?? null,
    transferId: item.transferId ?? null,
    error: item.error ?? null,
    ...(item.earlier === undefined ? {} : { journalEntry: item.earlier.id }),
    ...(item.elsewhere === undefined ? {} : { paidElsewhere: item.elsewhere.id }),
  };
}

async function writeRecords(ctx: PayContext, items: readonly BatchItem[]): Promise<void> {
  const writer = createListWriter(ctx.deps.io.stdout, {
    format: ctx.mode.format,
    human: ctx.mode.human,
    pretty: ctx.mode.pretty,
    columns: reportColumns(ctx),
    listField: 'results',
    raw: rawRecord,
    openTable: ctx.mode.openTable,
    tally: ctx.deps.output.records(items.length),
    timeZone: ctx.mode.timeZone,
    sheet: 'Batch',
  });
  await writer.begin(items.length);
  for (const item of items) await writer.write(item);
  await writer.end();
}

/** Distinct receivers by what identifies them to the bank: the masked document and the name. */
function receiverCount(items: readonly BatchItem[]): number {
  return new Set(items.map((item) => `${item.document ?? ''}|${item.receiver ?? ''}`)).size;
}

/** The columns of the plan a person confirms: who gets what, as the consultations answered. */
const PLAN_COLUMNS: TableColumn[] = [
  { header: 'id', kind: 'id' },
  { header: 'receiver' },
  { header: 'document', priority: 2 },
  { header: 'institution', priority: 3 },
  { header: 'amount', kind: 'money' },
];

/**
 * The plan before the question (contract §7.2, for every row): each row's id, the receiver as its
 * consultation answered, and its amount, fitted to the terminal; longer than the screen, it goes through
 * the pager (PIX_PAGER, PAGER, `less -FRX`; `--no-pager`), so a long batch can be read before it is paid.
 */
async function showPlan(deps: Deps, payable: readonly BatchItem[]): Promise<void> {
  const { stderr } = deps.io;
  const rows = payable.map((item) => [
    item.row.id,
    item.receiver ?? '',
    item.document ?? '',
    item.institution ?? '',
    formatBRL(item.amount!),
  ]);
  const text = renderTable(PLAN_COLUMNS, rows, {
    width: stderr.isTTY ? stderr.columns : undefined,
    wide: deps.globals.wide,
  });
  const height = stderr.rows;
  const start =
    stderr.isTTY && deps.globals.pager && height !== undefined && text.split('\n').length > height - 3
      ? await preparePager(deps.env)
      : undefined;
  if (start === undefined) {
    if (!stderr.write(text)) await stderr.drained();
    return;
  }
  const pager = start();
  // Quitting the pager early (q) is reading enough: the question comes next either way.
  pager.input.write(text, () => {});
  await pager.close();
}

/**
 * Why each row was not paid, under the report, one line a row, whatever the width (the report's error
 * column is the first a narrow table leaves out). Unknown rows get their recovery lines instead.
 */
function writeReasons(deps: Deps, items: readonly BatchItem[]): void {
  const failed = items.filter(
    (item) => item.error !== undefined && item.state !== 'unknown' && item.state !== 'planned',
  );
  for (const item of failed.slice(0, SHOWN_PROBLEMS)) {
    deps.io.stderr.write(
      `${item.state.replace('_', ' ')}: row ${safeText(item.row.id, 80)}: ${safeText(item.error!, 600)}\n`,
    );
  }
  if (failed.length > SHOWN_PROBLEMS)
    deps.io.stderr.write(`  … and ${failed.length - SHOWN_PROBLEMS} more\n`);
}

// ---------------------------------------------------------------------------------------------
// The command

export async function runPayBatch(options: PayBatchOptions, deps: Deps): Promise<void> {
  const { stderr } = deps.io;
  // 1. Offline: the whole file, then the guards on the amounts it gives.
  const bytes = await readInputFile(options.file, deps, 'a batch file');
  const format: BatchFormat = options.format ?? batchFormatFor(options.file);
  const parsed =
    format === 'xlsx'
      ? await parseWorkbook(bytes, options.file, deps)
      : parseBatchFile(bytes.toString('utf8'), format);
  if (!parsed.ok) {
    refuseFile(
      deps,
      options.file,
      parsed.problems,
      `the batch file is not valid`,
      'fix the lines above and run it again',
    );
  }
  for (const warning of parsed.warnings.slice(0, SHOWN_PROBLEMS)) {
    stderr.write(`warning: ${safeText(formatProblem(warning), 300)}\n`);
  }
  const batch = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const plan = planRequestOf(options);
  // Loaded only for --plan (architecture rule 8).
  const hooks =
    plan === undefined ? {} : await (await import('./plan.js')).batchPlanHooks(plan, options.file);
  await payBatchRows(deps, options, { file: options.file, batch, rows: parsed.rows }, hooks);
}

type BatchRunOptions = Pick<
  PayBatchOptions,
  'concurrency' | 'maxTotal' | 'dryRun' | 'allowDuplicate' | 'duplicateWindow'
>;

/** The limits every row is held to: the profile's max-amount, and the run's --max-total. */
type Limits = Parameters<typeof checkBatchLimits>[1];

/**
 * Steps 2 to 6 over rows already read: the journal, the consultations, the guards, the confirmation, the
 * payments and the report. `hooks`: what a plan adds (writing one instead of paying, or paying one).
 */
export async function payBatchRows(
  deps: Deps,
  options: BatchRunOptions,
  source: BatchSource,
  hooks: BatchPlanHooks = {},
): Promise<void> {
  const questions = journalQuestions(source.rows, deps.clock.now());
  const ctx = await startPayment(
    deps,
    {
      dryRun: options.dryRun,
      allowDuplicate: options.allowDuplicate,
      duplicateWindowMs: options.duplicateWindow,
      confirmLater: true,
      ...hooks.flags,
    },
    questions.asked,
  );
  const limits: Limits = {
    ...(ctx.settings.maxAmount === undefined ? {} : { maxAmount: ctx.settings.maxAmount }),
    ...(options.maxTotal === undefined ? {} : { maxTotal: options.maxTotal }),
    profile: ctx.account.profile,
  };
  const items: BatchItem[] = source.rows.map((row) => ({
    row,
    state: 'planned',
    ...(row.amount === undefined ? {} : { amount: row.amount }),
  }));
  const run: Run = { ctx, batch: source.batch, ownRows: questions.ownRow };
  await readJournal(run, items, source.file);
  // Rows left to pay need a confirmation (or --yes) before any is consulted; a batch all paid before
  // asks nothing, so it runs without a terminal and reports (exit 0).
  if (openItems(items).length > 0) refuseUnconfirmable(deps, ctx.flags);
  refuseOverLimits(deps, source.file, openItems(items), limits, 'the batch is over a limit');
  await consultAll(run, openItems(items), options.concurrency);
  await guardDuplicates(run, openItems(items));
  if (hooks.consulted) await hooks.consulted(ctx, openItems(items));
  const payable = openItems(items);
  refuseOverLimits(deps, source.file, payable, limits, 'the batch is over a limit once consulted');
  const summary = summaryOf(payable);
  const skipped = items.filter((item) => item.state !== 'planned');
  if (skipped.length > 0) {
    deps.io.stderr.write(`not paid in this run: ${describeStates(heldCounts(skipped))}\n`);
  }
  if (options.dryRun) return endDryRun(ctx, items, skipped, summary.text);
  if (hooks.writePlan) return endWithPlan(ctx, items, skipped, hooks.writePlan);
  await confirmPlan(ctx, payable, summary);
  await payAll(run, payable, options.concurrency);
  await report(run, items, payable);
}

/** The rows nothing has decided yet. */
function openItems(items: readonly BatchItem[]): BatchItem[] {
  return items.filter((item) => item.state === 'planned');
}

function heldCounts(items: readonly BatchItem[]) {
  return countStates(items.map((item) => item.state as RowState));
}

function refuseOverLimits(
  deps: Deps,
  file: string,
  items: readonly BatchItem[],
  limits: Limits,
  what: string,
): void {
  const over = checkBatchLimits(
    items.map((item) => ({ id: item.row.id, line: item.row.line, amount: item.amount })),
    limits,
  );
  if (over.length > 0) refuseFile(deps, file, over, what, 'see pix config max-amount');
}

/**
 * 2. The journal, of this account: rows paid before are skipped, rows sent with no known outcome are held,
 * and a row id whose earlier payment differs from the row now refuses the file.
 */
async function readJournal(run: Run, items: readonly BatchItem[], file: string): Promise<void> {
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

/** 3. Consult every open row, `concurrency` at a time; a signal ends it with nothing sent. */
async function consultAll(run: Run, toConsult: readonly BatchItem[], concurrency: number): Promise<void> {
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

/**
 * The duplicate guards, as for pay key and pay qr, once every amount and receiver is known: the
 * journal's, then the statement's (read once for the whole file).
 */
async function guardDuplicates(run: Run, open: readonly BatchItem[]): Promise<void> {
  const { ctx } = run;
  for (const item of open) {
    const query = { ...identityOf(run.batch, item.row, item.payee), amountCentavos: item.amount! };
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

interface Summary {
  total: Centavos;
  receivers: number;
  /** "N rows to pay, R$ …, M receivers". */
  text: string;
}

function summaryOf(payable: readonly BatchItem[]): Summary {
  const total = payable.reduce((sum, item) => sum + item.amount!, 0) as Centavos;
  const receivers = receiverCount(payable);
  const text =
    `${payable.length} row${payable.length === 1 ? '' : 's'} to pay, ${formatBRL(total)}, ` +
    `${receivers} receiver${receivers === 1 ? '' : 's'}`;
  return { total, receivers, text };
}

/** `--dry-run`: the report and the plan, nothing sent, and the exit code the real run would end with. */
async function endDryRun(
  ctx: PayContext,
  items: readonly BatchItem[],
  skipped: readonly BatchItem[],
  summary: string,
): Promise<void> {
  await writeRecords(ctx, items);
  writeReasons(ctx.deps, items);
  ctx.deps.io.stderr.write(`dry run: ${summary}; nothing was sent\n`);
  // A row the real run could not pay is not a success (contract §4).
  const held = heldCounts(skipped);
  const outcome = batchOutcome(held);
  if (outcome.kind === undefined) return;
  throw new PixError(outcome.kind, `dry run: the batch would not complete: ${describeStates(held)}`, {
    hint: 'nothing was sent; fix or remove the rows named above, or run it as it is to pay the others',
  });
}

/** `--plan FILE`: the plan of the rows left to pay is written instead of paying them. */
async function endWithPlan(
  ctx: PayContext,
  items: BatchItem[],
  skipped: readonly BatchItem[],
  writePlan: NonNullable<BatchPlanHooks['writePlan']>,
): Promise<void> {
  await writePlan(ctx, items);
  await writeRecords(ctx, items);
  // Rows the plan leaves out (not payable, held) say so in the exit code, as a run would.
  const held = heldCounts(skipped);
  const left = batchOutcome(held);
  if (left.kind === undefined) return;
  throw new PixError(left.kind, `the plan leaves out ${describeStates(held)}`, {
    hint: 'the report says why of each; fix or remove those rows to have them in a plan',
  });
}

/** 4. Confirm once, the plan shown first (or `--yes`). */
async function confirmPlan(ctx: PayContext, payable: readonly BatchItem[], summary: Summary): Promise<void> {
  const { deps } = ctx;
  const { profile, host } = ctx.account;
  const asking = payable.length > 0 && !deps.globals.yes;
  if (asking) await showPlan(deps, payable);
  deps.io.stderr.write(
    `paying from profile "${profile}" via ${host}${ctx.settings.sandbox ? ' (sandbox)' : ''}: ${summary.text}\n`,
  );
  if (!asking) return;
  const yes = await ask(() =>
    deps.prompter.confirm(
      `Pay ${payable.length} rows, ${formatBRL(summary.total)} in all, to ${summary.receivers} receivers?`,
    ),
  );
  if (!yes) throw new PixError('declined', 'batch cancelled; nothing was sent', { ownChoice: true });
}

/** 5. Pay, `concurrency` at a time, until a signal, a full disk or a refused login stops new rows. */
async function payAll(run: Run, payable: readonly BatchItem[], concurrency: number): Promise<void> {
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

/** 6. The report, why rows were not paid, how to settle unknown ones, and the exit code (contract §4). */
async function report(run: Run, items: readonly BatchItem[], payable: readonly BatchItem[]): Promise<void> {
  const { ctx } = run;
  const { stderr } = ctx.deps.io;
  const counts = heldCounts(items);
  const paidNow = payable
    .filter((item) => item.state === 'paid')
    .reduce((sum, item) => sum + item.amount!, 0);
  try {
    await writeRecords(ctx, items);
  } catch (error) {
    stderr.write(
      `warning: the report could not be written (${safeText((error as Error)?.message ?? error, 120)}); the journal has every row\n`,
    );
    throw error;
  }
  writeReasons(ctx.deps, items);
  stderr.write(`batch: ${describeStates(counts)}; ${formatBRL(paidNow)} paid in this run\n`);
  // Each unknown row, with where to look and how to record it (the report's error column has the same).
  const unknown = items.filter((item) => item.state === 'unknown' && item.earlier !== undefined);
  for (const item of unknown.slice(0, SHOWN_PROBLEMS)) {
    stderr.write(
      `unknown: row ${safeText(item.row.id, 80)}: ${safeText(recoveryHint(item.earlier!, lookOf(ctx, item)), 600)}\n`,
    );
  }
  if (unknown.length > SHOWN_PROBLEMS) stderr.write(`  … and ${unknown.length - SHOWN_PROBLEMS} more\n`);
  if (run.spilled !== undefined) {
    stderr.write(
      `the shared ledger could not record the outcome of ${items.filter((i) => i.state === 'unknown' && i.earlier === undefined).length} row(s): it is kept in ${run.spilled}, written there by the next pix command on this machine that reaches the database; run the file again then\n`,
    );
  }
  endOfRun(run, counts);
}

/** The exit code of a run that paid: a disk fault, an unknown row, a signal, a refused login, a row not paid. */
function endOfRun(run: Run, counts: ReturnType<typeof heldCounts>): void {
  const { deps } = run.ctx;
  const outcome = batchOutcome(counts);
  const signal = deps.signal.aborted ? stopSignalOf(deps.signal) : undefined;
  if (run.fault !== undefined) {
    const { fault } = run;
    const hint = `${fault.hint}, then run the file again: paid rows are skipped, rows not sent are paid`;
    // An unknown row or a signal still decides the exit code (7, 130/143); the disk is said first.
    if (counts.unknown > 0 || signal !== undefined) {
      deps.io.stderr.write(`warning: the batch stopped: ${fault.message} (${hint})\n`);
    } else {
      throw new PixError('internal', `the batch stopped: ${fault.message}`, { hint, cause: fault.error });
    }
  }
  if (outcome.kind === undefined && signal === undefined) return;
  // A refused login stopped the batch: the contract's auth exit (3), unless a row's outcome is unknown
  // (7 comes first: those rows need the operator before anything else).
  const login = counts.unknown === 0 ? run.refusedLogin : undefined;
  const hint =
    counts.unknown > 0
      ? 'look for each unknown row in the statement window named above, record what you find with its `pix journal resolve` command, then run the file again'
      : login !== undefined
        ? `the API refused the credentials (${login}): log in again (\`pix login\`, or a new PIX_TOKEN), then run the file again; rows paid are never paid twice`
        : 'fix or remove the rows that were not paid; running the file again never pays a row twice';
  const kind = login === undefined ? outcome.kind : 'auth';
  throw new PixError(kind ?? 'interrupted', `batch not complete: ${describeStates(counts)}`, {
    hint,
    ...(signal === undefined ? {} : { signal }),
  });
}

export function register(command: Command, deps: Deps): void {
  command
    .argument('<FILE>', 'CSV (id,key,amount[,description] or id,emv[,amount]) or NDJSON; - for stdin')
    .option(
      '--format <format>',
      'csv, ndjson or xlsx (default: by the file name; .ndjson/.jsonl are NDJSON, .xlsx a workbook)',
    )
    .option('--concurrency <n>', `consultations and transfers at a time (default ${DEFAULT_CONCURRENCY})`)
    .option('--max-total <A>', 'refuse the batch if it pays more than this in all')
    .option('--dry-run', 'check and consult every row, show the plan, send nothing')
    .option(
      '--allow-duplicate',
      'pay rows that repeat a payment made outside this file (the journal within 10 minutes, the statement within --duplicate-window)',
    )
    .option(...DUPLICATE_WINDOW_OPTION);
  planOptions(command).action(async (file: string, _options, self: Command) => {
    await runPayBatch(parseOptions(payBatchOptionsSchema, { ...self.opts(), file }, { file: 'FILE' }), deps);
  });
  addExamples(
    command,
    [
      'pix sandbox batch-file --rows 50 > payouts.csv',
      'pix pay batch payouts.csv --dry-run            # check, consult and show; nothing is paid',
      'pix pay batch payouts.csv --yes -o csv > report.csv',
      'pix pay batch payouts.ndjson --max-total 10000 --concurrency 8 --yes',
    ],
    ['usage', 'auth', 'rejected', 'unavailable', 'unknown_outcome', 'declined'],
  );
}
