/**
 * The QR code drawn in the terminal: the one place it is drawn. The symbol comes from the `qrcode`
 * package's encoder (`qrcode.create`, the one the PNG below is made from), loaded only when a drawing is
 * asked for, so nothing else pays for it (architecture rule 8); the drawing is ours, so it can suit the
 * terminal's theme and keep the quiet zone a phone needs.
 */
import type { Env } from '../context.js';
import { InvalidValue } from '../domain/invalid.js';
import { asUsage } from '../usage.js';

/**
 * Which terminal the code is drawn for. A terminal draws the block characters in its foreground colour
 * on its background colour, and a phone reads dark modules on a light background:
 * - `dark` (dark terminal theme, light text on a dark background): the light modules are drawn;
 * - `light` (light terminal theme, dark text on a light background): the dark modules are drawn.
 */
export type QrTheme = 'light' | 'dark';

export const QR_THEMES: readonly QrTheme[] = ['light', 'dark'];

/** What pix draws without `--qr-theme` or PIX_QR_THEME: most terminals have a dark theme. */
export const DEFAULT_QR_THEME: QrTheme = 'dark';

/** Modules of light margin around the symbol on every side: the 4 the QR standard asks for. */
export const QUIET_ZONE = 4;
/**
 * The margin of the compact drawing, when the standard one does not fit the terminal: 2 modules, which
 * phones' readers take (the terminal's own background around it widens it further), so a code of up to
 * 100 characters fits an 80×24 terminal.
 */
export const COMPACT_QUIET_ZONE = 2;

/** `--qr-theme` / PIX_QR_THEME: light or dark, in any case. */
export function parseQrTheme(text: string): QrTheme {
  const theme = text.trim().toLowerCase();
  if (theme === 'light' || theme === 'dark') return theme;
  throw new InvalidValue(
    `"${text}" is not a QR theme: light (dark modules, for light terminal themes) or dark (for dark ones)`,
  );
}

/** The theme in effect: the flag, else PIX_QR_THEME (a bad value is a usage error naming it), else dark. */
export function qrThemeOf(flag: QrTheme | undefined, env: Env): QrTheme {
  if (flag !== undefined) return flag;
  const fromEnv = env.PIX_QR_THEME;
  if (fromEnv === undefined || fromEnv === '') return DEFAULT_QR_THEME;
  return asUsage('PIX_QR_THEME', () => parseQrTheme(fromEnv));
}

/** The `qrcode` package, loaded on first use: its functions sit on the namespace or, from CommonJS, on `default`. */
async function loadQrcode(): Promise<typeof import('qrcode')> {
  const qrcode = await import('qrcode');
  return qrcode.create === undefined ? (qrcode as unknown as { default: typeof qrcode }).default : qrcode;
}

/**
 * The modules of the QR symbol of `text` (true = dark), error correction L so a PIX code fits in 80 columns.
 * The encoder writes the text as UTF-8 (the bytes the code's CRC covers) and picks the smallest mix of
 * numeric, alphanumeric and byte segments.
 */
export async function qrModules(text: string): Promise<boolean[][]> {
  const { modules } = (await loadQrcode()).create(text, { errorCorrectionLevel: 'L' });
  return Array.from({ length: modules.size }, (_, row) =>
    Array.from({ length: modules.size }, (_, col) => modules.get(row, col) === 1),
  );
}

const GLYPHS = [' ', '▄', '▀', '█'] as const; // index: (top drawn ? 2 : 0) + (bottom drawn ? 1 : 0)

/**
 * The drawing of `modules` for a terminal of `theme`: two modules per character cell (half blocks, so
 * a PIX code fits in 80 columns), `quiet` light modules on every side. Plain text, no colour codes.
 */
export function renderQr(
  modules: readonly (readonly boolean[])[],
  theme: QrTheme,
  quiet = QUIET_ZONE,
  openBottom = false,
): string {
  // `openBottom`: the rows end with the symbol's last, the quiet zone below it left to the next line.
  const width = modules.length + 2 * quiet;
  const height = openBottom ? modules.length + quiet : width;
  // Outside the symbol is the light quiet zone.
  const isDark = (row: number, col: number) => modules[row - quiet]?.[col - quiet] === true;
  const drawn = (row: number, col: number) => isDark(row, col) === (theme === 'light');
  const lines: string[] = [];
  // An odd number of rows ends in one more light row: still quiet zone.
  for (let row = 0; row < height; row += 2) {
    let line = '';
    for (let col = 0; col < width; col++) {
      line += GLYPHS[(drawn(row, col) ? 2 : 0) + (drawn(row + 1, col) ? 1 : 0)];
    }
    lines.push(line);
  }
  return `${lines.join('\n')}\n`;
}

/** The QR code of `text` drawn for a terminal of `theme`. */
export async function drawQr(text: string, theme: QrTheme): Promise<string> {
  return renderQr(await qrModules(text), theme);
}

/** Where a drawing goes: a terminal's columns and, when it says, its lines. */
export interface QrScreen {
  columns: number;
  rows?: number | undefined;
}

/**
 * The last resort on a light theme: 1 module of quiet zone, which phones read when the terminal's own light
 * background goes on around it. Its bottom row is left to the line below (the next line of the terminal is
 * its background too): a 45-module symbol, a 170-character PIX code, is 47×23 and fits an 80×24 terminal.
 */
export const LIGHT_QUIET_ZONE = 1;

/**
 * Columns and lines the drawing of a symbol of `size` modules takes, a `quiet` zone included (with
 * `openBottom`, the bottom quiet row left to the line below when it would take a line of its own).
 */
export function qrDrawingSize(
  size: number,
  quiet = QUIET_ZONE,
  openBottom = false,
): { columns: number; lines: number } {
  const modules = size + 2 * quiet;
  const rows = openBottom ? size + quiet : modules;
  return { columns: modules, lines: Math.ceil(rows / 2) };
}

/** The drawing modes tried, roomiest first: the standard margin, the compact one, and on a light theme 1. */
function drawings(theme: QrTheme): Array<{ quiet: number; openBottom: boolean }> {
  const modes = [
    { quiet: QUIET_ZONE, openBottom: false },
    { quiet: COMPACT_QUIET_ZONE, openBottom: false },
  ];
  if (theme === 'light') modes.push({ quiet: LIGHT_QUIET_ZONE, openBottom: true });
  return modes;
}

/**
 * The QR code of `text` for a terminal of `screen`, `below` lines of it taken by what is written after the
 * drawing (at least the shell's prompt): the drawing when the whole of it fits, quiet zone included (the
 * standard 4 modules, else the compact 2, else on a light theme 1 with the terminal's background around
 * it), so no finder pattern scrolls away or wraps; otherwise one line saying so and pointing to `pngHint`
 * (the command that writes it as a PNG; undefined when the PNG is being written already), never a broken
 * drawing.
 */
export async function qrForTerminal(
  text: string,
  theme: QrTheme,
  screen: QrScreen,
  pngHint: string | undefined,
  below = 1,
): Promise<{ drawn: true; text: string } | { drawn: false; text: string }> {
  const modules = await qrModules(text);
  const fits = ({ quiet, openBottom }: { quiet: number; openBottom: boolean }) => {
    const { columns, lines } = qrDrawingSize(modules.length, quiet, openBottom);
    return columns <= screen.columns && (screen.rows === undefined || lines + below <= screen.rows);
  };
  for (const mode of drawings(theme)) {
    if (fits(mode)) return { drawn: true, text: renderQr(modules, theme, mode.quiet, mode.openBottom) };
  }
  const smallest = drawings(theme).at(-1)!;
  const { columns, lines } = qrDrawingSize(modules.length, smallest.quiet, smallest.openBottom);
  const need = `${columns}×${lines + below}`;
  const have = `${screen.columns}×${screen.rows ?? '?'}`;
  // A dark theme needs its quiet zone drawn; a light one lends its background, and may fit where it does not.
  const lightFits = theme === 'dark' && drawings('light').some(fits);
  const light = lightFits ? '; on a light terminal theme, --qr-theme light draws it here' : '';
  const png = pngHint === undefined ? '' : `, or write the QR as a PNG with ${pngHint}`;
  return {
    drawn: false,
    text: `the QR code needs a ${need} terminal, this one is ${have}: copy the code above${png}${light}\n`,
  };
}

/** The QR code as a PNG data URL (the API's qrCodeDataUrl): the sandbox's charges and `pix charge show --qr-png`. */
export async function qrPngDataUrl(text: string): Promise<string> {
  return (await loadQrcode()).toDataURL(text, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2 });
}
