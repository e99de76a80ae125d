/**
 * The names `--fields` accepts for a verb (its description's RecordFields): the JSON paths of its records
 * (from their zod schema through zod's documented `toJSONSchema`, nested objects as dotted paths) and the
 * header names of its machine columns. Used where the command table is made (scripts/build/verbs.mjs) and
 * by its tests, never when pix runs: cli/verbs.ts holds the names it finds.
 */
import * as z from '../../zod.js';
import type { RecordFields } from './help.js';

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
}

/** The dotted paths of an object's JSON schema: a nested object (or an object or null) by its own fields. */
function pathsOf(schema: JsonSchema, prefix: string): string[] {
  const paths: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const object = [property, ...(property.anyOf ?? [])].find((one) => one.properties !== undefined);
    if (object === undefined) paths.push(`${prefix}${name}`);
    else paths.push(...pathsOf(object, `${prefix}${name}.`));
  }
  return paths;
}

/** The JSON paths of the records, and the header names of their columns (those that are not a path too). */
export function recordFieldNames(fields: RecordFields): { paths: string[]; columns: string[] } {
  const paths =
    fields.schema === undefined
      ? [...(fields.paths ?? [])]
      : pathsOf(z.toJSONSchema(fields.schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema, '');
  const headers = (fields.columns?.() ?? []).map((column) => column.header);
  return { paths, columns: headers.filter((header) => !paths.includes(header)) };
}
