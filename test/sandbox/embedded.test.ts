import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmbeddedSandbox } from '../../src/sandbox/embedded.js';
import { defaultStateFile } from '../../src/sandbox/paths.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pix-embedded-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('startEmbeddedSandbox', () => {
  it('serves the default state file of PIX_CONFIG_DIR on a loopback port', async () => {
    const sandbox = await startEmbeddedSandbox({ PIX_CONFIG_DIR: dir });
    try {
      expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await request(`${sandbox.baseUrl}/api/financial/v1/pix/keys`, {
        headers: { authorization: 'Bearer sandbox' },
      });
      expect(res.statusCode).toBe(200);
      expect(((await res.body.json()) as { total: number }).total).toBe(4);
      expect(existsSync(join(dir, 'sandbox-state.json'))).toBe(true);
    } finally {
      await sandbox.close();
    }
  });

  it('takes faults from PIX_SANDBOX_FAULTS and refuses a bad spec as a usage error', async () => {
    const sandbox = await startEmbeddedSandbox({ PIX_CONFIG_DIR: dir, PIX_SANDBOX_FAULTS: 'keys:429x1' });
    try {
      const res = await request(`${sandbox.baseUrl}/api/financial/v1/pix/keys`, {
        headers: { authorization: 'Bearer t' },
      });
      expect(res.statusCode).toBe(429);
      await res.body.dump();
    } finally {
      await sandbox.close();
    }
    await expect(
      startEmbeddedSandbox({ PIX_CONFIG_DIR: dir, PIX_SANDBOX_FAULTS: 'nope' }),
    ).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/^PIX_SANDBOX_FAULTS: /),
    });
  });
});

describe('defaultStateFile', () => {
  it('follows PIX_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config/pix', () => {
    expect(defaultStateFile({ PIX_CONFIG_DIR: '/x' })).toBe('/x/sandbox-state.json');
    expect(defaultStateFile({ XDG_CONFIG_HOME: '/xdg', HOME: '/h' })).toBe('/xdg/pix/sandbox-state.json');
    expect(defaultStateFile({ HOME: '/h' })).toBe('/h/.config/pix/sandbox-state.json');
  });
});
