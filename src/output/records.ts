import type { OutputFormat } from '../context.js';
import { formatDocument } from '../domain/documents.js';
import { formatDecimal } from '../domain/money.js';
import { formatDayFirst } from '../domain/when.js';
import {
  type ColumnValues,
  type FieldsSink,
  fieldsSinkOf,
  isMoneyField,
  type Json,
  pickFields,
  pickRecord,
  valueAt,
} from './fields.js';
import type { OutStream } from './iostreams.js';
import type { RecordTally } from './output.js';
import { portugueseHeader, portugueseValue } from './ptbr.js';
import { escapeUnsafe, jsonSafe, spreadsheetSafe } from './sanitize.js';
import type { Cell, ColumnKind, TableColumn, TableStream } from './table.js';
import type { SheetWriter } from './xlsx.js';

/**
 * One column of a list, shown for people (`human`) or written for machines (`machine`: TSV and CSV).
 * For people it also says how it is laid out (TableColumn): its `kind` (text, id, enum, date, money,
 * number) and its `priority` (1, the default, is kept longest when the terminal is narrow).
 */
export interface Column<T> extends TableColumn {
  /** Plain text, or text with a paint applied after the table has sanitized it. */
  human(row: T): Cell;
  machine(row: T): string | number | undefined | null;
}

export interface ListWriter<T> {
  /** Called once, before the first record, with the total the API announced. */
  begin(total: number): Promise<void>;
  write(record: T): Promise<void>;
  /** Several records with one write to the stream (an export writes a page at a time). */
  writeMany(records: readonly T[]): Promise<void>;
  end(): Promise<void>;
}

export interface ListWriterOptions<T> {
  format: OutputFormat;
  human: boolean;
  pretty: boolean;
  columns: Column<T>[];
  /** Name of the array in the JSON document (`result` for a page of keys, `results` for the statement and `--all`). */
  listField: string;
  /** The raw API object of each record, for json/ndjson (the API's own field names). */
  raw(record: T): unknown;
  /** Opens the human table (OutputMode.openTable). */
  openTable(columns: TableColumn[]): TableStream;
  /** Counts the records as they are handed to `out` (deps.output.records), for partial counts. */
  tally?: RecordTally | undefined;
  /** The account's time zone: `-o xlsx` writes instants as date cells on its wall clock. */
  timeZone: string;
  /** `-o xlsx`: the sheet's name (`pix` when not given). */
  sheet?: string;
  /** `-o ofx` (the statement's): the document's head, each record's transactions, its tail. */
  ofx?: { begin(): string; record(record: T): string; end(): string };
}

/**
 * RFC 4180, exact data for scripts: quote a field holding a comma, a quote or a line break, doubling the
 * quotes inside; nothing else changes (a phone key `+5511…` round-trips as it is). For a spreadsheet,
 * `-o csv-br` guards formulas and `-o xlsx` types every cell. `terminal`: stdout is a terminal, so a person
 * reads it: control and bidi characters are shown escaped, as every other format shows them (piped or to
 * a file, the data stays exact).
 */
export function csvField(value: string | number | undefined | null, terminal = false): string {
  if (value === undefined || value === null) return '';
  const text = terminal ? escapeUnsafe(String(value)) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV cell of `--fields`: money with its two decimals (`-18.90`, as `-o csv` writes it), a nested
 * object or array as JSON, a field the record lacks empty. */
function fieldsCsvCell(field: string, value: Json | undefined, terminal: boolean): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' && isMoneyField(field)) return formatDecimal(Math.round(value * 100));
  return csvField(typeof value === 'object' ? JSON.stringify(value) : value.toString(), terminal);
}

function fieldsCsvHeader(fields: readonly string[], terminal: boolean): string {
  return `${fields.map((field) => csvField(field, terminal)).join(',')}\r\n`;
}

function fieldsCsvRow(record: Json, fields: readonly string[], terminal: boolean): string {
  return `${fields.map((field) => fieldsCsvCell(field, valueAt(record, field), terminal)).join(',')}\r\n`;
}

/**
 * `--fields` over a command's whole JSON document (a detail, or one page written at once): cut, then
 * written as asked (output/fields.ts). `terminal`: for a person (pretty JSON, CSV escaped as csvField does).
 */
export function fieldsDocument(
  text: string,
  fields: readonly string[],
  format: 'json' | 'ndjson' | 'csv',
  terminal: boolean,
  columns?: ColumnValues,
): string {
  const picked = pickFields(JSON.parse(text), fields, columns);
  if (format === 'csv') {
    let csv = fieldsCsvHeader(fields, terminal);
    for (const record of picked.records) csv += fieldsCsvRow(record, fields, terminal);
    return csv;
  }
  if (format === 'ndjson') {
    return jsonSafe(picked.records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  }
  return jsonSafe(`${JSON.stringify(picked.document, null, terminal ? 2 : undefined)}\n`);
}

const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/**
 * `-o csv-br`, CSV for a spreadsheet in a Brazilian locale (Excel, LibreOffice): `;` between fields, a
 * money or number column's decimal with a comma (`-1234,56`, read as a number), an instant or a day as
 * `23/11/2026 18:31:46` / `01/12/2026` on the account's clock (read as a date), text with its controls shown
 * escaped and the formula guard. The file starts with a UTF-8 BOM (written by `begin`), which is how
 * Excel knows the accents are UTF-8.
 */
export function csvBrField(
  value: string | number | undefined | null,
  kind: ColumnKind | undefined,
  timeZone: string,
  bankName?: (code: string) => string | undefined,
): string {
  if (value === undefined || value === null) return '';
  const text = kind === 'code' ? codeAsText(String(value), bankName) : String(value);
  if ((kind === 'money' || kind === 'number' || typeof value === 'number') && DECIMAL.test(text)) {
    return text.replace('.', ',');
  }
  if (kind === 'date') {
    const date = formatDayFirst(text, timeZone);
    if (date !== undefined) return date;
  }
  const safe = spreadsheetSafe(escapeUnsafe(text));
  return /[";\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * A code as a spreadsheet keeps it as text when it opens a CSV (there is no way to say "text" in a CSV
 * but the text itself): a CPF or CNPJ with its punctuation (`045.997.418/0001-53` is no number), a bank's
 * COMPE code with its name (`077 Banco Inter S.A.`). Digits that are neither are left as they are.
 */
function codeAsText(text: string, bankName: ((code: string) => string | undefined) | undefined): string {
  if (/^\d{11}$|^[0-9A-Z]{12}\d{2}$/.test(text)) return formatDocument(text);
  const name = /^\d{3}$/.test(text) ? bankName?.(text) : undefined;
  return name === undefined ? text : `${text} ${name}`;
}

/** A `-o csv-br` cell's value: an enumerated column's in Portuguese (output/ptbr.ts). */
function brValue<T>(column: Column<T>, record: T): string | number | undefined | null {
  const value = column.machine(record);
  return column.kind === 'enum' && typeof value === 'string' ? portugueseValue(value) : value;
}

/** A TSV cell: control characters (tabs and newlines included) shown escaped, so columns and lines hold. */
function tsvField(value: string | number | undefined | null): string {
  return value === undefined || value === null ? '' : escapeUnsafe(String(value));
}

/** A list being written: where, how, and how far (createListWriter's steps below share it; rule 14). */
interface ListWriting<T> {
  readonly out: OutStream;
  readonly options: ListWriterOptions<T>;
  /** `--fields` on a list (output/fields.ts): the fields each record is cut to. */
  readonly sink: ReturnType<typeof fieldsSinkOf>;
  /** Read once: the writer's stdout is a terminal (not a file, not a pipe) for the whole command. */
  readonly terminal: boolean;
  first: boolean;
  table: TableStream | undefined;
  sheet: SheetWriter | undefined;
  bankName: ((code: string) => string | undefined) | undefined;
  /** Records handed to the tally, and records written (the table may still hold some of them). */
  counted: number;
  records: number;
}

async function emit(writing: ListWriting<unknown>, text: string): Promise<void> {
  if (text !== '' && !writing.out.write(text)) await writing.out.drained();
}

/** Tells the tally how many more records reached `out` (the table may still hold some). */
function count(writing: ListWriting<unknown>): void {
  const handed = writing.records - (writing.table?.held ?? 0);
  const { tally } = writing.options;
  if (tally && handed > writing.counted) tally.add(handed - writing.counted);
  writing.counted = handed;
}

function jsonText<T>(writing: ListWriting<T>, batch: readonly T[]): string {
  const { options } = writing;
  let text = '';
  for (const record of batch) {
    // Made safe before indenting: a raw U+2028 would count as a line start for the indentation.
    const body = options.pretty
      ? `\n${jsonSafe(JSON.stringify(options.raw(record), null, 2)).replace(/^/gm, '    ')}`
      : JSON.stringify(options.raw(record));
    text += writing.first ? body : `,${body}`;
    writing.first = false;
  }
  // JSON.stringify escapes every C0 control; jsonSafe the rest, once for the batch (a no-op on safe text).
  return options.pretty ? text : jsonSafe(text);
}

/** A batch's text in a format written as text (xlsx is not: its sheet writer takes the rows). */
function batchText<T>(writing: ListWriting<T>, batch: readonly T[]): string {
  const { options, sink, terminal, table } = writing;
  const { columns } = options;
  let text = '';
  switch (options.format) {
    case 'json':
      return jsonText(writing, batch);
    case 'ndjson':
      for (const record of batch) text += `${JSON.stringify(options.raw(record))}\n`;
      return jsonSafe(text);
    case 'ofx':
      for (const record of batch) text += options.ofx!.record(record);
      return text;
    case 'csv-br':
      for (const record of batch) {
        text += `${columns.map((column) => csvBrField(brValue(column, record), column.kind, options.timeZone, writing.bankName)).join(';')}\r\n`;
      }
      return text;
    case 'csv':
      for (const record of batch) {
        text += sink
          ? fieldsCsvRow(options.raw(record) as Json, sink.fields, terminal)
          : `${columns.map((column) => csvField(column.machine(record), terminal)).join(',')}\r\n`;
      }
      return text;
    default:
      for (const record of batch) {
        text += table
          ? table.row(columns.map((column) => column.human(record)))
          : `${columns.map((column) => tsvField(column.machine(record))).join('\t')}\n`;
      }
      return text;
  }
}

async function writeMany<T>(writing: ListWriting<T>, batch: readonly T[]): Promise<void> {
  if (batch.length === 0) return;
  const { options } = writing;
  if (options.format === 'xlsx') {
    await writing.sheet!.rows(batch.map((record) => options.columns.map((column) => column.machine(record))));
  } else {
    await emit(writing, batchText(writing, batch));
  }
  writing.records += batch.length;
  count(writing);
}

/** What a list starts with in each format: the JSON's opening, a header row, OFX's head, a sheet. */
async function begin<T>(writing: ListWriting<T>, total: number): Promise<void> {
  const { options, sink, terminal, out } = writing;
  const { format, columns } = options;
  if (format === 'table' && options.human) writing.table = options.openTable(columns);
  if (format === 'json') {
    await emit(
      writing,
      options.pretty
        ? `{\n  "total": ${total},\n  "${options.listField}": [`
        : `{"total":${total},"${options.listField}":[`,
    );
  } else if (format === 'csv') {
    await emit(
      writing,
      sink
        ? fieldsCsvHeader(sink.fields, terminal)
        : `${columns.map((column) => csvField(column.header, terminal)).join(',')}\r\n`,
    );
  } else if (format === 'csv-br') {
    // The banks' names (a table of BACEN's) load only for a sheet that shows a bank's code.
    if (columns.some((column) => column.kind === 'code')) {
      ({ institutionName: writing.bankName } = await import('../domain/banks.js'));
    }
    await emit(
      writing,
      `\ufeff${columns.map((column) => csvBrField(portugueseHeader(column.header), 'text', options.timeZone)).join(';')}\r\n`,
    );
  } else if (format === 'ofx') {
    await emit(writing, options.ofx!.begin());
  } else if (format === 'xlsx') {
    // The workbook writer (and fflate) load only here: no other format pays for them.
    const { createSheetWriter } = await import('./xlsx.js');
    writing.sheet = createSheetWriter(
      async (chunk) => {
        if (!out.write(chunk)) await out.drained();
      },
      { sheetName: options.sheet ?? 'pix', columns, timeZone: options.timeZone },
    );
  }
}

async function end<T>(writing: ListWriting<T>): Promise<void> {
  const { options, table, sheet } = writing;
  if (options.format === 'json')
    await emit(writing, options.pretty ? `${writing.first ? '' : '\n  '}]\n}\n` : ']}\n');
  else if (table) await emit(writing, table.end());
  else if (sheet) await sheet.end();
  else if (options.format === 'ofx') await emit(writing, options.ofx!.end());
  count(writing);
  options.tally?.done();
}

/**
 * A list cut to `--fields` as it is written: each record's fields in the sink's format; a column's name
 * asked for (`--fields counterpartyName`) is read by this list's own column of that name.
 */
function cutToFields<T>(options: ListWriterOptions<T>, sink: FieldsSink): ListWriterOptions<T> {
  const wanted = sink.columns;
  const columns: ColumnValues | undefined =
    wanted &&
    new Map(
      options.columns
        .filter((column) => wanted.has(column.header))
        .map((column) => [column.header, column.machine]),
    );
  return {
    ...options,
    format: sink.format,
    pretty: sink.out.isTTY,
    raw: (record) => pickRecord(options.raw(record), sink.fields, record, columns),
  };
}

/**
 * Writes a list in any of the contract's formats as records arrive, awaiting the stream when its buffer
 * is full, so memory stays flat however long the list (the human table holds only its first rows, to
 * lay out its columns).
 */
export function createListWriter<T>(given: OutStream, givenOptions: ListWriterOptions<T>): ListWriter<T> {
  // `--fields` on a list: the records are cut as they are written, straight to the real stream
  // (output/fields.ts), so an export streams and holds nothing, as `-o csv` does.
  const sink = givenOptions.format === 'json' ? fieldsSinkOf(given) : undefined;
  if (sink) sink.streamed = true;
  const out = sink?.out ?? given;
  const options = sink ? cutToFields(givenOptions, sink) : givenOptions;
  const writing: ListWriting<T> = {
    out,
    options,
    sink,
    terminal: out.isTTY,
    first: true,
    table: undefined,
    sheet: undefined,
    bankName: undefined,
    counted: 0,
    records: 0,
  };
  return {
    begin: (total) => begin(writing, total),
    write: (record) => writeMany(writing, [record]),
    writeMany: (batch) => writeMany(writing, batch),
    end: () => end(writing),
  };
}
