import type { Clock } from '../context.js';
import { normalizeBaseUrl } from '../domain/url.js';
import { describeSystemError, PixError } from '../errors.js';
import type { CachedToken, ConfigStore, ProfileData, Settings, Sourced } from './types.js';

/** What the API client asks for before each request. */
export interface TokenProvider {
  /** The bearer token to send, or undefined when there are no credentials. */
  token(): Promise<string | undefined>;
  /**
   * After a 401 on `rejected`: a token minted since it was handed out (requests refused together share
   * one mint), else a freshly minted one; undefined without client credentials. The client calls it at
   * most once per request, so a server that refuses every token cannot make pix mint in a loop.
   */
  refresh(rejected: string): Promise<string | undefined>;
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
 * The name a token minted from client credentials that are no profile's own is cached under: a SHA-256
 * digest of base URL, client key and secret. The secret itself is never written; another key, secret or
 * URL is another entry, so a rotated secret never gets the old one's token.
 */
export function tokenCacheKey(baseUrl: string, clientKey: string, clientSecret: string): string {
  // Loaded here, not at the top: a PIX_TOKEN run never needs node:crypto (~8 ms to load on Node 24).
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256')
    .update(JSON.stringify(['pix token cache 1', baseUrl, clientKey, clientSecret]))
    .digest('hex');
}

/** Exit 3 with what to do: log in, give credentials in the environment, or go back to the sandbox. */
export function noCredentialsError(profile: Sourced<string>): PixError {
  const login = profile.source === 'flag' ? `\`pix login --profile ${profile.value}\`` : '`pix login`';
  const sandbox =
    profile.source === 'flag'
      ? '`--profile sandbox`'
      : profile.source === 'env'
        ? '`PIX_PROFILE=sandbox`'
        : '`pix profile use sandbox`';
  return new PixError('auth', `no credentials for profile "${profile.value}"`, {
    hint: `run ${login}, or set PIX_TOKEN (or PIX_CLIENT_KEY and PIX_CLIENT_SECRET); ${sandbox} goes back to the built-in sandbox`,
  });
}

function sameBaseUrl(stored: string | undefined, baseUrl: string): boolean {
  try {
    return stored !== undefined && normalizeBaseUrl(stored) === baseUrl;
  } catch {
    return false;
  }
}

/** What the token provider reads of the settings: the credentials, whose they are and where they go. */
export type TokenSettings = Pick<Settings, 'credentials' | 'profile'> & {
  baseUrl: Pick<Sourced<string>, 'value'>;
};

/** The profile still holds the credentials a token was minted with, for the same server. */
function stillHolds(
  profile: ProfileData | undefined,
  clientKey: string,
  clientSecret: string,
  baseUrl: string,
): profile is ProfileData {
  return (
    typeof profile === 'object' &&
    profile !== null &&
    profile.clientSecret === clientSecret &&
    profile['client-key'] === clientKey &&
    sameBaseUrl(profile.tokenBaseUrl, baseUrl)
  );
}

/**
 * Bearer token → that token. Client credentials → the cached token while it has more than 60 s left,
 * else a freshly minted one, cached for the next command: in the profile when the key and secret are the
 * profile's own, else (the environment's, as in CI) in the config directory's token cache under
 * `tokenCacheKey`. Sandbox and no credentials → undefined. `warn` hears when a token could not be cached.
 */
export function createTokenProvider(
  settings: TokenSettings,
  store: ConfigStore,
  mint: Mint,
  clock: Clock,
  warn: (message: string) => void = () => {},
): TokenProvider {
  const { credentials } = settings;
  const baseUrl = settings.baseUrl.value;
  const profileName = settings.profile.value;
  let memory: CachedToken | undefined;
  let minting: Promise<string> | undefined;

  const own =
    credentials.kind === 'client' &&
    credentials.clientKey.source === 'profile' &&
    credentials.clientSecret.source === 'profile';
  const digest =
    credentials.kind === 'client' && !own
      ? tokenCacheKey(baseUrl, credentials.clientKey.value, credentials.clientSecret.value)
      : undefined;

  const fresh = (cached: CachedToken | undefined): cached is CachedToken =>
    cached !== undefined &&
    cached.baseUrl === baseUrl &&
    Date.parse(cached.expiresAt) - clock.now().getTime() > EXPIRY_MARGIN_MS;

  function storedToken(): CachedToken | undefined {
    try {
      if (own) return store.getProfile(profileName)?.cachedToken;
      return digest === undefined ? undefined : store.cachedToken(digest);
    } catch {
      return undefined; // an unreadable cache is no cache: mint
    }
  }

  /**
   * Caches the token under the store's lock, on a fresh read, changing nothing but the cached token: a
   * profile changed meanwhile (`config set`) keeps its change, and one logged out (or logged in again
   * with other credentials) meanwhile gets no token, so its secret never comes back.
   */
  async function persist(cached: CachedToken, clientKey: string, clientSecret: string): Promise<void> {
    try {
      if (own) {
        await store.update((document) => {
          const profile: ProfileData | undefined = Object.hasOwn(document.profiles, profileName)
            ? document.profiles[profileName]
            : undefined;
          if (stillHolds(profile, clientKey, clientSecret, baseUrl)) profile.cachedToken = cached;
        });
      } else if (digest !== undefined) {
        await store.cacheToken(digest, cached, clock.now());
      }
    } catch (error) {
      // Caching is an optimisation: a read-only or full config directory must not fail the command.
      const why =
        describeSystemError(error)?.message ?? (error instanceof PixError ? error.message : 'an error');
      warn(`the minted token was not cached (${why}); the next command mints another`);
    }
  }

  async function mintAndCache(clientKey: string, clientSecret: string): Promise<string> {
    const cached = cachedToken(await mint(clientKey, clientSecret), baseUrl, clock.now());
    memory = cached;
    await persist(cached, clientKey, clientSecret);
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
    async refresh(rejected) {
      if (credentials.kind !== 'client') return undefined;
      // A token minted after the refused one was handed out is the answer to this 401 too: one mint for
      // requests refused together, and a new one for each later expiry (a long batch sees several).
      if (minting) return minting;
      if (memory !== undefined && memory.value !== rejected) return memory.value;
      minting = mintAndCache(credentials.clientKey.value, credentials.clientSecret.value).finally(() => {
        minting = undefined;
      });
      return minting;
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
