/**
 * The pure parts of running a batch (`pix pay batch`): what each row pays once consulted, the totals,
 * the guards (the profile's max-amount per row, `--max-total` for the sum), the final state of each
 * row and the exit code those states give. No I/O, no clock: the command feeds them what it learnt.
 */
import type { ErrorKind } from '../errors.js';
import type { BatchProblem, BatchRow } from './batch.js';
import { type Centavos, formatBRL } from './money.js';

// ---------------------------------------------------------------------------------------------
// The amount of a row

/** What a consultation says about the amount (the API's reais already read into centavos). */
export interface ConsultedAmount {
  /** `amount.final` of an EMV consultation. */
  final?: Centavos;
  /** `amount.canModifyFinalAmount` of an EMV consultation. */
  canModifyFinalAmount?: boolean;
}

export type RowAmount =
  | {
      payable: true;
      amount: Centavos;
      /** Whether the transfer carries `amount` (keys, and codes that let the payer choose it). */
      sendAmount: boolean;
    }
  | { payable: false; reason: string };

/** The amount the payer saw before the consultation, and where: the code's own (field 54) or a file's. */
export interface ShownAmount {
  amount: Centavos;
  source: 'the code' | 'the file';
}

export type FixedAmount =
  | { ok: true; amount: Centavos }
  /** `none`: the consultation gives no amount; `disagrees`: another amount than the one shown. */
  | { ok: false; why: 'none' | 'disagrees'; reason: string };

/**
 * Contract §7.3, one rule for `pay qr` and `pay batch`: a code that does not let the payer choose pays
 * the consultation's final amount, and only when that is the amount the payer saw offline, when one was
 * shown (the code's own amount, or a batch file's): a code of R$ 10,00 whose consultation asks
 * R$ 1.000,00 is not paid, whatever the server says, because what is paid is what the person saw.
 */
export function fixedAmount(final: Centavos | undefined, shown?: ShownAmount): FixedAmount {
  if (final === undefined || final <= 0) {
    return {
      ok: false,
      why: 'none',
      reason: 'the consultation gives no amount to pay and does not let the payer choose one',
    };
  }
  if (shown !== undefined && shown.amount !== final) {
    return {
      ok: false,
      why: 'disagrees',
      reason: `the consultation asks ${formatBRL(final)}, ${shown.source} says ${formatBRL(shown.amount)}`,
    };
  }
  return { ok: true, amount: final };
}

/**
 * Contract §7.3 for a batch row, where nobody is asked:
 * - a key pays the file's amount, sent with the transfer;
 * - a code that lets the payer choose pays the file's amount (or the code's own), sent with the
 *   transfer; none → not payable;
 * - any other code pays the consultation's final amount, not sent, as `fixedAmount` rules.
 * `consult` is required for an emv row.
 */
export function planRowAmount(row: BatchRow, consult?: ConsultedAmount): RowAmount {
  if (row.target.kind === 'key') {
    if (row.amount === undefined) return { payable: false, reason: 'the row has no amount' };
    return { payable: true, amount: row.amount, sendAmount: true };
  }
  if (consult === undefined) throw new Error('planRowAmount: an emv row needs its consultation');
  if (consult.canModifyFinalAmount === true) {
    if (row.amount === undefined) {
      return {
        payable: false,
        reason: 'the code lets the payer choose the amount and the row gives none (fill its amount column)',
      };
    }
    return { payable: true, amount: row.amount, sendAmount: true };
  }
  const source = row.target.fixedAmount === undefined ? 'the file' : 'the code';
  const fixed = fixedAmount(
    consult.final,
    row.amount === undefined ? undefined : { amount: row.amount, source },
  );
  return fixed.ok
    ? { payable: true, amount: fixed.amount, sendAmount: false }
    : { payable: false, reason: fixed.reason };
}

// ---------------------------------------------------------------------------------------------
// Totals and guards

export interface BatchTotals {
  /** How many items were counted. */
  rows: number;
  /** The sum of the known amounts, in centavos. */
  sum: Centavos;
  /** Items whose amount is not known yet (a dynamic code before its consultation). */
  withoutAmount: number;
}

/** Totals of rows, or of planned rows: anything with an `amount`. */
export function batchTotals(items: Iterable<{ amount?: Centavos | undefined }>): BatchTotals {
  const totals: BatchTotals = { rows: 0, sum: 0, withoutAmount: 0 };
  for (const item of items) {
    totals.rows++;
    if (item.amount === undefined) totals.withoutAmount++;
    else totals.sum += item.amount;
  }
  if (!Number.isSafeInteger(totals.sum)) throw new RangeError('batchTotals: the sum is not exact');
  return totals;
}

export interface BatchLimits {
  /** The profile's `max-amount`: the most one row may pay. */
  maxAmount?: Centavos;
  /** `--max-total`: the most the whole batch may pay. */
  maxTotal?: Centavos;
  /** The profile's name, for the message. */
  profile?: string;
}

/**
 * Every row above the profile's max-amount, then the sum above `--max-total`: problems to list before
 * exit 2, with nothing sent. Rows without a known amount are skipped (check them again once planned).
 */
export function checkBatchLimits(
  items: Iterable<{ id: string; line: number; amount?: Centavos | undefined }>,
  limits: BatchLimits,
): BatchProblem[] {
  const problems: BatchProblem[] = [];
  let sum = 0;
  let count = 0;
  const profile = limits.profile === undefined ? 'the profile' : `profile "${limits.profile}"`;
  for (const item of items) {
    if (item.amount === undefined) continue;
    count++;
    sum += item.amount;
    if (limits.maxAmount !== undefined && item.amount > limits.maxAmount) {
      problems.push({
        line: item.line,
        id: item.id,
        column: 'amount',
        message: `${formatBRL(item.amount)} is above the max-amount of ${profile} (${formatBRL(limits.maxAmount)})`,
      });
    }
  }
  if (limits.maxTotal !== undefined && sum > limits.maxTotal) {
    problems.push({
      column: '--max-total',
      message: `the batch pays ${formatBRL(sum)} in ${count} row${count === 1 ? '' : 's'}, above ${formatBRL(limits.maxTotal)}`,
    });
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Final states and the exit code

/**
 * The final state of a row in the report:
 * - `paid`: the transfer was accepted in this run;
 * - `already_paid`: the journal shows this row id paid from this profile before (nothing sent);
 * - `not_payable`: the consultation refused it or its rules did (key or code not found, expired code,
 *   amount rules): the row was never sent;
 * - `rejected`: the transfer was sent and explicitly refused (400/422, a failed status);
 * - `unknown`: the transfer was sent and no usable answer came: it may have been paid; it blocks the
 *   row on reruns until `pix journal resolve`;
 * - `not_sent`: never sent, with nothing known against it (the batch stopped before it, or the
 *   request could not leave): running the file again pays it;
 * - `duplicate`: not sent, because the same payment (key or code and amount) was made outside this
 *   file within the duplicate window, or the same dynamic code was paid: `--allow-duplicate` pays it;
 * - `in_progress`: not sent by this run, because another pix process that is still running is sending
 *   this row: its own report will say how it ended;
 * - `receiver_changed`: not sent, because the consultation now names another receiver than the approved
 *   plan did (`pix plan execute`): a new plan is needed for it;
 * - `held`: not sent, because at the moment it was to be paid a policy in force refused it (a cap of the
 *   day it was then, or a night rule whose quorum the plan lacks once the night began): the run went on
 *   with the others, and running it again at another time, or with more approvals, pays it.
 */
export const ROW_STATES = [
  'paid',
  'already_paid',
  'not_payable',
  'rejected',
  'unknown',
  'not_sent',
  'duplicate',
  'in_progress',
  'receiver_changed',
  'held',
] as const;
export type RowState = (typeof ROW_STATES)[number];

export type StateCounts = Record<RowState, number>;

export function countStates(states: Iterable<RowState>): StateCounts {
  const counts: StateCounts = {
    paid: 0,
    already_paid: 0,
    not_payable: 0,
    rejected: 0,
    unknown: 0,
    not_sent: 0,
    duplicate: 0,
    in_progress: 0,
    receiver_changed: 0,
    held: 0,
  };
  for (const state of states) counts[state]++;
  return counts;
}

/** `48 paid, 2 already paid, 1 unknown`: the states that occur, in ROW_STATES order. */
export function describeStates(counts: StateCounts): string {
  const parts = ROW_STATES.filter((state) => counts[state] > 0).map(
    (state) => `${counts[state]} ${state.replace('_', ' ')}`,
  );
  return parts.length === 0 ? 'no rows' : parts.join(', ');
}

export interface BatchOutcome {
  /** The error kind the command throws (main.ts maps it to its exit code, contract §4), or undefined for success. */
  kind?: Extract<ErrorKind, 'unknown_outcome' | 'rejected' | 'unavailable' | 'declined'>;
}

/**
 * How a finished batch ends, from its rows' states (README, Batch payouts), as the kind whose exit code it is:
 * - 7 (`unknown_outcome`) when any row is unknown — whatever else happened;
 * - else 5 (`rejected`) when any row was rejected or not payable;
 * - else 6 (`unavailable`) when any row was not sent: nothing was changed for it and running the
 *   file again pays it (the contract's 6 for a transfer that never left);
 * - else 8 (`declined`) when a guard held a row: a duplicate, a row another pix is paying, a row whose
 *   receiver changed since its plan was approved, or one a policy held at its moment of payment;
 * - else 0: every row paid or already paid (an empty batch included).
 * A signal, a refused confirmation (8) and a bad file or guard (2) are decided before this.
 */
export function batchOutcome(states: Iterable<RowState> | StateCounts): BatchOutcome {
  const counts = isCounts(states) ? states : countStates(states);
  const outcome = (kind: NonNullable<BatchOutcome['kind']>): BatchOutcome => ({ kind });
  if (counts.unknown > 0) return outcome('unknown_outcome');
  if (counts.rejected > 0 || counts.not_payable > 0) return outcome('rejected');
  if (counts.not_sent > 0) return outcome('unavailable');
  if (counts.duplicate > 0 || counts.in_progress > 0 || counts.receiver_changed > 0 || counts.held > 0)
    return outcome('declined');
  return {};
}

function isCounts(value: Iterable<RowState> | StateCounts): value is StateCounts {
  return !(Symbol.iterator in value);
}
