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
 * The first sheet of a workbook (`readFirstSheet`, loaded only for one), read as a CSV is: the first
 * non-empty row is the header, then one payment per row. A cell holds what was typed and shows it, or it
 * is refused naming the cell, since pix pays only what the operator sees: a formula (whatever it
 * evaluated to), a merged cell, an error or a date cell; a cell in a hidden row or column; a number
 * whose format shows something else (`10` over 10.4, `1,234.57` over 1234567, `1250%`, a date, nothing
 * at all); text whose format adds to it or hides it; rich text in an amount, key or emv cell, and text
 * with a run too small or white to read anywhere. A number cell is an amount read exactly (12.5 →
 * R$ 12,50), an id (whole numbers only) or a description; a key or emv code must be text — as a number a
 * CPF loses its leading 0 and a phone its +.
 */
export function parseBatchSheet(sheet: SheetData, map?: BatchColumnMap): BatchParseResult {
  const checker = new RowChecker(true);
  let header: Array<BatchColumn | undefined> | undefined;
  let headerSeen = false;
  const merged = mergedCells(sheet);
  for (const { row, cells, hidden } of sheet.rows) {
    const idCell = header === undefined ? undefined : cells.find((cell) => header![cell.column] === 'id');
    const id = idCell === undefined ? undefined : shownId(sheetText(idCell.value).trim());
    const problem = (cell: SheetCell, message: string, column?: BatchColumn) =>
      checker.problem({
        line: row,
        cell: cell.ref,
        ...(id === undefined ? {} : { id }),
        ...(column ? { column } : {}),
        message,
      });
    if (hidden !== undefined) {
      // One problem for the row, at its first cell: every cell of it is as unseen as the others.
      if (headerSeen) checker.rowsRead++;
      problem(
        cells[0]!,
        `row ${row} is ${hidden}: a person does not see what pix would pay; unhide it or delete it`,
      );
      if (!headerSeen) return checker.result();
      continue;
    }
    const unreadable = (cell: SheetCell, column?: BatchColumn): boolean => {
      const message = unreadableCell(cell, merged.get(cell.ref), column);
      if (message === undefined) return false;
      problem(cell, message, column);
      return true;
    };
    if (!headerSeen) {
      headerSeen = true;
      if (cells.some((cell) => unreadable(cell))) return checker.result();
      const width = Math.max(...cells.map((cell) => cell.column)) + 1;
      const names = Array.from({ length: width }, () => '');
      for (const cell of cells) names[cell.column] = sheetText(cell.value);
      const columns = readHeader(row, names, checker, map);
      if (columns === undefined) return checker.result();
      header = columns;
      continue;
    }
    const texts: Partial<Record<BatchColumn, string>> = {};
    const refs: Partial<Record<BatchColumn, string>> = {};
    const broken = new Set<BatchColumn>();
    let amountNumber: number | undefined;
    let rowProblem = false;
    for (const cell of cells) {
      const column = header?.[cell.column];
      // A column --map leaves to the file's owner is not read.
      if (column === undefined && header !== undefined && cell.column < header.length) continue;
      if (column === undefined) {
        problem(cell, "a value outside the header's columns");
        rowProblem = true;
        continue;
      }
      refs[column] = cell.ref;
      if (unreadable(cell, column)) {
        broken.add(column);
        continue;
      }
      const { value } = cell;
      if (value.kind === 'number') {
        if (column === 'amount') amountNumber = Number(value.text);
        else if (column === 'key' || column === 'emv') {
          problem(
            cell,
            `holds the number ${value.text}: a ${column === 'key' ? 'key' : 'code'} must be a text cell (as a number a CPF loses its leading 0 and a phone its +); format the column as Text`,
            column,
          );
          broken.add(column);
        } else if (column === 'id' && !Number.isSafeInteger(Number(value.text))) {
          problem(cell, `holds the number ${value.text}: an id is text or a whole number`, column);
          broken.add(column);
        } else texts[column] = String(Number(value.text));
        continue;
      }
      const text = sheetText(value).trim();
      if (text !== '') texts[column] = text;
    }
    if (rowProblem) {
      checker.rowsRead++;
      continue;
    }
    checker.check(
      { line: row, cells: texts, refs, ...(amountNumber === undefined ? {} : { amountNumber }) },
      broken,
    );
  }
  if (!headerSeen) {
    checker.problem({
      line: 1,
      message: `the sheet ${sheet.name} is empty: its first row must be a header, e.g. id, key, amount, description`,
    });
  }
  return checker.result();
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
