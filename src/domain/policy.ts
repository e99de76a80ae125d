/**
 * The payment policy: who may approve a plan (approvers by name, their SSH public keys, their groups),
 * which rules ask how many approvals of which groups, the caps no approval lifts, and the quorum that
 * approves the policy itself. Read from JSON written by hand (errors name the file, the line and the
 * key: `policyfile.ts`); evaluated here over a plan's facts and the approvals found. Pure: no I/O, no
 * clock (the caller gives the instant), no journal (the caller counts what was paid).
 *
 * {
 *   "pix-policy": 1,
 *   "approvers": { "ana": { "groups": ["finance"], "keys": ["ana@example.com ssh-ed25519 AAAA…"] } },
 *   "rules": [ { "name": "every plan", "require": "1 of finance" },
 *              { "name": "large", "amount-over": "5000", "require": "2 of finance" },
 *              { "name": "night", "night": true, "amount-over": "1000", "require": "1 of admins" } ],
 *   "allowlist": ["fornecedor@example.com", "11.222.333/0001-81"],
 *   "night": { "from": "20:00", "to": "06:00" },
 *   "caps": { "per-payment": "10000", "per-day": "50000", "per-receiver-per-day": "20000" },
 *   "policy-change": "2 of admins"
 * }
 */
import { type Centavos, formatBRL } from './money.js';
import type { AllowedSigner } from './sshsigners.js';
import { wallClockMs } from './timezones.js';

/** The namespaces of `ssh-keygen -Y sign`: a plan's approval can never pass for a policy's, nor for a git commit. */
export const PLAN_NAMESPACE = 'pix-plan';
export const POLICY_NAMESPACE = 'pix-policy';
/** The group whose quorum approves a policy. */
export const ADMINS = 'admins';
/** The night window's clock: Brasília's. */
export const POLICY_TIME_ZONE = 'America/Sao_Paulo';

export interface QuorumPart {
  count: number;
  group: string;
}

/** `2 of finance`, `1 of admins and 1 of finance`: distinct people, each counted in one part. */
export interface Quorum {
  text: string;
  parts: QuorumPart[];
}

export interface Approver {
  name: string;
  groups: string[];
  /** The keys that are this person: who signed is known by the key alone. */
  keys: AllowedSigner[];
  /** A label for people (lower-cased), never an identity. */
  email?: string;
}

export interface RuleConditions {
  /** A row pays more than this. */
  amountOver?: Centavos;
  /** The plan pays more than this in all. */
  totalOver?: Centavos;
  /** A row pays a receiver this account never paid. */
  newReceiver?: boolean;
  /** A row pays a receiver outside the allowlist. */
  outsideAllowlist?: boolean;
  /** The plan is paid inside the night window. */
  night?: boolean;
}

export interface Rule extends RuleConditions {
  name: string;
  require: Quorum;
}

export interface Caps {
  perPayment?: Centavos;
  perDay?: Centavos;
  perReceiverPerDay?: Centavos;
}

export interface Policy {
  /** `sha256:` and the hex SHA-256 of the policy's canonical JSON (what `pix policy approve` signs). */
  digest: string;
  approvers: Approver[];
  /** Each group's members, in the order the approvers are written. */
  groups: Map<string, Approver[]>;
  rules: Rule[];
  /** Minutes after midnight in Brasília: `from` to `to`, across midnight when from > to. */
  night: { from: number; to: number; text: string };
  caps: Caps;
  /** Every payment of an account this policy binds is an approved plan (`pix policy enforce`). */
  requirePlan: boolean;
  /** PIX keys and documents (digits); undefined when the policy has none (no receiver is then "outside" it). */
  allowlist: { keys: Set<string>; documents: Set<string> } | undefined;
  policyChange: Quorum;
}

// ---------------------------------------------------------------------------------------------
// The facts of a plan, and which rules they bring in

/** What the rules look at in one row. */
export interface RowFacts {
  id: string;
  amount: Centavos;
  newReceiver: boolean;
  outsideAllowlist: boolean;
}

/** Whether `ms` falls in the policy's night window, on Brasília's clock. */
export function isNight(policy: Pick<Policy, 'night'>, ms: number): boolean {
  const wall = new Date(wallClockMs(ms, POLICY_TIME_ZONE));
  const minute = wall.getUTCHours() * 60 + wall.getUTCMinutes();
  const { from, to } = policy.night;
  return from < to ? minute >= from && minute < to : minute >= from || minute < to;
}

/** Whether a rule has conditions on rows (else it looks at the plan as a whole, or at nothing). */
export function hasRowCondition(rule: Rule): boolean {
  return rule.amountOver !== undefined || rule.newReceiver === true || rule.outsideAllowlist === true;
}

/** Whether a rule that applies to a plan asks its quorum for this row: all of its rows, or those it names. */
export function ruleCoversRow(rule: Rule, row: RowFacts): boolean {
  return !hasRowCondition(rule) || rowMatches(rule, row);
}

/** Whether a row meets the row conditions of a rule (all of them). */
function rowMatches(rule: Rule, row: RowFacts): boolean {
  if (rule.amountOver !== undefined && !(row.amount > rule.amountOver)) return false;
  if (rule.newReceiver && !row.newReceiver) return false;
  if (rule.outsideAllowlist && !row.outsideAllowlist) return false;
  return true;
}

/** A rule that applies to a plan, with why, in a few words. */
export interface Applying {
  rule: Rule;
  why: string;
  /** Night rules when the time of payment is not known yet (`pix plan show`): it applies if paid at night. */
  ifNight?: boolean;
}

/**
 * The rules that apply to a plan of `rows` (all of a rule's conditions hold: its row conditions on one
 * row at least). `night`: whether it is paid at night; undefined when not known yet, and night rules are
 * then given with `ifNight`.
 */
export function applyingRules(
  policy: Policy,
  rows: readonly RowFacts[],
  night: boolean | undefined,
): Applying[] {
  const total = rows.reduce((sum, row) => sum + row.amount, 0);
  const out: Applying[] = [];
  for (const rule of policy.rules) {
    if (rule.night && night === false) continue;
    if (rule.totalOver !== undefined && !(total > rule.totalOver)) continue;
    const byRow = hasRowCondition(rule);
    const matching = byRow ? rows.filter((row) => rowMatches(rule, row)) : [];
    if (byRow && matching.length === 0) continue;
    const why: string[] = [];
    if (rule.totalOver !== undefined)
      why.push(`the plan pays ${formatBRL(total)}, over ${formatBRL(rule.totalOver)}`);
    if (byRow) {
      const shown = matching
        .slice(0, 3)
        .map((row) => row.id)
        .join(', ');
      const more = matching.length > 3 ? ` and ${matching.length - 3} more` : '';
      const what = [
        rule.amountOver === undefined ? undefined : `over ${formatBRL(rule.amountOver)}`,
        rule.newReceiver ? 'to a new receiver' : undefined,
        rule.outsideAllowlist ? 'outside the allowlist' : undefined,
      ]
        .filter(Boolean)
        .join(', ');
      why.push(`row${matching.length === 1 ? '' : 's'} ${shown}${more}: ${what}`);
    }
    if (rule.night) why.push(`paid at night (${policy.night.text} Brasília)`);
    out.push({
      rule,
      why: why.length === 0 ? 'every plan' : why.join('; '),
      ...(rule.night && night === undefined ? { ifNight: true } : {}),
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Quorums

export interface Missing {
  group: string;
  /** How many more approvals of this group the quorum needs. */
  more: number;
  /** The members of the group who may still approve (not the maker, not those who approved). */
  candidates: string[];
}

export interface QuorumResult {
  met: boolean;
  /** Who counted, per part. */
  counted: Array<{ group: string; names: string[] }>;
  missing: Missing[];
}

/**
 * Whether the approvers who approved meet `quorum`: each part needs its count of distinct members of its
 * group, and one person counts in one part only (`1 of admins and 1 of finance` is two people). A
 * maximum matching of approvers to the parts' seats (Kuhn's augmenting paths: a handful of people).
 * `approved`: distinct approvers, the maker already left out. `excluded`: who may not be asked (the
 * maker, those who refused).
 */
export function checkQuorum(
  policy: Pick<Policy, 'groups'>,
  quorum: Quorum,
  approved: readonly Approver[],
  excluded: ReadonlySet<string>,
): QuorumResult {
  const seats = quorum.parts.flatMap((part) => Array.from({ length: part.count }, () => part.group));
  const seatOf = new Map<string, number>(); // approver → seat
  const holder: Array<string | undefined> = seats.map(() => undefined);
  const byName = new Map(approved.map((approver) => [approver.name, approver]));
  const augment = (name: string, visited: Set<number>): boolean => {
    const approver = byName.get(name)!;
    for (let seat = 0; seat < seats.length; seat++) {
      if (visited.has(seat) || !approver.groups.includes(seats[seat]!)) continue;
      visited.add(seat);
      const current = holder[seat];
      if (current === undefined || augment(current, visited)) {
        holder[seat] = name;
        seatOf.set(name, seat);
        return true;
      }
    }
    return false;
  };
  for (const approver of approved) augment(approver.name, new Set());
  const counted = quorum.parts.map((part) => ({
    group: part.group,
    names: seats.flatMap((group, seat) =>
      group === part.group && holder[seat] !== undefined ? [holder[seat]!] : [],
    ),
  }));
  const missing: Missing[] = [];
  for (const part of quorum.parts) {
    const filled = counted.find((c) => c.group === part.group)!.names.length;
    if (filled >= part.count) continue;
    const members = policy.groups.get(part.group) ?? [];
    missing.push({
      group: part.group,
      more: part.count - filled,
      candidates: members.map((m) => m.name).filter((name) => !byName.has(name) && !excluded.has(name)),
    });
  }
  return { met: missing.length === 0, counted, missing };
}

/** `2 more of finance (bruno, carla may approve)`, or that no one is left to. */
export function describeMissing(missing: readonly Missing[]): string {
  return missing
    .map(({ group, more, candidates }) => {
      const who =
        candidates.length === 0
          ? 'no one left in the group may approve'
          : `${candidates.join(', ')} ${candidates.length === 1 ? 'may' : 'may'} approve`;
      return `${more} more of ${group} (${who})`;
    })
    .join(' and ');
}

// ---------------------------------------------------------------------------------------------
// Caps

/** One row as the caps see it: its amount and who it pays. */
export interface CapRow {
  id: string;
  amount: Centavos;
  /** What identifies the receiver across payments (the same for the journal's entries). */
  receiver: string;
  /** How to name the receiver in a message. */
  receiverName: string;
}

/**
 * The caps a plan would break, as messages: a row over `per-payment`; today's payments (`paidToday`,
 * from the journal, in Brasília's calendar day) and these rows over `per-day`; a receiver's over
 * `per-receiver-per-day`. No approval lifts a cap.
 */
export function capViolations(
  caps: Caps,
  rows: readonly CapRow[],
  paidToday: Centavos,
  paidTodayTo: (receiver: string) => Centavos,
  what = 'this plan',
): string[] {
  const problems: string[] = [];
  if (caps.perPayment !== undefined) {
    for (const row of rows) {
      if (row.amount > caps.perPayment)
        problems.push(
          `row ${row.id} pays ${formatBRL(row.amount)}, over the per-payment cap of ${formatBRL(caps.perPayment)}`,
        );
    }
  }
  const total = rows.reduce((sum, row) => sum + row.amount, 0);
  if (caps.perDay !== undefined && paidToday + total > caps.perDay) {
    problems.push(
      `today's payments would reach ${formatBRL(paidToday + total)} (${formatBRL(paidToday)} paid already, ${formatBRL(total)} in ${what}), over the per-day cap of ${formatBRL(caps.perDay)}`,
    );
  }
  if (caps.perReceiverPerDay !== undefined) {
    const sums = new Map<string, { amount: Centavos; name: string }>();
    for (const row of rows) {
      const sum = sums.get(row.receiver) ?? { amount: paidTodayTo(row.receiver), name: row.receiverName };
      sum.amount += row.amount;
      sums.set(row.receiver, sum);
    }
    for (const { amount, name } of sums.values()) {
      if (amount > caps.perReceiverPerDay)
        problems.push(
          `${name} would be paid ${formatBRL(amount)} today, over the per-receiver cap of ${formatBRL(caps.perReceiverPerDay)}`,
        );
    }
  }
  return problems;
}

/**
 * Whether a receiver is outside the policy's allowlist: neither the row's key nor the receiver's document
 * (whole, never a masked one) is on it. A policy without an allowlist has no outside.
 */
export function outsideAllowlist(
  policy: Pick<Policy, 'allowlist'>,
  key: string | undefined,
  document: string | undefined,
): boolean {
  const { allowlist } = policy;
  if (allowlist === undefined) return false;
  if (key !== undefined && allowlist.keys.has(key)) return false;
  const digits = document?.replace(/[.\-/\s]/g, '').toUpperCase();
  return !(digits !== undefined && !digits.includes('*') && allowlist.documents.has(digits));
}
