/**
 * The checks made at the moment each payment leaves, not when its run started (docs/approvals.md): the
 * caps of every policy in force, counted on the Brasília day it is then (the journal read again when the
 * day changes) with what this run let through since; and, for an approved plan, its rules as they stand
 * then (a night rule once the night began). A row they refuse is held, named, and a batch goes on with
 * the others; a single payment is refused (exit 8). A run that crosses midnight, or into the night, is
 * judged row by row.
 */
import { type AccountHistory, accountHistory, type Payee, payeeTag } from '../../../approvals/history.js';
import type { PolicyInForce } from '../../../approvals/inforce.js';
import type { Centavos } from '../../../domain/money.js';
import { capViolations, POLICY_TIME_ZONE } from '../../../domain/policy.js';
import { formatDateTime, todayIn } from '../../../domain/when.js';
import { safeText } from '../../../output/sanitize.js';
import type { PayContext } from './shared.js';

/** One payment about to leave. */
export interface MomentRow {
  id: string;
  amount: Centavos;
  payee: Payee;
  receiverName: string;
}

export interface Moment {
  /** Why `row` may not leave now, or undefined; a row let through counts against the caps from then on. */
  check(row: MomentRow): Promise<string | undefined>;
  /** A row let through that was not sent after all (refused before it applied): it no longer counts. */
  release(row: MomentRow): void;
}

/** What a plan's rules say of a row at an instant: why it may not leave then, or undefined. */
export type RulesAt = (at: Date, row: string) => string | undefined;

interface Day {
  history: AccountHistory;
  /** Rows this run let through on this day since the journal was read for it. */
  passed: Array<{ id: string; amount: Centavos; tag: string }>;
}

/**
 * The checks of `policies` (their caps) and of a plan's `rules`, at the moment of each payment. With no
 * policy and no rules, nothing is checked (and the journal is not read).
 */
export function momentChecks(
  ctx: PayContext,
  policies: readonly PolicyInForce[],
  rules?: RulesAt,
  /** The clock the moment is read on: the account's (a schedule's, the sandbox's under `pix sandbox clock`). */
  now: () => Date = () => ctx.deps.clock.now(),
): Moment {
  const capped = policies.filter(({ policy }) => Object.keys(policy.caps).length > 0);
  const days = new Map<string, Promise<Day>>();
  const dayAt = (at: Date): Promise<Day> => {
    const day = todayIn(POLICY_TIME_ZONE, at);
    let found = days.get(day);
    if (found === undefined) {
      // A new day (the run's first, or midnight crossed): what the journal says was paid on it so far.
      found = ctx.deps.stores.journal().then(async (journal) => ({
        history: accountHistory(await journal.read(), ctx.account, at),
        passed: [],
      }));
      days.set(day, found);
    }
    return found;
  };
  const passedOn = new Map<string, Day>();
  return {
    async check(row) {
      const at = now();
      const when = `${formatDateTime(at.toISOString(), POLICY_TIME_ZONE)} Brasília`;
      const ruled = rules?.(at, row.id);
      if (ruled !== undefined) return `${ruled}: not sent at ${when}`;
      if (capped.length === 0) return undefined;
      const day = await dayAt(at);
      const tag = payeeTag(row.payee);
      const sum = (only?: string) =>
        day.passed
          .filter((p) => only === undefined || p.tag === only)
          .reduce((total, p) => total + p.amount, 0);
      for (const { policy, file } of capped) {
        const broken = capViolations(
          policy.caps,
          [{ id: row.id, amount: row.amount, receiver: tag, receiverName: safeText(row.receiverName, 80) }],
          day.history.paidToday + sum(),
          () => day.history.paidTodayTo(row.payee) + sum(tag),
          'this payment',
        );
        if (broken.length > 0)
          return `${broken.join('; ')} (${file}; no approval lifts a cap): not sent at ${when}`;
      }
      day.passed.push({ id: row.id, amount: row.amount, tag });
      passedOn.set(row.id, day);
      return undefined;
    },
    release(row) {
      const day = passedOn.get(row.id);
      if (day === undefined) return;
      day.passed = day.passed.filter((p) => p.id !== row.id);
      passedOn.delete(row.id);
    },
  };
}
