import { describe, expect, it } from 'vitest';
import { resolveProfileName, resolveSettings } from '../../src/config/resolve.js';
import { EMBEDDED_SANDBOX_URL, type ProfileData } from '../../src/config/types.js';
import { defaultGlobals, type Env, type GlobalOptions } from '../../src/context.js';
import { PixError } from '../../src/errors.js';
import { createMemoryStore } from '../helpers/config.js';

const PROD: ProfileData = {
  'base-url': 'https://api.example.test',
  token: 'stored-token-prod',
  tokenBaseUrl: 'https://api.example.test',
};
const STAGING: ProfileData = {
  'base-url': 'https://staging.example.test/',
  'client-key': 'key-staging',
  clientSecret: 'stored-secret-staging',
  tokenBaseUrl: 'https://staging.example.test',
};

function globals(overrides: Partial<GlobalOptions> = {}): GlobalOptions {
  return { ...defaultGlobals(), ...overrides };
}

function settings(
  flags: Partial<GlobalOptions>,
  env: Env,
  current?: string,
  profiles: Record<string, ProfileData> = { prod: PROD, staging: STAGING },
) {
  return resolveSettings(globals(flags), env, createMemoryStore(profiles, current));
}

function usage(fn: () => unknown): PixError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PixError);
    expect((error as PixError).kind).toBe('usage');
    return error as PixError;
  }
  throw new Error('expected a usage error');
}

describe('resolveProfileName: flag > env > current > sandbox', () => {
  const store = createMemoryStore({ prod: PROD, staging: STAGING }, 'staging');
  it.each([
    [{ profile: 'prod' }, { PIX_PROFILE: 'staging' }, { value: 'prod', source: 'flag' }],
    [{}, { PIX_PROFILE: 'prod' }, { value: 'prod', source: 'env' }],
    [{}, {}, { value: 'staging', source: 'profile' }],
  ])('%o %o → %o', (flags, env, expected) => {
    expect(resolveProfileName(globals(flags), env, store)).toEqual(expected);
  });
  it('falls back to the built-in sandbox', () => {
    expect(resolveProfileName(globals(), {}, createMemoryStore())).toEqual({
      value: 'sandbox',
      source: 'default',
    });
  });
});

describe('resolveSettings', () => {
  it('nothing configured: the embedded sandbox, no credentials needed', () => {
    const result = resolveSettings(globals(), {}, createMemoryStore());
    expect(result.sandbox).toBe(true);
    expect(result.profile).toEqual({ value: 'sandbox', source: 'default' });
    expect(result.baseUrl).toEqual({ value: EMBEDDED_SANDBOX_URL, source: 'default' });
    expect(result.credentials).toEqual({ kind: 'sandbox' });
    expect(result.timeZone).toEqual({ value: 'America/Sao_Paulo', source: 'default' });
    expect(result.warnings).toEqual([]);
  });

  it('PIX_TOKEN with nothing else configured warns that the sandbox is used', () => {
    const result = resolveSettings(globals(), { PIX_TOKEN: 'env-token-value' }, createMemoryStore());
    expect(result.sandbox).toBe(true);
    expect(result.warnings.join('\n')).toMatch(/PIX_TOKEN ignored.*built-in sandbox/);
    expect(result.warnings.join('\n')).not.toContain('env-token-value');
  });

  it('a base URL with no profile is not the embedded sandbox; credentials from the environment', () => {
    const result = resolveSettings(
      globals(),
      { PIX_BASE_URL: 'http://127.0.0.1:4010', PIX_TOKEN: 'env-token' },
      createMemoryStore(),
    );
    expect(result.sandbox).toBe(false);
    expect(result.baseUrl).toEqual({ value: 'http://127.0.0.1:4010', source: 'env' });
    expect(result.credentials).toEqual({ kind: 'token', token: { value: 'env-token', source: 'env' } });
  });

  it('the current profile: base URL and stored token from the profile', () => {
    const result = settings({}, {}, 'prod');
    expect(result.profile).toEqual({ value: 'prod', source: 'profile' });
    expect(result.baseUrl).toEqual({ value: 'https://api.example.test', source: 'profile' });
    expect(result.credentials).toEqual({
      kind: 'token',
      token: { value: 'stored-token-prod', source: 'profile' },
    });
    expect(result.sandbox).toBe(false);
  });

  it('client credentials of a profile (trailing slash of its base URL normalised)', () => {
    const result = settings({ profile: 'staging' }, {});
    expect(result.baseUrl.value).toBe('https://staging.example.test');
    expect(result.credentials).toEqual({
      kind: 'client',
      clientKey: { value: 'key-staging', source: 'profile' },
      clientSecret: { value: 'stored-secret-staging', source: 'profile' },
    });
  });

  it('env beats the profile: PIX_TOKEN over the stored token, PIX_BASE_URL over base-url', () => {
    const result = settings(
      {},
      { PIX_TOKEN: 'env-token', PIX_BASE_URL: 'https://other.example.test' },
      'prod',
    );
    expect(result.baseUrl).toEqual({ value: 'https://other.example.test', source: 'env' });
    expect(result.credentials).toEqual({ kind: 'token', token: { value: 'env-token', source: 'env' } });
  });

  it('env client credentials beat the profile token', () => {
    const result = settings({}, { PIX_CLIENT_KEY: 'ck', PIX_CLIENT_SECRET: 'cs' }, 'prod');
    expect(result.credentials).toEqual({
      kind: 'client',
      clientKey: { value: 'ck', source: 'env' },
      clientSecret: { value: 'cs', source: 'env' },
    });
  });

  it('a stored token is not sent to another base URL, and a warning says so', () => {
    const result = settings({ baseUrl: 'https://evil.example.test' }, {}, 'prod');
    expect(result.baseUrl).toEqual({ value: 'https://evil.example.test', source: 'flag' });
    expect(result.credentials).toEqual({ kind: 'none' });
    const warnings = result.warnings.join('\n');
    expect(warnings).toMatch(
      /stored in profile "prod" are for https:\/\/api\.example\.test, not https:\/\/evil/,
    );
    expect(warnings).not.toContain('stored-token-prod');
  });

  it('a stored client secret is not sent to another base URL either', () => {
    const result = settings({ profile: 'staging' }, { PIX_BASE_URL: 'https://elsewhere.test' });
    expect(result.credentials).toEqual({ kind: 'none' });
    expect(result.warnings.join('\n')).not.toContain('stored-secret-staging');
  });

  it('another base URL works with its own PIX_TOKEN, without a warning about the stored one', () => {
    const result = settings({ baseUrl: 'https://other.test' }, { PIX_TOKEN: 'other-token' }, 'prod');
    expect(result.credentials).toEqual({ kind: 'token', token: { value: 'other-token', source: 'env' } });
    expect(result.warnings).toEqual([]);
  });

  it('the same base URL written differently still uses the stored token', () => {
    const result = settings({ baseUrl: 'https://API.example.test/' }, {}, 'prod');
    expect(result.credentials.kind).toBe('token');
  });

  it('a stored token without the URL it was stored with is never sent', () => {
    const result = settings({}, {}, 'p', { p: { 'base-url': 'https://a.test', token: 'orphan-token' } });
    expect(result.credentials).toEqual({ kind: 'none' });
    expect(result.warnings.join('\n')).toMatch(/unknown base URL/);
  });

  it('a PIX_CLIENT_KEY other than the profile key is not paired with the stored secret', () => {
    const result = settings({ profile: 'staging' }, { PIX_CLIENT_KEY: 'another-key' });
    expect(result.credentials).toEqual({ kind: 'none' });
  });

  it('--profile and PIX_PROFILE disagree: the flag wins, with a warning', () => {
    const result = settings({ profile: 'prod' }, { PIX_PROFILE: 'staging' });
    expect(result.profile).toEqual({ value: 'prod', source: 'flag' });
    expect(result.warnings).toEqual(['--profile prod overrides PIX_PROFILE=staging']);
  });

  it('--base-url and PIX_BASE_URL disagree: the flag wins, with a warning naming no secret', () => {
    const result = settings(
      { baseUrl: 'https://api.example.test' },
      { PIX_BASE_URL: 'https://b.example.test', PIX_TOKEN: 'tok-secret' },
      'prod',
    );
    expect(result.baseUrl.source).toBe('flag');
    expect(result.warnings).toEqual([
      '--base-url https://api.example.test overrides PIX_BASE_URL=https://b.example.test',
    ]);
  });

  it('no warning when flag and env agree', () => {
    const result = settings(
      { profile: 'prod', baseUrl: 'https://x.test' },
      { PIX_PROFILE: 'prod', PIX_BASE_URL: 'https://x.test/' },
    );
    expect(result.warnings.filter((line) => line.includes('overrides'))).toEqual([]);
  });

  it('plain http to a non-loopback host is refused, naming where it came from', () => {
    expect(usage(() => settings({ baseUrl: 'http://api.example.test' }, {}, 'prod')).message).toMatch(
      /^--base-url: plain http:\/\/ is only allowed to loopback/,
    );
    expect(usage(() => settings({}, { PIX_BASE_URL: 'http://api.example.test' }, 'prod')).message).toMatch(
      /^PIX_BASE_URL: plain http/,
    );
    expect(usage(() => settings({}, {}, 'p', { p: { 'base-url': 'http://10.0.0.1' } })).message).toMatch(
      /^base-url \(profile "p"\): plain http/,
    );
  });

  it('a malformed base URL is a usage error', () => {
    expect(usage(() => settings({ baseUrl: 'not a url' }, {}, 'prod')).message).toMatch(
      /^--base-url: .*not a valid URL/,
    );
  });

  it('an unknown profile is a usage error listing the profiles', () => {
    expect(usage(() => settings({ profile: 'nope' }, {})).message).toBe(
      '--profile: no profile named "nope" (profiles: prod, staging, sandbox)',
    );
    expect(usage(() => settings({}, { PIX_PROFILE: 'nope' })).message).toMatch(/^PIX_PROFILE: no profile/);
  });

  it('a profile without a base URL is a usage error', () => {
    expect(usage(() => settings({}, {}, 'p', { p: {} })).message).toMatch(
      /^base-url \(profile "p"\): not set/,
    );
  });

  it('time zone, max amount, default key and mTLS come from the profile, validated', () => {
    const profile: ProfileData = {
      ...PROD,
      'time-zone': 'America/Manaus',
      'max-amount': '1500,50',
      'default-key': 'pix@example.test',
      'tls-cert': '/etc/pix/cert.pem',
      'tls-key': '/etc/pix/key.pem',
    };
    const result = settings({}, {}, 'p', { p: profile });
    expect(result.timeZone).toEqual({ value: 'America/Manaus', source: 'profile' });
    expect(result.maxAmount).toBe(150050);
    expect(result.defaultKey).toBe('pix@example.test');
    expect(result.tls).toEqual({ cert: '/etc/pix/cert.pem', key: '/etc/pix/key.pem' });
  });

  it('invalid profile values are usage errors naming the key', () => {
    expect(
      usage(() => settings({}, {}, 'p', { p: { ...PROD, 'time-zone': 'Mars/Olympus' } })).message,
    ).toMatch(/^time-zone \(profile "p"\)/);
    expect(usage(() => settings({}, {}, 'p', { p: { ...PROD, 'max-amount': '1e3' } })).message).toMatch(
      /^max-amount \(profile "p"\)/,
    );
    expect(usage(() => settings({}, {}, 'p', { p: { ...PROD, 'tls-cert': '/c.pem' } })).message).toMatch(
      /tls-cert and tls-key go together/,
    );
  });

  it('the sandbox profile may carry a time zone and a max amount', () => {
    const result = settings({}, {}, 'sandbox', { sandbox: { 'time-zone': 'UTC', 'max-amount': '50' } });
    expect(result.sandbox).toBe(true);
    expect(result.timeZone.value).toBe('UTC');
    expect(result.maxAmount).toBe(5000);
  });

  it('charges on the sandbox use its e-mail key unless the profile names another; real profiles get none', () => {
    expect(resolveSettings(globals(), {}, createMemoryStore()).defaultKey).toBe('loja@sandbox.pix.local');
    const chosen = settings({}, {}, 'sandbox', { sandbox: { 'default-key': '+5511912345678' } });
    expect(chosen.defaultKey).toBe('+5511912345678');
    const real = resolveSettings(
      globals(),
      { PIX_BASE_URL: 'https://api.example.test', PIX_TOKEN: 't' },
      createMemoryStore(),
    );
    expect(real.defaultKey).toBeUndefined();
  });
});
