/**
 * The styles of an xlsx workbook, for `domain/xlsxsheet.ts`: each cell style's number format (built in or
 * the workbook's own), how a spreadsheet draws its text (font, colours, alignment: `CellLook`, judged by
 * `domain/xlsxlayout.ts` in the cells pix pays), and why a style makes its text unreadable in any cell (a
 * font too small, or a colour hardly different from its background).
 */

import SSF from 'ssf';
import {
  BLACK,
  type ColorContext,
  type ColorSpec,
  colorSpec,
  contrast,
  hex,
  mix,
  type Rgb,
  resolveColor,
  WHITE,
} from './xlsxcolors.js';
import { MAIN, type Workbook, type XmlElement } from './xlsxparts.js';
import { isWhite, MIN_RUN_POINTS } from './xlsxstrings.js';

/**
 * Text this close to its background (WCAG contrast ratio) cannot be seen in any cell: white on white,
 * near-white, yellow on yellow. The cells pix pays ask for more (`xlsxlayout.ts`, 3:1).
 */
const INVISIBLE_CONTRAST = 1.5;

// ---------------------------------------------------------------------------------------------
// Styles

/** A colour as drawn, or why pix cannot tell it. */
export type Drawn = Rgb | { unknown: string };

/** How a spreadsheet draws a cell style's text. */
export interface CellLook {
  /** Points. */
  size: number;
  bold: boolean;
  face: string;
  text: Drawn;
  /** What the text is drawn over: one colour, or the extremes of a gradient; or why pix cannot tell. */
  background: Rgb[] | { unknown: string };
  /** `general`, `left`, `right`, `center`, `fill`, `justify`… */
  horizontal: string;
  wrap: boolean;
  shrink: boolean;
  /** Indent levels. */
  indent: number;
  /** Degrees; 255 is text stacked vertically. */
  rotation: number;
}

export interface Styles {
  /** Per cell style (`s`): its number format code. */
  formats: string[];
  /**
   * Per differential format (`dxfId`, what a conditional format applies): what in it changes what a cell
   * shows — a number format of its own, or white text — when something does.
   */
  dxfChanges: Array<string | undefined>;
  /** Per cell style: why its text cannot be read in any cell (too small, invisible on its fill), when so. */
  hides: Array<string | undefined>;
  /** Per cell style: how its text is drawn. */
  looks: CellLook[];
  /** The Normal style's font: the one whose digit the column widths are written in. */
  defaultFont: { size: number; face: string };
}

interface Font {
  size?: number;
  bold?: boolean;
  face?: string;
  color?: ColorSpec;
}

interface Fill {
  pattern?: string;
  fg?: ColorSpec;
  bg?: ColorSpec;
  gradient?: ColorSpec[];
}

interface Xf {
  numFmt: number;
  font: number;
  fill: number;
  alignment?: Partial<Pick<CellLook, 'horizontal' | 'wrap' | 'shrink' | 'indent' | 'rotation'>> | undefined;
}

/** How much of a patterned cell its pattern colour covers (the rest is its background colour). */
const PATTERN_SHARE: Readonly<Record<string, number>> = {
  solid: 1,
  gray0625: 0.0625,
  gray125: 0.125,
  lightGray: 0.25,
  mediumGray: 0.5,
  darkGray: 0.75,
  lightHorizontal: 0.25,
  lightVertical: 0.25,
  lightDown: 0.25,
  lightUp: 0.25,
  lightGrid: 0.4375,
  lightTrellis: 0.25,
  darkHorizontal: 0.5,
  darkVertical: 0.5,
  darkDown: 0.5,
  darkUp: 0.5,
  darkGrid: 0.5,
  darkTrellis: 0.75,
};

const isOn = (value: string | undefined) => value === undefined || value === '1' || value === 'true';

/** What styles.xml said so far, as its elements are read (the steps below share it; rule 14). */
interface StylesRead {
  readonly custom: Map<number, string>;
  readonly xfs: Xf[];
  readonly dxfChanges: Array<string | undefined>;
  readonly fonts: Font[];
  readonly fills: Fill[];
  palette: Rgb[] | undefined;
  normalFont: number | undefined;
}

type Stack = readonly XmlElement[];

/** In a differential format (dxfs, what a conditional format changes): what it changes that hides. */
function dxfElement(read: StylesRead, element: XmlElement, stack: Stack): boolean {
  const parent = stack[stack.length - 2];
  if (stack.length === 3 && element.local === 'dxf' && parent?.local === 'dxfs' && parent.uri === MAIN) {
    read.dxfChanges.push(undefined);
    return true;
  }
  if (!(stack.length >= 4 && stack[2]!.local === 'dxf' && stack[1]!.local === 'dxfs')) return false;
  const change =
    element.local === 'numFmt'
      ? `the number format "${element.attr('formatCode') ?? ''}"`
      : element.local === 'color' && parent?.local === 'font' && isWhite(element)
        ? 'white text'
        : undefined;
  if (change !== undefined) read.dxfChanges[read.dxfChanges.length - 1] ??= change;
  return true;
}

/** A font's size, colour, weight and face. */
function fontElement(font: Font, element: XmlElement): void {
  if (element.local === 'sz') font.size = Number(element.attr('val'));
  else if (element.local === 'color') font.color = colorSpec(element);
  else if (element.local === 'b') font.bold = isOn(element.attr('val'));
  else if (element.local === 'name') font.face = element.attr('val') ?? '';
}

/** A fill's pattern and colours, or a gradient's stops. */
function fillElement(fill: Fill, element: XmlElement, stack: Stack): void {
  const parent = stack[stack.length - 2];
  if (element.local === 'patternFill' && stack.length === 4) {
    const pattern = element.attr('patternType');
    if (pattern !== undefined) fill.pattern = pattern;
  } else if (element.local === 'gradientFill' && stack.length === 4) fill.gradient = [];
  else if (element.local === 'fgColor' && parent?.local === 'patternFill') fill.fg = colorSpec(element);
  else if (element.local === 'bgColor' && parent?.local === 'patternFill') fill.bg = colorSpec(element);
  else if (element.local === 'color' && parent?.local === 'stop') fill.gradient?.push(colorSpec(element));
}

/** An element right under a list of styles.xml: a font, a fill, a number format, a cell format. */
function listItem(read: StylesRead, top: XmlElement, element: XmlElement): void {
  if (top.local === 'fonts' && element.local === 'font') read.fonts.push({});
  else if (top.local === 'fills' && element.local === 'fill') read.fills.push({});
  else if (top.local === 'numFmts' && element.local === 'numFmt') {
    const id = Number(element.attr('numFmtId'));
    const code = element.attr('formatCode');
    if (Number.isInteger(id) && code !== undefined) read.custom.set(id, code);
  } else if (top.local === 'cellXfs' && element.local === 'xf') {
    read.xfs.push({
      numFmt: Number(element.attr('numFmtId') ?? '0'),
      font: Number(element.attr('fontId') ?? '0'),
      fill: Number(element.attr('fillId') ?? '0'),
    });
  } else if (top.local === 'cellStyleXfs' && element.local === 'xf') {
    read.normalFont ??= Number(element.attr('fontId') ?? '0');
  }
}

/**
 * One element of styles.xml. Nothing is refused for where it sits: Excel's own extensions of the styles
 * (x14:dxfs) hold numFmt and xf elements of theirs, and only the numFmts and cellXfs read here apply to cells.
 */
function styleElement(read: StylesRead, element: XmlElement, stack: Stack): void {
  if (dxfElement(read, element, stack)) return;
  const parent = stack[stack.length - 2];
  const top = stack[1];
  if (top?.uri !== MAIN) return;
  if (stack.length === 4 && top.local === 'fonts' && parent?.local === 'font') {
    fontElement(read.fonts[read.fonts.length - 1]!, element);
  } else if (stack.length >= 4 && top.local === 'fills') {
    fillElement(read.fills[read.fills.length - 1]!, element, stack);
  } else if (stack.length === 4 && top.local === 'cellXfs' && element.local === 'alignment') {
    read.xfs[read.xfs.length - 1]!.alignment = alignment(element.attr.bind(element));
  } else if (stack.length === 4 && top.local === 'colors' && parent?.local === 'indexedColors') {
    read.palette ??= [];
    const rgb = element.attr('rgb') ?? '';
    read.palette.push(
      /^(?:[0-9a-f]{2})?[0-9a-f]{6}$/i.test(rgb) ? Number.parseInt(rgb.slice(-6), 16) : BLACK,
    );
  } else if (stack.length === 3) listItem(read, top, element);
}

export async function styles(
  book: Workbook,
  name: string | undefined,
  theme: ColorContext['theme'],
): Promise<Styles> {
  const read: StylesRead = {
    custom: new Map(),
    xfs: [],
    dxfChanges: [],
    fonts: [],
    fills: [],
    palette: undefined,
    normalFont: undefined,
  };
  if (name !== undefined && book.has(name)) {
    await book.read(name, MAIN, new Set(), { open: (element, stack) => styleElement(read, element, stack) });
  }
  const { xfs, fonts, fills, custom } = read;
  const table = SSF.get_table();
  const context: ColorContext = { palette: read.palette, theme };
  const normal = fonts[read.normalFont ?? 0] ?? {};
  const defaultFont = { size: validSize(normal.size) ?? 11, face: normal.face ?? '' };
  const looks = xfs.map((xf) => look(xf, fonts, fills, context, defaultFont));
  const hides = looks.map((cell, index): string | undefined => {
    const size = fonts[xfs[index]!.font]?.size;
    if (size !== undefined && !(size >= MIN_RUN_POINTS)) return `its font is ${size} points`;
    const seen = legibility(cell);
    return seen !== undefined && seen.ratio < INVISIBLE_CONTRAST ? seen.says : undefined;
  });
  // A format the workbook does not define and ssf does not know is shown as General, as spreadsheets do.
  return {
    formats: xfs.map(({ numFmt }) => custom.get(numFmt) ?? table[numFmt] ?? 'General'),
    dxfChanges: read.dxfChanges,
    hides,
    looks,
    defaultFont,
  };
}

function validSize(size: number | undefined): number | undefined {
  return size !== undefined && Number.isFinite(size) && size > 0 ? size : undefined;
}

function alignment(attr: (name: string) => string | undefined): Xf['alignment'] {
  const number = (name: string) => {
    const value = Number(attr(name) ?? '0');
    return Number.isFinite(value) ? value : 0;
  };
  const flag = (name: string) => attr(name) === '1' || attr(name) === 'true';
  return {
    horizontal: attr('horizontal') ?? 'general',
    wrap: flag('wrapText'),
    shrink: flag('shrinkToFit'),
    indent: number('indent'),
    rotation: number('textRotation'),
  };
}

function look(
  xf: Xf,
  fonts: readonly Font[],
  fills: readonly Fill[],
  context: ColorContext,
  defaultFont: Styles['defaultFont'],
): CellLook {
  const font = fonts[xf.font] ?? {};
  const text = resolveColor(font.color, context, BLACK);
  return {
    size: validSize(font.size) ?? defaultFont.size,
    bold: font.bold ?? false,
    face: font.face ?? defaultFont.face,
    text: typeof text === 'number' ? text : { unknown: `its text colour (${text.unknown})` },
    background: background(fills[xf.fill], context),
    horizontal: 'general',
    wrap: false,
    shrink: false,
    indent: 0,
    rotation: 0,
    ...xf.alignment,
  };
}

/** The colours a fill shows behind text; a cell without one shows the sheet's default white. */
function background(fill: Fill | undefined, context: ColorContext): CellLook['background'] {
  if (fill === undefined) return [WHITE];
  const drawn = (spec: ColorSpec | undefined, fallback: Rgb): Rgb | { unknown: string } => {
    const color = resolveColor(spec, context, fallback);
    return typeof color === 'number' ? color : { unknown: `its background (${color.unknown})` };
  };
  if (fill.gradient !== undefined) {
    const stops = fill.gradient.map((spec) => drawn(spec, WHITE));
    const unknown = stops.find((stop) => typeof stop !== 'number');
    if (unknown !== undefined) return unknown as { unknown: string };
    return stops.length === 0 ? [WHITE] : (stops as Rgb[]);
  }
  const pattern = fill.pattern;
  if (pattern === 'none') return [WHITE];
  if (fill.fg === undefined && (pattern === undefined || pattern === 'solid')) {
    return pattern === undefined ? [WHITE] : { unknown: 'its background (a solid fill without a colour)' };
  }
  const fg = drawn(fill.fg, BLACK);
  const bg = drawn(fill.bg, WHITE);
  if (typeof fg !== 'number') return fg;
  if (typeof bg !== 'number') return bg;
  // A fill without a pattern type is drawn as none by some readers and solid by others: both are judged.
  if (pattern === undefined) return [WHITE, fg];
  const share = PATTERN_SHARE[pattern];
  if (share === undefined) return { unknown: `its background (the fill pattern "${pattern}")` };
  return [mix(fg, bg, share)];
}

/**
 * The contrast of a look's text with its background (the least, over a gradient's colours), said with both
 * colours; undefined when pix cannot tell one of them.
 */
export function legibility(cell: CellLook): { ratio: number; says: string } | undefined {
  if (typeof cell.text !== 'number' || !Array.isArray(cell.background)) return undefined;
  const text = cell.text;
  let worst: { ratio: number; over: Rgb } | undefined;
  for (const over of cell.background) {
    const ratio = contrast(text, over);
    if (worst === undefined || ratio < worst.ratio) worst = { ratio, over };
  }
  if (worst === undefined) return undefined;
  const ratio = Math.floor(worst.ratio * 10) / 10;
  return {
    ratio: worst.ratio,
    says: `its text (${hex(text)}) on its background (${hex(worst.over)}) has a contrast of ${ratio.toFixed(1)}:1`,
  };
}
