/**
 * A payment plan (`pix pay … --plan FILE`): what one run would pay, written down instead of paid, so
 * that other people can approve it before the machine that holds the token pays it (`pix plan execute`).
 * Its id is the SHA-256 of its canonical form (jsonsource.ts canonicalJson): every field of the body,
 * every field of every row among them, whatever fields rows gain, so a plan changed after it was approved
 * is another plan and its approvals, signatures of the old id, count for nothing. The maker signs the id
 * with their SSH key (`make sha256:…`), the key named in the body: the signature is the one field outside
 * the id.
 *
 * Also the words a verdict signs: `approve sha256:…`, `reject sha256:…` (with the reason) or `make
 * sha256:…`, then the time it was signed, in the `pix-plan` namespace (`pix-policy` for a policy's
 * digest). Pure.
 */
import { createHash } from 'node:crypto';
import { InvalidValue } from './invalid.js';
import { canonicalJson } from './jsonsource.js';
import type { Centavos } from './money.js';
import type { PayeeExpectation } from './payee.js';
import type { RowFacts } from './policy.js';
import type { Recurrence } from './schedule.js';

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
  /** A label for people: who the maker is, is the key. */
  name: string;
  email?: string;
  /** Where the label came from: `--by`, git's user.name/user.email, the login name, or the policy's name of the key. */
  from: 'flag' | 'git' | 'login' | 'policy';
  /** The fingerprint of the SSH key the maker signs the plan with: the maker, as the policy knows people. */
  key: string;
}

/**
 * A standing plan (`pix schedule create … --plan FILE`): a recurring schedule approved once. Its rows are
 * the schedule's occurrences, each its journal row (`s-….2026-03-10`), key, receiver as consulted and
 * amount, so what the approvers sign is every date, the receiver and the most each occurrence may pay;
 * these terms say how the schedule is made of it when it is activated (`pix schedule activate`).
 */
export interface StandingTerms {
  /** The schedule's id (`s-` and 12 hex): its occurrences' rows are named by it. */
  schedule: string;
  recurrence: Recurrence;
  /** `HH:MM`: when on its day an occurrence becomes due. */
  time: string;
  timeZone: string;
}

/** The format of a plan file this pix writes and reads. */
export const PLAN_FORMAT = 2;

/** Everything the id covers. */
export interface PlanBody {
  'pix-plan': typeof PLAN_FORMAT;
  /** The account it pays from, as the API identifies it (journal/accounts.ts), and its profile and API for people. */
  account: { id: string; profile: string; api: string };
  /** The command that made it. */
  kind: 'key' | 'qr' | 'batch' | 'schedule';
  /** A standing plan's schedule (kind `schedule`). */
  standing?: StandingTerms;
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

/** A body with its id, not yet signed. */
export interface SealedPlan extends PlanBody {
  id: string;
}

export interface Plan extends SealedPlan {
  /** The maker's armored SSH signature of `verdictMessage('make', id, createdAt)`: outside the id. */
  signature: string;
}

/** `sha256:` and the hex SHA-256 of the body's canonical JSON. */
export function planIdOf(body: PlanBody): string {
  return `sha256:${createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex')}`;
}

/** The body with its id. */
export function sealPlan(body: PlanBody): SealedPlan {
  return { id: planIdOf(body), ...body };
}

/** The plan's body: everything but its id and the maker's signature. */
export function planBody(plan: SealedPlan | Plan): PlanBody {
  const { id: _id, signature: _signature, ...body } = plan as Plan;
  return body;
}

/** What the maker signs: the plan's id, at the time it was made. */
export function makerMessage(plan: Pick<Plan, 'id' | 'createdAt'>): Buffer {
  return verdictMessage('make', plan.id, plan.createdAt);
}

/** The file's text: the id first, for people and diffs, the signature last; pretty, one key per line. */
export function formatPlan(plan: Plan): string {
  const { id, signature, ...body } = plan;
  return `${JSON.stringify({ id, ...body, signature }, null, 2)}\n`;
}

/** The short form of an id people read: `sha256:1a2b3c4d5e6f`. */
export function shortPlanId(id: string): string {
  return id.slice(0, 'sha256:'.length + 12);
}

/**
 * Checks what the id cannot: the id matches the content (else the file was edited by hand), the total
 * is the rows' sum, and no row id repeats. Throws InvalidValue naming what is wrong.
 */
export function checkPlan(plan: SealedPlan): void {
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
  if ((plan.kind === 'schedule') !== (plan.standing !== undefined))
    throw new InvalidValue('a standing plan (kind schedule) and its schedule go together');
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

/** The format of an approval file this pix writes and reads: its time is signed. */
export const APPROVAL_FORMAT = 2;

/** One signed verdict on a plan or a policy, as its file holds it (approvals/files.ts reads and writes it). */
export interface ApprovalRecord {
  'pix-approval': typeof APPROVAL_FORMAT;
  verdict: Verdict;
  /** The plan's id or the policy's digest, as the signer saw it (the signature is checked against the real one). */
  subject: string;
  reason?: string;
  /** Who signed, as the signer's policy names the key (a label: the key decides). */
  by?: string;
  /** The key's fingerprint (a convenience: the signature names its key). */
  key: string;
  /** When it was signed: part of what is signed, so of one key's verdicts the newest is known. */
  at: string;
  /** The armored SSH signature of verdictMessage(verdict, subject, at, reason). */
  signature: string;
}

/**
 * What a verdict signs: the verdict and the subject's id (a plan's, a policy's digest), the time it was
 * signed (so of one key's verdicts the newest can be told, and an older one restored is known as older),
 * and a refusal's reason. `make` is the maker's signature of their own plan: it never reads as an approval.
 */
export function verdictMessage(
  verdict: Verdict | 'make',
  subject: string,
  at: string,
  reason?: string,
): Buffer {
  const because = reason === undefined ? '' : `reason: ${reason.replace(/\s+/g, ' ').trim()}\n`;
  return Buffer.from(`${verdict} ${subject}\nat: ${at}\n${because}`, 'utf8');
}
