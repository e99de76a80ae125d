import type { Command } from 'commander';
import { resolveProfileName, unknownProfileError } from '../../config/resolve.js';
import { SANDBOX_PROFILE } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { describeVerb } from '../shared/help.js';

export interface LogoutOptions {
  /** The global -p/--profile. */
  profile: string | undefined;
}

/** Removes the profile's secrets (token, client secret, cached token); its other settings stay. */
export async function runLogout(options: LogoutOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { value: name, source } = resolveProfileName(options, deps.env, store);
  const { stderr } = deps.io;
  if (!store.listProfiles().includes(name)) {
    if (name === SANDBOX_PROFILE) {
      stderr.write('the built-in sandbox profile has no credentials to remove\n');
      return;
    }
    throw unknownProfileError(source === 'env' ? 'PIX_PROFILE' : '--profile', name, store);
  }
  // Under the config file's lock, on the profile as it is now: a token being cached by another pix at
  // this moment either lands before (and is removed here) or finds the secret gone (and is not cached).
  const removed = await store.update((document) => {
    const profile = Object.hasOwn(document.profiles, name) ? document.profiles[name] : undefined;
    if (typeof profile !== 'object' || profile === null) return false;
    const { token, clientSecret, cachedToken, tokenBaseUrl: _bound, ...kept } = profile;
    if (token === undefined && clientSecret === undefined && cachedToken === undefined) return false;
    document.profiles[name] = kept;
    return true;
  });
  stderr.write(
    removed
      ? `Logged out of profile ${name}: its stored credentials are removed\n`
      : `profile ${name} has no stored credentials\n`,
  );
  const stillSet = ['PIX_TOKEN', 'PIX_CLIENT_SECRET'].filter((variable) => deps.env[variable]);
  if (stillSet.length > 0) stderr.write(`warning: ${stillSet.join(' and ')} still set in the environment\n`);
}

export const verb = describeVerb({
  summary: "Remove a profile's stored credentials",
  examples: ['pix logout', 'pix logout --profile prod'],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command.action(async () => {
    await runLogout({ profile: deps.globals.profile }, deps);
  });
}
