/**
 * What the verbs of `pix plan` share: a plan read with its policy and its approvals verified, the review
 * the policy makes of it (the rules that apply, who approved, what is still missing), and how that is
 * shown to people and scripts.
 *
 *   pix plan show FILE [--policy FILE]
 *   pix plan approve FILE [--key PATH] [--policy FILE]
 *   pix plan reject FILE --reason TEXT [--key PATH] [--policy FILE]
 *   pix plan execute FILE [--policy FILE] [--concurrency N] --yes
 *
 * Everything in a plan that came from the server (receivers' names, documents, institutions) is shown
 * through the one sanitizer (output/sanitize.ts): tables sanitize their cells, lines on stderr use safeText.
 */
import { readApprovals, readPlanFile } from '../../approvals/files.js';
import { type PolicyInForce, policiesFor, policyRefusal } from '../../approvals/inforce.js';
import {
  checkMaker,
  type MakerCheck,
  type Review,
  refusalOf,
  reviewPlan,
  type Signoff,
  type VerdictSource,
  verifySignoffs,
} from '../../approvals/review.js';
import type { Deps } from '../../context.js';
import { centavosToApi, formatBRL } from '../../domain/money.js';
import { type Plan, rowFacts, shortPlanId } from '../../domain/plan.js';
import {
  describeMissing,
  isNight,
  PLAN_NAMESPACE,
  type RowFacts,
  ruleCoversRow,
} from '../../domain/policy.js';
import { describeRule, parseOccurrenceRow } from '../../domain/schedule.js';
import { formatDateTime, formatForMessage } from '../../domain/when.js';
import type { JournalEntry, JournalPlan } from '../../journal/entries.js';
import { shortId } from '../../journal/entries.js';
import type { OutputMode } from '../../output/format.js';
import * as z from '../../zod.js';

export const policyFlag = z.optional(z.string().check(z.minLength(1, 'a file path is required')));
export const POLICY_OPTION = [
  '--policy <file>',
  "a payment policy (default: the profile's `policy` setting); with a policy enforced on the account, it can only add to it",
] as const;
export const KEY_OPTION = [
  '--key <path>',
  'the SSH key to sign with: a private key, or a .pub whose key is in ssh-agent (default: git user.signingkey, else ssh-agent)',
] as const;

/** The plan as one policy judges it: who made it, and its verdicts. */
export interface Judged {
  inForce: PolicyInForce;
  /** The person whose key signed the plan, as this policy knows people, or why none. */
  maker: MakerCheck;
  signoffs: Signoff[];
}

/** A plan, the policies it is judged under (the binding one first), and its verdicts verified under each. */
export interface OpenedPlan {
  file: string;
  plan: Plan;
  /** The first policy's judgement: the policy enforced on the account, else the policy file. */
  inForce: PolicyInForce;
  judged: Judged[];
  /** The plan was made under the binding policy (its digest is the plan's). */
  samePolicy: boolean;
  signoffs: Signoff[];
  /** Where the verdicts seen are remembered (stores.ts). */
  remembered: string;
  /** The profile's time zone: the plan's instants in messages are written in it (domain/when.ts). */
  timeZone: string;
}

/**
 * Opens a plan: the policies of its account (the one enforced on it, else `policy`, else the profile's;
 * both when `policy` names another one), its verdicts — the files beside it, and those a store of verdicts
 * has seen (an older approval restored after a refusal is then older than that refusal) — verified under
 * each. The verdicts that verify are remembered in the store.
 */
export async function openPlan(deps: Deps, file: string, policy: string | undefined): Promise<OpenedPlan> {
  return openPlanWith(deps, readPlanFile(file), file, readApprovals(file), policy, deps.clock.now());
}

/**
 * openPlan over a plan already read and the verdicts found with it (a standing plan kept with its schedule
 * and the approvals copied when it was activated: commands/schedule/standing.ts), judged at `at`.
 */
export async function openPlanWith(
  deps: Deps,
  plan: Plan,
  file: string,
  files: VerdictSource[],
  policy: string | undefined,
  at: Date,
): Promise<OpenedPlan> {
  const policies = await policiesFor(deps, plan.account.id, policy);
  const now = at.getTime();
  const valid = new Map<string, VerdictSource['record']>();
  for (const { policy: judging } of policies) {
    for (const signoff of verifySignoffs(judging, plan.id, PLAN_NAMESPACE, files, now)) {
      if (signoff.record !== undefined && (signoff.counts || signoff.supersededBy !== undefined))
        valid.set(signoff.record.signature, signoff.record);
    }
  }
  const stores = await deps.stores.approvals();
  const stored = await stores.remember(PLAN_NAMESPACE, plan.id, [...valid.values()]);
  const sources: VerdictSource[] = [
    ...files,
    ...stored.map(({ record }) => ({ file: stores.where, record, stored: true })),
  ];
  const judged = policies.map((inForce) => ({
    inForce,
    maker: checkMaker(inForce.policy, plan, now),
    signoffs: verifySignoffs(inForce.policy, plan.id, PLAN_NAMESPACE, sources, now),
  }));
  return {
    file,
    plan,
    inForce: judged[0]!.inForce,
    judged,
    samePolicy: judged[0]!.inForce.policy.digest === plan.policy,
    signoffs: judged[0]!.signoffs,
    remembered: stores.where,
    timeZone: (await deps.settings()).timeZone.value,
  };
}

/**
 * The review of an opened plan under every policy, over `rows` (default: the plan's own facts), as one:
 * the rules of each (those of a policy after the first named by its file), refusals under any, approved
 * when every policy approves. `facts`: the rows as one policy sees them (its own allowlist).
 */
export function review(
  opened: OpenedPlan,
  night: boolean | undefined | ((inForce: PolicyInForce) => boolean),
  facts?: (inForce: PolicyInForce) => readonly RowFacts[],
): Review {
  const reviews = opened.judged.map(({ inForce, maker, signoffs }, index) => {
    const rows = facts?.(inForce) ?? opened.plan.rows.map(rowFacts);
    const found = reviewPlan(
      inForce.policy,
      'approver' in maker ? maker.approver : undefined,
      signoffs,
      rows,
      typeof night === 'function' ? night(inForce) : night,
    );
    if (index === 0) return found;
    return {
      ...found,
      rules: found.rules.map((rule) => ({
        ...rule,
        rule: { ...rule.rule, name: `${inForce.file}: ${rule.rule.name}` },
      })),
    };
  });
  const [first, ...rest] = reviews;
  return {
    signoffs: first!.signoffs,
    approvedBy: first!.approvedBy,
    rejectedBy: reviews.flatMap((found) => found.rejectedBy),
    rules: reviews.flatMap((found) => found.rules),
    approved: first!.approved && rest.every((found) => found.approved),
  };
}

/** Why the plan cannot be paid as it stands (other than its rules' quorums), or undefined. */
export function standingRefusal(opened: OpenedPlan, now: Date): string | undefined {
  const { plan, inForce } = opened;
  for (const { inForce: each, maker } of opened.judged) {
    const policy = policyRefusal(each);
    if (policy !== undefined) return policy;
    if ('problem' in maker) return `${maker.problem} (${each.file})`;
  }
  if (!opened.samePolicy) {
    return `the plan was made under policy ${plan.policy.slice(0, 19)}, and the policy in force is ${inForce.policy.digest.slice(0, 19)} (${inForce.file}): make the plan again`;
  }
  if (Date.parse(plan.expiresAt) <= now.getTime())
    return `the plan expired at ${formatForMessage(plan.expiresAt, opened.timeZone)}`;
  return undefined;
}

/** `Carla <carla@example.com>`: the label the maker gave. */
export function makerWords(plan: Plan): string {
  const { name, email } = plan.maker;
  return email === undefined || email === name ? name : `${name} <${email}>`;
}

/** What a payment's journal entry keeps of the approved plan it pays: its maker, and the approvals that counted. */
export function journalPlanOf(plan: Plan, verdict: Review): JournalPlan {
  return {
    id: plan.id,
    maker: makerWords(plan),
    makerKey: plan.maker.key,
    approvers: verdict.signoffs
      .filter((signoff) => signoff.counts && signoff.verdict === 'approve')
      .map((signoff) => ({ name: signoff.approver!.name, key: signoff.fingerprint })),
  };
}

/** Who made the plan as the binding policy knows people: `carla (key SHA256:…)`, or why none. */
export function makerOf(opened: OpenedPlan): string {
  const { maker } = opened.judged[0]!;
  return 'approver' in maker
    ? `${maker.approver.name} (key ${opened.plan.maker.key})`
    : `unknown: ${maker.problem}`;
}

/** The rows the journal paid under this plan, by row id (the latest entry of each). */
export function paidRows(entries: Iterable<JournalEntry>, planId: string): Map<string, JournalEntry> {
  const paid = new Map<string, JournalEntry>();
  for (const entry of entries) {
    const row = entry.payment?.batchRow?.row;
    if (entry.plan?.id === planId && row !== undefined) paid.set(row, entry);
  }
  return paid;
}

/** The plan's status in a few words: refused, expired, approved, or what is missing. */
export function statusWords(opened: OpenedPlan, verdict: Review, now: Date): string {
  const standing = standingRefusal(opened, now);
  if (standing !== undefined) return `cannot be paid: ${standing}`;
  const refusal = refusalOf(verdict);
  if (refusal !== undefined) return `not approved: ${refusal}`;
  const night = verdict.rules.filter((rule) => rule.ifNight && !rule.quorum.met);
  const caveat =
    night.length === 0
      ? ''
      : ` (if paid at night, ${night.map((rule) => `"${rule.rule.name}" needs ${describeMissing(rule.quorum.missing)}`).join('; ')})`;
  return `approved: ready to execute${caveat}`;
}

/** `pix plan show` for people: the plan, its rows, the rules, the approvals. */
export function renderPlan(
  opened: OpenedPlan,
  verdict: Review,
  paid: Map<string, JournalEntry>,
  mode: OutputMode,
  now: Date,
): string {
  const time = (iso: string) => (mode.human ? formatDateTime(iso, mode.timeZone) : iso);
  const parts = [
    planHead(opened, verdict, mode, now, time),
    planRows(opened.plan, paid, mode),
    planRules(verdict, mode),
    planApprovals(verdict, mode, time),
  ];
  return parts.join(mode.human ? '\n' : '');
}

/** A standing plan's schedule: its rule, and its occurrences (a batch file's: each of its rows). */
function standingWords(plan: Plan): string {
  const standing = plan.standing!;
  const dates = new Set(plan.rows.map((row) => parseOccurrenceRow(row.id)?.date ?? row.id.slice(-10)));
  const perDate = plan.rows.length / dates.size;
  return `${describeRule(standing.recurrence.rule, standing.recurrence.start)}, at ${standing.time} (${standing.timeZone}): ${dates.size} occurrence${dates.size === 1 ? '' : 's'}${perDate > 1 ? ` of ${perDate} rows` : ''}, ${[...dates][0]} to ${[...dates].at(-1)}`;
}

/** The plan's fields: what it is, who made it, until when, under which policy, its total and status. */
function planHead(
  opened: OpenedPlan,
  verdict: Review,
  mode: OutputMode,
  now: Date,
  time: (iso: string) => string,
): string {
  const { plan, inForce } = opened;
  const expired = Date.parse(plan.expiresAt) <= now.getTime();
  const policyState = !opened.samePolicy
    ? `made under ${plan.policy.slice(0, 19)}, not ${inForce.policy.digest.slice(0, 19)} (${inForce.file})`
    : (policyRefusal(inForce) ?? `${inForce.file}, approved by its admins`);
  return mode.table(
    ['Field', 'Value'],
    [
      [
        'Plan',
        `${plan.id}${plan.standing !== undefined ? ` (standing: schedule ${plan.standing.schedule})` : plan.source === undefined ? ` (pay ${plan.kind})` : ` (pay batch ${plan.source})`}`,
      ],
      ...(plan.standing === undefined ? [] : [['Schedule', standingWords(plan)]]),
      ['Account', `profile "${plan.account.profile}" via ${plan.account.api}`],
      [
        'Made by',
        `${makerOf(opened)}, "${makerWords(plan)}" (${plan.maker.from === 'flag' ? '--by' : plan.maker.from === 'policy' ? "the policy's name" : plan.maker.from}) at ${time(plan.createdAt)}`,
      ],
      ['Expires', `${time(plan.expiresAt)}${expired ? ' (expired)' : ''}`],
      ['Policy', `${plan.policy} — ${policyState}`],
      [
        'Total',
        `${plan.total.rows} row${plan.total.rows === 1 ? '' : 's'}, ${mode.human ? formatBRL(plan.total.amountCentavos) : String(centavosToApi(plan.total.amountCentavos))}`,
      ],
      ['Status', statusWords(opened, verdict, now)],
    ],
  );
}

/** Every row: its id, amount, receiver as consulted, key (or code), the rules' facts and whether paid. */
function planRows(plan: Plan, paid: Map<string, JournalEntry>, mode: OutputMode): string {
  return mode.table(
    [
      { header: 'Id', kind: 'id' },
      { header: 'Amount', kind: 'money' },
      { header: 'Receiver' },
      { header: 'Document', priority: 2 },
      { header: 'Institution', priority: 3 },
      { header: 'To', priority: 3 },
      { header: 'Note', priority: 2 },
      { header: 'Paid', priority: 2 },
    ],
    plan.rows.map((row) => {
      const entry = paid.get(row.id);
      const notes = [
        row.newReceiver ? 'new receiver' : '',
        row.outsideAllowlist ? 'not on the allowlist' : '',
      ]
        .filter(Boolean)
        .join(', ');
      return [
        row.id,
        mode.human ? formatBRL(row.amountCentavos) : String(centavosToApi(row.amountCentavos)),
        row.receiver.name,
        row.receiver.document ?? '',
        row.receiver.institution ?? '',
        row.key ?? 'code',
        notes,
        entry === undefined ? '' : `${entry.resolution ?? entry.state} (journal ${shortId(entry.id)})`,
      ];
    }),
  );
}

/** The policy's rules that apply, and whether each quorum is met. */
function planRules(verdict: Review, mode: OutputMode): string {
  return mode.table(
    [
      { header: 'Rule' },
      { header: 'Requires' },
      { header: 'Why', wrap: true },
      { header: 'Status', wrap: true },
    ],
    verdict.rules.map((rule) => [
      rule.rule.name,
      rule.rule.require.text,
      rule.why,
      rule.quorum.met
        ? `met: ${rule.quorum.counted.flatMap((part) => part.names).join(', ')}`
        : `${rule.ifNight ? 'if paid at night: ' : ''}needs ${describeMissing(rule.quorum.missing)}`,
    ]),
  );
}

/** Who signed what, and whether it counts. */
function planApprovals(verdict: Review, mode: OutputMode, time: (iso: string) => string): string {
  if (verdict.signoffs.length === 0) return mode.human ? 'No approvals yet.\n' : '';
  return mode.table(
    [
      { header: 'Who' },
      { header: 'Verdict', wrap: true },
      { header: 'Key', kind: 'id', priority: 2 },
      { header: 'At', kind: 'date', priority: 3 },
      { header: 'Counts', wrap: true },
    ],
    verdict.signoffs.map((signoff) => [
      signoff.approver?.name ?? '?',
      signoff.reason === undefined ? signoff.verdict : `${signoff.verdict}: ${signoff.reason}`,
      signoff.fingerprint,
      time(signoff.at),
      signoff.counts ? 'yes' : `no: ${signoff.why ?? ''}`,
    ]),
  );
}

/** `pix plan show --json`. */
export function planDocument(
  opened: OpenedPlan,
  verdict: Review,
  paid: Map<string, JournalEntry>,
  now: Date,
): Record<string, unknown> {
  const { plan, inForce } = opened;
  const { maker } = opened.judged[0]!;
  return {
    id: plan.id,
    plan,
    maker: {
      key: plan.maker.key,
      name: 'approver' in maker ? maker.approver.name : null,
      ...('problem' in maker ? { problem: maker.problem } : {}),
    },
    policy: {
      file: inForce.file,
      digest: inForce.policy.digest,
      enforced: inForce.enforced !== undefined,
      samePolicy: opened.samePolicy,
      inForce: policyRefusal(inForce) === undefined,
    },
    policies: opened.judged.map(({ inForce: each }) => ({
      file: each.file,
      digest: each.policy.digest,
      enforced: each.enforced !== undefined,
      inForce: policyRefusal(each) === undefined,
    })),
    expired: Date.parse(plan.expiresAt) <= now.getTime(),
    approved: standingRefusal(opened, now) === undefined && verdict.approved,
    status: statusWords(opened, verdict, now),
    rules: verdict.rules.map((rule) => ({
      name: rule.rule.name,
      require: rule.rule.require.text,
      why: rule.why,
      ifNight: rule.ifNight ?? false,
      met: rule.quorum.met,
      counted: rule.quorum.counted,
      missing: rule.quorum.missing,
    })),
    approvals: verdict.signoffs.map((signoff) => ({
      file: signoff.file,
      name: signoff.approver?.name ?? null,
      key: signoff.fingerprint,
      verdict: signoff.verdict,
      ...(signoff.reason === undefined ? {} : { reason: signoff.reason }),
      at: signoff.at,
      counts: signoff.counts,
      ...(signoff.why === undefined ? {} : { why: signoff.why }),
    })),
    paid: [...paid.entries()].map(([row, entry]) => ({
      row,
      journalEntry: entry.id,
      state: entry.state,
      ...(entry.resolution === undefined ? {} : { resolution: entry.resolution }),
      at: entry.at,
      ...(entry.transferId === undefined ? {} : { transferId: entry.transferId }),
      approvers: entry.plan?.approvers ?? [],
    })),
  };
}

/** One line for stderr: `plan sha256:1a2b… (2 rows, R$ 30,50)`. */
export function planWords(plan: Plan): string {
  return `plan ${shortPlanId(plan.id)} (${plan.total.rows} row${plan.total.rows === 1 ? '' : 's'}, ${formatBRL(plan.total.amountCentavos)})`;
}

/** The rows as each policy sees them (its own allowlist), when they are not the plan's own facts. */
export type Facts = (inForce: PolicyInForce) => RowFacts[];

/**
 * The plan's rules at an instant, for one row: the first rule that applies to it then (a night rule once the
 * night began in a policy's window) whose quorum the plan lacks, in words; undefined when none.
 */
export function rulesAt(opened: OpenedPlan, facts: () => Facts | undefined) {
  return (at: Date, rowId: string): string | undefined => {
    const found = facts();
    const verdict = review(opened, ({ policy }) => isNight(policy, at.getTime()), found);
    const refused = verdict.rejectedBy[0];
    if (refused !== undefined) return refusalOf(verdict);
    const row = (found?.(opened.inForce) ?? opened.plan.rows.map(rowFacts)).find((r) => r.id === rowId);
    const unmet = verdict.rules.find(
      (rule) => !rule.ifNight && !rule.quorum.met && row !== undefined && ruleCoversRow(rule.rule, row),
    );
    if (unmet === undefined) return undefined;
    return `rule "${unmet.rule.name}" (${unmet.rule.require.text}; ${unmet.why}) needs ${describeMissing(unmet.quorum.missing)}`;
  };
}
