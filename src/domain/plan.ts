/**
 * A payment plan (`pix pay … --plan FILE`): what one run would pay, written down instead of paid, so
 * that other people can approve it before the machine that holds the token pays it (`pix plan execute`).
 * Its id is the SHA-256 of its canonical form (jsonsource.ts canonicalJson), so a plan changed after it
 * was approved is another plan: its approvals are signatures of the old id and count for nothing.
 *
 * Also the words an approval signs: `approve sha256:…` or `reject sha256:…` and the reason, in the
 * `pix-plan` namespace (`pix-policy` for a policy's digest). Pure.
 */
import { createHash } from 'node:crypto';
import { InvalidValue } from './invalid.js';
import { canonicalJson } from './jsonsource.js';
import type { Centavos } from './money.js';
import type { PayeeExpectation } from './payee.js';
import type { RowFacts } from './policy.js';

/** The receiver as the consultation answered. */
export interface PlanReceiver {
  name: string;
  /** The document as pix shows it (masked). */
  document?: string;
  /** `Banco Inter (00416968)`, or the bare ISPB. */
  institution?: string;
}

export interface PlanRow {
  /** Unique in the plan: what the journal knows the row by, so it is paid once (a batch row's own id). */
  id: string;
  /** A key payment: the key in DICT form. */
  key?: string;
  /** A code payment: the BR Code, as consulted. */
  emv?: string;
  receiver: PlanReceiver;
  amountCentavos: Centavos;
  /** Whether the transfer carries the amount (keys, and codes whose payer chooses it). */
  sendAmount: boolean;
  description?: string;
  /** Who the row must pay (contract §7.8): checked at the plan's making and again by `plan execute`. */
  expect?: PayeeExpectation;
  /** Facts the policy's rules look at, as the maker's pix found them (execute finds them again). */
  newReceiver: boolean;
  outsideAllowlist: boolean;
}

export interface PlanMaker {
  name: string;
  email?: string;
  /** Where the name came from: `--by`, git's user.name/user.email, or the login name. */
  from: 'flag' | 'git' | 'login';
}

/** Everything the id covers. */
export interface PlanBody {
  'pix-plan': 1;
  /** The account it pays from, as the API identifies it (journal/accounts.ts), and its profile and API for people. */
  account: { id: string; profile: string; api: string };
  /** The command that made it. */
  kind: 'key' | 'qr' | 'batch';
  /** The batch file it was made from, as named on the command line. */
  source?: string;
  rows: PlanRow[];
  total: { rows: number; amountCentavos: Centavos };
  maker: PlanMaker;
  createdAt: string;
  expiresAt: string;
  /** The digest of the policy in force when it was made. */
  policy: string;
}

export interface Plan extends PlanBody {
  id: string;
}

/** `sha256:` and the hex SHA-256 of the body's canonical JSON. */
export function planIdOf(body: PlanBody): string {
  return `sha256:${createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex')}`;
}

/** The body with its id. */
export function sealPlan(body: PlanBody): Plan {
  return { id: planIdOf(body), ...body };
}

/** The plan's body: everything but its id. */
export function planBody(plan: Plan): PlanBody {
  const { id: _id, ...body } = plan;
  return body;
}

/** The file's text: the id first, for people and diffs; pretty, one key per line. */
export function formatPlan(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}

/** The short form of an id people read: `sha256:1a2b3c4d5e6f`. */
export function shortPlanId(id: string): string {
  return id.slice(0, 'sha256:'.length + 12);
}

/**
 * Checks what the id cannot: the id matches the content (else the file was edited by hand), the total
 * is the rows' sum, and no row id repeats. Throws InvalidValue naming what is wrong.
 */
export function checkPlan(plan: Plan): void {
  const id = planIdOf(planBody(plan));
  if (plan.id !== id) {
    throw new InvalidValue(
      'the plan was changed after it was made: its id no longer matches its content',
      'make a new plan with `pix pay … --plan FILE`; approvals of the old one do not carry over',
    );
  }
  const sum = plan.rows.reduce((total, row) => total + row.amountCentavos, 0);
  if (plan.total.rows !== plan.rows.length || plan.total.amountCentavos !== sum)
    throw new InvalidValue("the plan's total is not the sum of its rows");
  const ids = new Set<string>();
  for (const row of plan.rows) {
    if (ids.has(row.id)) throw new InvalidValue(`row id ${row.id} is given twice`);
    ids.add(row.id);
    if ((row.key === undefined) === (row.emv === undefined))
      throw new InvalidValue(`row ${row.id} needs a key or a code, one of them`);
  }
}

/** What the policy's rules see of a row. */
export function rowFacts(row: PlanRow): RowFacts {
  return {
    id: row.id,
    amount: row.amountCentavos,
    newReceiver: row.newReceiver,
    outsideAllowlist: row.outsideAllowlist,
  };
}

export type Verdict = 'approve' | 'reject';

/** What an approval signs: the verdict and the subject's id, and a refusal's reason. */
export function verdictMessage(verdict: Verdict, subject: string, reason?: string): Buffer {
  const because = reason === undefined ? '' : `reason: ${reason.replace(/\s+/g, ' ').trim()}\n`;
  return Buffer.from(`${verdict} ${subject}\n${because}`, 'utf8');
}
