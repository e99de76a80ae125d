import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../../src/config/store.js';
import { run } from '../../../src/main.js';
import { SYSTEM } from '../../../src/system.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { createTestIO } from '../../helpers/io.js';
import { pixWith } from '../../helpers/pix.js';

const ORIGIN = 'https://api.example.test';
let dir: string;

beforeEach(async () => {
  dir = tempConfigDir();
  const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
  await store.setProfile('prod', { 'base-url': ORIGIN, token: 'stored-secret-token', tokenBaseUrl: ORIGIN });
  await store.setProfile('staging', {
    'base-url': 'https://staging.example.test',
    'client-key': 'old-key',
    clientSecret: 'stored-client-secret',
    tokenBaseUrl: 'https://staging.example.test',
    cachedToken: {
      value: 'cached',
      expiresAt: '2030-01-01T00:00:00.000Z',
      baseUrl: 'https://staging.example.test',
    },
  });
  await store.setCurrentProfile('prod');
});

const inConfigDir = pixWith(() => ({ env: { PIX_CONFIG_DIR: dir } }));
/** `env`: variables besides the config directory. */
const pix = (argv: string[], env: Record<string, string> = {}) => inConfigDir(argv, { env });

const profile = (name: string) => openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).getProfile(name);

describe('pix config', () => {
  it('list: the values in effect as key<TAB>value<TAB>source, secrets left out', async () => {
    const result = await pix(['config', 'list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`base-url\t${ORIGIN}\tprofile\ntime-zone\tAmerica/Sao_Paulo\tdefault\n`);
  });

  it('list --json: an object of the values in effect', async () => {
    const result = await pix(['config', 'list', '--json', '-p', 'staging']);
    expect(JSON.parse(result.stdout)).toEqual({
      'base-url': 'https://staging.example.test',
      'time-zone': 'America/Sao_Paulo',
      'client-key': 'old-key',
    });
    expect(result.stdout).not.toContain('stored-client-secret');
    expect(result.stdout).not.toContain('cached');
  });

  it('list on the sandbox (nothing stored) shows its defaults; on a terminal with the source in brackets', async () => {
    const piped = await pix(['config', 'list', '-p', 'sandbox']);
    expect(piped.stdout).toBe(
      'time-zone\tAmerica/Sao_Paulo\tdefault\ndefault-key\tloja@sandbox.pix.local\tdefault\n',
    );
    const test = createTestIO({ tty: true });
    expect(
      await run(['config', 'list', '-p', 'sandbox'], { io: test.io, env: { PIX_CONFIG_DIR: dir } }),
    ).toBe(0);
    expect(test.stdout()).toBe(
      'time-zone    America/Sao_Paulo (default)\ndefault-key  loja@sandbox.pix.local (default)\n',
    );
  });

  it('environment and flags count, and say so', async () => {
    const result = await pix(
      ['config', 'list', '-p', 'staging', '--base-url', 'https://flag.example.test/'],
      {
        PIX_CLIENT_KEY: 'env-key',
      },
    );
    expect(result.stdout).toBe(
      'base-url\thttps://flag.example.test\tflag\ntime-zone\tAmerica/Sao_Paulo\tdefault\nclient-key\tenv-key\tenv\n',
    );
    const fromEnv = await pix(['config', 'get', 'base-url', '--json'], {
      PIX_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(JSON.parse(fromEnv.stdout)).toEqual({
      key: 'base-url',
      value: 'http://127.0.0.1:9',
      source: 'env',
    });
  });

  it('get prints the value in effect alone (a default too); --json adds its source; a terminal shows it', async () => {
    expect(await pix(['config', 'get', 'time-zone'])).toMatchObject({
      code: 0,
      stdout: 'America/Sao_Paulo\n',
      stderr: '',
    });
    expect(JSON.parse((await pix(['config', 'get', 'time-zone', '--json'])).stdout)).toEqual({
      key: 'time-zone',
      value: 'America/Sao_Paulo',
      source: 'default',
    });
    await pix(['config', 'set', 'time-zone', 'America/Manaus']);
    const test = createTestIO({ tty: true });
    await run(['config', 'get', 'time-zone'], { io: test.io, env: { PIX_CONFIG_DIR: dir } });
    expect(test.stdout()).toBe('America/Manaus (profile)\n');
  });

  it('set then get: values are checked and stored in canonical form', async () => {
    expect((await pix(['config', 'set', 'max-amount', '1500,5'])).code).toBe(0);
    expect((await pix(['config', 'set', 'time-zone', 'America/Manaus'])).code).toBe(0);
    expect((await pix(['config', 'set', 'default-key', 'pix@example.test'])).code).toBe(0);
    expect((await pix(['config', 'get', 'max-amount'])).stdout).toBe('1500.50\n');
    expect((await pix(['config', 'get', 'time-zone'])).stdout).toBe('America/Manaus\n');
    expect(profile('prod')).toMatchObject({ 'max-amount': '1500.50', token: 'stored-secret-token' });
  });

  it('get of an unset key prints nothing (null with --json)', async () => {
    expect(await pix(['config', 'get', 'tls-cert'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(JSON.parse((await pix(['config', 'get', 'tls-cert', '--json'])).stdout)).toEqual({
      key: 'tls-cert',
      value: null,
      source: null,
    });
  });

  it.each([
    [['max-amount', '1e3'], /^error: max-amount: /],
    [['max-amount', '-5'], /^error: max-amount: .*negative/],
    [['time-zone', 'Mars/Olympus'], /^error: time-zone: "Mars\/Olympus" is not a time zone/],
    [
      ['base-url', 'http://api.example.test'],
      /^error: base-url: plain http:\/\/ is only allowed to loopback/,
    ],
    [['base-url', 'nonsense'], /^error: base-url: .*not a valid URL/],
    [['tls-cert', '/nonexistent/cert.pem'], /^error: tls-cert: cannot read \/nonexistent\/cert\.pem/],
    [['default-key', 'two words'], /^error: default-key: /],
    [['token', 'x'], /^error: KEY: "token" is a secret/],
    [['client-secret', 'x'], /is a secret/],
    [['colour', 'x'], /^error: KEY: unknown key "colour" \(keys: base-url, time-zone/],
  ])('set %o → exit 2 naming the key', async (args, message) => {
    const before = profile('prod');
    const result = await pix(['config', 'set', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(profile('prod')).toEqual(before);
  });

  it('get of a secret is refused', async () => {
    const result = await pix(['config', 'get', 'token']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain('stored-secret-token');
  });

  it('tls-cert is stored as an absolute path of a readable file', async () => {
    const cert = join(dir, 'cert.pem');
    writeFileSync(cert, 'PEM');
    expect((await pix(['config', 'set', 'tls-cert', cert])).code).toBe(0);
    expect(profile('prod')?.['tls-cert']).toBe(cert);
  });

  it('changing base-url warns that the stored credentials stay with the old URL', async () => {
    const result = await pix(['config', 'set', 'base-url', 'https://new.example.test/']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/credentials stored in profile prod are for https:\/\/api\.example\.test/);
    expect(profile('prod')?.['base-url']).toBe('https://new.example.test');
    const status = await pix(['auth', 'status', '--offline']);
    expect(status.code).toBe(3);
  });

  it('changing client-key drops the secret and the token minted for the old key', async () => {
    const result = await pix(['config', 'set', 'client-key', 'new-key', '-p', 'staging']);
    expect(result.code).toBe(0);
    expect(profile('staging')).toEqual({
      'base-url': 'https://staging.example.test',
      'client-key': 'new-key',
      tokenBaseUrl: 'https://staging.example.test',
    });
  });

  it('unset removes a key', async () => {
    await pix(['config', 'set', 'default-key', 'k@example.test']);
    expect((await pix(['config', 'unset', 'default-key'])).code).toBe(0);
    expect(profile('prod')?.['default-key']).toBeUndefined();
  });

  it('set -p NEW creates the profile; list -p UNKNOWN is exit 2', async () => {
    expect((await pix(['config', 'set', 'base-url', 'https://n.example.test', '-p', 'new'])).code).toBe(0);
    expect(profile('new')).toEqual({ 'base-url': 'https://n.example.test' });
    const unknown = await pix(['config', 'list', '-p', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no profile named "nope"/);
  });

  it('the sandbox profile may set its time zone but not where to connect', async () => {
    expect((await pix(['config', 'set', 'time-zone', 'UTC', '-p', 'sandbox'])).code).toBe(0);
    const refused = await pix(['config', 'set', 'base-url', 'https://x.test', '-p', 'sandbox']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: base-url: the built-in sandbox profile cannot set it/);
  });

  it('without a subcommand: help on stderr, exit 2', async () => {
    const result = await pix(['config']);
    expect(result.code).toBe(2);
  });

  it('a hand-edited config.json with a wrong type: one line naming file and key, exit 2; set repairs it', async () => {
    const path = join(dir, 'config.json');
    const document = JSON.parse(readFileSync(path, 'utf8'));
    document.profiles.prod['max-amount'] = {};
    writeFileSync(path, JSON.stringify(document));
    for (const argv of [['statement'], ['config', 'list'], ['auth', 'status', '--offline']]) {
      const result = await pix(argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `error: the config file ${path}: "max-amount" of profile "prod" is an object, not text\n` +
          'hint: run `pix config set max-amount VALUE --profile prod` (or `pix config unset max-amount --profile prod`), or fix the file by hand\n',
      );
    }
    expect((await pix(['config', 'set', 'max-amount', '250'])).code).toBe(0);
    expect(profile('prod')).toMatchObject({ 'max-amount': '250.00', token: 'stored-secret-token' });
    document.profiles.prod['max-amount'] = '250.00';
    document.profiles.prod['time-zone'] = ['America/Manaus'];
    writeFileSync(path, JSON.stringify(document));
    expect((await pix(['config', 'get', 'time-zone'])).stderr).toMatch(
      /"time-zone" of profile "prod" is a list/,
    );
    expect((await pix(['config', 'unset', 'time-zone'])).code).toBe(0);
    expect((await pix(['config', 'get', 'time-zone'])).stdout).toBe('America/Sao_Paulo\n');
  });
});
