import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import type * as z from '../../zod.js';
import { changeSetting, keyArgument, keyOptionsSchema, targetProfile } from '../shared/config.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

export type ConfigUnsetOptions = z.output<typeof keyOptionsSchema>;

export async function runConfigUnset(options: ConfigUnsetOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const name = targetProfile(deps, store, false);
  await changeSetting(store, name, options.key, undefined);
}

export const verb = describeVerb({
  summary: 'remove a setting',
  examples: ['pix config unset default-key', 'pix config unset max-amount --profile prod'],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command.addArgument(keyArgument()).action(async (key: string) => {
    await runConfigUnset(parseOptions(keyOptionsSchema, { key }, { key: 'KEY' }), deps);
  });
}
