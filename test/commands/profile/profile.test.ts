import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../../src/config/store.js';
import { SYSTEM } from '../../../src/system.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { pixWith } from '../../helpers/pix.js';

let dir: string;

beforeEach(() => {
  dir = tempConfigDir();
});

const pix = pixWith(() => ({ env: { PIX_CONFIG_DIR: dir } }));

async function seed() {
  const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
  await store.setProfile('prod', {
    'base-url': 'https://api.example.test',
    token: 'x',
    tokenBaseUrl: 'https://api.example.test',
  });
  await store.setProfile('staging', { 'base-url': 'https://staging.example.test' });
  await store.setCurrentProfile('prod');
}

describe('pix profile', () => {
  it('list on a fresh machine: only the built-in sandbox, active', async () => {
    const result = await pix(['profile', 'list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('*\tsandbox\t(built-in)\n');
  });

  it('list marks the current profile (piped: TSV; terminal: aligned)', async () => {
    await seed();
    expect((await pix(['profile', 'list'])).stdout).toBe(
      '*\tprod\thttps://api.example.test\n\tstaging\thttps://staging.example.test\n\tsandbox\t(built-in)\n',
    );
    expect((await pix(['profile', 'list'], { tty: true })).stdout).toContain(
      '* prod  https://api.example.test\n',
    );
  });

  it('list --json', async () => {
    await seed();
    const result = await pix(['profile', 'list', '--json']);
    expect(JSON.parse(result.stdout)).toEqual({
      current: 'prod',
      profiles: [
        { name: 'prod', current: true, baseUrl: 'https://api.example.test', credentials: 'token' },
        { name: 'staging', current: false, baseUrl: 'https://staging.example.test', credentials: 'none' },
        { name: 'sandbox', current: false, baseUrl: null, credentials: 'sandbox' },
      ],
    });
  });

  it('PIX_PROFILE marks the profile a command would use now', async () => {
    await seed();
    const result = await pix(['profile', 'list', '--json'], { env: { PIX_PROFILE: 'staging' } });
    expect(JSON.parse(result.stdout).current).toBe('staging');
  });

  it('use switches the current profile, sandbox included', async () => {
    await seed();
    expect((await pix(['profile', 'use', 'staging'])).code).toBe(0);
    expect(openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).currentProfile()).toBe('staging');
    const back = await pix(['profile', 'use', 'sandbox']);
    expect(back.code).toBe(0);
    expect(back.stderr).toBe('Now using profile sandbox\n');
    expect(openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).currentProfile()).toBe('sandbox');
    const status = await pix(['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout).sandbox).toBe(true);
  });

  it('use of an unknown profile: exit 2 listing the profiles', async () => {
    await seed();
    const result = await pix(['profile', 'use', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: NAME: no profile named "nope" \(profiles: prod, staging, sandbox\)/,
    );
    expect(openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).currentProfile()).toBe('prod');
  });

  it('use warns when PIX_PROFILE still overrides it', async () => {
    await seed();
    const result = await pix(['profile', 'use', 'staging'], { env: { PIX_PROFILE: 'prod' } });
    expect(result.stderr).toContain('warning: PIX_PROFILE=prod still overrides it');
  });
});

describe('pix profile delete', () => {
  const configText = () => readFileSync(join(dir, 'config.json'), 'utf8');

  it('--yes removes the profile and its token from disk; the others stay', async () => {
    await seed();
    await pix(['profile', 'use', 'staging']);
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    await store.update((document) => {
      document.profiles.prod!.token = 'secret-token-of-prod-4f1c';
    });
    expect(configText()).toContain('secret-token-of-prod-4f1c');
    const result = await pix(['profile', 'delete', 'prod', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('Deleted profile prod and its stored credentials\n');
    expect(configText()).not.toContain('secret-token-of-prod-4f1c');
    expect(configText()).not.toContain('api.example.test');
    expect(store.listProfiles()).toEqual(['staging']);
    expect(store.currentProfile()).toBe('staging');
  });

  it('on a terminal it asks; "n" deletes nothing (exit 8, declined), "y" deletes', async () => {
    await seed();
    await pix(['profile', 'use', 'staging']);
    const no = await pix(['profile', 'delete', 'prod'], { tty: true, answers: ['n'] });
    expect(no.code).toBe(8);
    expect(no.stderr).toContain('Delete profile prod and its stored credentials? [y/N]');
    expect(openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).listProfiles()).toEqual(['prod', 'staging']);
    const yes = await pix(['profile', 'delete', 'prod'], { tty: true, answers: ['y'] });
    expect(yes.code, yes.stderr).toBe(0);
    expect(openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).listProfiles()).toEqual(['staging']);
  });

  it.each([
    [['profile', 'delete', 'prod'], {}, 'NAME: "prod" is the profile in use'],
    [
      ['profile', 'delete', 'staging'],
      { PIX_PROFILE: 'staging' },
      'NAME: "staging" is the profile in use (PIX_PROFILE)',
    ],
    [['profile', 'delete', 'staging'], {}, 'cannot ask for confirmation'],
    [['profile', 'delete', 'sandbox', '--yes'], {}, 'NAME: the built-in sandbox profile cannot be deleted'],
    [['profile', 'delete', 'nope', '--yes'], {}, 'NAME: no profile named "nope"'],
  ])('%j is refused with exit 2 and deletes nothing', async (argv, env, message) => {
    await seed();
    const before = configText();
    const result = await pix(argv, { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(configText()).toBe(before);
  });

  it('the saved choice is forgotten when it named the deleted profile (PIX_PROFILE chose another)', async () => {
    await seed();
    const result = await pix(['profile', 'delete', 'prod', '--yes'], { env: { PIX_PROFILE: 'staging' } });
    expect(result.code, result.stderr).toBe(0);
    expect(openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).currentProfile()).toBeUndefined();
  });
});

describe('pix profile rename', () => {
  const configText = () => readFileSync(join(dir, 'config.json'), 'utf8');

  it('moves settings and secrets to NEW, remembers OLD as a former name, follows the saved choice', async () => {
    await seed();
    const result = await pix(['profile', 'rename', 'prod', 'loja']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe(
      'Renamed profile prod to loja; what it paid and charged as prod stays its own\n',
    );
    const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
    expect(store.listProfiles().sort()).toEqual(['loja', 'staging']);
    expect(store.currentProfile()).toBe('loja');
    const document = JSON.parse(configText()) as { profiles: Record<string, Record<string, unknown>> };
    expect(document.profiles.loja).toMatchObject({
      'base-url': 'https://api.example.test',
      token: 'x',
      formerNames: ['prod'],
    });
    // Renamed again: every former name is kept (the journal may hold entries under each).
    expect((await pix(['profile', 'rename', 'loja', 'loja2'])).code).toBe(0);
    const again = JSON.parse(configText()) as { profiles: Record<string, Record<string, unknown>> };
    expect(again.profiles.loja2!.formerNames).toEqual(['prod', 'loja']);
  });

  it.each([
    [['profile', 'rename', 'sandbox', 'x'], 'OLD: the built-in sandbox profile cannot be renamed'],
    [['profile', 'rename', 'prod', 'sandbox'], 'NEW: "sandbox" is the built-in profile\'s name'],
    [['profile', 'rename', 'nope', 'x'], 'OLD: no profile named "nope"'],
    [['profile', 'rename', 'prod', 'staging'], 'NEW: a profile "staging" exists'],
    [['profile', 'rename', 'prod', 'bad name'], 'NEW: "bad name" is not a profile name'],
  ])('%j is refused with exit 2 and changes nothing', async (argv, message) => {
    await seed();
    const before = configText();
    const result = await pix(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(configText()).toBe(before);
  });
});
