/**
 * `--map field=Header,…`: the one syntax of `pix reconcile` and `pix pay batch` for naming a file's own
 * headers (domain/expectations.ts, domain/batchtext.ts). Pure.
 */
import { InvalidValue } from './invalid.js';

/**
 * `field=Header,field=Header` → the map, for any file whose fields pix names (this module's, a batch
 * file's): `fieldOf` reads a field's name as typed (undefined: not a field). Throws InvalidValue naming
 * what is wrong. The one `--map` syntax of `pix reconcile` and `pix pay batch`.
 */
export function parseFieldMap<F extends string>(
  text: string,
  fields: readonly F[],
  fieldOf: (typed: string) => F | undefined,
): Partial<Record<F, string>> {
  const map: Partial<Record<F, string>> = {};
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    const typed = (at === -1 ? part : part.slice(0, at)).trim();
    const field = fieldOf(typed);
    const header = at === -1 ? '' : part.slice(at + 1).trim();
    if (field === undefined)
      throw new InvalidValue(`"${typed}" is not a field (fields: ${fields.join(', ')})`);
    if (header === '')
      throw new InvalidValue(`${field}= needs the header of its column, e.g. ${field}=Valor`);
    if (map[field] !== undefined) throw new InvalidValue(`${field} is mapped twice`);
    map[field] = header;
  }
  return map;
}
