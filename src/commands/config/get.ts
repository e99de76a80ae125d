import type { Command } from 'commander';
import { configValues } from '../../config/resolve.js';
import type { Deps } from '../../context.js';
import { jsonDocument } from '../../output/format.js';
import type * as z from '../../zod.js';
import { keyArgument, keyOptionsSchema, targetProfile } from '../shared/config.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

export type ConfigGetOptions = z.output<typeof keyOptionsSchema>;

/** The value in effect for one key (default included); nothing when there is none. */
export async function runConfigGet(options: ConfigGetOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { stdout } = deps.io;
  const name = targetProfile(deps, store, false);
  const found = configValues(deps.globals, deps.env, name, store.getProfile(name) ?? {})[options.key];
  if (deps.globals.json) {
    const document = { key: options.key, value: found?.value ?? null, source: found?.source ?? null };
    stdout.write(jsonDocument(document, stdout.isTTY));
  } else if (found !== undefined) {
    // The value alone, for $(pix config get KEY); a person at a terminal also sees where it comes from.
    stdout.write(stdout.isTTY ? `${found.value} (${found.source})\n` : `${found.value}\n`);
  }
}

export const verb = describeVerb({
  summary: 'the value in effect for one setting (default included); nothing when there is none',
  examples: ['pix config get time-zone', 'TZ_NAME=$(pix config get time-zone --profile prod)'],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command.addArgument(keyArgument()).action(async (key: string) => {
    await runConfigGet(parseOptions(keyOptionsSchema, { key }, { key: 'KEY' }), deps);
  });
}
