/**
 * How a spreadsheet draws a sheet's cells at 100 % zoom, for the cells that decide who is paid how much
 * (`domain/batchsheet.ts`: key, key type, code, amount; `domain/expectations.ts`: an ERP's amount and
 * document): `SheetLayout.unclear` says why a reader may not read such a cell as pix does, or that every
 * reader sees it alike. Refused, each with the cell's own reason:
 *
 * - a conditional format over the cell (it may change its colours or font as values change, which pix does
 *   not evaluate), and a background picture behind the sheet;
 * - a number format with a colour or a bracketed code in the section that shows the value, or a literal `,`
 *   or `.` beside its digits (`domain/xlsxformat.ts`);
 * - text whose colour stands out from its background by less than 3:1 (WCAG 2's contrast ratio: the least
 *   WCAG asks of large text and of anything a person must notice, SC 1.4.3 and 1.4.11; its 4.5:1 for body
 *   text would refuse pure red on white, 4.0:1, which every reader sees), or whose colour pix cannot tell;
 *   the background is the cell's fill, or white — the default of Excel and LibreOffice;
 * - rotated text, text repeated to fill the cell, text taller than its row;
 * - text wider than the column shows it (`domain/xlsxwidths.ts`): a number never spills out of its cell (a
 *   spreadsheet shows `###`, or a General number rounded), nor does wrapped, shrunk or justified text; other
 *   text runs on over empty neighbours in its direction (right when left-aligned, both ways when centred),
 *   as spreadsheets draw it, and is cut at the first one that holds anything, is merged, or whose fill would
 *   hide it. A sheet shown right to left gets no run-on (pix does not judge which way it goes).
 *
 * Widths are in digits of the Normal style's font, as column widths are written. A column's text area is
 * its width less the cell's margins (Excel's 5 pixels, LibreOffice's two of about 2 points: at most one
 * digit of a font of 8 points or more); a column without a width of its own is `defaultColWidth`, or
 * `baseColWidth` (8) digits wide in all (Excel adds its margins to that, LibreOffice takes them from it).
 */

import { columnLetters, parseRef } from './cellref.js';
import { InvalidValue } from './invalid.js';
import { contrast } from './xlsxcolors.js';
import { formatHazard } from './xlsxformat.js';
import type { MergedRange, SheetCell, SheetRow } from './xlsxsheet.js';
import { type CellLook, legibility, type Styles } from './xlsxstyles.js';
import { faceFactor, textWidth } from './xlsxwidths.js';

/** The least contrast of text with its background in a cell pix pays (see above). */
export const MIN_CONTRAST = 3;
/** Digits pix counts an indent level as: more than Excel and LibreOffice indent by (one to two a level). */
const INDENT_DIGITS = 3;
/** A payout sheet has a few conditional formats: more ranges than this are refused before any is checked. */
const MAX_CONDITIONAL_RANGES = 10_000;
/** Columns text may run on over: wider text is cut (a payout sheet's keys run over a few). */
const MAX_RUN_ON = 256;
const MAX_ROW = 1_048_576;
const MAX_COLUMN = 16_383;

/** A rectangle of cells, 0-based columns and 1-based rows, inclusive. */
interface Area {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** What the sheet part says about how its cells are drawn (`domain/xlsxcells.ts` gathers it). */
export interface LayoutFacts {
  /** `<col>` ranges, 0-based inclusive, with their width in digits and their style. */
  columns: Array<{
    from: number;
    to: number;
    width: number | undefined;
    hidden: boolean;
    style: number | undefined;
  }>;
  defaultWidth: number | undefined;
  baseWidth: number | undefined;
  /** Each conditional format's `sqref`, as written. */
  conditional: string[];
  rightToLeft: boolean;
  picture: boolean;
}

export class SheetLayout {
  private readonly conditional: Coverage;
  private readonly merged: Coverage;
  private readonly padding: number;
  private readonly columnCache = new Map<number, { width: number; style: number | undefined }>();

  constructor(
    private readonly styles: Styles,
    private readonly facts: LayoutFacts,
    merges: readonly MergedRange[],
  ) {
    const ranges: Array<{ area: Area; label: string }> = [];
    for (const ref of facts.conditional) {
      for (const part of ref.trim().split(/\s+/)) {
        if (part === '') continue;
        if (ranges.length >= MAX_CONDITIONAL_RANGES) {
          throw new InvalidValue(
            `the first sheet has more than ${MAX_CONDITIONAL_RANGES.toLocaleString('en')} conditional format ranges, which a payout sheet does not: clear them`,
          );
        }
        ranges.push({ area: area(part), label: ref });
      }
    }
    this.conditional = new Coverage(ranges);
    this.merged = new Coverage(
      merges.map((m) => ({
        area: { top: m.from.row, bottom: m.to.row, left: m.from.column, right: m.to.column },
        label: m.ref,
      })),
    );
    // The cell's margins, at most 4 points in all, in digits (half an em or more) of the Normal font.
    this.padding = Math.max(1, 8 / styles.defaultFont.size);
  }

  /**
   * Why a reader may not read `cell` (in `row`) as pix does, or undefined when every reader sees it alike.
   * `width: false` when the whole text need not show (a BR Code, read by pix, not by a person).
   */
  unclear(cell: SheetCell, row: SheetRow, options: { width?: boolean } = {}): string | undefined {
    if (this.facts.picture) {
      return 'the sheet has a background picture behind it: pix cannot tell the text from it; delete the background (Page Layout > Delete Background)';
    }
    const rule = this.conditional.find(row.row, cell.column);
    if (rule !== undefined) {
      return `a conditional format on ${rule} covers it: it may change the cell's colours or font as values change, which pix does not judge; remove it (Home > Conditional Formatting > Clear Rules)`;
    }
    const { value } = cell;
    const style = cell.style ?? 0;
    const code = this.styles.formats[style] ?? 'General';
    const hazard = formatHazard(code, value.kind === 'number' ? Number(value.text) : 'text', cell.shown);
    if (hazard !== undefined) return hazard;
    const look = this.look(style);
    const colours = colourProblem(look);
    if (colours !== undefined) return colours;
    if (look.rotation !== 0) {
      return `its text is rotated (${look.rotation === 255 ? 'stacked' : `${look.rotation}°`}): pix reads only level text; clear the rotation (Format Cells > Alignment)`;
    }
    if (look.horizontal === 'fill') {
      return 'its alignment repeats the text to fill the cell: a person cannot tell how often it is written; clear it (Format Cells > Alignment)';
    }
    if (row.height !== undefined && row.height < look.size) {
      return `its ${look.size}-point text in a row ${row.height} points tall is cut: make the row taller`;
    }
    return options.width === false ? undefined : this.widthProblem(cell, row, look);
  }

  private look(style: number): CellLook {
    return this.styles.looks[style] ?? this.styles.looks[0] ?? PLAIN;
  }

  private widthProblem(cell: SheetCell, row: SheetRow, look: CellLook): string | undefined {
    const { value } = cell;
    const shown =
      cell.shown ??
      (value.kind === 'number'
        ? String(Number(value.text))
        : value.kind === 'boolean'
          ? value.value
            ? 'TRUE'
            : 'FALSE'
          : value.kind === 'text'
            ? value.text
            : '');
    const { defaultFont } = this.styles;
    const face = faceFactor(look.face, defaultFont.face);
    const wide =
      textWidth(shown, look.bold) * (look.size / defaultFont.size) * face + look.indent * INDENT_DIGITS;
    const own = Math.max(0, this.column(cell.column).width - this.padding);
    if (wide <= own) return undefined;
    const says = `shows "${shown}" (${(Math.ceil(wide * 10) / 10).toFixed(1)} characters wide) in a column of ${(Math.floor(own * 10) / 10).toFixed(1)}`;
    const widen = `widen column ${columnLetters(cell.column)}`;
    if (value.kind === 'number') {
      return `${says}: a spreadsheet shows ### or a rounded number instead; ${widen}`;
    }
    const kept = look.wrap
      ? 'wrapped'
      : look.shrink
        ? 'shrunk to fit'
        : look.horizontal === 'justify' || look.horizontal === 'distributed'
          ? 'justified'
          : this.facts.rightToLeft
            ? 'on a sheet shown right to left'
            : undefined;
    if (kept !== undefined) return `${says}, ${kept}: a person sees only part of it; ${widen}`;
    const need = wide - own;
    const blocker =
      look.horizontal === 'right'
        ? this.runOn(cell, row, look, need, -1)
        : look.horizontal === 'center' || look.horizontal === 'centerContinuous' || value.kind === 'boolean'
          ? (this.runOn(cell, row, look, need / 2, -1) ?? this.runOn(cell, row, look, need / 2, 1))
          : this.runOn(cell, row, look, need, 1);
    if (blocker === undefined) return undefined;
    return `${says} with ${blocker} beside it: a person sees only part of it; ${widen}`;
  }

  /**
   * Where text that needs `need` more digits stops running on, going `step` (1 right, -1 left) from its
   * cell: the first neighbour that holds something, is merged or whose fill would hide the text; undefined
   * when the empty ones before it give the room.
   */
  private runOn(
    cell: SheetCell,
    row: SheetRow,
    look: CellLook,
    need: number,
    step: 1 | -1,
  ): string | undefined {
    let left = need;
    for (let n = 1, column = cell.column + step; left > 0; n++, column += step) {
      const ref = `${columnLetters(Math.max(0, Math.min(column, MAX_COLUMN)))}${row.row}`;
      // Past the sheet's edge, or past as many columns as any text runs on over: cut there.
      if (column < 0 || column > MAX_COLUMN || n > MAX_RUN_ON) return ref;
      const taken = row.cells.some((c) => c.column === column);
      const blank = row.blanks?.find((b) => b.column === column);
      if (taken || blank?.holds || this.merged.find(row.row, column) !== undefined) return ref;
      const { width, style } = this.column(column);
      const under = this.look(blank?.style ?? row.style ?? style ?? 0);
      const seen =
        typeof look.text === 'number' && Array.isArray(under.background) ? under.background : undefined;
      if (seen === undefined || seen.some((over) => contrast(look.text as number, over) < MIN_CONTRAST))
        return ref;
      left -= width;
    }
    return undefined;
  }

  private column(index: number): { width: number; style: number | undefined } {
    let found = this.columnCache.get(index);
    if (found === undefined) {
      // The last `<col>` naming the column wins, as in a spreadsheet.
      const spec = this.facts.columns.findLast((c) => c.from <= index && index <= c.to);
      const fallback = this.facts.defaultWidth ?? this.facts.baseWidth ?? 8;
      found = { width: spec?.hidden ? 0 : (spec?.width ?? fallback), style: spec?.style };
      this.columnCache.set(index, found);
    }
    return found;
  }
}

const PLAIN: CellLook = {
  size: 11,
  bold: false,
  face: '',
  text: 0,
  background: [0xffffff],
  horizontal: 'general',
  wrap: false,
  shrink: false,
  indent: 0,
  rotation: 0,
};

function colourProblem(look: CellLook): string | undefined {
  if (typeof look.text !== 'number') {
    return `pix cannot tell ${look.text.unknown}: set the cell's colours again`;
  }
  if (!Array.isArray(look.background)) {
    return `pix cannot tell ${look.background.unknown}: set the cell's colours again`;
  }
  const seen = legibility(look);
  if (seen !== undefined && seen.ratio < MIN_CONTRAST) {
    return `${seen.says}, under ${MIN_CONTRAST}:1: a person may not see it; use a darker text or a lighter fill`;
  }
  return undefined;
}

/**
 * Which of some areas covers a cell (the first given, when several do): per column asked, the rows of the
 * areas over it merged into sorted runs once, then one binary search per cell.
 */
class Coverage {
  private readonly byColumn = new Map<number, Array<{ top: number; bottom: number; label: string }>>();

  constructor(private readonly areas: ReadonlyArray<{ area: Area; label: string }>) {}

  find(row: number, column: number): string | undefined {
    if (this.areas.length === 0) return undefined;
    let runs = this.byColumn.get(column);
    if (runs === undefined) {
      const over = this.areas
        .filter(({ area }) => area.left <= column && column <= area.right)
        .map(({ area, label }, order) => ({ top: area.top, bottom: area.bottom, label, order }))
        .sort((a, b) => a.top - b.top || a.order - b.order);
      runs = [];
      for (const next of over) {
        const last = runs[runs.length - 1];
        if (last !== undefined && next.top <= last.bottom + 1)
          last.bottom = Math.max(last.bottom, next.bottom);
        else runs.push({ top: next.top, bottom: next.bottom, label: next.label });
      }
      this.byColumn.set(column, runs);
    }
    let low = 0;
    let high = runs.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const run = runs[middle]!;
      if (row < run.top) high = middle - 1;
      else if (row > run.bottom) low = middle + 1;
      else return run.label;
    }
    return undefined;
  }
}

/** `B2:C9`, `B2`, `B:B` (whole columns), `2:5` (whole rows). */
function area(ref: string): Area {
  const [from = '', to = from] = ref.replaceAll('$', '').toUpperCase().split(':');
  const start = parseRef(from);
  const end = parseRef(to);
  if (start !== undefined && end !== undefined) {
    return { top: start.row, bottom: end.row, left: start.column, right: end.column };
  }
  const columns = [from, to].map((letters) => parseRef(`${letters}1`));
  if (/^[A-Z]+$/i.test(from) && /^[A-Z]+$/i.test(to) && columns[0] && columns[1]) {
    return { top: 1, bottom: MAX_ROW, left: columns[0].column, right: columns[1].column };
  }
  if (/^\d+$/.test(from) && /^\d+$/.test(to)) {
    return { top: Number(from), bottom: Number(to), left: 0, right: MAX_COLUMN };
  }
  // A range pix cannot read covers every cell: the conditional format is judged to reach the paid ones.
  return { top: 1, bottom: MAX_ROW, left: 0, right: MAX_COLUMN };
}
