/**
 * A signed policy means what its admins signed: the JSON is read into objects without a prototype, the
 * keys that reach one (`__proto__`, `constructor`, `prototype`) are refused wherever they are, and what
 * the rules read is exactly what the digest covers. The property: any edit of a policy that changes what
 * it decides for some plan changes its digest (fast-check, over random policies and random edits,
 * `__proto__` among them).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstDifference, parseJsonSource, readRecord } from '../../src/domain/jsonsource.js';
import {
  applyingRules,
  capViolations,
  checkQuorum,
  isNight,
  outsideAllowlist,
  type Policy,
  type RowFacts,
} from '../../src/domain/policy.js';
import { parsePolicy } from '../../src/domain/policyfile.js';
import { reasonOf } from '../helpers/domain.js';
import { softwareKeyLine } from '../helpers/ssh.js';

const PEOPLE = ['ana', 'bruno', 'dora', 'edu'] as const;
const KEYS = Object.fromEntries(PEOPLE.map((name) => [name, softwareKeyLine(name)])) as Record<
  (typeof PEOPLE)[number],
  string
>;
const fingerprintOf = (line: string) =>
  parsePolicy(
    JSON.stringify({
      'pix-policy': 1,
      approvers: { x: { groups: ['admins'], keys: [line] } },
      rules: [{ name: 'all', require: '1 of admins' }],
      'policy-change': '1 of admins',
    }),
    'p.json',
  ).approvers[0]!.keys[0]!.key.fingerprint;
const FINGERPRINTS = Object.fromEntries(PEOPLE.map((name) => [name, fingerprintOf(KEYS[name])]));

/** The README's company: "over R$ 5.000 needs 2 of admins". */
function company(): Record<string, unknown> {
  return {
    'pix-policy': 1,
    approvers: {
      ana: { groups: ['finance'], keys: [KEYS.ana] },
      bruno: { groups: ['finance'], keys: [KEYS.bruno] },
      dora: { groups: ['admins', 'finance'], keys: [KEYS.dora] },
      edu: { groups: ['admins'], keys: [KEYS.edu] },
    },
    rules: [
      { name: 'every plan', require: '1 of finance' },
      { name: 'large payment', 'amount-over': '5000', require: '2 of admins' },
    ],
    night: { from: '20:00', to: '06:00' },
  };
}

/** A JSON text with `key` written into the object at `path` (a key JSON.stringify cannot be given as a literal). */
function withKey(
  document: Record<string, unknown>,
  path: Array<string | number>,
  key: string,
  value: unknown,
) {
  const copy = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  let target: Record<string, unknown> = copy;
  for (const part of path)
    target = (target as Record<string | number, unknown>)[part] as Record<string, unknown>;
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
  return JSON.stringify(copy, null, 2);
}

const lineOf = (text: string, needle: string) =>
  text.split('\n').findIndex((line) => line.includes(needle)) + 1;

describe('keys that reach a prototype are refused, wherever they are (exit 2 naming the line)', () => {
  it('a "__proto__" in the large-payment rule no longer turns the rule off with the digest unchanged', () => {
    const text = withKey(company(), ['rules', 1], '__proto__', { 'total-over': '99999999' });
    expect(reasonOf(() => parsePolicy(text, 'pix-policy.json'))).toBe(
      `pix-policy.json line ${lineOf(text, '"__proto__"')}, column 7: "__proto__" is refused as a key (it would change what pix reads without changing what is signed)`,
    );
  });

  it('at the top level (the night window moved), and "constructor" and "prototype" anywhere', () => {
    const top = withKey(company(), [], '__proto__', { night: { from: '23:00', to: '23:30' } });
    expect(reasonOf(() => parsePolicy(top, 'p.json'))).toMatch(
      new RegExp(
        `^p\\.json line ${lineOf(top, '"__proto__"')}, column \\d+: "__proto__" is refused as a key`,
      ),
    );
    for (const key of ['constructor', 'prototype']) {
      const deep = withKey(company(), ['approvers', 'ana'], key, { groups: ['admins'] });
      expect(reasonOf(() => parsePolicy(deep, 'p.json'))).toMatch(
        new RegExp(`^p\\.json line ${lineOf(deep, `"${key}"`)}, column \\d+: "${key}" is refused as a key`),
      );
    }
    // An escaped spelling is the same key.
    expect(reasonOf(() => parseJsonSource('{"a": {"\\u005f_proto__": 1}}'))).toMatch(
      /^line 1, column 8: "__proto__" is refused as a key/,
    );
  });

  it('what is read has no prototype: a key the document does not hold is undefined, not an inherited one', () => {
    const { value } = parseJsonSource('{"a": {"b": [{"c": 1}]}}');
    const a = (value as Record<string, Record<string, Array<Record<string, unknown>>>>).a!;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.getPrototypeOf(a)).toBeNull();
    expect(Object.getPrototypeOf(a.b![0])).toBeNull();
    expect(a.toString).toBeUndefined();
    expect(a.hasOwnProperty).toBeUndefined();
  });
});

describe('what was read is what is signed', () => {
  it('a value the reader never read, or one it read that the document does not hold, is found by its path', () => {
    const document = parseJsonSource('{"a": {"b": 1, "c": [2, 3]}, "d": true}').value as {
      a: { b: number; c: number[] };
    };
    const read = readRecord();
    read.took([], document);
    read.took(['a'], document.a);
    read.took(['a', 'b'], document.a.b);
    read.took(['a', 'c'], document.a.c);
    read.took(['a', 'c', 0], 2);
    read.took(['a', 'c', 1], 3);
    expect(firstDifference(read.rebuilt(), document)).toBe('d');
    read.took(['d'], true);
    expect(firstDifference(read.rebuilt(), document)).toBeUndefined();
    read.took(['a', 'e'], 'lent');
    expect(firstDifference(read.rebuilt(), document)).toBe('a.e');
  });
});

// ---------------------------------------------------------------------------------------------
// The property: an edit that changes a decision changes the digest.

/** What a policy decides, over a fixed set of plans, instants and approvers: every answer it gives. */
function decisions(policy: Policy): string {
  const out: unknown[] = [];
  const amounts = [100, 99_999, 500_000, 500_001, 900_000, 2_000_000, 99_999_999_99];
  const rowsOf = (amount: number, newReceiver: boolean, outside: boolean): RowFacts[] => [
    { id: 'r1', amount, newReceiver, outsideAllowlist: outside },
  ];
  const signers = (mask: number) =>
    PEOPLE.filter((_, bit) => mask & (1 << bit)).flatMap((name) =>
      policy.approvers.filter((a) => a.keys.some((k) => k.key.fingerprint === FINGERPRINTS[name])),
    );
  for (const amount of amounts) {
    for (const newReceiver of [false, true]) {
      for (const outside of [false, true]) {
        const rows = rowsOf(amount, newReceiver, outside);
        for (const night of [false, true]) {
          const applying = applyingRules(policy, rows, night);
          for (let mask = 0; mask < 1 << PEOPLE.length; mask++) {
            const approved = [...new Map(signers(mask).map((a) => [a.name, a])).values()];
            out.push(applying.map((rule) => checkQuorum(policy, rule.rule.require, approved, new Set()).met));
          }
        }
        out.push(
          capViolations(policy.caps, [{ id: 'r1', amount, receiver: 'x', receiverName: 'x' }], 0, () => 0),
        );
      }
    }
  }
  for (let mask = 0; mask < 1 << PEOPLE.length; mask++) {
    const approved = [...new Map(signers(mask).map((a) => [a.name, a])).values()];
    out.push(checkQuorum(policy, policy.policyChange, approved, new Set()).met);
  }
  for (let minute = 0; minute < 24 * 60; minute += 30) {
    out.push(isNight(policy, Date.UTC(2026, 2, 10, 3, minute)));
  }
  for (const key of ['fornecedor@example.com', 'ana@example.com', '+5511912345678']) {
    out.push(outsideAllowlist(policy, key, '11222333000181'));
  }
  out.push(policy.requirePlan);
  return JSON.stringify(out);
}

/** Values a leaf of a policy may be edited to: of every type a reader could mistake. */
const leafValue = fc.oneof(
  fc.constantFrom('1 of finance', '2 of admins', '1 of admins and 1 of finance', '5000', '99999999', '10'),
  fc.constantFrom('20:00', '23:00', '05:00', 'fornecedor@example.com', 'finance', 'admins'),
  fc.constantFrom(true, false, 1, 5000, 0, null),
  fc.constantFrom(...PEOPLE.map((name) => KEYS[name])),
);
const keyName = fc.oneof(
  { arbitrary: fc.constant('__proto__'), weight: 3 },
  { arbitrary: fc.constantFrom('constructor', 'prototype'), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      'amount-over',
      'total-over',
      'night',
      'require',
      'require-plan',
      'caps',
      'per-day',
      'groups',
      'keys',
      'from',
      'to',
      'new-receiver',
      'outside-allowlist',
    ),
    weight: 4,
  },
);
/** What a key may lend a reader: the fields of a rule, of the top level, of an approver. */
const lentFields = fc.oneof(
  fc.record({ 'total-over': fc.constantFrom('99999999', '1000') }),
  fc.record({ 'amount-over': fc.constantFrom('99999999', '1000') }),
  fc.record({ night: fc.constant(true) }),
  fc.record({
    night: fc.record({ from: fc.constantFrom('23:00', '01:00'), to: fc.constantFrom('23:30', '02:00') }),
  }),
  fc.record({ caps: fc.record({ 'per-day': fc.constantFrom('1', '99999999') }) }),
  fc.record({ 'require-plan': fc.boolean() }),
  fc.record({ 'new-receiver': fc.constant(true) }),
  fc.record({ groups: fc.constant(['admins', 'finance']) }),
  fc.record({ 'policy-change': fc.constantFrom('1 of admins', '2 of admins') }),
);
/** A value to add under a key: a leaf, the fields a prototype would lend, or any few keys. */
const addedValue = fc.oneof(
  { arbitrary: leafValue, weight: 2 },
  { arbitrary: lentFields, weight: 4 },
  { arbitrary: fc.dictionary(keyName, leafValue, { minKeys: 1, maxKeys: 3 }), weight: 1 },
);

/** A random policy within what parsePolicy accepts most of the time. */
const policyArbitrary = fc
  .record({
    groups: fc.array(fc.subarray(['finance', 'admins'], { minLength: 0 }), { minLength: 4, maxLength: 4 }),
    rules: fc.array(
      fc.record(
        {
          'amount-over': fc.constantFrom('1000', '5000', '9000'),
          'total-over': fc.constantFrom('1000', '20000'),
          'new-receiver': fc.constant(true),
          'outside-allowlist': fc.constant(true),
          night: fc.constant(true),
          require: fc.constantFrom('1 of finance', '1 of admins', '2 of finance'),
        },
        { requiredKeys: ['require'] },
      ),
      { maxLength: 3 },
    ),
    caps: fc.option(
      fc.record({ 'per-payment': fc.constantFrom('5000', '10000'), 'per-day': fc.constant('50000') }),
      {
        nil: undefined,
      },
    ),
    night: fc.option(
      fc.record({ from: fc.constantFrom('20:00', '22:00'), to: fc.constantFrom('06:00', '05:00') }),
      {
        nil: undefined,
      },
    ),
    requirePlan: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map(({ groups, rules, caps, night, requirePlan }) => {
    const approvers: Record<string, unknown> = {};
    PEOPLE.forEach((name, index) => {
      // dora is always an admin and edu always finance: the policy needs its admins and its rules members.
      const own = new Set(groups[index]);
      if (name === 'dora' || name === 'edu') own.add('admins');
      if (name === 'ana' || name === 'edu') own.add('finance');
      approvers[name] = { groups: [...own], keys: [KEYS[name]] };
    });
    const document: Record<string, unknown> = {
      'pix-policy': 1,
      approvers,
      rules: [
        { name: 'every plan', require: '1 of finance' },
        ...rules.map((rule, n) => ({ name: `rule ${n}`, ...rule })),
      ],
      allowlist: ['fornecedor@example.com'],
      'policy-change': '1 of admins',
    };
    if (caps !== undefined) document.caps = caps;
    if (night !== undefined) document.night = night;
    if (requirePlan !== undefined) document['require-plan'] = requirePlan;
    return document;
  });

/** Every object of a document, by its path (where an edit may add or change a key). */
function objectsOf(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [];
  const here = Array.isArray(value) ? [] : [path];
  return [
    ...here,
    ...Object.entries(value).flatMap(([key, item]) =>
      objectsOf(item, [...path, Array.isArray(value) ? Number(key) : key]),
    ),
  ];
}

const editArbitrary = fc.record({
  /** Which object (by index among them), which key, and what is written. */
  where: fc.nat(),
  key: keyName,
  value: addedValue,
});

describe('a policy means what is signed (property)', () => {
  it('an edit that changes what the policy decides for some plan changes its digest', () => {
    fc.assert(
      fc.property(policyArbitrary, editArbitrary, (document, edit) => {
        let before: Policy;
        try {
          before = parsePolicy(JSON.stringify(document), 'p.json');
        } catch {
          return; // a generated policy the reader refuses: nothing is signed
        }
        const places = objectsOf(document);
        const path = places[edit.where % places.length]!;
        const text = withKey(document, path, edit.key, edit.value);
        let after: Policy;
        try {
          after = parsePolicy(text, 'p.json');
        } catch {
          return; // refused: exit 2, nothing used
        }
        // Compared whole, reported short: the same digest with other answers is the failure.
        if (after.digest === before.digest)
          expect(decisions(after) === decisions(before), `same digest ${after.digest}, other decisions`).toBe(
            true,
          );
      }),
      { numRuns: 1000, seed: 20260310 },
    );
  });
});

describe('parseJsonSource(...).lineOf', () => {
  it('names the line of the nearest value read, and line 1 for a path none of whose parts was read', () => {
    const source = parseJsonSource('{\n  "rules": [\n    {"require": 2}\n  ]\n}');
    expect(source.lineOf('rules[0].require')).toBe(3);
    expect(source.lineOf('rules[0].missing')).toBe(3);
    expect(source.lineOf('rules[7]')).toBe(2);
    // A top-level key never read: there is no nearer value than the document (this looped forever).
    expect(source.lineOf('missing')).toBe(1);
    expect(source.lineOf('missing.deeper[2]')).toBe(1);
  });
});
