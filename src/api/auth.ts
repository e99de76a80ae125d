import type { CachedToken, ConfigStore, Settings } from '../config/types.js';
import type { Clock } from '../deps.js';

/** What the API client asks for before each request. */
export interface TokenProvider {
  /** The bearer token to send, or undefined when there are no credentials. */
  token(): Promise<string | undefined>;
  /** After a 401: mint a fresh token once (client credentials only); undefined when that is not possible. */
  refresh(): Promise<string | undefined>;
}

/** POST /api/financial/v1/auth/token: client credentials → a token valid for `expiresIn` seconds. */
export type Mint = (
  clientKey: string,
  clientSecret: string,
) => Promise<{ clientToken: string; expiresIn: number }>;

/** A cached token is used only while it has more than this left (contract §5). */
export const EXPIRY_MARGIN_MS = 60_000;

/** A minted token as the profile caches it: its expiry is `now` plus its `expiresIn` seconds. */
export function cachedToken(minted: Awaited<ReturnType<Mint>>, baseUrl: string, now: Date): CachedToken {
  return {
    value: minted.clientToken,
    expiresAt: new Date(now.getTime() + minted.expiresIn * 1000).toISOString(),
    baseUrl,
  };
}

/**
 * Bearer token → that token. Client credentials → the cached token while it has more than 60 s left,
 * else a freshly minted one, cached in the profile (only when the credentials are the profile's own;
 * credentials from the environment keep theirs in memory). Sandbox and no credentials → undefined.
 */
export function createTokenProvider(
  settings: Settings,
  store: ConfigStore,
  mint: Mint,
  clock: Clock,
): TokenProvider {
  const { credentials } = settings;
  const baseUrl = settings.baseUrl.value;
  const profileName = settings.profile.value;
  let memory: CachedToken | undefined;
  let minting: Promise<string> | undefined;
  let refreshed: Promise<string> | undefined;

  const persist =
    credentials.kind === 'client' &&
    credentials.clientKey.source === 'profile' &&
    credentials.clientSecret.source === 'profile';

  const fresh = (cached: CachedToken | undefined): cached is CachedToken =>
    cached !== undefined &&
    cached.baseUrl === baseUrl &&
    Date.parse(cached.expiresAt) - clock.now().getTime() > EXPIRY_MARGIN_MS;

  function storedToken(): CachedToken | undefined {
    if (!persist) return undefined;
    try {
      return store.getProfile(profileName)?.cachedToken;
    } catch {
      return undefined;
    }
  }

  async function mintAndCache(clientKey: string, clientSecret: string): Promise<string> {
    const cached = cachedToken(await mint(clientKey, clientSecret), baseUrl, clock.now());
    memory = cached;
    if (persist) {
      try {
        const profile = store.getProfile(profileName);
        // Only into the profile the credentials came from, and only while it still holds them.
        if (profile !== undefined && profile.clientSecret === clientSecret) {
          await store.setProfile(profileName, { ...profile, cachedToken: cached });
        }
      } catch {
        // Caching is an optimisation: a read-only config directory must not fail the command.
      }
    }
    return cached.value;
  }

  return {
    async token() {
      switch (credentials.kind) {
        case 'token':
          return credentials.token.value;
        case 'client': {
          if (fresh(memory)) return memory.value;
          const stored = storedToken();
          if (fresh(stored)) {
            memory = stored;
            return stored.value;
          }
          // Parallel requests share one mint.
          minting ??= mintAndCache(credentials.clientKey.value, credentials.clientSecret.value).finally(
            () => {
              minting = undefined;
            },
          );
          return minting;
        }
        default:
          return undefined;
      }
    },
    async refresh() {
      if (credentials.kind !== 'client') return undefined;
      // Once per run: requests that failed together all retry with the one fresh token.
      refreshed ??= mintAndCache(credentials.clientKey.value, credentials.clientSecret.value);
      return refreshed;
    },
  };
}

/**
 * A secret as it may be shown: its first 4 characters and its length when it is long enough for that
 * to give nothing away, else only its length.
 */
export function maskSecret(secret: string): string {
  return secret.length >= 20
    ? `${secret.slice(0, 4)}… (${secret.length} chars)`
    : `**** (${secret.length} chars)`;
}
