/**
 * A payment policy file (`domain/policy.ts`) read from the JSON written by hand: every key checked, every
 * problem an InvalidValue naming the file, its line and the key; the policy's digest (its canonical JSON's
 * SHA-256) and the quorums (`2 of finance and 1 of admins`) it writes.
 */

import { createHash } from 'node:crypto';
import { parseTaxId } from './documents.js';
import { InvalidValue } from './invalid.js';
import {
  canonicalJson,
  firstDifference,
  type JsonSource,
  parseJsonSource,
  pathText,
  type ReadRecord,
  readRecord,
} from './jsonsource.js';
import { type Centavos, parseAmount } from './money.js';
import { parsePixKey } from './pixkey.js';
import { ADMINS, type Approver, type Caps, type Policy, type Quorum, type Rule } from './policy.js';
import { parseAllowedSigner } from './sshsigners.js';

// ---------------------------------------------------------------------------------------------
// Reading

const TOP_KEYS = new Set([
  'pix-policy',
  'approvers',
  'rules',
  'allowlist',
  'night',
  'caps',
  'require-plan',
  'policy-change',
]);
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

type Path = ReadonlyArray<string | number>;

/**
 * A policy being read: the file (for its errors), the document with its line numbers, and the record of
 * every value taken out of it. Every value is taken out through `get`, which notes it: what the rules are
 * made of is then rebuilt and held against what the digest covers (the end of parsePolicy).
 */
interface PolicyReader {
  readonly file: string;
  readonly source: JsonSource;
  readonly record: ReadRecord;
}

function fail(r: PolicyReader, path: Path, reason: string): never {
  const where = pathText(path);
  throw new InvalidValue(
    `${r.file} line ${r.source.lineOf(where)}: ${where === '' ? '' : `${where}: `}${reason}`,
  );
}

/** Runs a domain parser on a value, its refusal named by the value's place. */
function at<T>(r: PolicyReader, path: Path, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof InvalidValue) return fail(r, path, error.message);
    throw error;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(
  r: PolicyReader,
  value: Record<string, unknown>,
  allowed: ReadonlySet<string>,
  path: Path,
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) fail(r, [...path, key], `unknown key (known: ${[...allowed].join(', ')})`);
  }
}

function textOf(r: PolicyReader, value: unknown, path: Path): string {
  return typeof value === 'string' && value.trim() !== ''
    ? value.trim()
    : fail(r, path, 'must be a non-empty string');
}

function amountOf(r: PolicyReader, value: unknown, path: Path): Centavos {
  if (typeof value === 'number') return at(r, path, () => parseAmount(String(value)));
  return at(r, path, () => parseAmount(textOf(r, value, path)));
}

function flagOf(r: PolicyReader, value: unknown, path: Path): boolean {
  return typeof value === 'boolean' ? value : fail(r, path, 'must be true or false');
}

function get(r: PolicyReader, object: Record<string, unknown>, key: string, path: Path): unknown {
  return r.record.took([...path, key], Object.hasOwn(object, key) ? object[key] : undefined);
}

function items(r: PolicyReader, value: unknown, path: Path): unknown[] {
  const list = Array.isArray(value) ? value : fail(r, path, 'must be a list');
  return list.map((item, index) => r.record.took([...path, index], item));
}

/** An object the policy names at `path`, or its one-line refusal. */
function objectAt(r: PolicyReader, value: unknown, path: Path, shape: string): Record<string, unknown> {
  return isObject(value) ? value : fail(r, path, shape);
}

/** One approver: their groups, keys (each one person's: `owners`), e-mail. */
function readApprover(
  r: PolicyReader,
  people: Record<string, unknown>,
  name: string,
  owners: Map<string, string>,
) {
  const path = ['approvers', name];
  const raw = get(r, people, name, ['approvers']);
  if (!NAME.test(name)) fail(r, path, `"${name}" is not a name (letters, digits, . _ @ -, at most 64)`);
  const entry = objectAt(r, raw, path, 'must be an object with groups and keys');
  onlyKeys(r, entry, APPROVER_KEYS, path);
  const memberOf = items(r, get(r, entry, 'groups', path) ?? [], [...path, 'groups']).map((group, index) => {
    const groupName = textOf(r, group, [...path, 'groups', index]);
    if (!NAME.test(groupName)) fail(r, [...path, 'groups', index], `"${groupName}" is not a group name`);
    return groupName;
  });
  const touch = get(r, entry, 'no-touch-required', path);
  const noTouch = touch === undefined ? false : flagOf(r, touch, [...path, 'no-touch-required']);
  const keyLines = items(r, get(r, entry, 'keys', path), [...path, 'keys']);
  if (keyLines.length === 0) fail(r, [...path, 'keys'], 'must hold at least one public key');
  const keys = keyLines.map((line, index) => {
    const keyPath = [...path, 'keys', index];
    const signer = at(r, keyPath, () => parseAllowedSigner(textOf(r, line, keyPath), 'the key'));
    const owner = owners.get(signer.key.fingerprint);
    if (owner !== undefined)
      fail(r, keyPath, `key ${signer.key.fingerprint} is already ${owner}'s: a key is one person's`);
    owners.set(signer.key.fingerprint, name);
    return noTouch ? { ...signer, noTouchRequired: true } : signer;
  });
  // An e-mail is a label for people: who signed is known by the key alone.
  const given = get(r, entry, 'email', path);
  const email = given === undefined ? undefined : textOf(r, given, [...path, 'email']).toLowerCase();
  const approver: Approver = {
    name,
    groups: [...new Set(memberOf)],
    keys,
    ...(email === undefined ? {} : { email }),
  };
  return approver;
}

/** Approvers and their groups. */
function readApprovers(r: PolicyReader, root: Record<string, unknown>) {
  const approvers: Approver[] = [];
  const groups = new Map<string, Approver[]>();
  const owners = new Map<string, string>();
  const people = get(r, root, 'approvers', []);
  if (!isObject(people) || Object.keys(people).length === 0)
    fail(r, ['approvers'], 'must name at least one approver: { "ana": { "groups": [...], "keys": [...] } }');
  for (const name of Object.keys(people)) {
    const approver = readApprover(r, people, name, owners);
    approvers.push(approver);
    for (const group of approver.groups) groups.set(group, [...(groups.get(group) ?? []), approver]);
  }
  const names = new Set(approvers.map((approver) => approver.name.toLowerCase()));
  if (names.size !== approvers.length)
    fail(r, ['approvers'], 'two approvers have the same name (letter case aside)');
  return { approvers, groups };
}

/** A quorum that can be met by the groups as written. */
function quorumOf(
  r: PolicyReader,
  groups: ReadonlyMap<string, Approver[]>,
  value: unknown,
  path: Path,
): Quorum {
  const parsed = at(r, path, () => parseQuorum(textOf(r, value, path)));
  for (const part of parsed.parts) {
    const members = groups.get(part.group)?.length ?? 0;
    if (members === 0)
      fail(
        r,
        path,
        `no approver is in group "${part.group}" (groups: ${[...groups.keys()].join(', ') || 'none'})`,
      );
    if (members < part.count)
      fail(
        r,
        path,
        `${part.count} of ${part.group} can never be met: the group has ${members} member${members === 1 ? '' : 's'}`,
      );
  }
  const people = parsed.parts.reduce((sum, part) => sum + part.count, 0);
  const reachable = new Set(parsed.parts.flatMap((part) => groups.get(part.group)!.map((a) => a.name)));
  if (people > reachable.size)
    fail(r, path, `"${parsed.text}" needs ${people} different people; its groups have ${reachable.size}`);
  return parsed;
}

function readRule(
  r: PolicyReader,
  groups: ReadonlyMap<string, Approver[]>,
  raw: unknown,
  index: number,
): Rule {
  const path: Array<string | number> = ['rules', index];
  const given = objectAt(r, raw, path, 'a rule is an object with name and require');
  onlyKeys(r, given, RULE_KEYS, path);
  const rule: Rule = {
    name: textOf(r, get(r, given, 'name', path), [...path, 'name']),
    require: quorumOf(r, groups, get(r, given, 'require', path), [...path, 'require']),
  };
  const amountOver = get(r, given, 'amount-over', path);
  if (amountOver !== undefined) rule.amountOver = amountOf(r, amountOver, [...path, 'amount-over']);
  const totalOver = get(r, given, 'total-over', path);
  if (totalOver !== undefined) rule.totalOver = amountOf(r, totalOver, [...path, 'total-over']);
  for (const [key, field] of [
    ['new-receiver', 'newReceiver'],
    ['outside-allowlist', 'outsideAllowlist'],
    ['night', 'night'],
  ] as const) {
    const value = get(r, given, key, path);
    if (value === undefined) continue;
    if (!flagOf(r, value, [...path, key]))
      fail(r, [...path, key], 'leave it out rather than false: a rule applies when its conditions hold');
    rule[field] = true;
  }
  return rule;
}

function readRules(
  r: PolicyReader,
  root: Record<string, unknown>,
  groups: ReadonlyMap<string, Approver[]>,
): Rule[] {
  const rules = items(r, get(r, root, 'rules', []), ['rules']).map((raw, index) =>
    readRule(r, groups, raw, index),
  );
  if (rules.length === 0)
    fail(r, ['rules'], 'must hold at least one rule (a plan needs someone to approve it)');
  if (!rules.some((rule) => isUnconditional(rule)))
    fail(
      r,
      ['rules'],
      'needs a rule with no condition ({"name": "every plan", "require": "1 of finance"}): every plan needs an approval',
    );
  const ruleNames = new Set<string>();
  rules.forEach((rule, index) => {
    if (ruleNames.has(rule.name)) fail(r, ['rules', index, 'name'], `"${rule.name}" names two rules`);
    ruleNames.add(rule.name);
  });
  return rules;
}

/** The allowlist: PIX keys and documents (none without the key: undefined). */
function readAllowlist(
  r: PolicyReader,
  root: Record<string, unknown>,
  rules: readonly Rule[],
): Policy['allowlist'] {
  const listed = get(r, root, 'allowlist', []);
  const allowlist =
    listed === undefined ? undefined : { keys: new Set<string>(), documents: new Set<string>() };
  items(r, listed ?? [], ['allowlist']).forEach((raw, index) => {
    const path = ['allowlist', index];
    const entry = textOf(r, raw, path);
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
    if (!known) fail(r, path, `"${entry}" is neither a PIX key nor a CPF/CNPJ`);
  });
  if (rules.some((rule) => rule.outsideAllowlist) && listed === undefined)
    fail(
      r,
      ['allowlist'],
      'a rule says outside-allowlist: the policy needs an allowlist (it may be empty: [])',
    );
  return allowlist;
}

/** The night window (20:00–06:00 unless the policy says). */
function readNight(r: PolicyReader, root: Record<string, unknown>): Policy['night'] {
  const window = get(r, root, 'night', []);
  if (window === undefined) return { from: 20 * 60, to: 6 * 60, text: '20:00–06:00' };
  const given = objectAt(r, window, ['night'], 'must be {"from": "20:00", "to": "06:00"}');
  onlyKeys(r, given, new Set(['from', 'to']), ['night']);
  const fromText = textOf(r, get(r, given, 'from', ['night']), ['night', 'from']);
  const toText = textOf(r, get(r, given, 'to', ['night']), ['night', 'to']);
  const from = at(r, ['night', 'from'], () => parseClock(fromText));
  const to = at(r, ['night', 'to'], () => parseClock(toText));
  if (from === to) fail(r, ['night'], 'from and to are the same time');
  return { from, to, text: `${fromText}–${toText}` };
}

function readCaps(r: PolicyReader, root: Record<string, unknown>): Caps {
  const caps: Caps = {};
  const capped = get(r, root, 'caps', []);
  if (capped === undefined) return caps;
  const given = objectAt(r, capped, ['caps'], 'must be an object');
  onlyKeys(r, given, new Set(Object.keys(CAP_KEYS)), ['caps']);
  for (const [key, field] of Object.entries(CAP_KEYS)) {
    const value = get(r, given, key, ['caps']);
    if (value !== undefined) caps[field] = amountOf(r, value, ['caps', key]);
  }
  return caps;
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
  const r: PolicyReader = { file, source, record: readRecord() };
  const root = objectAt(r, r.record.took([], source.value), [], 'a policy is a JSON object');
  onlyKeys(r, root, TOP_KEYS, []);
  if (get(r, root, 'pix-policy', []) !== 1) fail(r, ['pix-policy'], 'must be 1 (the format of this file)');
  const { approvers, groups } = readApprovers(r, root);
  const rules = readRules(r, root, groups);
  const allowlist = readAllowlist(r, root, rules);
  const night = readNight(r, root);
  const caps = readCaps(r, root);
  // Whether every payment of an account this policy binds must be an approved plan (pix policy enforce).
  const planOnly = get(r, root, 'require-plan', []);
  const requirePlan = planOnly === undefined ? false : flagOf(r, planOnly, ['require-plan']);
  if (!groups.has(ADMINS))
    fail(r, ['approvers'], `no approver is in group "${ADMINS}": the admins approve the policy itself`);
  const policyChange = quorumOf(r, groups, get(r, root, 'policy-change', []) ?? `2 of ${ADMINS}`, [
    'policy-change',
  ]);
  if (policyChange.parts.some((part) => part.group !== ADMINS))
    fail(r, ['policy-change'], `the policy is approved by ${ADMINS} alone ("2 of ${ADMINS}")`);
  // What the rules were made of is exactly what the digest covers: the values read, rebuilt, against the
  // document. A value read that the document does not hold, or one it holds that was never read, is refused.
  const differs = firstDifference(r.record.rebuilt(), root);
  if (differs !== undefined)
    fail(
      r,
      differs.startsWith('(') ? [] : [differs],
      `what pix read of the policy is not what its digest covers (${differs})`,
    );
  return {
    digest: policyDigestOf(root),
    approvers,
    groups,
    rules,
    night,
    caps,
    requirePlan,
    allowlist,
    policyChange,
  };
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
