/**
 * `--fields a,b.c`: keeps only those fields of each record, in that order, nested ones by dotted path,
 * and writes them as the format asked: one JSON document, ndjson (one record a line) or CSV (a header of
 * the paths). The names are checked against the command's record shape before anything is sent
 * (cli/globals.ts); a field one record lacks is empty (`null` in JSON), whatever the others have.
 *
 * A list is cut as it is written (output/records.ts asks `fieldsSinkOf`), so an export streams as `-o
 * csv` does; anything else (a detail, one page written whole) is kept and cut once the command succeeded
 * (output/capture.ts). A document's records are its `results`, `result`, `periods` or `fields` array (a list),
 * else the document itself (a detail).
 */
import type { OutStream } from './iostreams.js';

const LIST_FIELDS = ['results', 'result', 'periods', 'fields'];

/**
 * Fields whose numbers are money in reais: a CSV writes them with their two decimals (`-18.90`), as every
 * other text format does (`-o csv`, TSV, `-o csv-br`). JSON keeps the API's numbers (contract §3).
 */
const MONEY = new Set(['amount', 'fee', 'income', 'outcome', 'fees', 'net']);

export function isMoneyField(field: string): boolean {
  return MONEY.has(field.slice(field.lastIndexOf('.') + 1));
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function valueAt(record: Json, path: string): Json | undefined {
  let current: Json | undefined = record;
  for (const key of path.split('.')) {
    if (!isObject(current) || !(key in current)) return undefined;
    current = current[key];
  }
  return current;
}

/**
 * The columns of a list's `-o csv` whose names are not a path of its records (`counterpartyName`), by
 * name: how each is read from a record, so `--fields counterpartyName` gives what the column shows.
 */
export type ColumnValues = ReadonlyMap<string, (record: never) => string | number | null | undefined>;

/**
 * The record with only `fields`, nested as they are (`creditor.name` → `{"creditor":{"name":…}}`); a
 * column's name (`columns`) is read from `source`, the record its column reads, and kept under that name.
 */
function pick(record: Json, fields: readonly string[], source?: unknown, columns?: ColumnValues): Json {
  const out: Record<string, Json> = {};
  for (const field of fields) {
    const column = columns?.get(field);
    if (column !== undefined) {
      out[field] = column(source as never) ?? null;
      continue;
    }
    const value = valueAt(record, field);
    const keys = field.split('.');
    let target = out;
    for (const key of keys.slice(0, -1)) {
      if (!isObject(target[key])) target[key] = {};
      target = target[key] as Record<string, Json>;
    }
    target[keys[keys.length - 1]!] = value === undefined ? null : value;
  }
  return out;
}

export interface Picked {
  /** The document with its records cut to the fields (for `--json`, `--jq`). */
  document: Json;
  records: Json[];
}

/** Cuts the records of `document` to `fields` (the names were checked against the command's records). */
export function pickFields(document: Json, fields: readonly string[], columns?: ColumnValues): Picked {
  const listField = isObject(document)
    ? LIST_FIELDS.find((name) => Array.isArray(document[name]))
    : undefined;
  const records: Json[] = listField ? ((document as Record<string, Json>)[listField] as Json[]) : [document];
  const picked = records.map((record) => pick(record, fields, record, columns));
  if (!listField) return { document: picked[0] ?? null, records: picked };
  return { document: { ...(document as Record<string, Json>), [listField]: picked }, records: picked };
}

/**
 * Where a list writer sends a list cut to `--fields` as it goes: program.ts keeps what a command writes to
 * stdout (to cut a detail once it is whole) and registers here the stream it stands in for; a list writer
 * handed that stand-in writes its records cut, straight to the real stream, and marks the sink `streamed`.
 */
export interface FieldsSink {
  out: OutStream;
  fields: readonly string[];
  format: 'json' | 'ndjson' | 'csv';
  streamed: boolean;
  /** The `-o csv` column names asked for that are not a path of the records, and how each is read. */
  columns?: ColumnValues | undefined;
}

const sinks = new WeakMap<OutStream, FieldsSink>();

export function setFieldsSink(standIn: OutStream, sink: FieldsSink): void {
  sinks.set(standIn, sink);
}

export function fieldsSinkOf(out: OutStream): FieldsSink | undefined {
  return sinks.get(out);
}

/** The record cut to the fields, for a list writer (`source`: the record its columns read). */
export function pickRecord(
  record: unknown,
  fields: readonly string[],
  source?: unknown,
  columns?: ColumnValues,
): Json {
  return pick(record as Json, fields, source, columns);
}
