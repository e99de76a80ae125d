/**
 * A batch payout workbook (`pix pay batch FILE.xlsx`): its first sheet, as `domain/xlsxsheet.ts` reads it,
 * checked row by row by the rules every batch file follows (`domain/batchrow.ts`), with what a person cannot
 * see in a spreadsheet refused cell by cell.
 */

import { BATCH_COLUMNS, type BatchColumn, type BatchColumnMap, type BatchParseResult } from './batch.js';
import { RowChecker, shownId } from './batchrow.js';
import { readHeader } from './batchtext.js';
import type { SheetCell, SheetCellValue, SheetData } from './xlsxsheet.js';

// ---------------------------------------------------------------------------------------------
// xlsx

/**
 * The columns that decide who is paid how much: their cells must look alike to every reader
 * (`SheetLayout.unclear`: colours, number format colours and literal separators, conditional formats,
 * width). A BR Code is never read by a person character by character (pix shows what it pays before
 * paying), so its cell need not show whole; an id or a description may be grey or cut.
 */
const PAID: ReadonlySet<BatchColumn> = new Set(['key', 'key_type', 'emv', 'amount']);

/**
 * The first sheet of a workbook (`readFirstSheet`, loaded only for one), read as a CSV is: the first
 * non-empty row is the header, then one payment per row. A cell holds what was typed and shows it, or it
 * is refused naming the cell, since pix pays only what the operator sees: a formula (whatever it
 * evaluated to), a merged cell, an error or a date cell; a cell in a hidden row or column; a number
 * whose format shows something else (`10` over 10.4, `1,234.57` over 1234567, `1250%`, a date, nothing
 * at all); text whose format adds to it or hides it; rich text in an amount, key or emv cell, and text
 * with a run too small or white to read anywhere; in the columns that decide who is paid how much, a
 * cell that readers may see otherwise (`PAID`, `SheetLayout.unclear`). A number cell is an amount read exactly (12.5 →
 * R$ 12,50), an id (whole numbers only) or a description; a key or emv code must be text — as a number a
 * CPF loses its leading 0 and a phone its +.
 */
export function parseBatchSheet(sheet: SheetData, map?: BatchColumnMap): BatchParseResult {
  const reading: SheetReading = {
    sheet,
    map,
    checker: new RowChecker(true),
    merged: mergedCells(sheet),
    header: undefined,
  };
  const { checker } = reading;
  for (const sheetRow of sheet.rows) {
    const { header } = reading;
    const idCell =
      header === undefined ? undefined : sheetRow.cells.find((cell) => header[cell.column] === 'id');
    const at: RowAt = {
      sheetRow,
      id: idCell === undefined ? undefined : shownId(sheetText(idCell.value).trim()),
    };
    if (sheetRow.hidden !== undefined) {
      // One problem for the row, at its first cell: every cell of it is as unseen as the others.
      if (header !== undefined) checker.rowsRead++;
      problem(
        reading,
        at,
        sheetRow.cells[0]!,
        `row ${sheetRow.row} is ${sheetRow.hidden}: a person does not see what pix would pay; unhide it or delete it`,
      );
      if (header === undefined) return checker.result();
      continue;
    }
    if (header !== undefined) readPaymentRow(reading, at, header);
    else if (!readHeaderRow(reading, at)) return checker.result();
  }
  if (reading.header === undefined) {
    checker.problem({
      line: 1,
      message: `the sheet ${sheet.name} is empty: its first row must be a header, e.g. id, key, amount, description`,
    });
  }
  return checker.result();
}

/** A sheet being read (parseBatchSheet's steps below share it; architecture rule 14). */
interface SheetReading {
  readonly sheet: SheetData;
  readonly map: BatchColumnMap | undefined;
  readonly checker: RowChecker;
  readonly merged: ReturnType<typeof mergedCells>;
  /** The header's columns, once its row was read. */
  header: Array<BatchColumn | undefined> | undefined;
}

/** The row being read, and its id when it has one (problems name it). */
interface RowAt {
  readonly sheetRow: SheetData['rows'][number];
  readonly id: string | undefined;
}

function problem(
  reading: SheetReading,
  at: RowAt,
  cell: SheetCell,
  message: string,
  column?: BatchColumn,
): void {
  reading.checker.problem({
    line: at.sheetRow.row,
    cell: cell.ref,
    ...(at.id === undefined ? {} : { id: at.id }),
    ...(column ? { column } : {}),
    message,
  });
}

/** Whether a cell is refused as a person cannot read it as pix would (said, naming the cell). */
function unreadable(reading: SheetReading, at: RowAt, cell: SheetCell, column?: BatchColumn): boolean {
  const message =
    unreadableCell(cell, reading.merged.get(cell.ref), column) ??
    (column !== undefined && PAID.has(column)
      ? reading.sheet.layout?.unclear(cell, at.sheetRow, { width: column !== 'emv' })
      : undefined);
  if (message === undefined) return false;
  problem(reading, at, cell, message, column);
  return true;
}

/** The first row read: the header. False when the sheet cannot be read past it. */
function readHeaderRow(reading: SheetReading, at: RowAt): boolean {
  const { cells, row } = at.sheetRow;
  if (cells.some((cell) => unreadable(reading, at, cell))) return false;
  const width = Math.max(...cells.map((cell) => cell.column)) + 1;
  const names = Array.from({ length: width }, () => '');
  for (const cell of cells) names[cell.column] = sheetText(cell.value);
  const columns = readHeader(row, names, reading.checker, reading.map);
  if (columns === undefined) return false;
  reading.header = columns;
  return true;
}

/** What a payment row's cells hold, by column, and which columns are refused. */
interface RowCells {
  texts: Partial<Record<BatchColumn, string>>;
  refs: Partial<Record<BatchColumn, string>>;
  broken: Set<BatchColumn>;
  amountNumber: number | undefined;
}

/** One payment's row, checked by the rules every batch file follows (batchrow.ts). */
function readPaymentRow(reading: SheetReading, at: RowAt, header: Array<BatchColumn | undefined>): void {
  const found: RowCells = { texts: {}, refs: {}, broken: new Set(), amountNumber: undefined };
  let rowProblem = false;
  for (const cell of at.sheetRow.cells) {
    const column = header[cell.column];
    // A column --map leaves to the file's owner is not read.
    if (column === undefined && cell.column < header.length) continue;
    if (column === undefined) {
      problem(reading, at, cell, "a value outside the header's columns");
      rowProblem = true;
      continue;
    }
    found.refs[column] = cell.ref;
    if (unreadable(reading, at, cell, column)) found.broken.add(column);
    else readPaymentCell(reading, at, cell, column, found);
  }
  if (rowProblem) {
    reading.checker.rowsRead++;
    return;
  }
  const { texts, refs, amountNumber, broken } = found;
  reading.checker.check(
    { line: at.sheetRow.row, cells: texts, refs, ...(amountNumber === undefined ? {} : { amountNumber }) },
    broken,
  );
}

/** A readable cell of a payment: a number read exactly (an amount, a whole id), or its text. */
function readPaymentCell(
  reading: SheetReading,
  at: RowAt,
  cell: SheetCell,
  column: BatchColumn,
  found: RowCells,
) {
  const { value } = cell;
  if (value.kind !== 'number') {
    const text = sheetText(value).trim();
    if (text !== '') found.texts[column] = text;
    return;
  }
  if (column === 'amount') found.amountNumber = Number(value.text);
  else if (column === 'key' || column === 'emv') {
    problem(
      reading,
      at,
      cell,
      `holds the number ${value.text}: a ${column === 'key' ? 'key' : 'code'} must be a text cell (as a number a CPF loses its leading 0 and a phone its +); format the column as Text`,
      column,
    );
    found.broken.add(column);
  } else if (column === 'id' && !Number.isSafeInteger(Number(value.text))) {
    problem(reading, at, cell, `holds the number ${value.text}: an id is text or a whole number`, column);
    found.broken.add(column);
  } else found.texts[column] = String(Number(value.text));
}

/** Why a cell cannot be paid as a person reads it, or undefined when it can. `column` is undefined in the header. */
function unreadableCell(
  cell: SheetCell,
  range: string | undefined,
  column?: BatchColumn,
): string | undefined {
  const { value } = cell;
  if (range !== undefined) return `part of the merged cells ${range}: unmerge them`;
  if (cell.unreadableStyle !== undefined) {
    return `${cell.unreadableStyle}: a person cannot read it; clear the cell's formatting`;
  }
  if (cell.hiddenColumn)
    return 'in a hidden column: a person does not see it; unhide the column or clear the cell';
  switch (value.kind) {
    case 'formula':
      return `holds a formula (=${value.formula}): type the value itself`;
    case 'error':
      return `holds the error ${value.text}`;
    case 'date':
      return `holds a date (${value.text}), not ${column === undefined ? 'text' : `a${column === 'amount' || column === 'id' ? 'n' : ''} ${column}`}`;
    case 'text':
      if (value.rich?.hides !== undefined) {
        return `its text has ${value.rich.hides} that a person cannot read: clear the formatting of the cell`;
      }
      if (value.rich !== undefined && (column === 'amount' || column === 'key' || column === 'emv')) {
        return `holds formatted text (rich text): ${column === 'amount' ? 'an amount' : `a ${column}`} must be plain; clear the formatting of the cell`;
      }
      if (cell.shown !== undefined && cell.shown !== value.text) return shownMessage(cell, `"${value.text}"`);
      return undefined;
    case 'boolean':
      if (cell.shown !== undefined && cell.shown !== (value.value ? 'TRUE' : 'FALSE')) {
        return shownMessage(cell, value.value ? 'TRUE' : 'FALSE');
      }
      return undefined;
    case 'number': {
      if (cell.shown === undefined) return undefined;
      // A key or code is never a number (the row's own check says why): no advice on its number format,
      // which would send a person round in a circle ("format it as General" of a cell that is General).
      if (column === 'key' || column === 'emv') return undefined;
      const stored = String(Number(value.text));
      const same = column === 'amount' ? sameDecimal(shownNumber(cell.shown), stored) : cell.shown === stored;
      return same ? undefined : shownMessage(cell, stored);
    }
  }
}

function shownMessage(cell: SheetCell, holds: string): string {
  const shows = cell.shown === '' ? 'shows nothing' : `shows "${cell.shown}"`;
  return `${shows} but holds ${holds} (number format "${cell.format}"): format the cell to show its value (General, or #,##0.00 for an amount)`;
}

/**
 * The number a person reads in a cell's shown text, as ssf writes it (`,` between thousands, `.` before
 * decimals): one run of digits with letters, currency signs or spaces around it (`R$ 1,234.50`, `10.50
 * reais`). Undefined for anything else: a percent, a sign or parentheses, a date, a fraction, an exponent,
 * two numbers, none.
 */
function shownNumber(shown: string): string | undefined {
  const match = /^([\p{L}\p{Sc}\s]*)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?([\p{L}\p{Sc}\s]*)$/u.exec(shown);
  if (!match) return undefined;
  return `${match[2]!.replaceAll(',', '')}${match[3] ?? ''}`;
}

/** Two decimal texts (`1234.50`, `1234.5`) are the same number. */
function sameDecimal(a: string | undefined, b: string): boolean {
  if (a === undefined || !/^\d+(?:\.\d+)?$/.test(b)) return false;
  const canonical = (text: string) => {
    const [whole, fraction = ''] = text.split('.');
    return `${whole!.replace(/^0+(?=\d)/, '')}.${fraction.replace(/0+$/, '')}`;
  };
  return canonical(a) === canonical(b);
}

function sheetText(value: SheetCellValue): string {
  switch (value.kind) {
    case 'text':
      return value.text;
    case 'number':
      return value.text;
    case 'boolean':
      return value.value ? 'TRUE' : 'FALSE';
    case 'error':
      return value.text;
    case 'formula':
      return `=${value.formula}`;
    case 'date':
      return value.text;
  }
}

/**
 * The first value cell (in row order) of each merged range, → the range. Ranges are checked as ranges and
 * never expanded (a range may span a million rows): per range, a binary search in each column of the
 * header's width (at most the five batch columns: any cell beyond them is refused on its own).
 */
function mergedCells(sheet: SheetData): Map<string, string> {
  const found = new Map<string, string>();
  if (sheet.merges.length === 0) return found;
  const width = BATCH_COLUMNS.length;
  const columns: Array<Array<{ row: number; ref: string }>> = Array.from({ length: width }, () => []);
  for (const { row, cells } of sheet.rows) {
    for (const cell of cells) if (cell.column < width) columns[cell.column]!.push({ row, ref: cell.ref });
  }
  for (const range of sheet.merges) {
    let first: { row: number; ref: string } | undefined;
    for (let column = range.from.column; column <= Math.min(range.to.column, width - 1); column++) {
      const cells = columns[column]!;
      let low = 0;
      let high = cells.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (cells[middle]!.row < range.from.row) low = middle + 1;
        else high = middle;
      }
      const cell = cells[low];
      if (cell !== undefined && cell.row <= range.to.row && (first === undefined || cell.row < first.row)) {
        first = cell;
      }
    }
    if (first !== undefined && !found.has(first.ref)) found.set(first.ref, range.ref);
  }
  return found;
}
