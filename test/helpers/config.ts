import type { CachedToken, ConfigDocument, ConfigStore, ProfileData } from '../../src/config/types.js';
import { normalizeBaseUrl } from '../../src/domain/url.js';
import {
  bankAccountId,
  credentialFingerprint,
  credentialId,
  openAccounts,
} from '../../src/journal/accounts.js';
import { SYSTEM } from '../../src/system.js';

/** An in-memory ConfigStore for unit tests of code that reads and writes profiles. */
export function createMemoryStore(
  profiles: Record<string, ProfileData> = {},
  current?: string,
): ConfigStore & { writes: number; tokens: Map<string, CachedToken> } {
  let document: ConfigDocument = { currentProfile: current, profiles: structuredClone(profiles) };
  const tokens = new Map<string, CachedToken>();
  const store = {
    dir: '/nonexistent/pix',
    path: '/nonexistent/pix/config.json',
    writes: 0,
    tokens,
    currentProfile: () => document.currentProfile,
    listProfiles: () => Object.keys(document.profiles).sort(),
    getProfile: (name: string) =>
      Object.hasOwn(document.profiles, name) ? structuredClone(document.profiles[name]) : undefined,
    async update<T>(change: (fresh: ConfigDocument) => T): Promise<T> {
      const fresh = structuredClone(document);
      const result = change(fresh);
      if (JSON.stringify(fresh) !== JSON.stringify(document)) {
        store.writes++;
        document = fresh;
      }
      return result;
    },
    setProfile: (name: string, profile: ProfileData) =>
      store.update((fresh) => {
        fresh.profiles[name] = structuredClone(profile);
      }),
    setCurrentProfile: (name: string) =>
      store.update((fresh) => {
        fresh.currentProfile = name;
      }),
    cachedToken: (digest: string) => tokens.get(digest),
    async cacheToken(digest: string, token: CachedToken | undefined) {
      store.writes++;
      if (token === undefined) tokens.delete(digest);
      else tokens.set(digest, token);
    },
    pageLimit: () => undefined,
    async rememberPageLimit() {},
  };
  return store;
}

/**
 * Remembers that the environment's PIX_TOKEN reaches an account at its PIX_BASE_URL, as a pix that used
 * these credentials before would (journal/accounts.ts): the command under test then asks the API for no
 * key list and no consultation, and a test's interceptors stay those of the command. Seen "at the end of
 * time", so whatever a test's clock says, it is less than a day ago. Returns the account's id.
 */
export async function rememberAccount(
  env: Record<string, string | undefined>,
  keyIds: readonly string[] = ['test-account-key'],
  bank = { participant: '99999999', branch: '0001', number: '1000001' },
): Promise<string> {
  const baseUrl = normalizeBaseUrl(env.PIX_BASE_URL!);
  const id = bankAccountId(bank);
  await openAccounts(env.PIX_CONFIG_DIR!, SYSTEM).record({
    account: { id, bank, basis: 'dict' },
    fingerprint: credentialFingerprint(baseUrl, 'token', env.PIX_TOKEN!),
    credential: credentialId(baseUrl, 'token', env.PIX_TOKEN!),
    keyIds,
    formerIds: [],
    legacy: [],
    baseUrl: { baseUrl, host: new URL(baseUrl).host },
    now: new Date('9999-12-31T00:00:00Z'),
  });
  return id;
}
