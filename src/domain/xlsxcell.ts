/**
 * One cell of an xlsx sheet, for `domain/xlsxcells.ts`: what it holds (a shared or inline string, a
 * number as the file writes it, a boolean, an error, a date, a formula) and what a spreadsheet shows for it
 * under its number format. Nothing is evaluated.
 */

import { InvalidValue } from './invalid.js';
import { isTrue } from './xlsxparts.js';
import type { SheetCell, SheetCellValue } from './xlsxsheet.js';
import { type SharedString, StringBuilder } from './xlsxstrings.js';
import type { Styles } from './xlsxstyles.js';

/** XML Schema's decimal and double, as a number cell's `<v>` is written. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export interface OpenCell {
  ref: string;
  row: number;
  column: number;
  type: string;
  style: number;
  value: string | undefined;
  formula: string | undefined;
  inline: StringBuilder | undefined;
  into: 'v' | 'f' | undefined;
}

/** What a cell holds, and what it shows; undefined for an empty one. */
export function readCell(
  cell: OpenCell,
  strings: readonly SharedString[],
  styleSheet: Styles,
  format: (code: string, value: number | string | boolean, ref: string) => string,
): SheetCell | undefined {
  const { ref, column, type } = cell;
  const code = styleSheet.formats[cell.style] ?? 'General';
  const plain = /^(?:general|@)$/i.test(code);
  const hides = styleSheet.hides[cell.style];
  const done = (value: SheetCellValue, shown?: string): SheetCell => ({
    ref,
    column,
    value,
    ...(shown === undefined ? {} : { shown, format: code }),
    ...(hides === undefined ? {} : { unreadableStyle: hides }),
    ...(cell.style === 0 ? {} : { style: cell.style }),
  });
  if (cell.formula !== undefined) return done({ kind: 'formula', formula: cell.formula });
  if (cell.inline !== undefined && type !== 'inlineStr') {
    throw new InvalidValue(`cell ${ref} holds an inline string but is typed ${type}`);
  }
  const value = cell.value ?? '';
  const text = (string: SharedString | StringBuilder): SheetCell | undefined => {
    if (string.text === '') return undefined;
    const rich =
      string instanceof StringBuilder
        ? string.rich
          ? { ...(string.hides ? { hides: string.hides } : {}) }
          : undefined
        : string.rich;
    return done(
      { kind: 'text', text: string.text, ...(rich === undefined ? {} : { rich }) },
      plain ? undefined : format(code, string.text, ref),
    );
  };
  switch (type) {
    case 's': {
      const index = Number(value);
      const string = /^\d+$/.test(value.trim()) ? strings[index] : undefined;
      if (string === undefined) {
        throw new InvalidValue(
          `cell ${ref} refers to the shared string "${value}", which the workbook does not have`,
        );
      }
      return text(string);
    }
    case 'inlineStr':
      if (cell.value !== undefined) throw new InvalidValue(`cell ${ref} holds an inline string and a value`);
      return cell.inline === undefined ? undefined : text(cell.inline);
    case 'str':
      return value === '' ? undefined : text({ text: value });
    case 'b': {
      if (value === '') return undefined;
      if (!/^(?:0|1|true|false)$/.test(value.trim()))
        throw new InvalidValue(`cell ${ref} holds "${value}", not a boolean`);
      const bool = isTrue(value.trim());
      return done({ kind: 'boolean', value: bool }, plain ? undefined : format(code, bool, ref));
    }
    case 'e':
      return done({ kind: 'error', text: value });
    case 'd':
      return value === '' ? undefined : done({ kind: 'date', text: value });
    case 'n': {
      const number = value.trim();
      if (number === '') return undefined;
      if (!DECIMAL.test(number)) throw new InvalidValue(`cell ${ref} holds "${value}", not a decimal number`);
      // Kept only when it differs from the number's plain text (most cells): 400,000 strings fewer in a
      // 100,000-row sheet.
      const shown = format(code, Number(number), ref);
      return done({ kind: 'number', text: number }, shown === String(Number(number)) ? undefined : shown);
    }
    default:
      throw new InvalidValue(`cell ${ref} has a type ("${type}") spreadsheets do not have`);
  }
}
