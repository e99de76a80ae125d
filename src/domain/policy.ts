/**
 * The payment policy: who may approve a plan (approvers by name, their SSH public keys, their groups),
 * which rules ask how many approvals of which groups, the caps no approval lifts, and the quorum that
 * approves the policy itself. Read from JSON written by hand (errors name the file, the line and the
 * key); evaluated over a plan's facts and the approvals found. Pure: no I/O, no clock (the caller gives
 * the instant), no journal (the caller counts what was paid).
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
import { createHash } from 'node:crypto';
import { parseTaxId } from './documents.js';
import { InvalidValue } from './invalid.js';
import { canonicalJson, type JsonSource, parseJsonSource, pathText } from './jsonsource.js';
import { type Centavos, formatBRL, parseAmount } from './money.js';
import { parsePixKey } from './pixkey.js';
import { type AllowedSigner, parseAllowedSigner } from './sshsig.js';
import { wallClockMs } from './when.js';

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
  keys: AllowedSigner[];
  /** Who the approver also is, lower-cased: their e-mail and their keys' principals (to know a maker). */
  identities: string[];
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
  /** PIX keys and documents (digits); undefined when the policy has none (no receiver is then "outside" it). */
  allowlist: { keys: Set<string>; documents: Set<string> } | undefined;
  policyChange: Quorum;
}

// ---------------------------------------------------------------------------------------------
// Reading

const TOP_KEYS = new Set(['pix-policy', 'approvers', 'rules', 'allowlist', 'night', 'caps', 'policy-change']);
const APPROVER_KEYS = new Set(['groups', 'keys', 'email', 'no-touch-required']);
const RULE_KEYS = new Set([
  'name',
  'require',
  'amount-over',
  'total-over',
  'new-receiver',
  'outside-allowlist',
  'night',
]);
const CAP_KEYS = {
  'per-payment': 'perPayment',
  'per-day': 'perDay',
  'per-receiver-per-day': 'perReceiverPerDay',
} as const;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** The digest a policy's text is known by (its canonical JSON's SHA-256), without checking the rest. */
export function policyDigestOf(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex')}`;
}

/** `2 of finance and 1 of admins` → its parts. */
export function parseQuorum(text: string): Quorum {
  const parts = text
    .trim()
    .split(/\s+and\s+/i)
    .map((part) => {
      const match = /^(\d{1,2})\s+of\s+([A-Za-z0-9][A-Za-z0-9._-]*)$/i.exec(part.trim());
      if (!match)
        throw new InvalidValue(`"${text}" is not a quorum ("2 of finance", "1 of admins and 1 of finance")`);
      const count = Number(match[1]);
      if (count < 1) throw new InvalidValue(`"${text}": a quorum counts at least 1 approval`);
      return { count, group: match[2]! };
    });
  const seen = new Set<string>();
  for (const { group } of parts) {
    if (seen.has(group))
      throw new InvalidValue(`"${text}" names group ${group} twice: write it once with the sum`);
    seen.add(group);
  }
  return { text: parts.map((part) => `${part.count} of ${part.group}`).join(' and '), parts };
}

function parseClock(text: string): number {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!match) throw new InvalidValue(`"${text}" is not a time of day (HH:MM, 24 h)`);
  return Number(match[1]) * 60 + Number(match[2]);
}

/** Reads a policy; every problem throws InvalidValue naming `file`, its line and the key. */
export function parsePolicy(text: string, file: string): Policy {
  let source: JsonSource;
  try {
    source = parseJsonSource(text);
  } catch (error) {
    if (error instanceof InvalidValue) throw new InvalidValue(`${file} ${error.message}`);
    throw error;
  }
  const fail = (path: ReadonlyArray<string | number>, reason: string): never => {
    const where = pathText(path);
    throw new InvalidValue(
      `${file} line ${source.lineOf(where)}: ${where === '' ? '' : `${where}: `}${reason}`,
    );
  };
  /** Runs a domain parser on a value, its refusal named by the value's place. */
  const at = <T>(path: ReadonlyArray<string | number>, parse: () => T): T => {
    try {
      return parse();
    } catch (error) {
      if (error instanceof InvalidValue) return fail(path, error.message);
      throw error;
    }
  };
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  const onlyKeys = (
    value: Record<string, unknown>,
    allowed: ReadonlySet<string>,
    path: Array<string | number>,
  ) => {
    for (const key of Object.keys(value)) {
      if (!allowed.has(key)) fail([...path, key], `unknown key (known: ${[...allowed].join(', ')})`);
    }
  };
  const text_ = (value: unknown, path: Array<string | number>): string =>
    typeof value === 'string' && value.trim() !== ''
      ? value.trim()
      : fail(path, 'must be a non-empty string');
  const amount = (value: unknown, path: Array<string | number>): Centavos => {
    if (typeof value === 'number') return at(path, () => parseAmount(String(value)));
    return at(path, () => parseAmount(text_(value, path)));
  };
  const flag = (value: unknown, path: Array<string | number>): boolean =>
    typeof value === 'boolean' ? value : fail(path, 'must be true or false');
  const list = (value: unknown, path: Array<string | number>): unknown[] =>
    Array.isArray(value) ? value : fail(path, 'must be a list');

  const root = source.value;
  if (!isObject(root)) return fail([], 'a policy is a JSON object');
  onlyKeys(root, TOP_KEYS, []);
  if (root['pix-policy'] !== 1) fail(['pix-policy'], 'must be 1 (the format of this file)');

  // Approvers and their groups.
  const approvers: Approver[] = [];
  const groups = new Map<string, Approver[]>();
  const owners = new Map<string, string>();
  if (!isObject(root.approvers) || Object.keys(root.approvers).length === 0)
    fail(['approvers'], 'must name at least one approver: { "ana": { "groups": [...], "keys": [...] } }');
  for (const [name, raw] of Object.entries(root.approvers as Record<string, unknown>)) {
    const path = ['approvers', name];
    if (!NAME.test(name)) fail(path, `"${name}" is not a name (letters, digits, . _ @ -, at most 64)`);
    if (!isObject(raw)) fail(path, 'must be an object with groups and keys');
    const entry = raw as Record<string, unknown>;
    onlyKeys(entry, APPROVER_KEYS, path);
    const memberOf = list(entry.groups ?? [], [...path, 'groups']).map((group, index) => {
      const groupName = text_(group, [...path, 'groups', index]);
      if (!NAME.test(groupName)) fail([...path, 'groups', index], `"${groupName}" is not a group name`);
      return groupName;
    });
    const noTouch =
      entry['no-touch-required'] === undefined
        ? false
        : flag(entry['no-touch-required'], [...path, 'no-touch-required']);
    const keyLines = list(entry.keys, [...path, 'keys']);
    if (keyLines.length === 0) fail([...path, 'keys'], 'must hold at least one public key');
    const keys = keyLines.map((line, index) => {
      const keyPath = [...path, 'keys', index];
      const signer = at(keyPath, () => parseAllowedSigner(text_(line, keyPath), 'the key'));
      const owner = owners.get(signer.key.fingerprint);
      if (owner !== undefined)
        fail(keyPath, `key ${signer.key.fingerprint} is already ${owner}'s: a key is one person's`);
      owners.set(signer.key.fingerprint, name);
      return noTouch ? { ...signer, noTouchRequired: true } : signer;
    });
    const email =
      entry.email === undefined ? undefined : text_(entry.email, [...path, 'email']).toLowerCase();
    const identities = [
      ...new Set([
        ...(email === undefined ? [] : [email]),
        ...keys.flatMap((key) => key.principals.map((p) => p.toLowerCase())),
      ]),
    ];
    const approver: Approver = { name, groups: [...new Set(memberOf)], keys, identities };
    approvers.push(approver);
    for (const group of approver.groups) groups.set(group, [...(groups.get(group) ?? []), approver]);
  }
  const names = new Set(approvers.map((approver) => approver.name.toLowerCase()));
  if (names.size !== approvers.length)
    fail(['approvers'], 'two approvers have the same name (letter case aside)');

  /** A quorum that can be met by the groups as written. */
  const quorum = (value: unknown, path: Array<string | number>): Quorum => {
    const parsed = at(path, () => parseQuorum(text_(value, path)));
    for (const part of parsed.parts) {
      const members = groups.get(part.group)?.length ?? 0;
      if (members === 0)
        fail(
          path,
          `no approver is in group "${part.group}" (groups: ${[...groups.keys()].join(', ') || 'none'})`,
        );
      if (members < part.count)
        fail(
          path,
          `${part.count} of ${part.group} can never be met: the group has ${members} member${members === 1 ? '' : 's'}`,
        );
    }
    const people = parsed.parts.reduce((sum, part) => sum + part.count, 0);
    const reachable = new Set(parsed.parts.flatMap((part) => groups.get(part.group)!.map((a) => a.name)));
    if (people > reachable.size)
      fail(path, `"${parsed.text}" needs ${people} different people; its groups have ${reachable.size}`);
    return parsed;
  };

  // Rules.
  const rules = list(root.rules, ['rules']).map((raw, index): Rule => {
    const path: Array<string | number> = ['rules', index];
    if (!isObject(raw)) return fail(path, 'a rule is an object with name and require');
    onlyKeys(raw, RULE_KEYS, path);
    const rule: Rule = {
      name: text_(raw.name, [...path, 'name']),
      require: quorum(raw.require, [...path, 'require']),
    };
    if (raw['amount-over'] !== undefined)
      rule.amountOver = amount(raw['amount-over'], [...path, 'amount-over']);
    if (raw['total-over'] !== undefined) rule.totalOver = amount(raw['total-over'], [...path, 'total-over']);
    for (const [key, field] of [
      ['new-receiver', 'newReceiver'],
      ['outside-allowlist', 'outsideAllowlist'],
      ['night', 'night'],
    ] as const) {
      if (raw[key] === undefined) continue;
      if (!flag(raw[key], [...path, key]))
        fail([...path, key], 'leave it out rather than false: a rule applies when its conditions hold');
      rule[field] = true;
    }
    return rule;
  });
  if (rules.length === 0) fail(['rules'], 'must hold at least one rule (a plan needs someone to approve it)');
  if (!rules.some((rule) => isUnconditional(rule)))
    fail(
      ['rules'],
      'needs a rule with no condition ({"name": "every plan", "require": "1 of finance"}): every plan needs an approval',
    );
  const ruleNames = new Set<string>();
  rules.forEach((rule, index) => {
    if (ruleNames.has(rule.name)) fail(['rules', index, 'name'], `"${rule.name}" names two rules`);
    ruleNames.add(rule.name);
  });

  // The allowlist: PIX keys and documents.
  const allowlist =
    root.allowlist === undefined ? undefined : { keys: new Set<string>(), documents: new Set<string>() };
  list(root.allowlist ?? [], ['allowlist']).forEach((raw, index) => {
    const path = ['allowlist', index];
    const entry = text_(raw, path);
    let known = false;
    try {
      allowlist!.documents.add(parseTaxId(entry).digits);
      known = true;
    } catch {
      // Not a document: a key, then.
    }
    try {
      allowlist!.keys.add(parsePixKey(entry).key);
      known = true;
    } catch {
      // Not a key.
    }
    if (!known) fail(path, `"${entry}" is neither a PIX key nor a CPF/CNPJ`);
  });
  if (rules.some((rule) => rule.outsideAllowlist) && root.allowlist === undefined)
    fail(['allowlist'], 'a rule says outside-allowlist: the policy needs an allowlist (it may be empty: [])');

  // The night window.
  let night = { from: 20 * 60, to: 6 * 60, text: '20:00–06:00' };
  if (root.night !== undefined) {
    if (!isObject(root.night)) fail(['night'], 'must be {"from": "20:00", "to": "06:00"}');
    const window = root.night as Record<string, unknown>;
    onlyKeys(window, new Set(['from', 'to']), ['night']);
    const from = at(['night', 'from'], () => parseClock(text_(window.from, ['night', 'from'])));
    const to = at(['night', 'to'], () => parseClock(text_(window.to, ['night', 'to'])));
    if (from === to) fail(['night'], 'from and to are the same time');
    night = { from, to, text: `${window.from}–${window.to}` };
  }

  // Caps.
  const caps: Caps = {};
  if (root.caps !== undefined) {
    if (!isObject(root.caps)) fail(['caps'], 'must be an object');
    const given = root.caps as Record<string, unknown>;
    onlyKeys(given, new Set(Object.keys(CAP_KEYS)), ['caps']);
    for (const [key, field] of Object.entries(CAP_KEYS)) {
      if (given[key] !== undefined) caps[field] = amount(given[key], ['caps', key]);
    }
  }

  if (!groups.has(ADMINS))
    fail(['approvers'], `no approver is in group "${ADMINS}": the admins approve the policy itself`);
  const policyChange = quorum(root['policy-change'] ?? `2 of ${ADMINS}`, ['policy-change']);
  if (policyChange.parts.some((part) => part.group !== ADMINS))
    fail(['policy-change'], `the policy is approved by ${ADMINS} alone ("2 of ${ADMINS}")`);

  return { digest: policyDigestOf(root), approvers, groups, rules, night, caps, allowlist, policyChange };
}

function isUnconditional(rule: Rule): boolean {
  return (
    rule.amountOver === undefined &&
    rule.totalOver === undefined &&
    !rule.newReceiver &&
    !rule.outsideAllowlist &&
    !rule.night
  );
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
    const hasRowCondition = rule.amountOver !== undefined || rule.newReceiver || rule.outsideAllowlist;
    const matching = hasRowCondition ? rows.filter((row) => rowMatches(rule, row)) : [];
    if (hasRowCondition && matching.length === 0) continue;
    const why: string[] = [];
    if (rule.totalOver !== undefined)
      why.push(`the plan pays ${formatBRL(total)}, over ${formatBRL(rule.totalOver)}`);
    if (hasRowCondition) {
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

/** Who made the plan, as it says. */
export interface Maker {
  name: string;
  email?: string;
}

/** Whether the approver is the maker: the same name, or the maker's e-mail among the approver's identities. */
export function isMaker(approver: Approver, maker: Maker): boolean {
  if (approver.name.toLowerCase() === maker.name.trim().toLowerCase()) return true;
  const email = maker.email?.trim().toLowerCase();
  return email !== undefined && email !== '' && approver.identities.includes(email);
}

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
      `today's payments would reach ${formatBRL(paidToday + total)} (${formatBRL(paidToday)} paid already, ${formatBRL(total)} in this plan), over the per-day cap of ${formatBRL(caps.perDay)}`,
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
