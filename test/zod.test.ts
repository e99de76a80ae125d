import { describe, expect, it, vi } from 'vitest';
import * as mini from 'zod/mini';
import { parseOptions } from '../src/commands/shared/flags.js';
import * as z from '../src/zod.js';

const { COMPILE_AFTER } = z;

// zod/mini registers no locale of its own: without src/zod.ts every one of these would read "Invalid input".
describe('src/zod.ts: zod/mini with English messages', () => {
  it("reports a wrong type in zod's English wording", () => {
    const result = z.looseObject({ total: z.number() }).safeParse({ total: 'x' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('Invalid input: expected number, received string');
  });

  it('names an unknown field of a strict object and a value that is too small', () => {
    expect(z.strictObject({}).safeParse({ foo: 1 }).error?.issues[0]?.message).toBe(
      'Unrecognized key: "foo"',
    );
    expect(
      z
        .number()
        .check(z.int(), z.gte(1))
        .safeParse(0)
        .error?.issues.map((issue) => issue.message),
    ).toEqual(['Too small: expected number to be >=1']);
  });

  it('reaches the user as a one-line flag error', () => {
    const schema = z.object({ tlsCert: z.optional(z.string().check(z.minLength(1))) });
    expect(() => parseOptions(schema, { tlsCert: '' })).toThrow(
      '--tls-cert: Too small: expected string to have >=1 characters',
    );
  });
});

describe('src/zod.ts: objects parse through the compiled parser, exactly as mini would', () => {
  const shapes = (zz: typeof mini) => {
    const party = zz.looseObject({ name: zz.optional(zz.string()), bank: zz.optional(zz.string()) });
    return {
      loose: zz.looseObject({
        id: zz.string(),
        amount: zz.number(),
        fee: zz.optional(zz.number()),
        when: zz._default(zz.string(), 'now'),
        creditor: zz.nullish(party),
      }),
      strict: zz.strictObject({ id: zz.string(), n: zz.optional(zz.number()) }),
      plain: zz.object({ id: zz.string(), n: zz.optional(zz.number()) }),
    };
  };
  const ours = shapes(z as unknown as typeof mini);
  const theirs = shapes(mini);
  const inputs: unknown[] = [
    { id: 'a', amount: 1, extra: { deep: [1] }, creditor: { name: 'Ana', bank: 1 } },
    { id: 'a', amount: 1, fee: undefined, creditor: null },
    { amount: 'x', creditor: { name: 5 } },
    { id: 'a', n: 1, unknown: true },
    { id: 3 },
    null,
    [],
    'text',
    { __proto__: { id: 'inherited' }, amount: 2 },
  ];

  it('the same values and the same issues (paths, codes, messages) as mini, for every kind of object', () => {
    // Twice over: the first COMPILE_AFTER parses of a schema are interpreted, the later ones compiled.
    expect(inputs.length).toBeGreaterThanOrEqual(COMPILE_AFTER);
    for (const kind of ['loose', 'strict', 'plain'] as const) {
      for (const input of [...inputs, ...inputs]) {
        const a = ours[kind].safeParse(input);
        const b = theirs[kind].safeParse(input);
        expect(a.success, `${kind} ${JSON.stringify(input)}`).toBe(b.success);
        if (a.success && b.success) expect(a.data).toEqual(b.data);
        else expect(a.error?.issues).toEqual(b.error?.issues);
      }
    }
  });

  it('compiles its parser only after COMPILE_AFTER parses: a command that parses once never pays for it', () => {
    const schema = z.looseObject({ id: z.string(), nested: z.optional(z.looseObject({ n: z.number() })) });
    const compile = vi.spyOn(globalThis, 'Function');
    try {
      for (let i = 0; i < COMPILE_AFTER; i++)
        expect(schema.safeParse({ id: 'a', nested: { n: i } }).success).toBe(true);
      expect(compile).not.toHaveBeenCalled();
      expect(schema.safeParse({ id: 'a', nested: { n: 1 } }).success).toBe(true);
      expect(compile).toHaveBeenCalled();
      expect(schema.safeParse({ id: 1 }).error?.issues[0]?.path).toEqual(['id']);
    } finally {
      compile.mockRestore();
    }
  });

  it('is the compiled parser: an object schema carries the JIT trait', () => {
    expect(ours.loose._zod.traits.has('$ZodObjectJIT')).toBe(true);
    expect(theirs.loose._zod.traits.has('$ZodObjectJIT')).toBe(false);
    expect(ours.loose).toBeInstanceOf(mini.ZodMiniObject);
  });
});
