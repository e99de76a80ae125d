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
  // Every value is taken out of the document through `get`, which notes it: what the rules are made of is
  // then rebuilt and held against what the digest covers (the end of this function).
  const record = readRecord();
  const get = (object: Record<string, unknown>, key: string, path: Array<string | number>): unknown =>
    record.took([...path, key], Object.hasOwn(object, key) ? object[key] : undefined);
  const items = (value: unknown, path: Array<string | number>): unknown[] =>
    list(value, path).map((item, index) => record.took([...path, index], item));

  const root = record.took([], source.value);
  if (!isObject(root)) return fail([], 'a policy is a JSON object');
  onlyKeys(root, TOP_KEYS, []);
  if (get(root, 'pix-policy', []) !== 1) fail(['pix-policy'], 'must be 1 (the format of this file)');

  // Approvers and their groups.
  const approvers: Approver[] = [];
  const groups = new Map<string, Approver[]>();
  const owners = new Map<string, string>();
  const people = get(root, 'approvers', []);
  if (!isObject(people) || Object.keys(people).length === 0)
    fail(['approvers'], 'must name at least one approver: { "ana": { "groups": [...], "keys": [...] } }');
  for (const name of Object.keys(people as Record<string, unknown>)) {
    const path = ['approvers', name];
    const raw = get(people as Record<string, unknown>, name, ['approvers']);
    if (!NAME.test(name)) fail(path, `"${name}" is not a name (letters, digits, . _ @ -, at most 64)`);
    if (!isObject(raw)) fail(path, 'must be an object with groups and keys');
    const entry = raw as Record<string, unknown>;
    onlyKeys(entry, APPROVER_KEYS, path);
    const memberOf = items(get(entry, 'groups', path) ?? [], [...path, 'groups']).map((group, index) => {
      const groupName = text_(group, [...path, 'groups', index]);
      if (!NAME.test(groupName)) fail([...path, 'groups', index], `"${groupName}" is not a group name`);
      return groupName;
    });
    const touch = get(entry, 'no-touch-required', path);
    const noTouch = touch === undefined ? false : flag(touch, [...path, 'no-touch-required']);
    const keyLines = items(get(entry, 'keys', path), [...path, 'keys']);
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
    // An e-mail is a label for people: who signed is known by the key alone.
    const given = get(entry, 'email', path);
    const email = given === undefined ? undefined : text_(given, [...path, 'email']).toLowerCase();
    const approver: Approver = {
      name,
      groups: [...new Set(memberOf)],
      keys,
      ...(email === undefined ? {} : { email }),
    };
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
  const rules = items(get(root, 'rules', []), ['rules']).map((raw, index): Rule => {
    const path: Array<string | number> = ['rules', index];
    if (!isObject(raw)) return fail(path, 'a rule is an object with name and require');
    onlyKeys(raw, RULE_KEYS, path);
    const rule: Rule = {
      name: text_(get(raw, 'name', path), [...path, 'name']),
      require: quorum(get(raw, 'require', path), [...path, 'require']),
    };
    const amountOver = get(raw, 'amount-over', path);
    if (amountOver !== undefined) rule.amountOver = amount(amountOver, [...path, 'amount-over']);
    const totalOver = get(raw, 'total-over', path);
    if (totalOver !== undefined) rule.totalOver = amount(totalOver, [...path, 'total-over']);
    for (const [key, field] of [
      ['new-receiver', 'newReceiver'],
      ['outside-allowlist', 'outsideAllowlist'],
      ['night', 'night'],
    ] as const) {
      const value = get(raw, key, path);
      if (value === undefined) continue;
      if (!flag(value, [...path, key]))
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
  const listed = get(root, 'allowlist', []);
  const allowlist =
    listed === undefined ? undefined : { keys: new Set<string>(), documents: new Set<string>() };
  items(listed ?? [], ['allowlist']).forEach((raw, index) => {
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
  if (rules.some((rule) => rule.outsideAllowlist) && listed === undefined)
    fail(['allowlist'], 'a rule says outside-allowlist: the policy needs an allowlist (it may be empty: [])');

  // The night window.
  let night = { from: 20 * 60, to: 6 * 60, text: '20:00–06:00' };
  const window = get(root, 'night', []);
  if (window !== undefined) {
    if (!isObject(window)) fail(['night'], 'must be {"from": "20:00", "to": "06:00"}');
    const given = window as Record<string, unknown>;
    onlyKeys(given, new Set(['from', 'to']), ['night']);
    const fromText = text_(get(given, 'from', ['night']), ['night', 'from']);
    const toText = text_(get(given, 'to', ['night']), ['night', 'to']);
    const from = at(['night', 'from'], () => parseClock(fromText));
    const to = at(['night', 'to'], () => parseClock(toText));
    if (from === to) fail(['night'], 'from and to are the same time');
    night = { from, to, text: `${fromText}–${toText}` };
  }

  // Caps.
  const caps: Caps = {};
  const capped = get(root, 'caps', []);
  if (capped !== undefined) {
    if (!isObject(capped)) fail(['caps'], 'must be an object');
    const given = capped as Record<string, unknown>;
    onlyKeys(given, new Set(Object.keys(CAP_KEYS)), ['caps']);
    for (const [key, field] of Object.entries(CAP_KEYS)) {
      const value = get(given, key, ['caps']);
      if (value !== undefined) caps[field] = amount(value, ['caps', key]);
    }
  }

  // Whether every payment of an account this policy binds must be an approved plan (pix policy enforce).
  const planOnly = get(root, 'require-plan', []);
  const requirePlan = planOnly === undefined ? false : flag(planOnly, ['require-plan']);

  if (!groups.has(ADMINS))
    fail(['approvers'], `no approver is in group "${ADMINS}": the admins approve the policy itself`);
  const policyChange = quorum(get(root, 'policy-change', []) ?? `2 of ${ADMINS}`, ['policy-change']);
  if (policyChange.parts.some((part) => part.group !== ADMINS))
    fail(['policy-change'], `the policy is approved by ${ADMINS} alone ("2 of ${ADMINS}")`);

  // What the rules were made of is exactly what the digest covers: the values read, rebuilt, against the
  // document. A value read that the document does not hold, or one it holds that was never read, is refused.
  const differs = firstDifference(record.rebuilt(), root);
  if (differs !== undefined)
    fail(
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
