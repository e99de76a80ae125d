import { describe, expect, it } from 'vitest';
import { encodeBrCode } from '../../src/domain/brcodeencode.js';
import { PixError } from '../../src/errors.js';
import {
  COMPACT_QUIET_ZONE,
  drawQr,
  parseQrTheme,
  QUIET_ZONE,
  qrDrawingSize,
  qrForTerminal,
  qrModules,
  qrThemeOf,
  renderQr,
} from '../../src/output/qr.js';
import { reasonOf } from '../helpers/domain.js';
import { readQrFromScreen } from '../helpers/qr.js';
import { renderTerminal } from '../helpers/terminal.js';

const CODE = encodeBrCode({
  pixKey: 'loja@example.com',
  amount: 123456,
  merchantName: 'José Açaí & Cia',
  merchantCity: 'Belém',
  txid: 'pedido123',
});

async function shown(text: string, theme: 'light' | 'dark', columns = 80) {
  const drawing = await drawQr(text, theme);
  const { lines } = await renderTerminal(drawing.replaceAll('\n', '\r\n'), columns, 60);
  return { drawing, lines };
}

describe('the terminal QR code', () => {
  it.each(['light', 'dark'] as const)(
    'drawn for a %s terminal: a phone reads it there (UTF-8 code, CRC intact), with a quiet zone of 4 modules',
    async (theme) => {
      const { drawing, lines } = await shown(CODE, theme);
      expect(drawing).not.toContain('\u001b'); // plain text: the terminal's own colours do the work
      const read = readQrFromScreen(lines, 80, theme);
      expect(read?.text).toBe(CODE);
      expect(read?.quietZone).toBeGreaterThanOrEqual(QUIET_ZONE);
    },
  );

  it('drawn for one theme and shown on the other, the picture is inverted: the reason for --qr-theme', async () => {
    expect(readQrFromScreen((await shown(CODE, 'dark')).lines, 80, 'light')).toBeUndefined();
    expect(readQrFromScreen((await shown(CODE, 'light')).lines, 80, 'dark')).toBeUndefined();
  });

  it('a 400-character code fits an 80-column terminal, quiet zone included, and reads back', async () => {
    const long = Array.from(
      { length: 400 },
      (_, i) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./'[(i * 7) % 64],
    ).join('');
    const { drawing, lines } = await shown(long, 'light');
    const widths = drawing
      .trimEnd()
      .split('\n')
      .map((line) => Array.from(line).length);
    expect(Math.max(...widths)).toBeLessThanOrEqual(80);
    expect(readQrFromScreen(lines, 80, 'light')?.text).toBe(long);
  });

  it('--qr-theme and PIX_QR_THEME: light or dark in any case; the flag wins; dark by default', () => {
    expect(parseQrTheme('Light')).toBe('light');
    expect(parseQrTheme(' dark ')).toBe('dark');
    expect(reasonOf(() => parseQrTheme('blue'))).toMatch(/^"blue" is not a QR theme: light .* or dark/);
    expect(qrThemeOf(undefined, {})).toBe('dark');
    expect(qrThemeOf(undefined, { PIX_QR_THEME: '' })).toBe('dark');
    expect(qrThemeOf(undefined, { PIX_QR_THEME: 'LIGHT' })).toBe('light');
    expect(qrThemeOf('dark', { PIX_QR_THEME: 'light' })).toBe('dark');
    expect(qrThemeOf('dark', { PIX_QR_THEME: 'bogus' })).toBe('dark');
    let error: unknown;
    try {
      qrThemeOf(undefined, { PIX_QR_THEME: 'sepia' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PixError);
    expect((error as PixError).kind).toBe('usage');
    expect((error as PixError).message).toMatch(/^PIX_QR_THEME: "sepia" is not a QR theme/);
  });
});

describe('the smallest symbol, and a drawing only where it fits', () => {
  it('error correction L: the symbol is the smallest version the qrcode encoder can fit the code in', async () => {
    const qrcode = await import('qrcode');
    const create = (qrcode.create ??
      (qrcode as unknown as { default: typeof qrcode }).default.create) as typeof qrcode.create;
    const size = (await qrModules(CODE)).length;
    const version = (size - 17) / 4;
    expect(() => create(CODE, { errorCorrectionLevel: 'L', version: version - 1 })).toThrow();
    expect(create(CODE, { errorCorrectionLevel: 'L', version }).modules.size).toBe(size);
  });

  it('drawn when the whole drawing and the line below it fit (the standard quiet zone, else the compact one); else one line pointing to the PNG, no drawing', async () => {
    const size = (await qrModules(CODE)).length;
    const { columns, lines } = qrDrawingSize(size);
    expect(columns).toBe(size + 2 * QUIET_ZONE);
    const fit = await qrForTerminal(
      CODE,
      'dark',
      { columns, rows: lines + 1 },
      '`pix charge show X --qr-png qr.png`',
    );
    expect(fit.drawn).toBe(true);
    expect(fit.text).toBe(await drawQr(CODE, 'dark'));
    // One column or line short of the standard drawing: the compact one, 2 modules of quiet zone.
    const compact = qrDrawingSize(size, COMPACT_QUIET_ZONE);
    for (const screen of [
      { columns: columns - 1, rows: 100 },
      { columns: 200, rows: lines },
    ]) {
      const drawn = await qrForTerminal(CODE, 'dark', screen, '`pix charge show X --qr-png qr.png`');
      expect(drawn.drawn).toBe(true);
      expect(drawn.text).toBe(renderQr(await qrModules(CODE), 'dark', COMPACT_QUIET_ZONE));
    }
    for (const screen of [
      { columns: compact.columns - 1, rows: 100 },
      { columns: 200, rows: compact.lines },
    ]) {
      const note = await qrForTerminal(CODE, 'dark', screen, '`pix charge show X --qr-png qr.png`');
      expect(note.drawn).toBe(false);
      expect(note.text).not.toMatch(/[▀▄█]/);
      expect(note.text.trimEnd().split('\n')).toHaveLength(1);
      expect(note.text).toContain('--qr-png qr.png');
    }
    // A pipe or a file says no height: only the width counts.
    expect((await qrForTerminal(CODE, 'dark', { columns }, 'x')).drawn).toBe(true);
  });

  it('on a light theme at 80×24 a 45-module symbol is drawn with 1 module of quiet zone and the bottom row left to the next line (23 lines); a dark one cannot', async () => {
    // A sandbox charge's code as the sandbox makes it: 170 characters, upper case and digits where a BR
    // Code has them (a code of 170 bytes with no digit at all would need 49 modules: no PIX code is that).
    const code =
      '00020101021226710014br.gov.bcb.pix2549sandbox.pix.local/qr/v2/iTz9LODaoxq1jBMt5sx7w8e3l520400005303986540510.005802BR5917Loja Sandbox Ltda6009SAO PAULO62070503***6304D02D';
    const modules = await qrModules(code);
    expect(modules).toHaveLength(45);
    const light = await qrForTerminal(code, 'light', { columns: 80, rows: 24 }, 'x');
    expect(light.drawn).toBe(true);
    const lines = light.text.split('\n').slice(0, -1);
    expect(lines).toHaveLength(23);
    expect(lines.every((line) => line.length === 47)).toBe(true);
    expect(light.text).toBe(renderQr(modules, 'light', 1, true));
    const dark = await qrForTerminal(code, 'dark', { columns: 80, rows: 24 }, undefined);
    expect(dark.drawn).toBe(false);
    expect(dark.text).not.toContain('PNG');
    expect(dark.text).toContain('--qr-theme light draws it here');
  });

  it.each([100, 134])(
    'any code of %i characters is drawn on an 80×24 terminal (the worst case: bytes, no digits)',
    async (length) => {
      // Lower case and punctuation: byte mode all through, the largest symbol so many characters make
      // (134 bytes: a 41-module symbol, 45×23 with the compact quiet zone; the standard one needs 49×26).
      const worst = 'pix.example.com/qr/v2/'.padEnd(length, 'a~b|c');
      const drawn = await qrForTerminal(worst, 'dark', { columns: 80, rows: 24 }, 'x');
      expect(drawn.drawn).toBe(true);
    },
  );
});
