/**
 * The answer of a list endpoint (API §4.1, §4.7): `total` and an array, named `results` in the statement
 * and `result` in the key list. A server may name both alike: the document's irregular spelling is the
 * one it shows, not one it promises (docs/api.md). Either name is read, and the page pix works with names
 * the array as the document does for that list, in the place the server put it, every other field kept.
 */
import * as z from '../zod.js';

export function listPageSchema<Item extends z.ZodMiniType, Name extends string>(
  item: Item,
  name: Name,
  other: string,
) {
  const shape = z
    .looseObject({
      total: z.number().check(z.int(), z.nonnegative()),
      [name]: z.optional(z.array(item)),
      [other]: z.optional(z.array(item)),
    })
    .check(
      z.refine((page) => Array.isArray(page[name]) || Array.isArray(page[other]), {
        message: `no ${name} (nor ${other}) array`,
        path: [name],
      }),
    );
  return z.pipe(
    shape,
    z.transform((page) => {
      const named: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(page)) {
        if (field === other) {
          if (!Array.isArray(page[name])) named[name] = value;
        } else named[field] = value;
      }
      return named as { total: number } & Record<Name, z.output<Item>[]> & Record<string, unknown>;
    }),
  );
}
