import { describe, expect, it } from 'vitest';
import { canonicalJson, parseJsonSource } from '../../src/domain/jsonsource.js';
import {
  applyingRules,
  capViolations,
  checkQuorum,
  describeMissing,
  isNight,
  outsideAllowlist,
  type Policy,
  type RowFacts,
} from '../../src/domain/policy.js';
import { parsePolicy, parseQuorum } from '../../src/domain/policyfile.js';
import { reasonOf } from '../helpers/domain.js';
import { softwareKeyLine } from '../helpers/ssh.js';

const KEYS = {
  ana: softwareKeyLine('ana'),
  bruno: softwareKeyLine('bruno'),
  carla: softwareKeyLine('carla'),
  dora: softwareKeyLine('dora'),
  edu: softwareKeyLine('edu'),
};

/** A policy document: finance (ana, bruno, carla), admins (dora, edu), the rules of the README. */
function document(over: Record<string, unknown> = {}) {
  return {
    'pix-policy': 1,
    approvers: {
      ana: { groups: ['finance'], keys: [`ana@example.com ${KEYS.ana}`] },
      bruno: { groups: ['finance'], keys: [KEYS.bruno], email: 'bruno@example.com' },
      carla: { groups: ['finance'], keys: [KEYS.carla] },
      dora: { groups: ['admins'], keys: [KEYS.dora] },
      edu: { groups: ['admins', 'finance'], keys: [KEYS.edu] },
    },
    rules: [
      { name: 'every plan', require: '1 of finance' },
      { name: 'large', 'amount-over': '5000', require: '2 of finance' },
      { name: 'large batch', 'total-over': 20000, require: '1 of admins and 1 of finance' },
      { name: 'new receiver', 'new-receiver': true, require: '2 of finance' },
      { name: 'not listed', 'outside-allowlist': true, require: '1 of admins' },
      { name: 'night', night: true, 'amount-over': '1000', require: '1 of admins' },
    ],
    allowlist: ['fornecedor@example.com', '11.222.333/0001-81'],
    caps: { 'per-payment': '10000', 'per-day': '50000', 'per-receiver-per-day': '20000' },
    ...over,
  };
}

const text = (value: unknown) => JSON.stringify(value, null, 2);
const policy = parsePolicy(text(document()), 'policy.json');
const person = (name: string) => policy.approvers.find((a) => a.name === name)!;
const row = (over: Partial<RowFacts> = {}): RowFacts => ({
  id: 'r1',
  amount: 10_000,
  newReceiver: false,
  outsideAllowlist: false,
  ...over,
});

describe('reading a policy', () => {
  it('reads approvers, groups, rules, the night window, caps and the allowlist', () => {
    expect(policy.groups.get('finance')!.map((a) => a.name)).toEqual(['ana', 'bruno', 'carla', 'edu']);
    expect(policy.groups.get('admins')!.map((a) => a.name)).toEqual(['dora', 'edu']);
    expect(policy.rules.map((r) => r.require.text)).toEqual([
      '1 of finance',
      '2 of finance',
      '1 of admins and 1 of finance',
      '2 of finance',
      '1 of admins',
      '1 of admins',
    ]);
    expect(policy.night).toEqual({ from: 1200, to: 360, text: '20:00–06:00' });
    expect(policy.caps).toEqual({ perPayment: 1_000_000, perDay: 5_000_000, perReceiverPerDay: 2_000_000 });
    expect(person('ana').email).toBeUndefined();
    expect(person('bruno').email).toBe('bruno@example.com');
    expect(policy.policyChange.text).toBe('2 of admins');
    expect(policy.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('the digest is the canonical form: spacing and key order do not change it, a value does', () => {
    const compact = parsePolicy(JSON.stringify(document()), 'p.json');
    expect(compact.digest).toBe(policy.digest);
    const loosened = document();
    loosened.rules[1]!['amount-over'] = '9000';
    expect(parsePolicy(text(loosened), 'p.json').digest).not.toBe(policy.digest);
  });

  it('names the file, the line and the key of each problem', () => {
    const lines = (doc: unknown) => () => parsePolicy(text(doc), 'policy.json');
    const broken = document();
    broken.rules[1]!.require = '2 of financ';
    const lineOf = (doc: unknown, needle: string) =>
      text(doc)
        .split('\n')
        .findIndex((l) => l.includes(needle)) + 1;
    expect(reasonOf(lines(broken))).toBe(
      `policy.json line ${lineOf(broken, '2 of financ"')}: rules[1].require: no approver is in group "financ" (groups: finance, admins)`,
    );
    const tooMany = document();
    tooMany.rules[0]!.require = '5 of finance';
    expect(reasonOf(lines(tooMany))).toBe(
      `policy.json line ${lineOf(tooMany, '5 of finance')}: rules[0].require: 5 of finance can never be met: the group has 4 members`,
    );
    expect(reasonOf(lines(document({ caps: { 'per-day': '1,2345' } })))).toMatch(
      /^policy\.json line \d+: caps\.per-day: "1,2345" has more than 2 decimals/,
    );
    expect(reasonOf(lines(document({ colour: 'red' })))).toMatch(
      /^policy\.json line \d+: colour: unknown key/,
    );
    expect(reasonOf(lines(document({ night: { from: '25:00', to: '06:00' } })))).toMatch(
      /^policy\.json line \d+: night\.from: "25:00" is not a time of day/,
    );
    const badKey = document();
    (badKey.approvers.ana as { keys: string[] }).keys = ['ana@example.com ssh-ed25519 AAAA'];
    expect(reasonOf(lines(badKey))).toMatch(
      new RegExp(`^policy\\.json line ${lineOf(badKey, 'AAAA"')}: approvers\\.ana\\.keys\\[0\\]: the key`),
    );
    const shared = document();
    (shared.approvers.bruno as { keys: string[] }).keys = [KEYS.ana];
    expect(reasonOf(lines(shared))).toMatch(/approvers\.bruno\.keys\[0\]: key SHA256:.* is already ana's/);
    expect(
      reasonOf(lines(document({ rules: [{ name: 'big', 'amount-over': 1, require: '1 of finance' }] }))),
    ).toMatch(/rules: needs a rule with no condition/);
    expect(reasonOf(lines(document({ 'policy-change': '1 of finance' })))).toMatch(
      /policy-change: the policy is approved by admins alone/,
    );
  });

  it('a syntax error gives its line and column; a key given twice is refused', () => {
    expect(reasonOf(() => parsePolicy('{\n  "pix-policy": 1,\n  "rules": [,]\n}', 'p.json'))).toBe(
      'p.json line 3, column 13: expected a value',
    );
    expect(reasonOf(() => parsePolicy('{"a": 1,\n"a": 2}', 'p.json'))).toBe(
      'p.json line 2, column 1: "a" is given twice',
    );
  });

  it('quorums', () => {
    expect(parseQuorum('1 of admins AND 1 of finance').parts).toEqual([
      { count: 1, group: 'admins' },
      { count: 1, group: 'finance' },
    ]);
    expect(reasonOf(() => parseQuorum('two of finance'))).toContain('is not a quorum');
    expect(reasonOf(() => parseQuorum('1 of a and 1 of a'))).toContain('names group a twice');
  });
});

describe('which rules apply', () => {
  const names = (rows: RowFacts[], night?: boolean) =>
    applyingRules(policy, rows, night).map((a) => a.rule.name);

  it('every plan; then by amount, total, new receiver, allowlist and night', () => {
    expect(names([row({ amount: 100 })], false)).toEqual(['every plan']);
    expect(names([row({ amount: 600_000 })], false)).toEqual(['every plan', 'large']);
    const many = Array.from({ length: 5 }, (_, i) => row({ id: `r${i}`, amount: 450_000 }));
    expect(names(many, false)).toEqual(['every plan', 'large batch']);
    expect(names([row({ newReceiver: true })], false)).toEqual(['every plan', 'new receiver']);
    expect(names([row({ outsideAllowlist: true })], false)).toEqual(['every plan', 'not listed']);
    expect(names([row({ amount: 100_001 })], true)).toEqual(['every plan', 'night']);
    expect(names([row({ amount: 100_000 })], true)).toEqual(['every plan']);
  });

  it('night rules are given as conditional when the time of payment is not known', () => {
    const applying = applyingRules(policy, [row({ amount: 200_000 })], undefined);
    expect(applying.map((a) => [a.rule.name, a.ifNight ?? false])).toEqual([
      ['every plan', false],
      ['night', true],
    ]);
    expect(applying[1]!.why).toBe('row r1: over R$ 1.000,00; paid at night (20:00–06:00 Brasília)');
  });

  it("the night window is Brasília's clock, across midnight", () => {
    expect(isNight(policy, Date.parse('2026-03-10T22:59:00Z'))).toBe(false); // 19:59 BRT
    expect(isNight(policy, Date.parse('2026-03-10T23:00:00Z'))).toBe(true); // 20:00
    expect(isNight(policy, Date.parse('2026-03-11T08:59:00Z'))).toBe(true); // 05:59
    expect(isNight(policy, Date.parse('2026-03-11T09:00:00Z'))).toBe(false); // 06:00
  });
});

describe('quorums met and missing', () => {
  const excluded = new Set<string>();
  const quorum = (text: string) => parseQuorum(text);

  it('2 of finance: one approval is one short, naming who may still approve', () => {
    const result = checkQuorum(policy, quorum('2 of finance'), [person('ana')], excluded);
    expect(result.met).toBe(false);
    expect(result.missing).toEqual([{ group: 'finance', more: 1, candidates: ['bruno', 'carla', 'edu'] }]);
    expect(describeMissing(result.missing)).toBe('1 more of finance (bruno, carla, edu may approve)');
    expect(checkQuorum(policy, quorum('2 of finance'), [person('ana'), person('bruno')], excluded).met).toBe(
      true,
    );
  });

  it('one person counts in one part only: edu (admin and finance) alone is not 1 of admins and 1 of finance', () => {
    const both = quorum('1 of admins and 1 of finance');
    expect(checkQuorum(policy, both, [person('edu')], excluded).met).toBe(false);
    // edu then counts as the admin and ana as finance, whatever order they come in.
    const result = checkQuorum(policy, both, [person('edu'), person('ana')], excluded);
    expect(result.met).toBe(true);
    expect(result.counted).toEqual([
      { group: 'admins', names: ['edu'] },
      { group: 'finance', names: ['ana'] },
    ]);
  });

  it('the excluded (the maker, a refusal) are not offered as candidates', () => {
    const result = checkQuorum(policy, quorum('2 of finance'), [], new Set(['ana', 'bruno']));
    expect(result.missing).toEqual([{ group: 'finance', more: 2, candidates: ['carla', 'edu'] }]);
  });
});

describe('caps and the allowlist', () => {
  const capRow = (id: string, amount: number, receiver = 'x') => ({
    id,
    amount,
    receiver,
    receiverName: receiver,
  });
  it('per payment, per day (with what was paid today), per receiver per day', () => {
    const some: Policy['caps'] = policy.caps;
    expect(capViolations(some, [capRow('a', 1_000_001)], 0, () => 0)).toEqual([
      'row a pays R$ 10.000,01, over the per-payment cap of R$ 10.000,00',
    ]);
    expect(
      capViolations(some, [capRow('a', 1_000_000, 'x'), capRow('b', 10, 'y')], 4_000_000, () => 0),
    ).toEqual([
      "today's payments would reach R$ 50.000,10 (R$ 40.000,00 paid already, R$ 10.000,10 in this plan), over the per-day cap of R$ 50.000,00",
    ]);
    expect(
      capViolations(some, [capRow('a', 600_000, 'Ana'), capRow('b', 600_000, 'Ana')], 0, () => 900_000),
    ).toEqual(['Ana would be paid R$ 21.000,00 today, over the per-receiver cap of R$ 20.000,00']);
    expect(capViolations({}, [capRow('a', 99_999_999)], 1e9, () => 1e9)).toEqual([]);
  });

  it('a receiver on the allowlist by key or by whole document, never by a masked one', () => {
    expect(outsideAllowlist(policy, 'fornecedor@example.com', undefined)).toBe(false);
    expect(outsideAllowlist(policy, undefined, '11222333000181')).toBe(false);
    expect(outsideAllowlist(policy, undefined, '11.222.333/0001-81')).toBe(false);
    expect(outsideAllowlist(policy, undefined, '**.222.333/0001-**')).toBe(true);
    expect(outsideAllowlist(policy, 'other@example.com', '12345678909')).toBe(true);
    const none = { ...document() } as Record<string, unknown>;
    delete none.allowlist;
    none.rules = (none.rules as Array<Record<string, unknown>>).filter((rule) => !rule['outside-allowlist']);
    expect(outsideAllowlist(parsePolicy(text(none), 'p.json'), 'other@example.com', undefined)).toBe(false);
  });
});

describe('canonical JSON', () => {
  it('sorts keys, drops undefined, refuses fractions', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: undefined })).toBe('{"a":[true,null,"x"],"b":1}');
    expect(reasonOf(() => canonicalJson({ a: 1.5 }))).toBe('1.5 is not a whole number');
  });

  it('parseJsonSource gives the lines of values', () => {
    const source = parseJsonSource('{\n  "a": {\n    "b": [1,\n 2]\n  }\n}');
    expect(source.lineOf('a')).toBe(2);
    expect(source.lineOf('a.b[1]')).toBe(4);
    expect(source.lineOf('a.missing')).toBe(2);
  });
});
