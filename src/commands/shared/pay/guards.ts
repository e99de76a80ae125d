/**
 * The guards that run before money moves (contract §7): the journal's duplicate and in-flight holds,
 * max-amount, expiry, a consultation that answers for another key, and the statement as the last guard
 * (domain/statementguard.ts): the account's debits of `--duplicate-window`, read once per command, against
 * the payment about to leave; a debit no journal entry explains holds it (exit 8) unless `--allow-duplicate`.
 */
import type { DictConsultation } from '../../../api/resources/payments.js';
import { type StatementEntry, statementWindow } from '../../../api/resources/statement.js';
import { type Centavos, centavosFromApi, formatBRL, formatDecimal } from '../../../domain/money.js';
import { answersForKey, type PixKey } from '../../../domain/pixkey.js';
import {
  type Debit,
  duplicateDebit,
  type PaidTo,
  unexplainedDebits,
} from '../../../domain/statementguard.js';
import { formatDateTime } from '../../../domain/when.js';
import { PixError } from '../../../errors.js';
import { type JournalEntry, shortId } from '../../../journal/entries.js';
import { recoveryHint } from '../../../journal/record.js';
import { type Blocker, type DuplicateQuery, effectiveState, ofAccount } from '../../../journal/rules.js';
import type { Holder } from '../../../journal/stores.js';
import { safeText } from '../../../output/sanitize.js';
import { nowOnBothClocks, SKEW_MARGIN_MS } from '../clocks.js';
import { DEFAULT_DUPLICATE_WINDOW_MS } from '../flags.js';
import { maskedDocument } from './details.js';
import type { PayContext, PayFlags, PaymentPlan } from './shared.js';

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
export async function blockedError(ctx: PayContext, blocker: Blocker): Promise<PixError> {
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

/**
 * A code whose expiry has passed is refused before paying (exit 5, as the server itself would). The expiry
 * is the server's, so judged on the account's clock (`now`: the API client's, the sandbox's under `pix
 * sandbox clock`, this machine's for any other API).
 */
export function checkNotExpired(ctx: PayContext, expiration: string | null | undefined, now: Date): void {
  if (!expiration) return;
  const at = Date.parse(expiration);
  if (Number.isNaN(at) || at > now.getTime()) return;
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

/** How many times a window is read further on when the statement shows debits later than the clocks said. */
const FURTHER_READS = 3;

function windowOf(flags: PayFlags): number {
  return flags.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
}

/** A debit of the statement, or undefined for an entry that is not one. */
function debitOf(entry: StatementEntry): Debit | undefined {
  if (entry.type !== 'OUTCOME' && entry.amount >= 0) return undefined;
  const party = entry.debtor ?? entry.creditor ?? undefined;
  return {
    id: entry.id,
    at: entry.confirmedAt,
    amount: Math.abs(centavosFromApi(entry.amount)) as Centavos,
    document: party?.documentNumber,
    name: party?.name,
  };
}

/**
 * The account's debits of the window (domain/statementguard.ts): one read of the statement per command,
 * every page of the window through the pager (a read that is not whole stops the payment: exit 6), judged
 * on the server's clock as well as the account's (shared/clocks.ts): from the earlier of the two less the
 * window and SKEW_MARGIN_MS, to the later plus SKEW_MARGIN_MS. The newest entry the statement returns is a
 * time the server's clock has reached: one later than both clocks said reads the window further on.
 */
async function readDebits(ctx: PayContext): Promise<Debit[]> {
  const client = await ctx.deps.api();
  const { early, late } = nowOnBothClocks(client);
  const from = early - windowOf(ctx.flags) - SKEW_MARGIN_MS;
  let to = late + SKEW_MARGIN_MS;
  const read = (start: number, end: number) =>
    statementWindow(client, new Date(start), new Date(end), {
      what: 'the statement',
      consequence: 'nothing was sent',
      signal: ctx.deps.signal,
    });
  const entries = new Map<string, StatementEntry>();
  for (const entry of await read(from, to)) entries.set(entry.id, entry);
  for (let further = 0; further < FURTHER_READS; further++) {
    let newest = Number.NEGATIVE_INFINITY;
    for (const entry of entries.values()) newest = Math.max(newest, Date.parse(entry.confirmedAt));
    if (!(newest > to - SKEW_MARGIN_MS)) break;
    const end = newest + SKEW_MARGIN_MS;
    for (const entry of await read(to, end)) entries.set(entry.id, entry);
    to = end;
  }
  const debits: Debit[] = [];
  for (const entry of entries.values()) {
    const debit = debitOf(entry);
    if (debit !== undefined) debits.push(debit);
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
  await checkDuplicate(ctx, { ...plan.identity, amountCentavos: amount, receiver: plan.receiver.name });
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
    // Unreadable, incomplete, or refused: nothing is known of the debits, so nothing is paid (exit 6).
    if (error instanceof PixError && (error.kind === 'unavailable' || error.kind === 'rejected')) {
      throw new PixError(
        'unavailable',
        `could not read the account's recent debits: ${error.message}; nothing was sent`,
        {
          hint: 'run it again; the statement guard looks for this payment made elsewhere (--duplicate-window 0 pays without looking)',
          ...(error.status === undefined ? {} : { status: error.status }),
        },
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
