/**
 * The styles of an xlsx workbook, for `domain/xlsxsheet.ts`: each cell style's number format (built in or
 * the workbook's own), and why a style makes its text unreadable (white on white, a font too small).
 */

import SSF from 'ssf';
import { MAIN, type Workbook } from './xlsxparts.js';
import { isWhite, MIN_RUN_POINTS } from './xlsxstrings.js';

// ---------------------------------------------------------------------------------------------
// Styles: number formats

export interface Styles {
  /** Per cell style (`s`): its number format code. */
  formats: string[];
  /**
   * Per differential format (`dxfId`, what a conditional format applies): what in it changes what a cell
   * shows — a number format of its own, or white text — when something does.
   */
  dxfChanges: Array<string | undefined>;
  /** Per cell style: why its text cannot be read (white on no fill or a white one, too small), when so. */
  hides: Array<string | undefined>;
}

export async function styles(book: Workbook, name: string | undefined): Promise<Styles> {
  const custom = new Map<number, string>();
  const ids: number[] = [];
  const xfs: Array<{ font: number; fill: number }> = [];
  const dxfChanges: Array<string | undefined> = [];
  const fonts: Array<{ size?: number; white?: boolean }> = [];
  const fills: boolean[] = []; // a fill a person sees white text on (any but none and white)
  if (name !== undefined && book.has(name)) {
    // Nothing is refused for where it sits: Excel's own extensions of the styles (x14:dxfs) hold numFmt and
    // xf elements of theirs, and only the numFmts and cellXfs read below apply to cells.
    await book.read(name, MAIN, new Set(), {
      open(element, stack) {
        const parent = stack[stack.length - 2];
        if (
          stack.length === 3 &&
          element.local === 'dxf' &&
          parent?.local === 'dxfs' &&
          parent.uri === MAIN
        ) {
          dxfChanges.push(undefined);
          return;
        }
        if (stack.length >= 4 && stack[2]!.local === 'dxf' && stack[1]!.local === 'dxfs') {
          const change =
            element.local === 'numFmt'
              ? `the number format "${element.attr('formatCode') ?? ''}"`
              : element.local === 'color' && parent?.local === 'font' && isWhite(element)
                ? 'white text'
                : undefined;
          if (change !== undefined) dxfChanges[dxfChanges.length - 1] ??= change;
          return;
        }
        if (stack.length === 4 && stack[1]!.local === 'fonts' && parent?.local === 'font') {
          const font = fonts[fonts.length - 1]!;
          if (element.local === 'sz') font.size = Number(element.attr('val'));
          else if (element.local === 'color') font.white = isWhite(element);
          return;
        }
        if (stack.length === 5 && stack[1]!.local === 'fills' && element.local === 'fgColor') {
          fills[fills.length - 1] = parent?.attr('patternType') !== 'none' && !isWhite(element);
          return;
        }
        if (stack.length !== 3 || parent?.uri !== MAIN) return;
        if (parent.local === 'fonts' && element.local === 'font') fonts.push({});
        else if (parent.local === 'fills' && element.local === 'fill') fills.push(false);
        else if (parent.local === 'numFmts' && element.local === 'numFmt') {
          const id = Number(element.attr('numFmtId'));
          const code = element.attr('formatCode');
          if (Number.isInteger(id) && code !== undefined) custom.set(id, code);
        } else if (parent.local === 'cellXfs' && element.local === 'xf') {
          ids.push(Number(element.attr('numFmtId') ?? '0'));
          xfs.push({
            font: Number(element.attr('fontId') ?? '0'),
            fill: Number(element.attr('fillId') ?? '0'),
          });
        }
      },
    });
  }
  const table = SSF.get_table();
  // A format the workbook does not define and ssf does not know is shown as General, as spreadsheets do.
  const hides = xfs.map(({ font, fill }) => {
    const { size, white } = fonts[font] ?? {};
    if (size !== undefined && !(size >= MIN_RUN_POINTS)) return `its font is ${size} points`;
    return white && !fills[fill] ? 'its text is white on a white cell' : undefined;
  });
  return { formats: ids.map((id) => custom.get(id) ?? table[id] ?? 'General'), dxfChanges, hides };
}
