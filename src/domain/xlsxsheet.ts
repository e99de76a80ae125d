/**
 * The first sheet of an xlsx workbook, read as what each cell holds — for `pix pay batch FILE.xlsx`.
 * Pure (bytes in, cells out), loaded only for a workbook: fflate opens the ZIP, sax (in strict mode)
 * reads the parts. Nothing is evaluated: a formula is reported as a formula, whatever
 * value the spreadsheet cached for it, and a number is kept as the text the file stores (`1234.56`), so
 * the batch reader converts it to centavos without float arithmetic.
 */
import { unzipSync } from 'fflate';
import sax from 'sax';
import { columnLetters, parseRef } from './cellref.js';
import { InvalidValue } from './invalid.js';

export type SheetCellValue =
  | { kind: 'text'; text: string }
  /** A number as the file writes it (`12.5`, `1234.56`, `1E-3`). */
  | { kind: 'number'; text: string }
  | { kind: 'boolean'; value: boolean }
  /** `#N/A`, `#DIV/0!`… */
  | { kind: 'error'; text: string }
  /** Any cell with a formula (`<f>`), whatever it evaluated to. */
  | { kind: 'formula'; formula: string };

export interface SheetCell {
  /** `B7` */
  ref: string;
  /** 0-based column. */
  column: number;
  value: SheetCellValue;
}

export interface SheetRow {
  /** 1-based, as the spreadsheet numbers it. */
  row: number;
  cells: SheetCell[];
}

export interface SheetData {
  name: string;
  rows: SheetRow[];
  /** Merged ranges, as written (`B7:C7`). */
  merges: string[];
}

/** Largest part read, uncompressed: a batch sheet is far smaller; a ZIP bomb is refused. */
const MAX_PART_BYTES = 64 * 1024 * 1024;
const decoder = new TextDecoder('utf-8', { fatal: false });

function notAWorkbook(why: string): InvalidValue {
  return new InvalidValue(`not an xlsx workbook (${why}): save it from the spreadsheet as .xlsx`);
}

/** Calls `onOpen`/`onText`/`onClose` for the XML of `text`, namespaces ignored (local names). */
function walk(
  text: string,
  handlers: {
    open?: (name: string, attributes: Record<string, string>) => void;
    text?: (text: string) => void;
    close?: (name: string) => void;
  },
): void {
  // Strict, and every element is closed for the handlers (sax closes a self-closing one too).
  const parser = sax.parser(true, { xmlns: false });
  const local = (name: string) => name.slice(name.indexOf(':') + 1);
  parser.onopentag = (tag) => {
    const attributes: Record<string, string> = {};
    for (const [name, value] of Object.entries(tag.attributes)) attributes[local(name)] = String(value);
    handlers.open?.(local(tag.name), attributes);
  };
  parser.onclosetag = (name) => handlers.close?.(local(name));
  if (handlers.text) {
    parser.ontext = handlers.text;
    parser.oncdata = handlers.text;
  }
  try {
    parser.write(text).close();
  } catch (error) {
    throw notAWorkbook(
      `damaged XML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
}

function part(files: Record<string, Uint8Array>, name: string): string | undefined {
  const bytes = files[name];
  return bytes === undefined ? undefined : decoder.decode(bytes);
}

/** Relationship ids → targets, resolved against `xl/`. */
function relationships(text: string | undefined): Map<string, { type: string; target: string }> {
  const map = new Map<string, { type: string; target: string }>();
  if (text === undefined) return map;
  walk(text, {
    open(name, a) {
      if (name !== 'Relationship' || !a.Id || !a.Target) return;
      const target = a.Target.startsWith('/') ? a.Target.slice(1) : `xl/${a.Target.replace(/^\.\//, '')}`;
      map.set(a.Id, { type: a.Type ?? '', target });
    },
  });
  return map;
}

function sharedStrings(text: string | undefined): string[] {
  const strings: string[] = [];
  if (text === undefined) return strings;
  let current: string | undefined;
  let inText = false;
  let phonetic = 0;
  walk(text, {
    open(name) {
      if (name === 'si') current = '';
      else if (name === 'rPh') phonetic++;
      else if (name === 't' && phonetic === 0) inText = true;
    },
    text(value) {
      if (inText && current !== undefined) current += value;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si') {
        strings.push(current ?? '');
        current = undefined;
      }
    },
  });
  return strings;
}

/**
 * Reads the workbook's first sheet. Throws InvalidValue when the bytes are not an xlsx workbook (a legacy
 * .xls, a CSV renamed, a damaged file).
 */
export function readFirstSheet(bytes: Uint8Array): SheetData {
  if (bytes[0] !== 0x50 || bytes[1] !== 0x4b) throw notAWorkbook('not a ZIP file');
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (file) =>
        file.name.startsWith('xl/') &&
        !file.name.startsWith('xl/media/') &&
        file.originalSize <= MAX_PART_BYTES,
    });
  } catch (error) {
    throw notAWorkbook(error instanceof Error ? error.message : String(error));
  }
  const workbook = part(files, 'xl/workbook.xml');
  if (workbook === undefined) throw notAWorkbook('no xl/workbook.xml');
  let first: { name: string; id: string } | undefined;
  walk(workbook, {
    open(name, a) {
      if (name === 'sheet' && first === undefined && a.id) first = { name: a.name ?? 'Sheet1', id: a.id };
    },
  });
  if (first === undefined) throw notAWorkbook('it has no sheet');
  const rels = relationships(part(files, 'xl/_rels/workbook.xml.rels'));
  const target = rels.get(first.id)?.target;
  const sheetText = target === undefined ? undefined : part(files, target);
  if (sheetText === undefined) throw notAWorkbook(`the sheet ${first.name} is missing`);
  const stringsTarget = [...rels.values()].find((rel) => rel.type.endsWith('/sharedStrings'))?.target;
  const strings = sharedStrings(part(files, stringsTarget ?? 'xl/sharedStrings.xml'));
  return { name: first.name, ...readCells(sheetText, strings) };
}

function readCells(text: string, strings: readonly string[]): { rows: SheetRow[]; merges: string[] } {
  const rows: SheetRow[] = [];
  const merges: string[] = [];
  let row: SheetRow | undefined;
  let nextColumn = 0;
  let cell: { ref: string; column: number; type: string } | undefined;
  let formula: string | undefined;
  let value = '';
  let inline = '';
  let into: 'v' | 'f' | 't' | undefined;
  let inInline = false;
  walk(text, {
    open(name, a) {
      switch (name) {
        case 'row': {
          const number = Number(a.r ?? (rows.length === 0 ? 1 : rows[rows.length - 1]!.row + 1));
          row = { row: number, cells: [] };
          nextColumn = 0;
          break;
        }
        case 'c': {
          const at = a.r === undefined ? undefined : parseRef(a.r);
          const column = at?.column ?? nextColumn;
          const rowNumber = row?.row ?? at?.row ?? 1;
          const ref = a.r ?? `${columnLetters(column)}${rowNumber}`;
          cell = { ref, column, type: a.t ?? 'n' };
          nextColumn = column + 1;
          formula = undefined;
          value = '';
          inline = '';
          break;
        }
        case 'f':
          into = 'f';
          formula = formula ?? '';
          break;
        case 'v':
          into = 'v';
          break;
        case 'is':
          inInline = true;
          break;
        case 't':
          if (inInline) into = 't';
          break;
        case 'mergeCell':
          if (a.ref) merges.push(a.ref);
          break;
      }
    },
    text(chunk) {
      if (into === 'v') value += chunk;
      else if (into === 'f') formula += chunk;
      else if (into === 't') inline += chunk;
    },
    close(name) {
      if (name === 'f' || name === 'v' || name === 't') into = undefined;
      else if (name === 'is') inInline = false;
      else if (name === 'c' && cell) {
        const read = cellValue(cell.type, formula, value, inline, strings);
        if (read !== undefined) {
          row ??= { row: 1, cells: [] };
          row.cells.push({ ref: cell.ref, column: cell.column, value: read });
        }
        cell = undefined;
      } else if (name === 'row' && row) {
        if (row.cells.length > 0) rows.push(row);
        row = undefined;
      }
    },
  });
  return { rows, merges };
}

/** What a cell holds; undefined for an empty one. */
function cellValue(
  type: string,
  formula: string | undefined,
  value: string,
  inline: string,
  strings: readonly string[],
): SheetCellValue | undefined {
  if (formula !== undefined) return { kind: 'formula', formula };
  switch (type) {
    case 's': {
      const text = strings[Number(value)];
      return text === undefined || text === '' ? undefined : { kind: 'text', text };
    }
    case 'inlineStr':
      return inline === '' ? undefined : { kind: 'text', text: inline };
    case 'str':
      return value === '' ? undefined : { kind: 'text', text: value };
    case 'b':
      return value === '' ? undefined : { kind: 'boolean', value: value === '1' };
    case 'e':
      return { kind: 'error', text: value };
    case 'd':
      return value === '' ? undefined : { kind: 'text', text: value };
    default:
      return value.trim() === '' ? undefined : { kind: 'number', text: value.trim() };
  }
}
