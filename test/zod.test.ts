import { describe, expect, it } from 'vitest';
import { parseOptions } from '../src/commands/shared/flags.js';
import * as z from '../src/zod.js';

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
