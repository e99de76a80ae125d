import { Argument, type Command } from 'commander';
import { unknownProfileError } from '../../config/resolve.js';
import { SANDBOX_PROFILE } from '../../config/types.js';
import type { Deps } from '../../context.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { completionValues, describeVerb } from '../shared/help.js';

const useOptionsSchema = z.object({ name: z.string().check(z.minLength(1, 'a profile name is required')) });

export type ProfileUseOptions = z.output<typeof useOptionsSchema>;

export async function runProfileUse(options: ProfileUseOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { stderr } = deps.io;
  const { name } = options;
  if (name !== SANDBOX_PROFILE && !store.listProfiles().includes(name)) {
    throw unknownProfileError('NAME', name, store);
  }
  await store.setCurrentProfile(name);
  stderr.write(`Now using profile ${name}\n`);
  const fromEnv = deps.env.PIX_PROFILE;
  if (fromEnv && fromEnv !== name)
    stderr.write(`warning: PIX_PROFILE=${fromEnv} still overrides it in this shell\n`);
}

export const verb = describeVerb({
  summary: 'make a profile the current one (sandbox is built in)',
  examples: ['pix profile use prod', 'pix profile use sandbox'],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
    .addArgument(completionValues(new Argument('<name>'), { dynamic: 'profiles' }))
    .action(async (name: string) => {
      await runProfileUse(parseOptions(useOptionsSchema, { name }, { name: 'NAME' }), deps);
    });
}
