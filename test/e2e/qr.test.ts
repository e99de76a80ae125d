import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeBrCode } from '../../src/domain/brcode.js';
import { encodeBrCode } from '../../src/domain/brcodeencode.js';
import { QUIET_ZONE } from '../../src/output/qr.js';
import { SEEDED_KEYS } from '../../src/sandbox/seed.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { KEY_ID, STATIC_TOKEN, startFakePixApi } from '../helpers/fake-pix-api.js';
import { readQrFromScreen } from '../helpers/qr.js';
import { runOnPty } from '../helpers/terminal.js';

/** The lines of the note about the QR, from its first line to the blank line or the end, joined by spaces. */
function noteOf(lines: string[]): string {
  const start = lines.findIndex((line) => line.startsWith('the QR code needs'));
  expect(start, lines.join('\n')).toBeGreaterThan(-1);
  const end = lines.indexOf('', start);
  return lines.slice(start, end === -1 ? undefined : end).join(' ');
}

const CHARGE = ['charge', 'immediate', '--amount', '12,34', '--key', SEEDED_KEYS.email.key];

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

  it("at 80×24 on a light theme a sandbox charge's code (170 characters, 45 modules) is drawn with 1 module of quiet zone, and a phone reads it", async () => {
    const result = await runOnPty(CHARGE, { env: { ...env, PIX_QR_THEME: 'light' }, columns: 80, rows: 24 });
    expect(result.code).toBe(0);
    const read = readQrFromScreen(result.screen, 80, 'light');
    expect(read, result.screen.join('\n')).toBeDefined();
    expect(read!.text).toHaveLength(170);
    expect(result.raw).toContain(read!.text);
  });

  it('at 80×24 on a dark theme (which must draw its quiet zone: 49×26) the code and one line pointing to --qr-png and a light theme, no broken drawing; with --qr-png given, no hint for it', async () => {
    const result = await runOnPty(CHARGE, { env, columns: 80, rows: 24 });
    expect(result.code).toBe(0);
    expect(result.lines.filter((line) => /[▀▄█]/.test(line))).toEqual([]);
    expect(noteOf(result.lines)).toMatch(
      /^the QR code needs a 49×26 terminal, this one is 80×24: .* with `pix charge show \S+ --qr-png qr\.png`; on a light terminal theme, --qr-theme light draws it here$/,
    );
    const png = await runOnPty([...CHARGE, '--qr-png', join(env.PIX_CONFIG_DIR!, 'qr.png')], {
      env,
      columns: 80,
      rows: 24,
    });
    expect(png.code).toBe(0);
    expect(noteOf(png.lines)).not.toContain('--qr-png');
    expect(result.raw).toMatch(/Pix copy and paste:\r?\n0002/);
    // The same charge on a taller terminal: drawn whole, and a phone reads it.
    const tall = await runOnPty(CHARGE, { env, columns: 80, rows: 28 });
    expect(readQrFromScreen(tall.screen, 80, 'dark'), tall.lines.join('\n')).toBeDefined();
  });

  it('at 46 columns the code is not drawn (it would wrap into garbage): one line pointing to --qr-png', async () => {
    const result = await runOnPty(CHARGE, { env, columns: 46, rows: 60 });
    // (a dark theme: the default)
    expect(result.code).toBe(0);
    expect(result.lines.filter((line) => /[▀▄█]/.test(line))).toEqual([]);
    // One line of text, wrapped by the terminal note writer at word boundaries to the 50 columns.
    expect(noteOf(result.lines)).toMatch(
      /^the QR code needs a 49×26 terminal, this one is 46×60: .*--qr-png qr\.png`$/,
    );
  });
});

describe("a provider's 180-character code on an 80×24 terminal", () => {
  it('is drawn on a light theme and a phone reads it off the screen of a real pty', async () => {
    // A real provider's dynamic code: a longer location URL than the sandbox's, 180 characters in all.
    const base = {
      merchantName: 'LOJA EXEMPLO COMERCIO LTDA',
      merchantCity: 'SAO PAULO',
      amount: 1234,
    };
    const stem = 'pix.bancoexemplo.com.br/qr/v3/at/';
    const bare = encodeBrCode({ ...base, url: stem }).length;
    const url = `${stem}${'0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9'.slice(0, 180 - bare)}`;
    const code = encodeBrCode({ ...base, url });
    expect(code).toHaveLength(180);
    const api = await startFakePixApi();
    try {
      const answer = api.chargeAnswer;
      api.chargeAnswer = (request, body) => {
        const behaviour = answer(request, body);
        return behaviour.kind === 'json'
          ? { ...behaviour, body: { ...(behaviour.body as object), emvqrcps: code } }
          : behaviour;
      };
      const dir = tempConfigDir();
      const result = await runOnPty(['charge', 'immediate', '--amount', '12,34', '--key-id', KEY_ID], {
        env: { PIX_CONFIG_DIR: dir, PIX_BASE_URL: api.url, PIX_TOKEN: STATIC_TOKEN, PIX_QR_THEME: 'light' },
        columns: 80,
        rows: 24,
      });
      expect(result.code, result.raw).toBe(0);
      const read = readQrFromScreen(result.screen, 80, 'light');
      expect(read, result.screen.join('\n')).toBeDefined();
      expect(read!.text).toBe(code);
      expect(read!.quietZone).toBeGreaterThanOrEqual(1);
    } finally {
      await api.close();
    }
  });
});
