import { beforeEach, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../../src/config/store.js';
import { run } from '../../../src/main.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { createTestIO } from '../../helpers/io.js';

let dir: string;

beforeEach(() => {
  dir = tempConfigDir();
});

async function pix(argv: string[], options: { env?: Record<string, string>; tty?: boolean } = {}) {
  const test = createTestIO({ tty: options.tty ?? false });
  const code = await run(argv, { io: test.io, env: { PIX_CONFIG_DIR: dir, ...options.env } });
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

async function seed() {
  const store = openConfigStore({ PIX_CONFIG_DIR: dir });
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
    expect(openConfigStore({ PIX_CONFIG_DIR: dir }).currentProfile()).toBe('staging');
    const back = await pix(['profile', 'use', 'sandbox']);
    expect(back.code).toBe(0);
    expect(back.stderr).toBe('Now using profile sandbox\n');
    expect(openConfigStore({ PIX_CONFIG_DIR: dir }).currentProfile()).toBe('sandbox');
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
    expect(openConfigStore({ PIX_CONFIG_DIR: dir }).currentProfile()).toBe('prod');
  });

  it('use warns when PIX_PROFILE still overrides it', async () => {
    await seed();
    const result = await pix(['profile', 'use', 'staging'], { env: { PIX_PROFILE: 'prod' } });
    expect(result.stderr).toContain('warning: PIX_PROFILE=prod still overrides it');
  });
});
