/**
 * The zod every schema of pix is written with: `zod/mini` (functional API: `z.optional(x)`,
 * `x.check(z.minLength(1))`), about half of classic zod's start-up cost, since a command loads only
 * the parts it uses. Import it as `import * as z from '<path>/zod.js'`.
 *
 * Classic zod registers English messages when its first schema is built; mini registers none (every
 * message would read "Invalid input"), so this module does, once, before any schema can be parsed, as zod
 * documents it (`z.config(en())` with `en` from `zod/locales`): users and tests read zod's own wording
 * ("Invalid option: expected one of ...").
 */
import { en } from 'zod/locales';
import * as mini from 'zod/mini';

mini.config(en());

export * from 'zod/mini';
