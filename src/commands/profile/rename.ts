import { Argument, type Command } from 'commander';
import { checkProfileName, resolveProfileName, unknownProfileError } from '../../config/resolve.js';
import { SANDBOX_PROFILE } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { usageError } from '../../errors.js';
import * as z from '../../zod.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { completionValues, describeVerb } from '../shared/help.js';

const renameOptionsSchema = z.object({
  from: z.string().check(z.minLength(1, 'a profile name is required')),
  to: fromDomain(checkProfileName),
});

export type ProfileRenameOptions = z.output<typeof renameOptionsSchema>;

/**
 * Gives a profile a new name, settings and stored secrets with it, under the config file's lock. The
 * journal records payments and charges by profile name, so the profile keeps its former names
 * (`formerNames`): what was paid under OLD is still paid under NEW (journal/rules.ts isProfileOf), and
 * `charge list` still shows OLD's charges. A saved current profile named OLD now names NEW.
 */
export async function runProfileRename(options: ProfileRenameOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { from, to } = options;
  if (from === SANDBOX_PROFILE) throw usageError('OLD', 'the built-in sandbox profile cannot be renamed');
  if (to === SANDBOX_PROFILE) throw usageError('NEW', '"sandbox" is the built-in profile\'s name');
  const profiles = store.listProfiles();
  if (!profiles.includes(from)) throw unknownProfileError('OLD', from, store);
  if (from === to) throw usageError('NEW', `the profile is already named "${to}"`);
  if (profiles.includes(to)) {
    throw usageError(
      'NEW',
      `a profile "${to}" exists`,
      `delete it first (\`pix profile delete ${to}\`) or pick another name`,
    );
  }
  const active = resolveProfileName(deps.globals, deps.env, store);
  await store.update((document) => {
    const data = document.profiles[from];
    if (data === undefined) throw unknownProfileError('OLD', from, store);
    if (document.profiles[to] !== undefined) throw usageError('NEW', `a profile "${to}" exists`);
    const former = [...(data.formerNames ?? []), from].filter((name) => name !== to);
    document.profiles[to] = { ...data, formerNames: [...new Set(former)] };
    delete document.profiles[from];
    if (document.currentProfile === from) document.currentProfile = to;
  });
  deps.io.stderr.write(
    `Renamed profile ${from} to ${to}; what it paid and charged as ${from} stays its own\n`,
  );
  if (active.value === from && active.source === 'env') {
    deps.io.stderr.write(`note: PIX_PROFILE=${from} names no profile now; set PIX_PROFILE=${to}\n`);
  }
}

export const verb = describeVerb({
  summary: 'give a profile a new name; what it paid stays its own',
  examples: [
    'pix profile rename prod loja-prod',
    'pix profile rename prod loja-prod && pix profile use loja-prod',
  ],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
    .addArgument(completionValues(new Argument('<old>'), { dynamic: 'profiles' }))
    .argument('<new>')
    .action(async (from: string, to: string) => {
      await runProfileRename(
        parseOptions(renameOptionsSchema, { from, to }, { from: 'OLD', to: 'NEW' }),
        deps,
      );
    });
}
