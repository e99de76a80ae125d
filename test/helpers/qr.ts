/**
 * Reads a QR code off a rendered terminal screen as a phone would: every character cell becomes pixels
 * in the colours of a terminal of the given theme (a block character's halves in the foreground colour,
 * the rest — spaces and text — in the background colour), then jsqr looks for the symbol without trying
 * the inverted picture (phones often do not).
 */
import jsQRModule from 'jsqr';

// jsqr is CommonJS with `export default`: under NodeNext the callable is `.default` at type level.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ??
  jsQRModule) as unknown as typeof jsQRModule.default;

/** Pixels per module side. */
const SCALE = 4;

/** Which halves of a cell a character draws in the foreground colour: [top, bottom]. */
function halves(char: string): [boolean, boolean] {
  if (char === '█') return [true, true];
  if (char === '▀') return [true, false];
  if (char === '▄') return [false, true];
  return [false, false];
}

export interface ScreenQr {
  /** The decoded bytes, as UTF-8. */
  text: string;
  /**
   * The light margin around the symbol, in modules, on its narrowest side (counted up to 8; the edge of
   * the screen counts as not light).
   */
  quietZone: number;
}

/** The QR code on `lines` (as rendered by renderTerminal) shown on a `terminal`-theme terminal, if a phone can read it. */
export function readQrFromScreen(
  lines: readonly string[],
  columns: number,
  terminal: 'light' | 'dark',
): ScreenQr | undefined {
  const rows = lines.length * 2;
  // light[row][col]: what a module-sized spot of the screen looks like.
  const light: boolean[][] = Array.from({ length: rows }, () => new Array<boolean>(columns).fill(false));
  const foregroundIsLight = terminal === 'dark';
  lines.forEach((line, index) => {
    const cells = Array.from(line.padEnd(columns, ' '));
    for (let col = 0; col < columns; col++) {
      const [top, bottom] = halves(cells[col] ?? ' ');
      light[index * 2]![col] = top === foregroundIsLight;
      light[index * 2 + 1]![col] = bottom === foregroundIsLight;
    }
  });
  const width = columns * SCALE;
  const height = rows * SCALE;
  const pixels = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const value = light[Math.floor(y / SCALE)]![Math.floor(x / SCALE)] ? 255 : 0;
      pixels.set([value, value, value, 255], (y * width + x) * 4);
    }
  }
  const found = jsQR(pixels, width, height, { inversionAttempts: 'dontInvert' });
  if (!found) return undefined;
  const { topLeftCorner, bottomRightCorner } = found.location;
  const left = Math.round(topLeftCorner.x / SCALE);
  const top = Math.round(topLeftCorner.y / SCALE);
  const right = Math.round(bottomRightCorner.x / SCALE); // one past the last module
  const bottom = Math.round(bottomRightCorner.y / SCALE);
  const isLight = (row: number, col: number) => light[row]?.[col] === true;
  let quietZone = 0;
  ring: for (; quietZone < 8; quietZone++) {
    const d = quietZone + 1;
    for (let col = left - d; col < right + d; col++) {
      if (!isLight(top - d, col) || !isLight(bottom - 1 + d, col)) break ring;
    }
    for (let row = top - d; row < bottom + d; row++) {
      if (!isLight(row, left - d) || !isLight(row, right - 1 + d)) break ring;
    }
  }
  return { text: Buffer.from(found.binaryData).toString('utf8'), quietZone };
}
