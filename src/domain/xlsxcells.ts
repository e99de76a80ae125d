/**
 * The sheet part of an xlsx workbook, for `domain/xlsxsheet.ts`: its rows and cells as they inflate, its
 * merged ranges, hidden rows and columns and default row height, refusing a cell or row written twice or
 * out of the sheet's bounds; and what sets how its cells are drawn (`LayoutFacts`, for `xlsxlayout.ts`):
 * column widths and styles, conditional formats' ranges, a right-to-left view, a background picture.
 */

import SSF from 'ssf';
import { columnLetters, parseRef } from './cellref.js';
import { InvalidValue } from './invalid.js';
import { type OpenCell, readCell } from './xlsxcell.js';
import type { LayoutFacts } from './xlsxlayout.js';
import { isTrue, MAIN, type Workbook, type XmlElement } from './xlsxparts.js';
import type { MergedRange, SheetRow } from './xlsxsheet.js';
import { checkStringElement, type SharedString, StringBuilder } from './xlsxstrings.js';
import type { Styles } from './xlsxstyles.js';

/** Rows shorter than this, in points, show nothing a person can read. */
const MIN_ROW_POINTS = 3;
/** A payout sheet has none or a few: more than this is refused before any is checked. */
const MAX_MERGED_RANGES = 10_000;
const MAX_ROW = 1_048_576;
const MAX_COLUMN = 16_383;

// ---------------------------------------------------------------------------------------------
// The sheet

const SHEET_CONTENT = new Set(['sheetData', 'row', 'c']);
const CELL_PARTS = new Set(['v', 'f', 'is']);

interface RowAttributes {
  hidden: boolean;
  height: number | undefined;
  style: number | undefined;
  blanks: NonNullable<SheetRow['blanks']>;
}

const MAIN_CONDITIONAL = 'conditionalFormatting';

/** What reading one sheet holds: what it found so far, and the row and cell open now. */
interface SheetState {
  readonly part: string;
  readonly strings: readonly SharedString[];
  readonly styleSheet: Styles;
  readonly format: (code: string, value: number | string | boolean, ref: string) => string;
  readonly rows: SheetRow[];
  readonly rowAttributes: RowAttributes[];
  readonly hiddenColumns: Array<[number, number]>;
  readonly merges: MergedRange[];
  readonly facts: LayoutFacts;
  /** The text of an `xm:sqref` (Excel 2010's conditional formats in extLst write their range so). */
  sqref: string | undefined;
  zeroHeight: boolean;
  defaultHeight: number | undefined;
  sheetDatas: number;
  row: SheetRow | undefined;
  lastRow: number;
  lastColumn: number;
  cell: OpenCell | undefined;
}

function conditional(st: SheetState, range: string | undefined, change: string): InvalidValue {
  return new InvalidValue(
    `a conditional format ${range === undefined ? `in ${st.part}` : `on ${range}`} shows cells with ${change}, not as they hold: remove it (Home > Conditional Formatting > Clear Rules)`,
  );
}

/**
 * A conditional format that shows a cell's value otherwise, wherever it is written (Excel 2010's own,
 * x14:conditionalFormatting in extLst, carry their format inline): a number format, or a data bar or icon
 * set shown without the value.
 */
function checkConditional(st: SheetState, element: XmlElement, stack: readonly XmlElement[]): void {
  if (stack.length < 3 || !stack.some((e) => e.local === MAIN_CONDITIONAL)) return;
  if (element.local === 'sqref' && element.uri !== MAIN) st.sqref = '';
  if (element.local === 'numFmt') {
    throw conditional(st, undefined, `the number format "${element.attr('formatCode') ?? ''}"`);
  }
  if (
    (element.local === 'dataBar' || element.local === 'iconSet') &&
    (element.attr('showValue') === '0' || element.attr('showValue') === 'false')
  ) {
    throw conditional(
      st,
      undefined,
      `a ${element.local === 'dataBar' ? 'data bar' : 'icon set'} without the value`,
    );
  }
}

/** A `<col>`: its width and style, and whether it is hidden. */
function readColumn(st: SheetState, element: XmlElement): void {
  const min = Number(element.attr('min'));
  const max = Number(element.attr('max'));
  const width = element.attr('width');
  const hidden = isTrue(element.attr('hidden')) || (width !== undefined && !(Number(width) > 0));
  if (!Number.isInteger(min) || !Number.isInteger(max)) return;
  if (hidden) st.hiddenColumns.push([min - 1, max - 1]);
  const style = element.attr('style');
  st.facts.columns.push({
    from: min - 1,
    to: max - 1,
    width: positive(width),
    hidden,
    style: style === undefined ? undefined : Number(style),
  });
}

/** The elements of the worksheet outside its data, two or three deep: what sets how its cells are drawn. */
function openOutsideData(st: SheetState, element: XmlElement, stack: readonly XmlElement[]): void {
  const depth = stack.length;
  checkConditional(st, element, stack);
  if ((depth !== 2 && depth !== 3) || element.uri !== MAIN) return;
  const { facts } = st;
  const within = depth === 3 ? stack[1]!.local : undefined;
  if (depth === 2 && element.local === 'sheetData' && st.sheetDatas++ > 0) {
    throw new InvalidValue(`${st.part} has two sheetData: a spreadsheet shows one of them`);
  }
  if (depth === 2 && element.local === 'sheetFormatPr') {
    st.zeroHeight = isTrue(element.attr('zeroHeight'));
    const height = element.attr('defaultRowHeight');
    if (height !== undefined) st.defaultHeight = Number(height);
    facts.defaultWidth = positive(element.attr('defaultColWidth'));
    facts.baseWidth = positive(element.attr('baseColWidth'));
  } else if (depth === 2 && element.local === 'picture') {
    facts.picture = true;
  } else if (depth === 2 && element.local === MAIN_CONDITIONAL) {
    facts.conditional.push(element.attr('sqref') ?? '');
  } else if (element.local === 'sheetView' && within === 'sheetViews') {
    if (isTrue(element.attr('rightToLeft'))) facts.rightToLeft = true;
  } else if (element.local === 'col' && within === 'cols') {
    readColumn(st, element);
  } else if (element.local === 'cfRule' && within === 'conditionalFormatting') {
    const dxf = element.attr('dxfId');
    const change = dxf === undefined ? undefined : st.styleSheet.dxfChanges[Number(dxf)];
    if (change !== undefined) throw conditional(st, stack[1]!.attr('sqref'), change);
  } else if (element.local === 'mergeCell' && within === 'mergeCells') {
    if (st.merges.length >= MAX_MERGED_RANGES) {
      throw new InvalidValue(
        `the first sheet has more than ${MAX_MERGED_RANGES.toLocaleString('en')} merged ranges, which a payout sheet does not: unmerge them`,
      );
    }
    st.merges.push(mergedRange(element.attr('ref') ?? ''));
  }
}

/** A `<row>` of the sheet's data opens: its number, after the row before it, and its attributes. */
function openRow(st: SheetState, element: XmlElement): void {
  if (element.local !== 'row')
    throw new InvalidValue(`the sheet's data holds an unexpected ${element.local}`);
  const number = element.attr('r') === undefined ? st.lastRow + 1 : Number(element.attr('r'));
  if (!Number.isInteger(number) || number < 1 || number > MAX_ROW) {
    throw new InvalidValue(`row "${element.attr('r')}" is not a row number`);
  }
  if (number <= st.lastRow) {
    throw new InvalidValue(
      number === st.lastRow
        ? `row ${number} is written twice: a spreadsheet shows one of them`
        : `row ${number} is written after row ${st.lastRow}: save the workbook again from the spreadsheet`,
    );
  }
  st.lastRow = number;
  st.lastColumn = -1;
  st.row = { row: number, cells: [] };
  const height = element.attr('ht');
  const style = element.attr('s');
  st.rowAttributes.push({
    hidden: isTrue(element.attr('hidden')),
    height: height === undefined ? undefined : Number(height),
    style: style !== undefined && isTrue(element.attr('customFormat')) ? Number(style) : undefined,
    blanks: [],
  });
}

/** The column of a `<c>`: its reference, or the one after the cell before it. */
function cellColumn(st: SheetState, element: XmlElement, rowNumber: number): number {
  const reference = element.attr('r');
  if (reference === undefined) return st.lastColumn + 1;
  const at = parseRef(reference);
  if (at === undefined || at.column > MAX_COLUMN) {
    throw new InvalidValue(`row ${rowNumber} has a cell "${reference}" that is not a cell reference`);
  }
  if (at.row !== rowNumber) throw new InvalidValue(`cell ${reference} is written inside row ${rowNumber}`);
  return at.column;
}

/** A `<c>` opens: where it is, after the cell before it, and a style the workbook defines. */
function openCell(st: SheetState, element: XmlElement, where: string): void {
  if (element.local !== 'c') throw new InvalidValue(`${where} holds an unexpected ${element.local}`);
  const rowNumber = st.row!.row;
  const column = cellColumn(st, element, rowNumber);
  if (column > MAX_COLUMN) throw new InvalidValue(`row ${rowNumber} runs past the last column`);
  const ref = `${columnLetters(column)}${rowNumber}`;
  if (column <= st.lastColumn) {
    throw new InvalidValue(
      column === st.lastColumn
        ? `cell ${ref} is written twice: a spreadsheet shows one of them`
        : `cell ${ref} is written after ${columnLetters(st.lastColumn)}${rowNumber}: save the workbook again from the spreadsheet`,
    );
  }
  st.lastColumn = column;
  const style = Number(element.attr('s') ?? '0');
  if (!Number.isInteger(style) || (style !== 0 && style >= st.styleSheet.formats.length)) {
    throw new InvalidValue(`cell ${ref} has a style (${element.attr('s')}) the workbook does not define`);
  }
  st.cell = {
    ref,
    row: rowNumber,
    column,
    type: element.attr('t') ?? 'n',
    style,
    value: undefined,
    formula: undefined,
    inline: undefined,
    into: undefined,
  };
}

/** A cell's `<v>`, `<f>` or `<is>`, each at most once. */
function openCellPart(open: OpenCell, element: XmlElement, where: string): void {
  if (!CELL_PARTS.has(element.local)) throw new InvalidValue(`${where} holds an unexpected ${element.local}`);
  const twice = () =>
    new InvalidValue(`${where} holds two ${element.local}s: a spreadsheet shows one of them`);
  if (element.local === 'v') {
    if (open.value !== undefined) throw twice();
    open.value = '';
    open.into = 'v';
  } else if (element.local === 'f') {
    if (open.formula !== undefined) throw twice();
    open.formula = '';
    open.into = 'f';
  } else {
    if (open.inline !== undefined) throw twice();
    open.inline = new StringBuilder();
  }
}

function openElement(st: SheetState, element: XmlElement, stack: readonly XmlElement[]): void {
  const depth = stack.length;
  if (depth === 1) {
    if (element.uri !== MAIN || element.local !== 'worksheet') {
      throw new InvalidValue(
        `the first sheet is not a worksheet (${element.local}): pix reads a worksheet of rows`,
      );
    }
    return;
  }
  const inData = depth >= 3 && stack[1]!.local === 'sheetData' && stack[1]!.uri === MAIN;
  if (!inData) {
    openOutsideData(st, element, stack);
    return;
  }
  const where = st.cell === undefined ? `row ${st.row?.row ?? st.lastRow + 1}` : `cell ${st.cell.ref}`;
  if (element.uri !== MAIN) {
    throw new InvalidValue(
      `${where} holds an element of the namespace ${element.uri || '(none)'}, which a spreadsheet does not show`,
    );
  }
  if (depth === 3) openRow(st, element);
  else if (depth === 4) openCell(st, element, where);
  else if (depth === 5) openCellPart(st.cell!, element, where);
  else openInline(st.cell!, element, stack, where);
}

/** An element of a cell's inline string (`<is>`), checked as a shared string's are. */
function openInline(open: OpenCell, element: XmlElement, stack: readonly XmlElement[], where: string): void {
  const depth = stack.length;
  if (open.inline === undefined || stack[4]!.local !== 'is') {
    throw new InvalidValue(`${where} holds an unexpected ${element.local}`);
  }
  const parent = stack[depth - 2]!;
  checkStringElement(element, depth - 5, parent, where);
  open.inline.open(element, depth - 5, parent);
}

function addText(st: SheetState, text: string): void {
  if (st.sqref !== undefined) st.sqref += text;
  const { cell } = st;
  if (cell === undefined) return;
  if (cell.into === 'v') cell.value += text;
  else if (cell.into === 'f') cell.formula += text;
  else cell.inline?.add(text);
}

/** A `<c>` closes: its value read, or a blank the row remembers (a style, or a value that shows nothing). */
function closeCell(st: SheetState, cell: OpenCell): void {
  const read = readCell(cell, st.strings, st.styleSheet, st.format);
  if (read !== undefined) st.row!.cells.push(read);
  else {
    const holds = cell.value !== undefined || cell.inline !== undefined;
    if (holds || cell.style !== 0) {
      st.rowAttributes[st.rowAttributes.length - 1]!.blanks.push({
        column: cell.column,
        style: cell.style,
        holds,
      });
    }
  }
  st.cell = undefined;
}

/** A `<row>` closes: kept when it has cells, with whether it shows, its height, style and blanks. */
function closeRow(st: SheetState, row: SheetRow): void {
  const attributes = st.rowAttributes.pop()!;
  if (row.cells.length > 0) {
    const hidden = rowHidden(attributes, st.zeroHeight, st.defaultHeight);
    if (hidden !== undefined) row.hidden = hidden;
    const height = attributes.height ?? st.defaultHeight;
    if (height !== undefined && Number.isFinite(height)) row.height = height;
    if (attributes.style !== undefined && Number.isInteger(attributes.style)) row.style = attributes.style;
    if (attributes.blanks.length > 0) row.blanks = attributes.blanks;
    st.rows.push(row);
  }
  st.row = undefined;
}

function closeElement(st: SheetState, element: XmlElement, stack: readonly XmlElement[]): void {
  const depth = stack.length;
  const { cell } = st;
  if (st.sqref !== undefined && element.local === 'sqref') {
    st.facts.conditional.push(st.sqref);
    st.sqref = undefined;
  } else if (cell !== undefined && depth > 5 && cell.inline !== undefined) {
    cell.inline.close(element, depth - 5);
  } else if (depth === 5 && cell !== undefined) {
    cell.into = undefined;
  } else if (depth === 4 && cell !== undefined) {
    closeCell(st, cell);
  } else if (depth === 3 && st.row !== undefined && element.local === 'row') {
    closeRow(st, st.row);
  }
}

/** Reads the sheet's cells, rows, merged ranges, hidden columns and default row height. */
export async function sheetCells(
  book: Workbook,
  part: string,
  strings: readonly SharedString[],
  styleSheet: Styles,
  date1904: boolean,
): Promise<{ rows: SheetRow[]; merges: MergedRange[]; facts: LayoutFacts }> {
  const st: SheetState = {
    part,
    strings,
    styleSheet,
    format: (code, value, ref) => {
      try {
        return SSF.format(code, value, { date1904 });
      } catch {
        throw new InvalidValue(`cell ${ref} has a number format a spreadsheet cannot apply ("${code}")`);
      }
    },
    rows: [],
    rowAttributes: [],
    hiddenColumns: [],
    merges: [],
    facts: {
      columns: [],
      defaultWidth: undefined,
      baseWidth: undefined,
      conditional: [],
      rightToLeft: false,
      picture: false,
    },
    sqref: undefined,
    zeroHeight: false,
    defaultHeight: undefined,
    sheetDatas: 0,
    row: undefined,
    lastRow: 0,
    lastColumn: -1,
    cell: undefined,
  };
  await book.read(
    part,
    MAIN,
    SHEET_CONTENT,
    {
      open: (element, stack) => openElement(st, element, stack),
      text: (text) => addText(st, text),
      close: (element, stack) => closeElement(st, element, stack),
    },
    true,
  );
  if (st.hiddenColumns.length > 0) markHiddenColumns(st.rows, st.hiddenColumns);
  return { rows: st.rows, merges: st.merges, facts: st.facts };
}

function positive(text: string | undefined): number | undefined {
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}

/**
 * Why a row cannot be seen: hidden, or too short to show a line of text — its own height, or, without
 * one, the sheet's default (or zero when the sheet hides rows by default).
 */
function rowHidden(
  { hidden, height }: RowAttributes,
  zeroHeight: boolean,
  defaultHeight: number | undefined,
): string | undefined {
  if (hidden) return 'hidden';
  const effective = height ?? (zeroHeight ? 0 : defaultHeight);
  if (effective !== undefined && !(effective >= MIN_ROW_POINTS)) return `${effective} points tall`;
  return undefined;
}

/** Marks the cells of hidden columns: the ranges merged and sorted, one binary search per cell. */
function markHiddenColumns(rows: SheetRow[], ranges: Array<[number, number]>): void {
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [from, to] of ranges) {
    const last = merged[merged.length - 1];
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  for (const { cells } of rows) {
    for (const cell of cells) {
      let low = 0;
      let high = merged.length - 1;
      while (low <= high) {
        const middle = (low + high) >> 1;
        const [from, to] = merged[middle]!;
        if (cell.column < from) high = middle - 1;
        else if (cell.column > to) low = middle + 1;
        else {
          cell.hiddenColumn = true;
          break;
        }
      }
    }
  }
}

function mergedRange(ref: string): MergedRange {
  const [from, to] = ref.split(':').map(parseRef);
  if (from === undefined || to === undefined || to.row < from.row || to.column < from.column) {
    throw new InvalidValue(`the merged range "${ref}" is not a range of cells`);
  }
  return { ref, from, to };
}
