/**
 * What the journal says of an account that a payment policy asks (domain/policy.ts): which receivers it
 * has paid before (a "new receiver" is one it never paid), and what it paid today in Brasília's calendar
 * day, in all and per receiver (the caps). Paid means `done`, or sent with no known outcome: money that
 * may have left counts against a cap. A receiver is known as the duplicate rules know it (journal/rules.ts
 * sameRecipient: the same key, or the same document at any institution). Pure over the journal's
 * entries.
 */
import type { Centavos } from '../domain/money.js';
import type { PlanRow } from '../domain/plan.js';
import { capViolations, POLICY_TIME_ZONE, type Policy } from '../domain/policy.js';
import { startOfDay, todayIn } from '../domain/when.js';
import type { JournalEntry, PaymentIdentity } from '../journal/entries.js';
import { type Account, effectiveState, ofAccount, sameRecipient } from '../journal/rules.js';

/** Who a payment goes to, as a consultation answered: the key, the document, the institution (ISPB). */
export type Payee = Pick<PaymentIdentity, 'key' | 'document' | 'participant'>;

/** One name per receiver among a plan's rows: its key, else its institution and document. */
export function payeeTag(payee: Payee): string {
  if (payee.key !== undefined) return `key:${payee.key}`;
  return `doc:${payee.participant ?? ''}|${payee.document ?? ''}`;
}

export interface AccountHistory {
  /** Whether the account paid this receiver before. */
  knows(payee: Payee): boolean;
  /** Paid today (Brasília), in all. */
  paidToday: Centavos;
  /** Paid today to this receiver. */
  paidTodayTo(payee: Payee): Centavos;
}

/** The history of `account` in `entries` at `now`. */
export function accountHistory(entries: Iterable<JournalEntry>, account: Account, now: Date): AccountHistory {
  const paid: PaymentIdentity[] = [];
  const today: Array<{ payment: PaymentIdentity; amount: Centavos }> = [];
  const start = Date.parse(startOfDay(todayIn(POLICY_TIME_ZONE, now), POLICY_TIME_ZONE));
  let paidToday = 0;
  for (const entry of entries) {
    const { payment } = entry;
    if (entry.kind !== 'payment' || payment === undefined || !ofAccount(entry, account)) continue;
    const state = effectiveState(entry);
    if (state === 'failed') continue;
    // Known once paid: a payment whose outcome is unknown does not yet make a receiver familiar.
    if (state === 'done') paid.push(payment);
    if (Date.parse(entry.at) >= start) {
      paidToday += entry.amountCentavos;
      today.push({ payment, amount: entry.amountCentavos });
    }
  }
  const identity = (payee: Payee): PaymentIdentity => ({ method: 'key', ...payee });
  return {
    knows: (payee) => paid.some((earlier) => sameRecipient(earlier, identity(payee))),
    paidToday,
    paidTodayTo: (payee) =>
      today
        .filter(({ payment }) => sameRecipient(payment, identity(payee)))
        .reduce((sum, { amount }) => sum + amount, 0),
  };
}

/**
 * The caps of `policy` the rows would break (domain/policy.ts capViolations), with today's payments from
 * the history. A row: the plan's row, what it pays now (its approved amount unless said) and who it pays
 * as the consultation answered. `name` makes a receiver's name safe to show.
 */
export function capsBroken(
  policy: Pick<Policy, 'caps'>,
  history: AccountHistory,
  rows: ReadonlyArray<{ row: PlanRow; amount?: Centavos | undefined; payee: Payee }>,
  name: (text: string) => string,
): string[] {
  const payees = new Map<string, Payee>();
  const capRows = rows.map(({ row, amount, payee }) => {
    const tag = payeeTag(payee);
    if (!payees.has(tag)) payees.set(tag, payee);
    return {
      id: row.id,
      amount: amount ?? row.amountCentavos,
      receiver: tag,
      receiverName: name(row.receiver.name),
    };
  });
  return capViolations(policy.caps, capRows, history.paidToday, (tag) =>
    history.paidTodayTo(payees.get(tag)!),
  );
}
