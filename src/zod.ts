/**
 * The zod every schema of pix is written with: `zod/mini` (functional API: `z.optional(x)`,
 * `x.check(z.minLength(1))`), about half of classic zod's start-up cost, since a command loads only
 * the parts it uses. Import it as `import * as z from '<path>/zod.js'`.
 *
 * Classic zod registers English messages when its first schema is built; mini registers none (every
 * message would read "Invalid input"), so this module does, once, before any schema can be parsed:
 * users and tests read zod's own wording ("Invalid option: expected one of ...").
 *
 * Objects parse through zod core's compiled object parser ($ZodObjectJIT, what classic zod's objects
 * use) instead of mini's interpreted one: the same checks and issues, generated once per schema from
 * the schema's own keys (never from input). A 100,000-entry statement validates in ~115 ms of CPU
 * instead of ~260 ms. Generating it costs a `new Function` per schema, which no compile cache keeps,
 * so a schema is compiled only once it has been parsed COMPILE_AFTER times: a command that parses its
 * flags and one answer (`pix keys`) never pays for it, an export does after its first pages.
 */
import * as mini from 'zod/mini';
import * as core from 'zod/v4/core';
import { $ZodObjectJIT } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

mini.config(en());

export * from 'zod/mini';

type Init = { init(inst: unknown, def: unknown): void };

/** Parses of one object schema before its compiled parser is made (see above). */
export const COMPILE_AFTER = 8;
const objectJit = $ZodObjectJIT as Init | undefined;
const miniType = mini.ZodMiniType as unknown as Init;

/** mini's object type (same trait name, so `instanceof` and every mini helper see it alike), compiled after COMPILE_AFTER parses. */
const ZodMiniObjectJIT = core.$constructor(
  'ZodMiniObject',
  (inst: mini.ZodMiniObject, def: core.$ZodObjectDef) => {
    (objectJit ?? core.$ZodObject).init(inst, def);
    // zod's own switch (ctx.jitless) selects the interpreted parser; nested objects see it and keep their
    // own count once this one compiles.
    const parse = inst._zod.parse;
    let parses = 0;
    inst._zod.parse = (payload, ctx) =>
      ++parses > COMPILE_AFTER || ctx?.jitless === true
        ? parse(payload, ctx)
        : parse(payload, { ...ctx, jitless: true });
    miniType.init(inst, def);
    core.util.defineLazy(inst, 'shape', () => def.shape);
  },
) as unknown as new (
  def: core.$ZodObjectDef,
) => mini.ZodMiniObject;

type Shape = core.$ZodLooseShape;
type Params = Parameters<typeof mini.object>[1];

function objectOf(shape: Shape, catchall: core.$ZodType | undefined, params: Params) {
  return new ZodMiniObjectJIT({
    type: 'object',
    shape,
    ...(catchall ? { catchall } : {}),
    ...core.util.normalizeParams(params),
  } as core.$ZodObjectDef);
}

export const object = ((shape?: Shape, params?: Params) =>
  objectOf(shape ?? {}, undefined, params)) as typeof mini.object;
export const looseObject = ((shape: Shape, params?: Params) =>
  objectOf(shape, mini.unknown(), params)) as typeof mini.looseObject;
export const strictObject = ((shape: Shape, params?: Params) =>
  objectOf(shape, mini.never(), params)) as typeof mini.strictObject;
