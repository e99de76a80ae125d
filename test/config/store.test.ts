import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, openConfigStore } from '../../src/config/store.js';
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
    const store = openConfigStore({ PIX_CONFIG_DIR: dir });
    expect(store.dir).toBe(dir);
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(store.currentProfile()).toBeUndefined();
    expect(store.listProfiles()).toEqual([]);
    expect(store.getProfile('prod')).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it('writes the file 0600 in a directory created 0700, as JSON under profiles.<name>', async () => {
    const dir = join(tempConfigDir(), 'nested', 'pix');
    const store = openConfigStore({ PIX_CONFIG_DIR: dir });
    await store.setProfile('prod', { 'base-url': 'https://api.example.test', token: 'secret-token' });
    await store.setCurrentProfile('prod');
    expect(mode(dir)).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
    const onDisk = JSON.parse(readFileSync(store.path, 'utf8'));
    expect(onDisk).toEqual({
      currentProfile: 'prod',
      profiles: { prod: { 'base-url': 'https://api.example.test', token: 'secret-token' } },
    });
    // A second store over the same directory sees it (the fast read path parses what conf wrote).
    const again = openConfigStore({ PIX_CONFIG_DIR: dir });
    expect(again.currentProfile()).toBe('prod');
    expect(again.getProfile('prod')?.token).toBe('secret-token');
  });

  it('tightens a config file that was made readable by others', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { a: {} } }), { mode: 0o644 });
    chmodSync(join(dir, 'config.json'), 0o644);
    const store = openConfigStore({ PIX_CONFIG_DIR: dir });
    await store.setProfile('b', { 'time-zone': 'UTC' });
    expect(mode(store.path)).toBe(0o600);
    expect(store.listProfiles()).toEqual(['a', 'b']);
  });

  it('profile names with dots stay flat keys; undefined fields are dropped', async () => {
    const store = openConfigStore({ PIX_CONFIG_DIR: tempConfigDir() });
    await store.setProfile('a.b', { 'base-url': 'https://x.test', token: undefined });
    expect(store.listProfiles()).toEqual(['a.b']);
    expect(store.getProfile('a.b')).toEqual({ 'base-url': 'https://x.test' });
  });

  it('deleting the current profile clears the pointer; others stay', async () => {
    const store = openConfigStore({ PIX_CONFIG_DIR: tempConfigDir() });
    await store.setProfile('a', {});
    await store.setProfile('b', {});
    await store.setCurrentProfile('a');
    await store.deleteProfile('a');
    expect(store.listProfiles()).toEqual(['b']);
    expect(store.currentProfile()).toBeUndefined();
  });

  it('a broken config file is a one-line usage error naming the file', () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), '{"profiles": ');
    const store = openConfigStore({ PIX_CONFIG_DIR: dir });
    expect(() => store.listProfiles()).toThrow(/config\.json is not valid JSON/);
    expect(() => store.currentProfile()).toThrow(expect.objectContaining({ kind: 'usage' }));
  });

  it('an inherited key name is not a profile', () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: {} }));
    const store = openConfigStore({ PIX_CONFIG_DIR: dir });
    expect(store.getProfile('constructor')).toBeUndefined();
    expect(store.getProfile('__proto__')).toBeUndefined();
  });
});
