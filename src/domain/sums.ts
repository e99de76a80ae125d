/**
 * The one rule for adding statement entries up: `pix statement`'s totals, `pix statement summary`, a day's
 * books (`pix close`) and the entries reconciliation may match all read an entry through here.
 *
 * What the API document says of an entry (API §2.1, §3.4; docs/api.md): `amount` is signed reais (negative
 * for OUTCOME), `fee` is the "fee charged on the entry" with no sign given, and CONFIRMED is the only
 * status shown — other statuses and transitions "not shown". So a total is made under a policy, named by
 * each caller:
 * - `status: 'confirmed'` counts CONFIRMED entries only: an entry in any other state (PENDING, or one pix
 *   has never seen) proves no money moved yet. It is counted apart (`uncounted`), for the command to say;
 *   `'every'` counts every entry as listed.
 * - `fee: 'charged'` takes a fee's size whatever sign the server wrote: the document calls it charged, so
 *   a server that writes it as a debit (as OFX does) means the same charge and it never adds to the
 *   balance; `'signed'` takes the number as written.
 * Every money total pix prints is made under BOOKS, so one day's net is the same in each of them (README,
 * "pix statement"); the income and outcome go by the amount's sign, whatever the type says.
 *
 * Integer centavos throughout, and exact: an amount beyond MAX_ENTRY or a running sum beyond
 * Number.MAX_SAFE_INTEGER is refused, never rounded.
 */
import { InvalidValue } from './invalid.js';
import { type Centavos, centavosFromApi } from './money.js';

/** Which entries a total counts, and how a fee's sign is read (above). */
export interface SumsPolicy {
  readonly status: 'confirmed' | 'every';
  readonly fee: 'charged' | 'signed';
}

/** The books' rule, and so every money total pix prints: CONFIRMED entries, each fee as a charge. */
export const BOOKS: SumsPolicy = { status: 'confirmed', fee: 'charged' };

/** Counts and sums in centavos; net = income + outcome − fees. */
export interface Sums {
  count: number;
  income: Centavos;
  /** Negative. */
  outcome: Centavos;
  fees: Centavos;
  net: Centavos;
}

/** What a total reads of a statement entry (the API's fields; amounts in reais, as sent). */
export interface SummedEntry {
  amount: unknown;
  fee?: unknown;
  status: string;
}

/** An entry's amount and fee in centavos (the fee as the policy reads it), or why it is left out. */
export type Reading = { amount: Centavos; fee: Centavos } | 'uncounted' | 'unreadable';

/** The largest amount of one entry pix adds: R$ 10 trillion (the CLI itself takes 13 digits of reais). */
export const MAX_ENTRY = 1e15;

/** Centavos of an API amount in reais, or undefined when it is not a number pix can add exactly. */
export function centavosOf(value: unknown): Centavos | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const centavos = centavosFromApi(value);
  return Math.abs(centavos) <= MAX_ENTRY ? centavos : undefined;
}

/** Whether `policy` counts an entry of this status. */
export function countsStatus(policy: SumsPolicy, status: string): boolean {
  return policy.status === 'every' || status === 'CONFIRMED';
}

/** An entry as `policy` adds it: unreadable before uncounted, so a damaged entry is never hidden as pending. */
export function readEntry(entry: SummedEntry, policy: SumsPolicy): Reading {
  const amount = centavosOf(entry.amount);
  const fee = entry.fee === undefined ? 0 : centavosOf(entry.fee);
  if (amount === undefined || fee === undefined) return 'unreadable';
  if (!countsStatus(policy, entry.status)) return 'uncounted';
  return { amount, fee: policy.fee === 'charged' ? Math.abs(fee) : fee };
}

/** Running sums of entries read under one policy; `add` counts what it leaves out. */
export class Tally {
  readonly policy: SumsPolicy;
  count = 0;
  income: Centavos = 0;
  outcome: Centavos = 0;
  fees: Centavos = 0;
  /** Entries the policy's status leaves out. */
  uncounted = 0;
  /** Entries whose amount or fee is not a number pix can add exactly. */
  unreadable = 0;

  constructor(policy: SumsPolicy) {
    this.policy = policy;
  }

  /** Reads and adds one entry; says what became of it. */
  add(entry: SummedEntry): 'added' | 'uncounted' | 'unreadable' {
    const read = readEntry(entry, this.policy);
    if (read === 'uncounted') this.uncounted++;
    else if (read === 'unreadable') this.unreadable++;
    else this.addRead(read);
    return typeof read === 'string' ? read : 'added';
  }

  /** Adds an entry already read (readEntry) under this tally's policy. */
  addRead(read: { amount: Centavos; fee: Centavos }): void {
    if (read.amount >= 0) this.income += read.amount;
    else this.outcome += read.amount;
    this.fees += read.fee;
    this.count++;
    if (this.income - this.outcome + Math.abs(this.fees) > Number.MAX_SAFE_INTEGER) {
      throw new InvalidValue('the statement adds up to more than pix can sum exactly in centavos');
    }
  }

  sums(): Sums {
    const { count, income, outcome, fees } = this;
    return { count, income, outcome, fees, net: income + outcome - fees };
  }
}
