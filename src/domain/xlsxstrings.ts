/**
 * The text of an xlsx workbook, for `domain/xlsxsheet.ts`: its shared strings and an inline string's text,
 * built from their runs, with rich text marked and what hides a run (white text, a font too small to read)
 * said; phonetic runs are never part of a cell's text.
 */

import { InvalidValue } from './invalid.js';
import { MAIN, type Workbook, type XmlElement } from './xlsxparts.js';

/** Text runs smaller than this, in points, cannot be read. */
export const MIN_RUN_POINTS = 6;

// ---------------------------------------------------------------------------------------------
// Shared strings and rich text

/** The text of an `si` or an `is`: its `t`, or its runs' `t`s; phonetic runs (`rPh`) are never part of it. */
export class StringBuilder {
  text = '';
  rich = false;
  hides: string | undefined;
  private run: { text: string; size?: number; white?: boolean } | undefined;
  private into = false;

  /** `depth` is the element's depth below the `si` or `is`. */
  open(element: XmlElement, depth: number, parent: XmlElement): void {
    if (depth === 1 && element.local === 'r') {
      this.rich = true;
      this.run = { text: '' };
    } else if (
      element.local === 't' &&
      ((depth === 1 && parent.local !== 'rPh') || (depth === 2 && parent.local === 'r'))
    ) {
      this.into = true;
    } else if (depth === 3 && this.run !== undefined && parent.local === 'rPr') {
      if (element.local === 'sz') this.run.size = Number(element.attr('val'));
      else if (element.local === 'color') this.run.white = isWhite(element);
    }
  }

  add(text: string): void {
    if (!this.into) return;
    this.text += text;
    if (this.run !== undefined) this.run.text += text;
  }

  close(element: XmlElement, depth: number): void {
    if (element.local === 't') this.into = false;
    else if (depth === 1 && element.local === 'r' && this.run !== undefined) {
      const { text, size, white } = this.run;
      if (text.trim() !== '' && this.hides === undefined) {
        if (size !== undefined && !(size >= MIN_RUN_POINTS))
          this.hides = `a run of ${size} points ("${text}")`;
        else if (white) this.hides = `a white run ("${text}")`;
      }
      this.run = undefined;
    }
  }
}

/** White text: `FFFFFF` in any alpha, the theme's first colour (Background 1), or the palette's whites. */
export function isWhite(color: XmlElement): boolean {
  const rgb = color.attr('rgb');
  if (rgb !== undefined) return /^(?:[0-9a-f]{2})?ffffff$/i.test(rgb);
  const theme = color.attr('theme');
  if (theme !== undefined) return theme === '0' && !(Number(color.attr('tint') ?? '0') < 0);
  const indexed = color.attr('indexed');
  return indexed === '1' || indexed === '9';
}

export interface SharedString {
  text: string;
  rich?: { hides?: string };
}

const STRING_CONTENT = new Set(['si', 't', 'r', 'rPh']);
const STRING_PARTS = new Set(['t', 'r', 'rPh', 'phoneticPr']);

/** Inside an `si` or `is`: only its text, runs and phonetic parts, all of SpreadsheetML. */
export function checkStringElement(
  element: XmlElement,
  depth: number,
  parent: XmlElement,
  where: string,
): void {
  if (element.uri !== MAIN) {
    throw new InvalidValue(
      `${where} holds an element of the namespace ${element.uri || '(none)'}, which a spreadsheet does not show`,
    );
  }
  const allowed =
    depth === 1
      ? STRING_PARTS.has(element.local)
      : parent.local === 'r'
        ? element.local === 'rPr' || element.local === 't'
        : parent.local === 'rPh'
          ? element.local === 't'
          : parent.local === 'rPr';
  if (!allowed) throw new InvalidValue(`${where} holds an unexpected ${element.local}`);
}

export async function sharedStrings(book: Workbook, name: string | undefined): Promise<SharedString[]> {
  const strings: SharedString[] = [];
  if (name === undefined || !book.has(name)) return strings;
  let builder: StringBuilder | undefined;
  await book.read(name, MAIN, STRING_CONTENT, {
    open(element, stack) {
      const depth = stack.length - 2; // below the si
      if (stack.length === 2 && element.local === 'si') builder = new StringBuilder();
      else if (builder !== undefined && depth >= 1) {
        const parent = stack[stack.length - 2]!;
        checkStringElement(element, depth, parent, `the shared string ${strings.length}`);
        builder.open(element, depth, parent);
      }
    },
    text(text) {
      builder?.add(text);
    },
    close(element, stack) {
      if (builder === undefined) return;
      if (stack.length === 2) {
        strings.push({
          text: builder.text,
          ...(builder.rich ? { rich: builder.hides === undefined ? {} : { hides: builder.hides } } : {}),
        });
        builder = undefined;
      } else builder.close(element, stack.length - 2);
    },
  });
  return strings;
}
