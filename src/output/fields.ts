/**
 * `--fields a,b.c`: keeps only those fields of each record, in that order, nested ones by dotted path,
 * over the JSON document a command printed (output/capture in program.ts), then writes it as the format
 * asked: one JSON document, ndjson (one record a line) or CSV (a header of the paths). Pure.
 *
 * A document's records are its `results`, `result`, `periods` or `fields` array (a list), else the
 * document itself (a detail). A field no record has is refused, listing the fields there are.
 */
import { InvalidValue } from '../domain/invalid.js';
import { csvField } from './records.js';

const LIST_FIELDS = ['results', 'result', 'periods', 'fields'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every dotted path to a value of `record` (objects are walked; arrays are values). */
function pathsOf(record: Json, prefix = '', into = new Set<string>()): Set<string> {
  if (!isObject(record)) return into;
  for (const [key, value] of Object.entries(record)) {
    const path = prefix ? `${prefix}.${key}` : key;
    into.add(path);
    pathsOf(value, path, into);
  }
  return into;
}

function valueAt(record: Json, path: string): Json | undefined {
  let current: Json | undefined = record;
  for (const key of path.split('.')) {
    if (!isObject(current) || !(key in current)) return undefined;
    current = current[key];
  }
  return current;
}

/** The record with only `fields`, nested as they are (`creditor.name` → `{"creditor":{"name":…}}`). */
function pick(record: Json, fields: readonly string[]): Json {
  const out: Record<string, Json> = {};
  for (const field of fields) {
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

/** Cuts the records of `document` to `fields`; a field that no record has is exit 2 naming the valid ones. */
export function pickFields(document: Json, fields: readonly string[]): Picked {
  const listField = isObject(document)
    ? LIST_FIELDS.find((name) => Array.isArray(document[name]))
    : undefined;
  const records: Json[] = listField ? ((document as Record<string, Json>)[listField] as Json[]) : [document];
  const valid = new Set<string>();
  for (const record of records) pathsOf(record, '', valid);
  const unknown = fields.filter((field) => !valid.has(field));
  if (records.length > 0 && unknown.length > 0) {
    throw new InvalidValue(`no field ${unknown.join(', ')} (fields: ${[...valid].join(', ')})`);
  }
  const picked = records.map((record) => pick(record, fields));
  if (!listField) return { document: picked[0] ?? null, records: picked };
  return { document: { ...(document as Record<string, Json>), [listField]: picked }, records: picked };
}

/**
 * `--fields` with `-o csv`: a header of the paths, one row a record; a nested object or array as JSON.
 * `terminal`: escaped for a person, as csvField does.
 */
export function fieldsCsv(records: readonly Json[], fields: readonly string[], terminal = false): string {
  let text = `${fields.map((field) => csvField(field, terminal)).join(',')}\r\n`;
  for (const record of records) {
    text += `${fields
      .map((field) => {
        const value = valueAt(record, field);
        if (value === undefined || value === null) return '';
        return csvField(
          typeof value === 'object' ? JSON.stringify(value) : (value as string | number | boolean).toString(),
          terminal,
        );
      })
      .join(',')}\r\n`;
  }
  return text;
}
