import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../../src/config/store.js';
import { SYSTEM } from '../../../src/system.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';
import { type PixOptions, pixWith } from '../../helpers/pix.js';

const TOKEN_PATH = '/api/financial/v1/auth/token';
const KEYS_PATH = '/api/financial/v1/pix/keys';
/** Recognisable, so a test can look for it in every output. */
const SECRET_TOKEN = 'tok_SUPERSECRET_7f3a9c2e1b8d4f60';
const CLIENT_SECRET = 'cs_SUPERSECRET_a1b2c3d4e5f6a7b8';
const NOW = new Date('2026-03-01T12:00:00Z');

const mock = mockAgentPerTest();
let dir: string;
const outputs: string[] = [];

beforeEach(() => {
  dir = tempConfigDir();
});

const onAgent = pixWith(() => ({
  env: { PIX_CONFIG_DIR: dir },
  dispatcher: mock.agent,
  clock: { now: () => NOW },
}));
/** pix, its output kept for the secret check of every output. */
async function pix(argv: string[], options: PixOptions = {}) {
  const result = await onAgent(argv, options);
  outputs.push(result.stdout, result.stderr);
  return result;
}

function stored() {
  return openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
}

describe('pix login --with-token', () => {
  it('stores the token from stdin in a 0600 file, makes the profile current, says where on stderr', async () => {
    const result = await pix(['login', '--with-token', '--base-url', `${ORIGIN}/`], {
      stdin: `${SECRET_TOKEN}\n`,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('Logged in to api.example.test as profile default\n');
    const store = stored();
    expect(store.currentProfile()).toBe('default');
    expect(store.getProfile('default')).toEqual({
      'base-url': ORIGIN,
      token: SECRET_TOKEN,
      tokenBaseUrl: ORIGIN,
    });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('keeps the other settings of an existing profile and its base URL', async () => {
    await pix(['login', '-p', 'prod', '--with-token', '--base-url', ORIGIN], { stdin: 'first-token-value' });
    await pix(['config', 'set', 'time-zone', 'America/Manaus', '-p', 'prod']);
    const result = await pix(['login', '-p', 'prod', '--with-token'], { stdin: SECRET_TOKEN });
    expect(result.code).toBe(0);
    expect(stored().getProfile('prod')).toEqual({
      'base-url': ORIGIN,
      'time-zone': 'America/Manaus',
      token: SECRET_TOKEN,
      tokenBaseUrl: ORIGIN,
    });
  });

  it.each([
    [['login', '--with-token', '--base-url', ORIGIN], '', /^error: --with-token: no token on stdin/],
    [['login', '--with-token', '--base-url', ORIGIN], 'two words', /one line of printable characters/],
    [['login', '--with-token'], SECRET_TOKEN, /^error: --base-url: required for the new profile "default"/],
    [
      ['login', '--with-token', '--base-url', 'http://api.example.test'],
      SECRET_TOKEN,
      /--base-url: plain http:\/\//,
    ],
    [
      ['login', '--with-token', '-p', 'sandbox', '--base-url', ORIGIN],
      SECRET_TOKEN,
      /sandbox is the built-in profile/,
    ],
    [
      ['login', '--with-token', '-p', 'bad name', '--base-url', ORIGIN],
      SECRET_TOKEN,
      /^error: --profile: "bad name" is not a profile name/,
    ],
    [['login', '--with-token', '--client-key', 'k', '--base-url', ORIGIN], SECRET_TOKEN, /not both/],
    [['login', '--base-url', ORIGIN], SECRET_TOKEN, /give --with-token/],
    [
      ['login', '--with-token', '--base-url', ORIGIN, '--tls-cert', '/c.pem'],
      SECRET_TOKEN,
      /--tls-cert and --tls-key go together/,
    ],
  ])('%o with stdin %j → exit 2, nothing stored', async (argv, stdin, message) => {
    const result = await pix(argv, { stdin });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(stored().listProfiles()).toEqual([]);
  });

  it('plain http to loopback is fine', async () => {
    const result = await pix(['login', '--with-token', '--base-url', 'http://127.0.0.1:8080'], {
      stdin: SECRET_TOKEN,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Logged in to 127.0.0.1:8080');
  });

  it('on a terminal it asks for the token without echo', async () => {
    const result = await pix(['login', '--with-token', '--base-url', ORIGIN], {
      tty: true,
      answers: [SECRET_TOKEN],
    });
    expect(result.code).toBe(0);
    expect(result.readLines).toEqual([{ hidden: true, from: 'stdin' }]);
    expect(result.stderr).toContain('Token: ');
    expect(stored().getProfile('default')?.token).toBe(SECRET_TOKEN);
  });
});

describe('pix login --client-key', () => {
  function mintReply(status: number, body: unknown, seen?: (body: unknown) => void) {
    mock.agent
      .get(ORIGIN)
      .intercept({ path: TOKEN_PATH, method: 'POST' })
      .reply((options) => {
        seen?.(JSON.parse(String(options.body)));
        return {
          statusCode: status,
          data: JSON.stringify(body),
          responseOptions: { headers: { 'content-type': 'application/json' } },
        };
      });
  }

  it('takes the secret from PIX_CLIENT_SECRET, verifies it by minting, caches the token', async () => {
    let sent: unknown;
    mintReply(200, { clientToken: 'minted-at-login', expiresIn: 900 }, (body) => {
      sent = body;
    });
    const result = await pix(['login', '-p', 'prod', '--client-key', 'my-key', '--base-url', ORIGIN], {
      env: { PIX_CLIENT_SECRET: CLIENT_SECRET },
    });
    expect(result.code).toBe(0);
    expect(sent).toEqual({ clientKey: 'my-key', clientSecret: CLIENT_SECRET });
    expect(stored().getProfile('prod')).toEqual({
      'base-url': ORIGIN,
      'client-key': 'my-key',
      clientSecret: CLIENT_SECRET,
      tokenBaseUrl: ORIGIN,
      cachedToken: { value: 'minted-at-login', expiresAt: '2026-03-01T12:15:00.000Z', baseUrl: ORIGIN },
    });
    expect(stored().currentProfile()).toBe('prod');
  });

  it('reads the secret from stdin when it is not a terminal', async () => {
    let sent: unknown;
    mintReply(200, { clientToken: 'm', expiresIn: 900 }, (body) => {
      sent = body;
    });
    const result = await pix(['login', '--client-key', 'my-key', '--base-url', ORIGIN], {
      stdin: `${CLIENT_SECRET}\n`,
    });
    expect(result.code).toBe(0);
    expect(sent).toEqual({ clientKey: 'my-key', clientSecret: CLIENT_SECRET });
  });

  it('asks with a hidden prompt on a terminal', async () => {
    mintReply(200, { clientToken: 'm', expiresIn: 900 });
    const result = await pix(['login', '--client-key', 'my-key', '--base-url', ORIGIN], {
      tty: true,
      answers: [CLIENT_SECRET],
    });
    expect(result.code).toBe(0);
    expect(result.readLines).toEqual([{ hidden: true, from: 'stdin' }]);
    expect(result.stderr).toContain('Client secret: ');
  });

  it('without a terminal and with nothing on stdin: exit 2, nothing sent', async () => {
    const result = await pix(['login', '--client-key', 'my-key', '--base-url', ORIGIN]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --client-key: no client secret on stdin/);
  });

  it('a terminal with --no-input cannot be asked: exit 2', async () => {
    const result = await pix(['login', '--no-input', '--client-key', 'my-key', '--base-url', ORIGIN], {
      tty: true,
    });
    expect(result.code).toBe(2);
    expect(result.readLines).toEqual([]);
  });

  it('rejected credentials: exit 3 and nothing stored', async () => {
    mintReply(401, { message: 'invalid client' });
    const result = await pix(['login', '--client-key', 'my-key', '--base-url', ORIGIN], {
      env: { PIX_CLIENT_SECRET: CLIENT_SECRET },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/client credentials were rejected; nothing was stored/);
    expect(stored().listProfiles()).toEqual([]);
  });
});

describe('pix logout', () => {
  it("removes the profile's secrets and keeps its settings", async () => {
    await pix(['login', '-p', 'prod', '--with-token', '--base-url', ORIGIN], { stdin: SECRET_TOKEN });
    const result = await pix(['logout', '-p', 'prod']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Logged out of profile prod');
    expect(stored().getProfile('prod')).toEqual({ 'base-url': ORIGIN });
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(SECRET_TOKEN);
  });

  it('of the current profile by default; an unknown profile is exit 2', async () => {
    await pix(['login', '--with-token', '--base-url', ORIGIN], { stdin: SECRET_TOKEN });
    expect((await pix(['logout'])).code).toBe(0);
    expect(stored().getProfile('default')?.token).toBeUndefined();
    const unknown = await pix(['logout', '-p', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no profile named "nope" \(profiles: default, sandbox\)/);
  });
});

describe('pix auth status', () => {
  async function loggedIn() {
    await pix(['login', '-p', 'prod', '--with-token', '--base-url', ORIGIN], { stdin: SECRET_TOKEN });
  }

  function keysReply(status: number) {
    mock.agent
      .get(ORIGIN)
      .intercept({ path: KEYS_PATH, method: 'GET', query: { limit: '1', offset: '0' } })
      .reply(status, status === 200 ? { total: 0, result: [] } : { message: 'invalid token' }, {
        headers: { 'content-type': 'application/json' },
      });
  }

  it('shows the profile, the base URL, the masked token and where each comes from; checks with the server', async () => {
    await loggedIn();
    keysReply(200);
    const result = await pix(['auth', 'status']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('profile\tprod\tprofile\n');
    expect(result.stdout).toContain(`base URL\t${ORIGIN}\tprofile\n`);
    expect(result.stdout).toContain('credentials\tbearer token\tprofile\n');
    expect(result.stdout).toContain(`token\ttok_… (${SECRET_TOKEN.length} chars)\tprofile\n`);
    expect(result.stdout).toContain('server\taccepted');
  });

  it('--json for scripts', async () => {
    await loggedIn();
    const result = await pix(['auth', 'status', '--json', '--offline'], { env: { PIX_PROFILE: 'prod' } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      profile: { value: 'prod', source: 'env' },
      baseUrl: { value: ORIGIN, source: 'profile' },
      sandbox: false,
      credentials: { kind: 'token', source: 'profile', token: `tok_… (${SECRET_TOKEN.length} chars)` },
      timeZone: { value: 'America/Sao_Paulo', source: 'default' },
      maxAmount: null,
      defaultKey: null,
      tls: null,
      ledger: { value: 'file (this config directory)', source: 'default' },
      server: 'not checked',
    });
  });

  it('credentials the server rejects: exit 3', async () => {
    await loggedIn();
    keysReply(401);
    const result = await pix(['auth', 'status']);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('server\trejected');
  });

  it('no credentials: exit 3 with a hint', async () => {
    await pix(['login', '-p', 'prod', '--with-token', '--base-url', ORIGIN], { stdin: SECRET_TOKEN });
    await pix(['logout']);
    const result = await pix(['auth', 'status']);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('credentials\tnone');
    expect(result.stderr).toMatch(/error: no credentials for profile "prod"\nhint: run `pix login`/);
  });

  it('--base-url elsewhere: the stored token is not used, a warning says so, exit 3', async () => {
    await loggedIn();
    const result = await pix(['auth', 'status', '--base-url', 'https://other.example.test']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /warning: the credentials stored in profile "prod" are for https:\/\/api\.example\.test/,
    );
  });

  it('the flag beats the environment, with a warning on stderr', async () => {
    await loggedIn();
    const result = await pix(['auth', 'status', '--offline', '-p', 'prod'], {
      env: { PIX_PROFILE: 'other' },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: --profile prod overrides PIX_PROFILE=other\n');
  });

  it('env credentials are named as such', async () => {
    const result = await pix(['auth', 'status', '--offline', '--json'], {
      env: { PIX_BASE_URL: ORIGIN, PIX_CLIENT_KEY: 'env-key', PIX_CLIENT_SECRET: CLIENT_SECRET },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).credentials).toEqual({
      kind: 'client',
      clientKey: { value: 'env-key', source: 'env' },
      clientSecret: { masked: `cs_S… (${CLIENT_SECRET.length} chars)`, source: 'env' },
    });
  });

  it('the built-in sandbox needs no credentials', async () => {
    const result = await pix(['auth', 'status', '--json']);
    expect(result.code).toBe(0);
    const status = JSON.parse(result.stdout);
    expect(status.profile).toEqual({ value: 'sandbox', source: 'default' });
    expect(status.sandbox).toBe(true);
    expect(status.credentials).toEqual({ kind: 'sandbox' });
  });
});

describe('secrets never reach any output', () => {
  it('a full session with the recognisable token and client secret, with and without --verbose', async () => {
    await pix(['login', '-p', 'prod', '--with-token', '--base-url', ORIGIN], { stdin: SECRET_TOKEN });
    mock.agent
      .get(ORIGIN)
      .intercept({ path: KEYS_PATH, method: 'GET', query: { limit: '1', offset: '0' } })
      .reply(
        401,
        { message: `token ${SECRET_TOKEN} is invalid` },
        { headers: { 'content-type': 'application/json' } },
      );
    await pix(['auth', 'status', '--verbose']);
    mock.agent
      .get(ORIGIN)
      .intercept({ path: KEYS_PATH, method: 'GET', query: { limit: '1', offset: '0' } })
      .reply(200, { total: 0, result: [] }, { headers: { 'content-type': 'application/json' } });
    await pix(['auth', 'status', '--json', '-v']);
    await pix(['auth', 'status', '--offline'], { tty: true });
    await pix(['config', 'list']);
    await pix(['config', 'list', '--json']);
    await pix(['config', 'get', 'token']);
    await pix(['profile', 'list', '--json']);
    mock.agent
      .get(ORIGIN)
      .intercept({ path: TOKEN_PATH, method: 'POST' })
      .reply(401, { message: 'bad secret' }, { headers: { 'content-type': 'application/json' } });
    await pix(['login', '-p', 'ci', '--client-key', 'k', '--base-url', ORIGIN, '--verbose'], {
      env: { PIX_CLIENT_SECRET: CLIENT_SECRET },
    });
    await pix(['logout', '-p', 'prod', '-v']);
    const everything = outputs.join('\n');
    expect(everything.length).toBeGreaterThan(0);
    expect(everything).toContain('tok_…');
    expect(everything).not.toContain(SECRET_TOKEN);
    expect(everything).not.toContain(CLIENT_SECRET);
    expect(everything).not.toContain('SUPERSECRET');
  });
});
