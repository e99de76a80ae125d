import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeBrCode } from '../../src/domain/brcode.js';
import { QUIET_ZONE } from '../../src/output/qr.js';
import { SEEDED_KEYS } from '../../src/sandbox/seed.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { readQrFromScreen } from '../helpers/qr.js';
import { runOnPty } from '../helpers/terminal.js';

const CHARGE = ['charge', 'immediate', '--amount', '12,34', '--key-id', SEEDED_KEYS.email.id];

describe('the QR code of a charge on a real terminal, light and dark themes', () => {
  let sandbox: SandboxServer;
  let env: Record<string, string>;

  beforeEach(async () => {
    const dir = tempConfigDir();
    sandbox = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox.json') });
    env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: sandbox.url, PIX_TOKEN: 'e2e-token' };
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it.each([
    ['--qr-theme light', ['--qr-theme', 'light'], {}, 'light'],
    ['PIX_QR_THEME=light', [], { PIX_QR_THEME: 'light' }, 'light'],
    ['--qr-theme dark over PIX_QR_THEME=light', ['--qr-theme', 'dark'], { PIX_QR_THEME: 'light' }, 'dark'],
  ] as const)(
    '%s: a phone reads the code on a $3 terminal, 4 modules of quiet zone',
    async (_name, flags, extra, theme) => {
      const result = await runOnPty([...CHARGE, ...flags], { env: { ...env, ...extra }, rows: 60 });
      expect(result.code).toBe(0);
      const read = readQrFromScreen(result.lines, 80, theme);
      expect(read, result.lines.join('\n')).toBeDefined();
      expect(result.raw).toContain(read!.text); // the very code printed as copy-and-paste
      expect(decodeBrCode(read!.text).merchantName).not.toBe('');
      expect(read!.quietZone).toBeGreaterThanOrEqual(QUIET_ZONE);
      // Drawn for the other theme, it would be a negative a phone does not read.
      expect(readQrFromScreen(result.lines, 80, theme === 'light' ? 'dark' : 'light')).toBeUndefined();
    },
  );

  it.each([
    [['--qr-theme', 'sepia'], {}, '--qr-theme'],
    [[], { PIX_QR_THEME: 'sepia' }, 'PIX_QR_THEME'],
  ])('%j %j → exit 2 naming %s; no charge is created', async (flags, extra, name) => {
    const result = await runCli([...CHARGE, ...flags], { env: { ...env, ...extra } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^error: ${name}: "sepia" is not a QR theme`));
    expect(sandbox.requests).toHaveLength(0);
  });
});
