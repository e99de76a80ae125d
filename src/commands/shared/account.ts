/**
 * The account a command works on, as the API says it is (journal/accounts.ts): the ids of the PIX keys it
 * lists, learned on a profile's first use and asked again when its credentials change (or a day later).
 * Every journal, charge-ledger and event-log question is asked of it, never of a profile's name or a URL's
 * spelling. The ONE place an Account is made.
 */
import { everyKey } from '../../api/resources/keys.js';
import { accountBaseUrl, accountHost, type Settings } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { credentialFingerprint, type LearnedAccount, openAccounts } from '../../journal/accounts.js';
import type { Account } from '../../journal/rules.js';

/**
 * What the credentials are remembered by (a digest: never a secret). The embedded sandbox has none, and a
 * `pix sandbox reset` makes a new account behind the same profile: it is asked every time (in-process, at
 * no cost).
 */
function fingerprintOf(settings: Settings, baseUrl: string): string | undefined {
  const { credentials } = settings;
  if (credentials.kind === 'token') return credentialFingerprint(baseUrl, 'token', credentials.token.value);
  if (credentials.kind === 'client') {
    return credentialFingerprint(
      baseUrl,
      'client',
      credentials.clientKey.value,
      credentials.clientSecret.value,
    );
  }
  return undefined;
}

/**
 * The account of the resolved profile. Asks the API for the account's keys unless these credentials were
 * seen to reach an account less than a day ago; an account with no key is known by its base URL and client
 * key instead, and says so once.
 */
export async function accountOf(deps: Deps): Promise<Account> {
  const [settings, client, config] = await Promise.all([deps.settings(), deps.api(), deps.config()]);
  // The embedded sandbox by its own name, whichever way it runs (config/types.ts accountBaseUrl).
  const baseUrl = accountBaseUrl(settings.baseUrl.value);
  const host = accountHost(settings.baseUrl.value, client.baseUrl);
  const accounts = openAccounts(config.dir, deps);
  const fingerprint = fingerprintOf(settings, baseUrl);
  const now = deps.clock.now();
  let learned: LearnedAccount | undefined =
    fingerprint === undefined ? undefined : accounts.cached(fingerprint, now);
  if (learned === undefined) {
    const keys = await everyKey(client, 'nothing was sent; run it again later');
    const keyIds = keys.map((key) => key.id);
    const credentialId =
      settings.credentials.kind === 'client' ? settings.credentials.clientKey.value : undefined;
    learned = await accounts.learn({ keyIds, baseUrl, host, credentialId, fingerprint, now });
    if (keyIds.length === 0) {
      deps.io.stderr.write(
        `note: this account lists no PIX key, so pix knows it by its base URL and ${credentialId === undefined ? 'that alone: other credentials on the same URL count as the same account' : 'client key'}\n`,
      );
    }
  }
  return {
    id: learned.id,
    profile: settings.profile.value,
    baseUrl,
    host,
    legacy: learned.record.legacy,
  };
}
