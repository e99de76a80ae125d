import { Argument, type Command } from 'commander';
import { knownProfiles, resolveProfileName, unknownProfileError } from '../config/resolve.js';
import { type ProfileData, SANDBOX_PROFILE } from '../config/types.js';
import type { Deps } from '../context.js';
import { jsonDocument } from '../output/format.js';
import * as z from '../zod.js';
import { parseOptions } from './shared/flags.js';
import { addExamples, completionValues } from './shared/help.js';

const useOptionsSchema = z.object({ name: z.string().check(z.minLength(1, 'a profile name is required')) });

export type ProfileAction = { action: 'list' } | { action: 'use'; name: string };

function credentialsKind(name: string, data: ProfileData | undefined): string {
  if (name === SANDBOX_PROFILE) return 'sandbox';
  if (data?.token !== undefined) return 'token';
  if (data?.clientSecret !== undefined) return 'client';
  return 'none';
}

export async function runProfile(request: ProfileAction, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { stdout, stderr } = deps.io;

  if (request.action === 'use') {
    const { name } = request;
    if (name !== SANDBOX_PROFILE && !store.listProfiles().includes(name)) {
      throw unknownProfileError('NAME', name, store);
    }
    await store.setCurrentProfile(name);
    stderr.write(`Now using profile ${name}\n`);
    const fromEnv = deps.env.PIX_PROFILE;
    if (fromEnv && fromEnv !== name)
      stderr.write(`warning: PIX_PROFILE=${fromEnv} still overrides it in this shell\n`);
    return;
  }

  // The active profile: what a command run now would use.
  const active = resolveProfileName(deps.globals, deps.env, store).value;
  const profiles = knownProfiles(store).map((name) => {
    const data = store.getProfile(name);
    return {
      name,
      current: name === active,
      baseUrl: name === SANDBOX_PROFILE ? null : (data?.['base-url'] ?? null),
      credentials: credentialsKind(name, data),
    };
  });
  if (deps.globals.json) {
    stdout.write(jsonDocument({ current: active, profiles }, stdout.isTTY));
    return;
  }
  for (const profile of profiles) {
    const url = profile.baseUrl ?? (profile.name === SANDBOX_PROFILE ? '(built-in)' : '');
    if (stdout.isTTY) stdout.write(`${profile.current ? '*' : ' '} ${profile.name}  ${url}\n`);
    else stdout.write(`${profile.current ? '*' : ''}\t${profile.name}\t${url}\n`);
  }
}

export function register(command: Command, deps: Deps): void {
  const list = command
    .command('list')
    .description('the profiles, the active one marked with *')
    .action(async () => {
      await runProfile({ action: 'list' }, deps);
    });
  addExamples(list, ['pix profile list', "pix profile list --json | jq -r '.profiles[].name'"], ['usage']);
  const use = command
    .command('use')
    .description('make a profile the current one (sandbox is built in)')
    .addArgument(completionValues(new Argument('<name>'), { dynamic: 'profiles' }))
    .action(async (name: string) => {
      await runProfile(
        { action: 'use', ...parseOptions(useOptionsSchema, { name }, { name: 'NAME' }) },
        deps,
      );
    });
  addExamples(use, ['pix profile use prod', 'pix profile use sandbox'], ['usage']);
  addExamples(command, ['pix profile list', 'pix profile use prod', 'pix profile use sandbox'], ['usage']);
}
