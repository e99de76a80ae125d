/**
 * Hints that work where the person is: run as `npx pix` inside the clone (where a bare `pix` is not on
 * PATH), the next-page hint says `npx pix …`, and pasted as it is, it runs.
 */
import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN, tempConfigDir } from '../helpers/cli.js';

const exec = promisify(execFile);
const CLONE = dirname(dirname(BIN));

async function shell(line: string, env: Record<string, string>) {
  const { stderr } = await exec('bash', ['-c', line], {
    cwd: CLONE,
    // npm never asks the registry (no network in tests): offline, no update check.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
      ...env,
    },
    // npx loads npm before pix starts: 17 s a call at load 11 (CI, 2 cores), over 30 s once in a loaded run.
    timeout: 120_000,
  });
  return stderr;
}

const nextOf = (stderr: string) => /next page: (.*)$/m.exec(stderr)?.[1];

describe('the next-page hint, run through npx inside the clone', () => {
  it('says `npx pix …`, and that line runs as pasted', async () => {
    const env = { PIX_CONFIG_DIR: tempConfigDir() };
    const next = nextOf(await shell('npx --no-install pix keys --limit 1 --wide', env));
    expect(next).toBe('npx pix keys --wide --limit 1 --offset 1');
    const again = nextOf(await shell(`${next!.replace('npx pix', 'npx --no-install pix')}`, env));
    expect(again).toBe('npx pix keys --wide --limit 1 --offset 2');
  }, 300_000);
});
