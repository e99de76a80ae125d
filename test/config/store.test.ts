import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, openConfigStore } from '../../src/config/store.js';
import { PAGE_LIMIT_TTL_MS, type ProfileData } from '../../src/config/types.js';
import { SYSTEM } from '../../src/system.js';
import { tempConfigDir } from '../helpers/cli.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('configDir', () => {
  it('PIX_CONFIG_DIR wins, then XDG_CONFIG_HOME, then ~/.config/pix', () => {
    expect(configDir({ PIX_CONFIG_DIR: '/x/y', XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' })).toBe('/x/y');
    expect(configDir({ XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' })).toBe('/xdg/pix');
    expect(configDir({ HOME: '/home/u' })).toBe('/home/u/.config/pix');
    // A relative XDG_CONFIG_HOME is invalid by the spec and ignored.
    expect(configDir({ XDG_CONFIG_HOME: 'rel', HOME: '/home/u' })).toBe('/home/u/.config/pix');
  });
});

describe('openConfigStore', () => {
  it('reads of a missing store create nothing', () => {
    const dir = join(tempConfigDir(), 'nested', 'pix');
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(store.dir).toBe(dir);
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(store.currentProfile()).toBeUndefined();
    expect(store.listProfiles()).toEqual([]);
    expect(store.getProfile('prod')).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it('writes the file 0600 in a directory created 0700, as JSON under profiles.<name>', async () => {
    const dir = join(tempConfigDir(), 'nested', 'pix');
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    await store.setProfile('prod', { 'base-url': 'https://api.example.test', token: 'secret-token' });
    await store.setCurrentProfile('prod');
    expect(mode(dir)).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
    const onDisk = JSON.parse(readFileSync(store.path, 'utf8'));
    expect(onDisk).toEqual({
      currentProfile: 'prod',
      profiles: { prod: { 'base-url': 'https://api.example.test', token: 'secret-token' } },
    });
    // A second store over the same directory sees it.
    const again = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(again.currentProfile()).toBe('prod');
    expect(again.getProfile('prod')?.token).toBe('secret-token');
  });

  it('tightens a config file that was made readable by others', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { a: {} } }), { mode: 0o644 });
    chmodSync(join(dir, 'config.json'), 0o644);
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    await store.setProfile('b', { 'time-zone': 'UTC' });
    expect(mode(store.path)).toBe(0o600);
    expect(store.listProfiles()).toEqual(['a', 'b']);
  });

  it('profile names with dots stay flat keys; undefined fields are dropped', async () => {
    const store = openConfigStore({ PIX_CONFIG_DIR: tempConfigDir() }, SYSTEM);
    // As a caller without types may hand it (a field read from an absent flag).
    await store.setProfile('a.b', {
      'base-url': 'https://x.test',
      token: undefined,
    } as unknown as ProfileData);
    expect(store.listProfiles()).toEqual(['a.b']);
    expect(store.getProfile('a.b')).toEqual({ 'base-url': 'https://x.test' });
  });

  it('a broken config file is a one-line usage error naming the file', () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), '{"profiles": ');
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(() => store.listProfiles()).toThrow(/config\.json is not valid JSON/);
    expect(() => store.currentProfile()).toThrow(expect.objectContaining({ kind: 'usage' }));
  });

  it('an inherited key name is not a profile', () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: {} }));
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(store.getProfile('constructor')).toBeUndefined();
    expect(store.getProfile('__proto__')).toBeUndefined();
  });

  it('a wrong-typed value is one line naming the file, the profile and the key, with the command that repairs it', async () => {
    const dir = tempConfigDir();
    const path = join(dir, 'config.json');
    writeFileSync(
      path,
      JSON.stringify({ profiles: { prod: { 'max-amount': {}, 'time-zone': 7 }, ok: { token: ['x'] } } }),
    );
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(store.listProfiles()).toEqual(['ok', 'prod']); // the rest of the file still reads
    let error: unknown;
    try {
      store.getProfile('prod');
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      kind: 'usage',
      message: `the config file ${path}: "time-zone" of profile "prod" is a number, not text`,
      hint: 'run `pix config set time-zone VALUE --profile prod` (or `pix config unset time-zone --profile prod`), or fix the file by hand',
    });
    // A secret of the wrong type is named, never shown; the repair is a new login.
    expect(() => store.getProfile('ok')).toThrow(
      expect.objectContaining({
        message: expect.stringContaining('"token" of profile "ok" is a list'),
        hint: expect.stringContaining('pix login --profile ok'),
      }),
    );
    // update() hands the raw document over, so a command can repair the key.
    await store.update((document) => {
      const prod = document.profiles.prod!;
      delete prod['time-zone'];
      prod['max-amount'] = '10.00';
    });
    expect(store.getProfile('prod')).toEqual({ 'max-amount': '10.00' });
  });

  it('a wrong-typed currentProfile or profiles names the key', () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentProfile: 5, profiles: {} }));
    expect(() => openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).currentProfile()).toThrow(
      expect.objectContaining({
        message: expect.stringContaining('"currentProfile" is a number, not text'),
        hint: expect.stringContaining('pix profile use'),
      }),
    );
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: [] }));
    expect(() => openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).listProfiles()).toThrow(
      /"profiles" is a list, not an object/,
    );
  });

  it('a cached token of the wrong shape is no cached token; null counts as not set', () => {
    const dir = tempConfigDir();
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        profiles: { p: { cachedToken: { value: 1 }, 'max-amount': null, 'time-zone': 'UTC' } },
      }),
    );
    expect(openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).getProfile('p')).toEqual({ 'time-zone': 'UTC' });
  });

  it('refuses a config.json that is a symbolic link, reading and writing, and leaves its target alone', async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'elsewhere.json');
    writeFileSync(target, JSON.stringify({ profiles: { planted: { 'base-url': 'https://evil.test' } } }));
    symlinkSync(target, join(dir, 'config.json'));
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(() => store.listProfiles()).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    await expect(store.setProfile('a', {})).rejects.toMatchObject({ code: 'ELOOP' });
    expect(JSON.parse(readFileSync(target, 'utf8')).profiles).toEqual({
      planted: { 'base-url': 'https://evil.test' },
    });
  });

  it('refuses a config directory others can write to, reading and writing, naming the chmod', async () => {
    const dir = tempConfigDir();
    chmodSync(dir, 0o777);
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    const refused = expect.objectContaining({
      kind: 'usage',
      hint: expect.stringContaining(`chmod 700 ${dir}`),
    });
    expect(() => store.listProfiles()).toThrow(refused);
    await expect(store.setProfile('a', {})).rejects.toEqual(refused);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('makes the directory 0700 and the file 0600 under umask 000', async () => {
    const dir = join(tempConfigDir(), 'a', 'pix');
    const old = process.umask(0);
    try {
      await openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).setProfile('p', { 'time-zone': 'UTC' });
    } finally {
      process.umask(old);
    }
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
  });

  it('update writes nothing when nothing changed, and leaves no lock or temporary file', async () => {
    const dir = join(tempConfigDir(), 'pix');
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(await store.update(() => 'nothing')).toBe('nothing');
    expect(readdirSync(dir)).toEqual([]);
    await store.setProfile('p', {});
    const before = statSync(store.path).mtimeMs;
    await store.update((document) => {
      document.profiles.p = {};
    });
    expect(statSync(store.path).mtimeMs).toBe(before);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('update throwing writes nothing', async () => {
    const store = openConfigStore({ PIX_CONFIG_DIR: tempConfigDir() }, SYSTEM);
    await store.setProfile('p', { 'time-zone': 'UTC' });
    await expect(
      store.update((document) => {
        document.profiles.p = {};
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(store.getProfile('p')).toEqual({ 'time-zone': 'UTC' });
  });

  it('40 concurrent updates from separate stores (as separate processes would be) keep every change', async () => {
    const dir = tempConfigDir();
    await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).update((document) => {
          document.profiles[`p${n}`] = { 'max-amount': `${n}.00` };
        }),
      ),
    );
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(store.listProfiles()).toHaveLength(40);
    for (let n = 0; n < 40; n++) expect(store.getProfile(`p${n}`)).toEqual({ 'max-amount': `${n}.00` });
  });
});

describe('the token cache', () => {
  const token = (value: string, expiresAt: string) => ({ value, expiresAt, baseUrl: 'https://api.test' });

  it('keeps tokens by digest, 0600 beside config.json, and drops the expired ones as it writes', async () => {
    const dir = join(tempConfigDir(), 'pix');
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(store.cachedToken('a')).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
    const now = new Date('2026-03-01T12:00:00Z');
    await store.cacheToken('a', token('A', '2026-03-01T12:10:00Z'), now);
    await store.cacheToken('b', token('B', '2026-03-01T12:15:00Z'), now);
    expect(store.cachedToken('a')?.value).toBe('A');
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'token-cache.json'))).toBe(0o600);
    // Later: a's token has expired and goes when c's is written.
    await store.cacheToken('c', token('C', '2026-03-01T12:30:00Z'), new Date('2026-03-01T12:11:00Z'));
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'token-cache.json'), 'utf8')))).toEqual(['b', 'c']);
    await store.cacheToken('b', undefined, now);
    expect(store.cachedToken('b')).toBeUndefined();
    expect(existsSync(store.path)).toBe(false); // config.json untouched
  });

  it('a broken cache is no cache, and is rebuilt', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'token-cache.json'), '{"a":');
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(store.cachedToken('a')).toBeUndefined();
    await store.cacheToken('a', token('A', '2099-01-01T00:00:00Z'), new Date());
    expect(store.cachedToken('a')?.value).toBe('A');
  });
});

describe('the page-size cache (page-limits.json)', () => {
  it('keeps what the pager learned per base URL and list, 0600, for PAGE_LIMIT_TTL_MS', async () => {
    const dir = tempConfigDir();
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    const now = new Date('2026-03-10T12:00:00Z');
    const url = 'https://api.example.test';
    expect(store.pageLimit(url, 'statement', now)).toBeUndefined();
    await store.rememberPageLimit(url, 'statement', 50, now);
    await store.rememberPageLimit(url, 'keys', 20, now);
    expect(store.pageLimit(url, 'statement', now)).toBe(50);
    expect(store.pageLimit(url, 'keys', now)).toBe(20);
    expect(store.pageLimit('https://other.example.test', 'statement', now)).toBeUndefined();
    expect(statSync(join(dir, 'page-limits.json')).mode & 0o777).toBe(0o600);
    const later = new Date(now.getTime() + PAGE_LIMIT_TTL_MS);
    expect(store.pageLimit(url, 'statement', later)).toBeUndefined();
  });

  it('a broken cache is no cache', () => {
    const dir = tempConfigDir();
    writeFileSync(
      join(dir, 'page-limits.json'),
      '{"https://api.example.test": {"statement": {"limit": "x"}}',
      {
        mode: 0o600,
      },
    );
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(store.pageLimit('https://api.example.test', 'statement', new Date())).toBeUndefined();
  });
});
