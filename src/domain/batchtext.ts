/**
 * A batch payout file written as text (`pix pay batch FILE`): CSV with a header (RFC 4180, records from
 * `domain/batchcsv.ts`; `,` or, when the header has only semicolons, `;`) or NDJSON (one JSON object per
 * line), each row checked by the rules every batch file follows (`domain/batchrow.ts`).
 */

import {
  BATCH_COLUMNS,
  type BatchColumn,
  type BatchColumnMap,
  type BatchParseResult,
  type BatchProblem,
  COLUMN_LIST,
  columnName,
  isColumn,
  type TextBatchFormat,
} from './batch.js';
import { detectDelimiter, readCsvRecords } from './batchcsv.js';
import { type RawRow, RowChecker, type SplitDecimal, shownId } from './batchrow.js';
import { headerKey } from './expectations.js';
import { parseFieldMap } from './fieldmap.js';

/**
 * Reads and checks a whole batch file. Linear in its size; never throws on bad content. `map` names the
 * file's own headers (`--map`); then columns it does not name and pix does not know are ignored.
 */
export function parseBatchFile(
  text: string,
  format: TextBatchFormat,
  map?: BatchColumnMap,
): BatchParseResult {
  const checker = new RowChecker();
  if (format === 'csv') readCsv(text, checker, map);
  else readNdjson(text, checker, map);
  return checker.result();
}

/**
 * `--map key=Chave PIX,amount=Valor Líquido`: the reconcile's syntax (parseFieldMap), a batch file's
 * columns (in English or Portuguese: `chave=Chave PIX`). Throws InvalidValue.
 */
export function parseBatchColumnMap(text: string): BatchColumnMap {
  return parseFieldMap(text, BATCH_COLUMNS, (typed) => {
    const name = columnName(typed);
    return isColumn(name) ? name : undefined;
  });
}

/**
 * What a header names, by `map` first (its headers compared as folded: case, accents and spaces do not
 * count), then by pix's own names for the columns the map leaves out; undefined for another column.
 */
function columnsBy(map: BatchColumnMap | undefined): (field: string) => string {
  if (map === undefined) return columnName;
  const mapped = new Map(Object.entries(map).map(([column, header]) => [headerKey(header!), column]));
  const taken = new Set(Object.keys(map));
  return (field) => {
    const byMap = mapped.get(headerKey(field));
    if (byMap !== undefined) return byMap;
    const own = columnName(field);
    // A column the map gave another header is not read by its own name too: one column per field.
    return isColumn(own) && taken.has(own) ? '' : own;
  };
}

// ---------------------------------------------------------------------------------------------
// CSV

/**
 * The header's columns by position (undefined: a column `--map` leaves to the file's owner), or undefined
 * after reporting what is wrong with it.
 */
export function readHeader(
  line: number,
  fields: string[],
  checker: RowChecker,
  map?: BatchColumnMap,
): Array<BatchColumn | undefined> | undefined {
  const before = checker.problems.length;
  const columns: Array<BatchColumn | undefined> = [];
  const seen = new Set<string>();
  const nameOf = columnsBy(map);
  fields.forEach((field, index) => {
    const name = nameOf(field);
    if (map !== undefined && !isColumn(name)) {
      columns.push(undefined); // the file's own column: not pix's to read
    } else if (name === '') {
      checker.problem({
        line,
        message: `column ${index + 1} of the header has no name (columns: ${COLUMN_LIST}; or name yours with --map key=…,amount=…)`,
      });
    } else if (!isColumn(name)) {
      checker.problem({
        line,
        column: name,
        message: `unknown column (columns: ${COLUMN_LIST}, or in Portuguese; or name yours with --map key=…,amount=…)`,
      });
    } else if (seen.has(name)) {
      checker.problem({ line, column: name, message: 'the column appears twice in the header' });
    } else {
      seen.add(name);
      columns.push(name);
    }
  });
  for (const [column, header] of Object.entries(map ?? {})) {
    if (!seen.has(column))
      checker.problem({ line, column, message: `no column "${header}" in the header (--map)` });
  }
  if (!seen.has('id')) checker.problem({ line, column: 'id', message: 'missing column' });
  if (!seen.has('key') && !seen.has('emv')) {
    checker.problem({
      line,
      column: 'key',
      message: 'missing column: the header needs key or emv (or both)',
    });
  }
  if (seen.has('key_type') && !seen.has('key')) {
    checker.problem({
      line,
      column: 'key_type',
      message: 'names the type of a key: the header needs key too',
    });
  }
  if (seen.has('key') && !seen.has('amount')) {
    checker.problem({ line, column: 'amount', message: 'missing column: key payments need an amount' });
  }
  return checker.problems.length === before ? columns : undefined;
}

/** An amount with no decimals: `10`, `R$ 10`, `1.234` (what is left of `10,50` or `1.234,56` cut at the comma). */
const WHOLE_AMOUNT = /^(?:R\$\s*)?(?:\d+|\d{1,3}(?:\.\d{3})+)$/i;
/** What is left after the comma: one to three digits (centavos, or a third decimal or thousands). */
const AFTER_COMMA = /^\d{1,3}$/;

/**
 * In a comma file, an unquoted whole amount followed by an unquoted field of one to three digits, whatever
 * the column after the amount: the row as written pays the whole amount, but `10,50` or `10,500` without
 * quotes reads exactly so (the operator left out a column, and the comma filled it). Only the operator
 * knows which was meant, so the row is refused. A semicolon file has no such split; nor do `10.00,50`,
 * `10,Rent`, `10,5000`, or a field in double quotes (delimited on purpose).
 */
function splitDecimal(
  delimiter: ',' | ';',
  header: ReadonlyArray<BatchColumn | undefined>,
  fields: readonly string[],
  quoted: readonly boolean[],
): SplitDecimal | undefined {
  if (delimiter !== ',') return undefined;
  const at = header.indexOf('amount');
  if (at === -1 || at + 1 >= header.length || quoted[at] || quoted[at + 1]) return undefined;
  const amount = fields[at]!.trim();
  const digits = fields[at + 1]!.trim();
  if (!WHOLE_AMOUNT.test(amount) || !AFTER_COMMA.test(digits)) return undefined;
  return { amount, column: header[at + 1], digits };
}

/**
 * The row's id for a problem of its shape (a field too many or too few), when no comma before the id
 * column could have moved it: the id is before every column whose text may hold one.
 */
function idBeforeCommas(
  header: ReadonlyArray<BatchColumn | undefined>,
  fields: readonly string[],
): string | undefined {
  const at = header.indexOf('id');
  const loose = header.findIndex((column) => column === 'amount' || column === 'description');
  if (at === -1 || (loose !== -1 && loose < at)) return undefined;
  return shownId(fields[at]?.trim());
}

function readCsv(text: string, checker: RowChecker, map: BatchColumnMap | undefined): void {
  const delimiter = detectDelimiter(text);
  let header: Array<BatchColumn | undefined> | undefined;
  let headerSeen = false;
  readCsvRecords(text, delimiter, (record) => {
    const { line, fields } = record;
    if (fields.every((field) => field.trim() === '') && record.error === undefined) return; // blank line
    if (!headerSeen) {
      headerSeen = true;
      if (record.error === undefined) header = readHeader(line, fields, checker, map);
      else checker.problem({ line, message: `header: ${record.error}` });
      return;
    }
    if (header === undefined) return; // a broken header: its problems say it all
    if (record.error !== undefined) {
      checker.rowsRead++;
      checker.problem({ line, message: record.error });
      return;
    }
    if (fields.length !== header.length) {
      checker.rowsRead++;
      const hint =
        fields.length > header.length && delimiter === ','
          ? ': a value with a comma (like 10,50) must be in double quotes, or use ; between fields'
          : '';
      const id = idBeforeCommas(header, fields);
      checker.problem({
        line,
        ...(id === undefined ? {} : { id }),
        message: `${fields.length} fields, the header has ${header.length}${hint}`,
      });
      return;
    }
    const cells: Partial<Record<BatchColumn, string>> = {};
    for (let index = 0; index < header.length; index++) {
      const value = fields[index]!.trim();
      const column = header[index];
      if (value !== '' && column !== undefined) cells[column] = value;
    }
    const split = splitDecimal(delimiter, header, fields, record.quoted);
    if (split === undefined) {
      checker.check({ line, cells });
      return;
    }
    // The digits may not belong to their column at all: reported once, as the amount's problem.
    if (split.column !== undefined) delete cells[split.column];
    checker.check({ line, cells, split }, new Set(split.column === undefined ? [] : [split.column]));
  });
  if (!headerSeen) {
    checker.problem({
      line: 1,
      message: `the file is empty: its first line must be a header, e.g. id,key,amount,description`,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// NDJSON

function readNdjson(text: string, checker: RowChecker, map: BatchColumnMap | undefined): void {
  const nameOf = columnsBy(map);
  let from = text.length > 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 0;
  while (from <= text.length) {
    const end = text.indexOf('\n', from);
    const stop = end === -1 ? text.length : end;
    line++;
    const source = text.slice(from, stop).trim();
    from = stop + 1;
    if (source === '') continue;
    readJsonRow(line, source, checker, nameOf, map !== undefined);
  }
}

function readJsonRow(
  line: number,
  source: string,
  checker: RowChecker,
  nameOf: (field: string) => string,
  mapped: boolean,
): void {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    checker.rowsRead++;
    checker.problem({ line, message: `not JSON: ${(error as Error).message}` });
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    checker.rowsRead++;
    checker.problem({
      line,
      message: 'each line must be one JSON object, e.g. {"id":"a1","key":"…","amount":"10.50"}',
    });
    return;
  }
  const cells: Partial<Record<BatchColumn, string>> = {};
  const raw: RawRow = { line, cells };
  const broken = new Set<BatchColumn>();
  const seen = new Set<BatchColumn>();
  const problems: BatchProblem[] = [];
  for (const [field, content] of Object.entries(value)) {
    const name = nameOf(field);
    if (!isColumn(name)) {
      if (mapped) continue; // the file's own field (--map)
      problems.push({ line, column: field, message: `unknown field (fields: ${COLUMN_LIST})` });
      continue;
    }
    if (seen.has(name)) {
      problems.push({ line, column: name, message: 'the field appears twice' });
      continue;
    }
    seen.add(name);
    if (typeof content === 'string') {
      const trimmed = content.trim();
      if (trimmed !== '') cells[name] = trimmed;
    } else if (name === 'amount' && typeof content === 'number') {
      raw.amountNumber = content;
    } else if (content !== null) {
      broken.add(name);
      problems.push({
        line,
        column: name,
        message:
          typeof content === 'number'
            ? `must be a JSON string ("${content}"): a number would lose leading zeros`
            : `must be a JSON string${name === 'amount' ? ' or number' : ''}, not ${Array.isArray(content) ? 'an array' : typeof content}`,
      });
    }
  }
  const id = shownId(cells.id);
  for (const problem of problems) checker.problem(id === undefined ? problem : { ...problem, id });
  checker.check(raw, broken);
}
