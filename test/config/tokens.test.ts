import { describe, expect, it } from 'vitest';
import {
  createTokenProvider,
  EXPIRY_MARGIN_MS,
  type Mint,
  maskSecret,
  noCredentialsError,
  tokenCacheKey,
} from '../../src/config/tokens.js';
import type { ProfileData, Settings } from '../../src/config/types.js';
import { PixError } from '../../src/errors.js';
import { createMemoryStore } from '../helpers/config.js';

const BASE = 'https://api.example.test';
const T0 = Date.parse('2026-03-01T12:00:00Z');

function fakeClock(start = T0) {
  let now = start;
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

function fakeMint(expiresIn = 900) {
  const calls: Array<[string, string]> = [];
  const mint: Mint = async (clientKey, clientSecret) => {
    calls.push([clientKey, clientSecret]);
    return { clientToken: `minted-${calls.length}`, expiresIn };
  };
  return { mint, calls };
}

function settingsWith(credentials: Settings['credentials'], profile = 'prod', baseUrl = BASE): Settings {
  return {
    profile: { value: profile, source: 'profile' },
    formerNames: [],
    baseUrl: { value: baseUrl, source: 'profile' },
    sandbox: credentials.kind === 'sandbox',
    credentials,
    timeZone: { value: 'America/Sao_Paulo', source: 'default' },
    maxAmount: undefined,
    defaultKey: undefined,
    tls: undefined,
    ledger: { kind: 'file', source: 'default' },
    warnings: [],
  };
}

const storedClient: Settings['credentials'] = {
  kind: 'client',
  clientKey: { value: 'ck', source: 'profile' },
  clientSecret: { value: 'cs', source: 'profile' },
};
const envClient: Settings['credentials'] = {
  kind: 'client',
  clientKey: { value: 'ck', source: 'env' },
  clientSecret: { value: 'cs', source: 'env' },
};
const PROFILE: ProfileData = { 'base-url': BASE, 'client-key': 'ck', clientSecret: 'cs', tokenBaseUrl: BASE };

/** A store whose profile `prod` holds PROFILE and a token cached by an earlier run, expiring `msLeft` after T0. */
function storeWithCached(value: string, msLeft: number, baseUrl = BASE) {
  const expiresAt = new Date(T0 + msLeft).toISOString();
  return createMemoryStore({ prod: { ...PROFILE, cachedToken: { value, expiresAt, baseUrl } } });
}

describe('createTokenProvider', () => {
  it('a bearer token is sent as is and cannot be refreshed', async () => {
    const { mint, calls } = fakeMint();
    const provider = createTokenProvider(
      settingsWith({ kind: 'token', token: { value: 'tok', source: 'env' } }),
      createMemoryStore(),
      mint,
      fakeClock(),
    );
    expect(await provider.token()).toBe('tok');
    expect(await provider.refresh('any')).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('sandbox and no credentials give no token', async () => {
    const { mint, calls } = fakeMint();
    for (const credentials of [{ kind: 'sandbox' }, { kind: 'none' }] as const) {
      const provider = createTokenProvider(settingsWith(credentials), createMemoryStore(), mint, fakeClock());
      expect(await provider.token()).toBeUndefined();
      expect(await provider.refresh('any')).toBeUndefined();
    }
    expect(calls).toEqual([]);
  });

  it('client credentials: mints once, caches in the profile with its expiry, reuses it', async () => {
    const { mint, calls } = fakeMint(900);
    const store = createMemoryStore({ prod: PROFILE });
    const clock = fakeClock();
    const provider = createTokenProvider(settingsWith(storedClient), store, mint, clock);
    expect(await provider.token()).toBe('minted-1');
    expect(calls).toEqual([['ck', 'cs']]);
    expect(store.getProfile('prod')?.cachedToken).toEqual({
      value: 'minted-1',
      expiresAt: new Date(T0 + 900_000).toISOString(),
      baseUrl: BASE,
    });
    expect(store.getProfile('prod')?.clientSecret).toBe('cs');
    clock.advance(60_000);
    expect(await provider.token()).toBe('minted-1');
    expect(calls).toHaveLength(1);
  });

  it('a later run uses the cached token while it has more than 60 s left', async () => {
    const store = storeWithCached('cached', EXPIRY_MARGIN_MS + 1000);
    const { mint, calls } = fakeMint();
    const provider = createTokenProvider(settingsWith(storedClient), store, mint, fakeClock());
    expect(await provider.token()).toBe('cached');
    expect(calls).toEqual([]);
  });

  it('a cached token expiring within 60 s is re-minted', async () => {
    const store = storeWithCached('cached', 59_000);
    const { mint, calls } = fakeMint();
    const provider = createTokenProvider(settingsWith(storedClient), store, mint, fakeClock());
    expect(await provider.token()).toBe('minted-1');
    expect(calls).toHaveLength(1);
    expect(store.getProfile('prod')?.cachedToken?.value).toBe('minted-1');
  });

  it('a token minted in this run is re-minted when the clock brings it within 60 s of expiry', async () => {
    const { mint, calls } = fakeMint(900);
    const clock = fakeClock();
    const provider = createTokenProvider(
      settingsWith(storedClient),
      createMemoryStore({ prod: PROFILE }),
      mint,
      clock,
    );
    expect(await provider.token()).toBe('minted-1');
    clock.advance(900_000 - 60_000);
    expect(await provider.token()).toBe('minted-2');
    expect(calls).toHaveLength(2);
  });

  it('a cached token for another base URL is not used', async () => {
    const store = storeWithCached('cached', 600_000, 'https://other.test');
    const { mint, calls } = fakeMint();
    const provider = createTokenProvider(settingsWith(storedClient), store, mint, fakeClock());
    expect(await provider.token()).toBe('minted-1');
    expect(calls).toHaveLength(1);
  });

  it('client credentials from the environment: the token is cached by a digest (never the secret), reused by the next run', async () => {
    const store = createMemoryStore({ prod: PROFILE });
    const { mint, calls } = fakeMint();
    const clock = fakeClock();
    const provider = createTokenProvider(settingsWith(envClient), store, mint, clock);
    expect(await provider.token()).toBe('minted-1');
    expect(await provider.token()).toBe('minted-1');
    expect(calls).toHaveLength(1);
    expect(store.getProfile('prod')?.cachedToken).toBeUndefined(); // the profile is not theirs
    const digest = tokenCacheKey(BASE, 'ck', 'cs');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect([...store.tokens.keys()]).toEqual([digest]);
    expect(JSON.stringify([...store.tokens])).not.toContain('"cs"');
    // The next command, 14 minutes later: the cached token (1 min + 1 s left) is used.
    clock.advance(900_000 - 61_000);
    const next = createTokenProvider(settingsWith(envClient), store, mint, clock);
    expect(await next.token()).toBe('minted-1');
    expect(calls).toHaveLength(1);
    // 2 s later it has less than 60 s left: minted again and the cache replaced.
    clock.advance(2_000);
    expect(await createTokenProvider(settingsWith(envClient), store, mint, clock).token()).toBe('minted-2');
    expect(store.tokens.get(digest)?.value).toBe('minted-2');
  });

  it('another secret, key or base URL is another cache entry', async () => {
    const store = createMemoryStore();
    const { mint, calls } = fakeMint();
    const clock = fakeClock();
    const other: Settings['credentials'] = {
      kind: 'client',
      clientKey: { value: 'ck', source: 'env' },
      clientSecret: { value: 'rotated', source: 'env' },
    };
    expect(await createTokenProvider(settingsWith(envClient), store, mint, clock).token()).toBe('minted-1');
    expect(await createTokenProvider(settingsWith(other), store, mint, clock).token()).toBe('minted-2');
    expect(
      await createTokenProvider(
        settingsWith(envClient, 'prod', 'https://other.test'),
        store,
        mint,
        clock,
      ).token(),
    ).toBe('minted-3');
    expect(calls).toHaveLength(3);
    expect(new Set([tokenCacheKey(BASE, 'ck', 'cs'), tokenCacheKey(BASE, 'ck', 'rotated')]).size).toBe(2);
  });

  it('a cache that cannot be written is a warning, not a failure', async () => {
    const store = createMemoryStore();
    store.cacheToken = async () => {
      throw Object.assign(new Error('EROFS'), {
        code: 'EROFS',
        syscall: 'open',
        path: '/ro/token-cache.json',
      });
    };
    const warnings: string[] = [];
    const { mint } = fakeMint();
    const provider = createTokenProvider(settingsWith(envClient), store, mint, fakeClock(), (text) =>
      warnings.push(text),
    );
    expect(await provider.token()).toBe('minted-1');
    expect(warnings).toEqual([
      'the minted token was not cached (cannot open /ro/token-cache.json: read-only file system); the next command mints another',
    ]);
  });

  it('parallel first requests share one mint', async () => {
    const { mint, calls } = fakeMint();
    const provider = createTokenProvider(settingsWith(envClient), createMemoryStore(), mint, fakeClock());
    const tokens = await Promise.all([provider.token(), provider.token(), provider.token()]);
    expect(tokens).toEqual(['minted-1', 'minted-1', 'minted-1']);
    expect(calls).toHaveLength(1);
  });

  it('refresh() after a 401 mints a fresh token once per refused token, and token() then returns it', async () => {
    const store = storeWithCached('revoked', 600_000);
    const { mint, calls } = fakeMint();
    const provider = createTokenProvider(settingsWith(storedClient), store, mint, fakeClock());
    expect(await provider.token()).toBe('revoked');
    expect(await provider.refresh('revoked')).toBe('minted-1');
    expect(await provider.token()).toBe('minted-1');
    expect(store.getProfile('prod')?.cachedToken?.value).toBe('minted-1');
    // Another request refused with the same token gets the token already minted for it.
    expect(await provider.refresh('revoked')).toBe('minted-1');
    expect(calls).toHaveLength(1);
    // The new token refused later (it expired during a long batch): one more mint.
    expect(await provider.refresh('minted-1')).toBe('minted-2');
    expect(await provider.token()).toBe('minted-2');
    expect(calls).toHaveLength(2);
  });

  it('requests refused together share one refresh mint', async () => {
    const { mint, calls } = fakeMint();
    const provider = createTokenProvider(settingsWith(envClient), createMemoryStore(), mint, fakeClock());
    const first = await provider.token();
    const fresh = await Promise.all([provider.refresh(first!), provider.refresh(first!)]);
    expect(fresh).toEqual(['minted-2', 'minted-2']);
    expect(calls).toHaveLength(2);
  });

  it('a refused mint is the mint error', async () => {
    const mint: Mint = async () => {
      throw new PixError('auth', 'getting an access token: unauthorized', { status: 401 });
    };
    const provider = createTokenProvider(settingsWith(envClient), createMemoryStore(), mint, fakeClock());
    await expect(provider.token()).rejects.toMatchObject({ kind: 'auth', status: 401 });
  });

  it('caching changes only the cached token: a setting changed meanwhile stays', async () => {
    const store = createMemoryStore({ prod: PROFILE });
    const mint: Mint = async () => {
      // Another pix sets max-amount while this one is minting.
      await store.update((document) => {
        document.profiles.prod!['max-amount'] = '500.00';
      });
      return { clientToken: 'late', expiresIn: 900 };
    };
    const provider = createTokenProvider(settingsWith(storedClient), store, mint, fakeClock());
    expect(await provider.token()).toBe('late');
    expect(store.getProfile('prod')).toMatchObject({
      'max-amount': '500.00',
      cachedToken: { value: 'late' },
    });
  });

  it('a token is not cached into a profile logged in again meanwhile with another secret', async () => {
    const store = createMemoryStore({ prod: PROFILE });
    const mint: Mint = async () => {
      await store.setProfile('prod', { ...PROFILE, clientSecret: 'new-secret' });
      return { clientToken: 'for-the-old-secret', expiresIn: 900 };
    };
    await createTokenProvider(settingsWith(storedClient), store, mint, fakeClock()).token();
    expect(store.getProfile('prod')).toEqual({ ...PROFILE, clientSecret: 'new-secret' });
  });

  it('caching does not resurrect secrets removed by a logout in the meantime', async () => {
    const store = createMemoryStore({ prod: PROFILE });
    const mint: Mint = async () => {
      await store.setProfile('prod', { 'base-url': BASE, 'client-key': 'ck' });
      return { clientToken: 'late', expiresIn: 900 };
    };
    const provider = createTokenProvider(settingsWith(storedClient), store, mint, fakeClock());
    expect(await provider.token()).toBe('late');
    expect(store.getProfile('prod')).toEqual({ 'base-url': BASE, 'client-key': 'ck' });
  });
});

describe('maskSecret', () => {
  it('shows only a prefix of long secrets and nothing of short ones', () => {
    const long = 'abcdefghijklmnopqrstuvwxyz0123456789';
    expect(maskSecret(long)).toBe(`abcd… (${long.length} chars)`);
    expect(maskSecret('short-secret')).toBe('**** (12 chars)');
  });
});

describe('noCredentialsError', () => {
  it('exit 3, offering a login, the environment, and the way back to the sandbox as the profile was chosen', () => {
    const current = noCredentialsError({ value: 'prod', source: 'profile' });
    expect(current).toMatchObject({
      kind: 'auth',
      exitCode: 3,
      message: 'no credentials for profile "prod"',
    });
    expect(current.hint).toBe(
      'run `pix login`, or set PIX_TOKEN (or PIX_CLIENT_KEY and PIX_CLIENT_SECRET); `pix profile use sandbox` goes back to the built-in sandbox',
    );
    expect(noCredentialsError({ value: 'prod', source: 'flag' }).hint).toMatch(
      /^run `pix login --profile prod`.*; `--profile sandbox` goes back/,
    );
    expect(noCredentialsError({ value: 'prod', source: 'env' }).hint).toMatch(
      /`PIX_PROFILE=sandbox` goes back/,
    );
  });
});
