/**
 * The colours of an xlsx workbook, for `domain/xlsxstyles.ts`: a colour as SpreadsheetML writes it (`rgb`,
 * `indexed` into the default palette or the workbook's own, `theme` with a `tint`, `auto`) resolved to the
 * RGB a spreadsheet draws, the workbook theme's colour scheme, and how well text stands out from its
 * background — WCAG 2's contrast ratio (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio), the measure
 * accessibility guidelines and browsers use for text on a background.
 */

import type { Workbook, XmlElement } from './xlsxparts.js';

/** `0xRRGGBB`. */
export type Rgb = number;

const BLACK = 0x000000;
const WHITE = 0xffffff;

/**
 * The default palette of `indexed` colours (ECMA-376 part 1, 18.8.27), as Excel and LibreOffice draw it;
 * 64 is the system foreground (text, black) and 65 the system background (the window, white).
 */
const DEFAULT_PALETTE: readonly Rgb[] = [
  0x000000,
  0xffffff,
  0xff0000,
  0x00ff00,
  0x0000ff,
  0xffff00,
  0xff00ff,
  0x00ffff,
  0x000000,
  0xffffff,
  0xff0000,
  0x00ff00,
  0x0000ff,
  0xffff00,
  0xff00ff,
  0x00ffff,
  0x800000,
  0x008000,
  0x000080,
  0x808000,
  0x800080,
  0x008080,
  0xc0c0c0,
  0x808080,
  0x9999ff,
  0x993366,
  0xffffcc,
  0xccffff,
  0x660066,
  0xff8080,
  0x0066cc,
  0xccccff,
  0x000080,
  0xff00ff,
  0xffff00,
  0x00ffff,
  0x800080,
  0x800000,
  0x008080,
  0x0000ff,
  0x00ccff,
  0xccffff,
  0xccffcc,
  0xffff99,
  0x99ccff,
  0xff99cc,
  0xcc99ff,
  0xffcc99,
  0x3366ff,
  0x33cccc,
  0x99cc00,
  0xffcc00,
  0xff9900,
  0xff6600,
  0x666699,
  0x969696,
  0x003366,
  0x339966,
  0x003300,
  0x333300,
  0x993300,
  0x993366,
  0x333399,
  0x333333,
  BLACK,
  WHITE,
];

/** A colour as a workbook writes it, before the palette and theme resolve it. */
export interface ColorSpec {
  rgb?: string;
  indexed?: string;
  theme?: string;
  tint?: string;
  auto?: boolean;
}

export function colorSpec(element: XmlElement): ColorSpec {
  const spec: ColorSpec = {};
  for (const name of ['rgb', 'indexed', 'theme', 'tint'] as const) {
    const value = element.attr(name);
    if (value !== undefined) spec[name] = value;
  }
  if (element.attr('auto') === '1' || element.attr('auto') === 'true') spec.auto = true;
  return spec;
}

/** What resolves a colour: the workbook's palette (its own `indexedColors`, or none) and theme. */
export interface ColorContext {
  palette: readonly Rgb[] | undefined;
  /** By SpreadsheetML's theme index (0 Background 1, 1 Text 1, 2 Background 2, 3 Text 2, 4–9 accents…). */
  theme: ReadonlyArray<Rgb | undefined> | undefined;
}

/**
 * The colour drawn, or why pix cannot tell it. `fallback` is the colour an absent or automatic one is:
 * black for text (the system foreground, as Excel draws it; LibreOffice's automatic text turns white on a
 * dark fill, Excel's does not, so pix judges Excel's).
 */
export function resolveColor(
  spec: ColorSpec | undefined,
  context: ColorContext,
  fallback: Rgb,
): Rgb | { unknown: string } {
  if (spec === undefined || spec.auto) return fallback;
  let base: Rgb | undefined;
  if (spec.rgb !== undefined) {
    if (!/^(?:[0-9a-f]{2})?[0-9a-f]{6}$/i.test(spec.rgb)) return { unknown: `the colour "${spec.rgb}"` };
    // Alpha is ignored by Excel and LibreOffice alike: `00FFFFFF` is drawn white.
    base = Number.parseInt(spec.rgb.slice(-6), 16);
  } else if (spec.theme !== undefined) {
    // Without a theme part readers differ even on Text 1: Excel draws its own Office theme's black,
    // LibreOffice white (seen by test/e2e/xlsx-libreoffice.test.ts).
    if (context.theme === undefined)
      return { unknown: `theme colour ${spec.theme}, and the workbook has no theme` };
    const index = Number(spec.theme);
    base = Number.isInteger(index) ? context.theme[index] : undefined;
    if (base === undefined) return { unknown: `theme colour ${spec.theme}, which the theme does not define` };
  } else if (spec.indexed !== undefined) {
    const index = Number(spec.indexed);
    const palette = context.palette ?? DEFAULT_PALETTE;
    base = !Number.isInteger(index)
      ? undefined
      : index === 64 || index === 65
        ? DEFAULT_PALETTE[index]
        : palette[index];
    if (base === undefined)
      return { unknown: `palette colour ${spec.indexed}, which the workbook does not have` };
  } else return fallback;
  const tint = Number(spec.tint ?? '0');
  return Number.isFinite(tint) && tint !== 0 ? applyTint(base, tint) : base;
}

/**
 * A tint as Excel applies it (ECMA-376 part 1, 18.8.19; the same in LibreOffice): the colour's lightness in
 * HLS moved towards black (tint < 0) or white (tint > 0) by that share.
 */
export function applyTint(rgb: Rgb, tint: number): Rgb {
  const [h, l, s] = toHls(rgb);
  const lightness = tint < 0 ? l * (1 + tint) : l * (1 - tint) + tint;
  return fromHls(h, Math.min(1, Math.max(0, lightness)), s);
}

function toHls(rgb: Rgb): [number, number, number] {
  const r = (rgb >> 16) / 255;
  const g = ((rgb >> 8) & 0xff) / 255;
  const b = (rgb & 0xff) / 255;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, l, 0];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return [h / 6, l, s];
}

function fromHls(h: number, l: number, s: number): Rgb {
  const channel = (t: number, p: number, q: number) => {
    const u = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (u < 1 / 6) return p + (q - p) * 6 * u;
    if (u < 1 / 2) return q;
    if (u < 2 / 3) return p + (q - p) * (2 / 3 - u) * 6;
    return p;
  };
  let r = l;
  let g = l;
  let b = l;
  if (s !== 0) {
    const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
    const p = 2 * l - q;
    r = channel(h + 1 / 3, p, q);
    g = channel(h, p, q);
    b = channel(h - 1 / 3, p, q);
  }
  const byte = (v: number) => Math.round(v * 255);
  return (byte(r) << 16) | (byte(g) << 8) | byte(b);
}

/** WCAG 2's relative luminance of one sRGB channel, linearised. */
function linear(byte: number): number {
  const c = byte / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function luminance(rgb: Rgb): number {
  return 0.2126 * linear(rgb >> 16) + 0.7152 * linear((rgb >> 8) & 0xff) + 0.0722 * linear(rgb & 0xff);
}

/** WCAG 2's contrast ratio of two colours: 1 (the same) to 21 (black on white). */
export function contrast(a: Rgb, b: Rgb): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** `share` of `a` over `b`, mixed in linear light, as a pattern of dots of the two looks from a distance. */
export function mix(a: Rgb, b: Rgb, share: number): Rgb {
  let out = 0;
  for (const shift of [16, 8, 0]) {
    const value = share * linear((a >> shift) & 0xff) + (1 - share) * linear((b >> shift) & 0xff);
    const c = value <= 0.0031308 ? value * 12.92 : 1.055 * value ** (1 / 2.4) - 0.055;
    out |= Math.round(Math.min(1, Math.max(0, c)) * 255) << shift;
  }
  return out;
}

export function hex(rgb: Rgb): string {
  return `#${rgb.toString(16).toUpperCase().padStart(6, '0')}`;
}

export { BLACK, WHITE };

const DRAWING = 'http://schemas.openxmlformats.org/drawingml/2006/main';
/** The scheme's colours in the order of SpreadsheetML's theme index (its first two pairs swapped). */
const SCHEME = [
  'lt1',
  'dk1',
  'lt2',
  'dk2',
  'accent1',
  'accent2',
  'accent3',
  'accent4',
  'accent5',
  'accent6',
  'hlink',
  'folHlink',
];
/** The system colours a theme names, as a spreadsheet draws them on a default desktop. */
const SYSTEM: Readonly<Record<string, Rgb>> = { window: WHITE, windowText: BLACK };

/** The workbook theme's colour scheme, by SpreadsheetML's theme index; undefined without a theme part. */
export async function themeColors(
  book: Workbook,
  name: string | undefined,
): Promise<Array<Rgb | undefined> | undefined> {
  if (name === undefined || !book.has(name)) return undefined;
  const colors: Array<Rgb | undefined> = SCHEME.map(() => undefined);
  await book.read(name, DRAWING, new Set(), {
    open(element, stack) {
      const parent = stack[stack.length - 2];
      const slot = parent === undefined ? -1 : SCHEME.indexOf(parent.local);
      if (slot === -1 || stack[stack.length - 3]?.local !== 'clrScheme' || colors[slot] !== undefined) return;
      const value =
        element.local === 'srgbClr'
          ? element.attr('val')
          : element.local === 'sysClr'
            ? (SYSTEM[element.attr('val') ?? '']?.toString(16).padStart(6, '0') ?? element.attr('lastClr'))
            : undefined;
      if (value !== undefined && /^[0-9a-f]{6}$/i.test(value)) colors[slot] = Number.parseInt(value, 16);
    },
  });
  return colors;
}
