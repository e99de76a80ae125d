import type { Command } from 'commander';
import { knownProfiles, resolveProfileName } from '../../config/resolve.js';
import { type ProfileData, SANDBOX_PROFILE } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { jsonDocument } from '../../output/format.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

const listOptionsSchema = z.object({});

export type ProfileListOptions = z.output<typeof listOptionsSchema>;

function credentialsKind(name: string, data: ProfileData | undefined): string {
  if (name === SANDBOX_PROFILE) return 'sandbox';
  if (data?.token !== undefined) return 'token';
  if (data?.clientSecret !== undefined) return 'client';
  return 'none';
}

export async function runProfileList(_options: ProfileListOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { stdout } = deps.io;
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

export const verb = describeVerb({
  summary: 'the profiles, the active one marked with *',
  examples: ['pix profile list', "pix profile list --json | jq -r '.profiles[].name'"],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command.action(async () => {
    await runProfileList(parseOptions(listOptionsSchema, {}), deps);
  });
}
