import type { Command } from 'commander';
import { resolveProfileName, unknownProfileError } from '../../config/resolve.js';
import { SANDBOX_PROFILE } from '../../config/types.js';
import type { Deps } from '../../deps.js';
import { addExamples } from '../shared/help.js';

export interface LogoutOptions {
  /** The global -p/--profile. */
  profile: string | undefined;
}

/** Removes the profile's secrets (token, client secret, cached token); its other settings stay. */
export async function runLogout(options: LogoutOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { value: name, source } = resolveProfileName(options, deps.env, store);
  const { stderr } = deps.io;
  const profile = store.getProfile(name);
  if (profile === undefined) {
    if (name === SANDBOX_PROFILE) {
      stderr.write('the built-in sandbox profile has no credentials to remove\n');
      return;
    }
    throw unknownProfileError(source === 'env' ? 'PIX_PROFILE' : '--profile', name, store);
  }
  const { token, clientSecret, cachedToken, tokenBaseUrl: _bound, ...kept } = profile;
  if (token === undefined && clientSecret === undefined && cachedToken === undefined) {
    stderr.write(`profile ${name} has no stored credentials\n`);
  } else {
    await store.setProfile(name, kept);
    stderr.write(`Logged out of profile ${name}: its stored credentials are removed\n`);
  }
  const stillSet = ['PIX_TOKEN', 'PIX_CLIENT_SECRET'].filter((variable) => deps.env[variable]);
  if (stillSet.length > 0) stderr.write(`warning: ${stillSet.join(' and ')} still set in the environment\n`);
}

export function register(command: Command, deps: Deps): void {
  command.action(async () => {
    await runLogout({ profile: deps.globals.profile }, deps);
  });
  addExamples(command, ['pix logout', 'pix logout --profile prod'], ['usage']);
}
