import type { Command } from 'commander';
import { checkProfileName } from '../../config/resolve.js';
import { SANDBOX_PROFILE } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { usageError } from '../../errors.js';
import { asUsage } from '../../usage.js';
import * as z from '../../zod.js';
import { VALIDATORS } from '../shared/config.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

const createOptionsSchema = z.object({
  name: fromDomain(checkProfileName),
  baseUrl: z.optional(z.string()),
});

export type ProfileCreateOptions = z.output<typeof createOptionsSchema>;

/**
 * Makes an empty profile (with its API's base URL, when given), as `pix config set … --profile NAME` does
 * by the way: credentials come from `pix login --profile NAME`. It does not become the current profile
 * (`pix profile use NAME`). An existing name is exit 2, nothing changed.
 */
export async function runProfileCreate(options: ProfileCreateOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { name } = options;
  if (name === SANDBOX_PROFILE) throw usageError('NAME', '"sandbox" is the built-in profile\'s name');
  const baseUrl =
    options.baseUrl === undefined
      ? undefined
      : asUsage('--base-url', () => VALIDATORS['base-url'](options.baseUrl!));
  await store.update((document) => {
    if (document.profiles[name] !== undefined) {
      throw usageError(
        'NAME',
        `a profile "${name}" exists`,
        `see it with \`pix config list --profile ${name}\``,
      );
    }
    document.profiles[name] = baseUrl === undefined ? {} : { 'base-url': baseUrl };
  });
  deps.io.stderr.write(
    `Created profile ${name}; next: \`pix login --profile ${name}\`, then \`pix profile use ${name}\`\n`,
  );
}

export const verb = describeVerb({
  summary: 'a new, empty profile (--base-url: its API); credentials come from pix login',
  examples: ['pix profile create prod --base-url https://api.example.com', 'pix profile create staging'],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command.argument('<name>').action(async (name: string, _options, self: Command) => {
    // --base-url is a global flag: the profile's URL when given here.
    const { baseUrl } = self.optsWithGlobals();
    await runProfileCreate(
      parseOptions(createOptionsSchema, { name, baseUrl }, { name: 'NAME', baseUrl: '--base-url' }),
      deps,
    );
  });
}
