import type { OutputFormat } from '../deps.js';
import type { OutStream } from './iostreams.js';
import { escapeUnsafe, jsonSafe, spreadsheetSafe } from './sanitize.js';
import type { Cell, TableRenderer } from './table.js';

/** One column of a list, shown for people (`human`) or written for machines (`machine`: TSV and CSV). */
export interface Column<T> {
  header: string;
  /** Plain text, or text with a paint applied after the table has sanitized it. */
  human(row: T): Cell;
  machine(row: T): string | number | undefined | null;
}

export interface ListWriter<T> {
  /** Called once, before the first record, with the total the API announced. */
  begin(total: number): Promise<void>;
  write(record: T): Promise<void>;
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
  /** Draws the human table (OutputMode.table). */
  table: TableRenderer;
}

/**
 * RFC 4180: quote a field holding a comma, a quote or a line break; double the quotes inside. A text
 * cell a spreadsheet would run as a formula gets a leading `'` (numbers are left alone).
 */
export function csvField(value: string | number | undefined | null): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'number' ? String(value) : spreadsheetSafe(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A TSV cell: control characters (tabs and newlines included) shown escaped, so columns and lines hold. */
function tsvField(value: string | number | undefined | null): string {
  return value === undefined || value === null ? '' : escapeUnsafe(String(value));
}

/**
 * Writes a list in any of the contract's formats as records arrive, awaiting the stream when its buffer
 * is full, so memory stays flat however long the list (only the human table is held until the end).
 */
export function createListWriter<T>(out: OutStream, options: ListWriterOptions<T>): ListWriter<T> {
  const { format, columns } = options;
  let first = true;
  const tableRows: Cell[][] = [];
  const emit = async (text: string) => {
    if (!out.write(text)) await out.drained();
  };
  return {
    async begin(total) {
      if (format === 'json') {
        await emit(
          options.pretty
            ? `{\n  "total": ${total},\n  "${options.listField}": [`
            : `{"total":${total},"${options.listField}":[`,
        );
      } else if (format === 'csv') {
        await emit(`${columns.map((column) => csvField(column.header)).join(',')}\r\n`);
      }
    },
    async write(record) {
      switch (format) {
        case 'json': {
          const body = options.pretty
            ? `\n${jsonSafe(JSON.stringify(options.raw(record), null, 2)).replace(/^/gm, '    ')}`
            : jsonSafe(JSON.stringify(options.raw(record)));
          await emit(`${first ? '' : ','}${body}`);
          break;
        }
        case 'ndjson':
          await emit(`${jsonSafe(JSON.stringify(options.raw(record)))}\n`);
          break;
        case 'csv':
          await emit(`${columns.map((column) => csvField(column.machine(record))).join(',')}\r\n`);
          break;
        default:
          if (options.human) tableRows.push(columns.map((column) => column.human(record)));
          else await emit(`${columns.map((column) => tsvField(column.machine(record))).join('\t')}\n`);
      }
      first = false;
    },
    async end() {
      if (format === 'json') await emit(options.pretty ? `${first ? '' : '\n  '}]\n}\n` : ']}\n');
      else if (format === 'table' && options.human) {
        await emit(
          options.table(
            columns.map((column) => column.header),
            tableRows,
          ),
        );
      }
    },
  };
}
