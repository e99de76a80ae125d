import { Argument, type Command } from 'commander';
import { resolveProfileName, unknownProfileError } from '../../config/resolve.js';
import { SANDBOX_PROFILE } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { PixError, usageError } from '../../errors.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { completionValues, describeVerb } from '../shared/help.js';

const deleteOptionsSchema = z.object({
  name: z.string().check(z.minLength(1, 'a profile name is required')),
});

export type ProfileDeleteOptions = z.output<typeof deleteOptionsSchema>;

/**
 * Removes a profile whole: its settings and its stored secrets (token, client secret, cached token) go
 * with it, from config.json, under the file's lock. The profile a command would use now cannot be
 * deleted (switch first), so no command ever runs on a half-removed profile. The journal keeps its
 * entries: they record what was paid, and a later profile of the same name on the same API sees them
 * (it is held by them, never paid twice).
 */
export async function runProfileDelete(options: ProfileDeleteOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { stderr } = deps.io;
  const { name } = options;
  if (name === SANDBOX_PROFILE) throw usageError('NAME', 'the built-in sandbox profile cannot be deleted');
  if (!store.listProfiles().includes(name)) throw unknownProfileError('NAME', name, store);
  const active = resolveProfileName(deps.globals, deps.env, store);
  if (active.value === name) {
    throw usageError(
      'NAME',
      `"${name}" is the profile in use${active.source === 'env' ? ' (PIX_PROFILE)' : ''}`,
      'switch first: `pix profile use sandbox` (or another profile), then delete it',
    );
  }
  if (!deps.globals.yes) {
    if (!deps.prompter.canPrompt()) {
      throw usageError(
        undefined,
        'cannot ask for confirmation: not a terminal (or --no-input); nothing was deleted',
        'pass --yes (-y) to delete without asking',
      );
    }
    const sure = await deps.prompter.confirm(`Delete profile ${name} and its stored credentials?`);
    if (!sure) throw new PixError('declined', 'nothing was deleted', { ownChoice: true });
  }
  await store.update((document) => {
    delete document.profiles[name];
    // The saved choice may name it while PIX_PROFILE or --profile chose another: forget it too.
    if (document.currentProfile === name) delete document.currentProfile;
  });
  stderr.write(`Deleted profile ${name} and its stored credentials\n`);
}

export const verb = describeVerb({
  summary: 'remove a profile and its stored credentials (not the one in use)',
  examples: ['pix profile delete prod --yes', 'pix profile use sandbox && pix profile delete prod -y'],
  exits: ['usage', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .addArgument(completionValues(new Argument('<name>'), { dynamic: 'profiles' }))
    .action(async (name: string) => {
      await runProfileDelete(parseOptions(deleteOptionsSchema, { name }, { name: 'NAME' }), deps);
    });
}
