/**
 * JSON read with the line of every value, for the files pix signs or verifies (a payment policy, a plan,
 * an approval): an error then names the file, the line and the key (`policy.json line 12: rules[2].require:
 * …`). Strict JSON (RFC 8259) but for the refusals JSON.parse does not make: a key given twice in one
 * object, which two readers could take differently, and the keys that reach a prototype (`__proto__`,
 * `constructor`, `prototype`), wherever they are. Objects are made without a prototype, so a key the
 * document does not hold reads as undefined, never as something inherited, and what a reader takes out
 * of the document is what its canonical form (and so its digest) holds. Pure.
 */
import { InvalidValue } from './invalid.js';

/** A parsed document and where each of its values starts. */
export interface JsonSource {
  value: unknown;
  /** The line (1-based) of the value at a path: `''` for the root, `rules[2].require`, `approvers.ana`. */
  lineOf(path: string): number;
}

/** `rules[2].require` from the path's parts. */
export function pathText(parts: ReadonlyArray<string | number>): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

/** A syntax error: `line 3, column 7: …`. */
export class JsonSyntaxError extends InvalidValue {
  constructor(
    readonly line: number,
    readonly column: number,
    reason: string,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
  }
}

const MAX_DEPTH = 64;

/**
 * Keys that name a prototype rather than a value: `object["__proto__"] = v` sets the prototype of an
 * ordinary object, where canonicalJson never looks, and `constructor`/`prototype` are what a reader of an
 * ordinary object finds when the document does not give them. Refused in every object of every file pix
 * signs or verifies, so no reader, ours or a later one, can be handed a value the signature does not cover.
 */
export const REFUSED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** An object with no prototype: only the document's own keys are there to read. */
export function emptyObject(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

/** Where a parse stands in its text, and the line of each value read so far (parseJsonSource's steps). */
interface Reader {
  readonly text: string;
  readonly lines: Map<string, number>;
  index: number;
  line: number;
  lineStart: number;
}

function fail(reader: Reader, reason: string): never {
  throw new JsonSyntaxError(reader.line, reader.index - reader.lineStart + 1, reason);
}

function skipSpace(reader: Reader): void {
  const { text } = reader;
  for (;;) {
    const char = text[reader.index];
    if (char === '\n') {
      reader.line++;
      reader.lineStart = ++reader.index;
    } else if (char === ' ' || char === '\t' || char === '\r') reader.index++;
    else return;
  }
}

function expect(reader: Reader, char: string): void {
  const found = reader.text[reader.index];
  if (found !== char)
    fail(reader, found === undefined ? `expected ${char}, the file ends` : `expected ${char}`);
  reader.index++;
}

/** The escapes of one character JSON has (RFC 8259 §7), besides `\uXXXX`. */
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

function readString(reader: Reader): string {
  const { text } = reader;
  expect(reader, '"');
  let out = '';
  for (;;) {
    const char = text[reader.index];
    if (char === undefined) fail(reader, 'a string is not closed');
    if (char === '"') {
      reader.index++;
      return out;
    }
    if (char === '\n' || char < ' ')
      fail(reader, 'a control character inside a string (write it as \\n, \\t, …)');
    if (char === '\\') {
      const { index } = reader;
      const next = text[index + 1];
      if (next !== undefined && Object.hasOwn(SIMPLE_ESCAPES, next)) {
        out += SIMPLE_ESCAPES[next];
        reader.index += 2;
      } else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) {
        out += String.fromCharCode(Number.parseInt(text.slice(index + 2, index + 6), 16));
        reader.index += 6;
      } else fail(reader, 'an unknown escape in a string');
      continue;
    }
    out += char;
    reader.index++;
  }
}

/** A key of an object: refused (at the key's place) when it reaches a prototype or is given twice. */
function readKey(reader: Reader, object: Record<string, unknown>): string {
  if (reader.text[reader.index] !== '"') fail(reader, 'expected a key in double quotes');
  const keyAt = { line: reader.line, index: reader.index, lineStart: reader.lineStart };
  const key = readString(reader);
  if (REFUSED_KEYS.has(key)) {
    Object.assign(reader, keyAt);
    fail(
      reader,
      `"${key}" is refused as a key (it would change what pix reads without changing what is signed)`,
    );
  }
  if (Object.hasOwn(object, key)) {
    Object.assign(reader, keyAt);
    fail(reader, `"${key}" is given twice`);
  }
  return key;
}

/** After a value of a container: true at `,` (another follows), false at its `close`. */
function another(reader: Reader, close: '}' | ']'): boolean {
  skipSpace(reader);
  const char = reader.text[reader.index];
  if (char === ',' || char === close) {
    reader.index++;
    return char === ',';
  }
  return fail(reader, `expected , or ${close} after a value`);
}

function readObject(reader: Reader, path: Array<string | number>): Record<string, unknown> {
  reader.index++;
  const object = emptyObject();
  skipSpace(reader);
  if (reader.text[reader.index] === '}') {
    reader.index++;
    return object;
  }
  do {
    skipSpace(reader);
    const key = readKey(reader, object);
    skipSpace(reader);
    expect(reader, ':');
    object[key] = readValue(reader, [...path, key]);
  } while (another(reader, '}'));
  return object;
}

function readArray(reader: Reader, path: Array<string | number>): unknown[] {
  reader.index++;
  const array: unknown[] = [];
  skipSpace(reader);
  if (reader.text[reader.index] === ']') {
    reader.index++;
    return array;
  }
  do array.push(readValue(reader, [...path, array.length]));
  while (another(reader, ']'));
  return array;
}

/** `true`, `false`, `null` or a number. */
function readLiteral(reader: Reader): unknown {
  const word = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
    reader.text.slice(reader.index, reader.index + 400),
  );
  if (word === null) {
    fail(
      reader,
      reader.text[reader.index] === undefined
        ? 'the file ends where a value was expected'
        : 'expected a value',
    );
  }
  reader.index += word[0].length;
  const literal = word[0];
  return literal === 'true'
    ? true
    : literal === 'false'
      ? false
      : literal === 'null'
        ? null
        : Number(literal);
}

function readValue(reader: Reader, path: Array<string | number>): unknown {
  if (path.length > MAX_DEPTH) fail(reader, `nested deeper than ${MAX_DEPTH}`);
  skipSpace(reader);
  reader.lines.set(pathText(path), reader.line);
  const char = reader.text[reader.index];
  if (char === '{') return readObject(reader, path);
  if (char === '[') return readArray(reader, path);
  if (char === '"') return readString(reader);
  return readLiteral(reader);
}

export function parseJsonSource(text: string): JsonSource {
  const lines = new Map<string, number>();
  const reader: Reader = { text, lines, index: text.charCodeAt(0) === 0xfeff ? 1 : 0, line: 1, lineStart: 0 };
  const value = readValue(reader, []);
  skipSpace(reader);
  if (reader.index < text.length) fail(reader, 'more after the end of the document');
  return {
    value,
    lineOf: (path) => {
      // The nearest value that was read: a path one level too deep names its parent's line. Each turn drops
      // the last part (`.key`, `[n]`, or the first key itself), so the probe reaches '' and ends.
      for (let probe = path; ; probe = probe.replace(/(?:\.[^.[\]]*|\[\d+\]|^[^.[\]]+)$/, '')) {
        const found = lines.get(probe);
        if (found !== undefined) return found;
        if (probe === '') return 1;
      }
    },
  };
}

/**
 * The canonical form of a JSON value, the one its digest is taken over: object keys sorted (by UTF-16
 * code units), no whitespace, strings as JSON.stringify writes them; only safe integers as numbers (a
 * plan or a policy holds no fractions: money is centavos). What RFC 8785 (JCS) gives for such values.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new InvalidValue(`${value} is not a whole number`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  throw new InvalidValue(`a ${typeof value} has no JSON form`);
}

/**
 * What a reader took out of a document, rebuilt: every value it read, at its place (a container that was
 * read is there even when empty). A document whose canonical form differs from the rebuilt one's held
 * something its reader never read (it means nothing, yet it is signed), or the reader read something the
 * document does not hold (it means something, yet it is not signed): either way, what is used is not
 * exactly what is signed.
 */
export interface ReadRecord {
  /** Notes that `value` was read at `path`; returns it. */
  took<T>(path: ReadonlyArray<string | number>, value: T): T;
  /** The document as the reader saw it. */
  rebuilt(): unknown;
}

export function readRecord(): ReadRecord {
  let root: unknown;
  const containerFor = (value: unknown) => (Array.isArray(value) ? [] : emptyObject());
  return {
    took(path, value) {
      if (value === undefined) return value;
      const fresh = typeof value === 'object' && value !== null ? containerFor(value) : value;
      if (path.length === 0) {
        root ??= fresh;
        return value;
      }
      root ??= typeof path[0] === 'number' ? [] : emptyObject();
      let at = root as Record<string | number, unknown>;
      path.forEach((part, index) => {
        if (index === path.length - 1) {
          if (at[part] === undefined || typeof fresh !== 'object') at[part] = fresh;
          return;
        }
        at[part] ??= typeof path[index + 1] === 'number' ? [] : emptyObject();
        at = at[part] as Record<string | number, unknown>;
      });
      return value;
    },
    rebuilt: () => root,
  };
}

/** The path of the first place two JSON values differ (`rules[1].total-over`), or undefined when they do not. */
export function firstDifference(
  a: unknown,
  b: unknown,
  path: Array<string | number> = [],
): string | undefined {
  const container = (value: unknown) => typeof value === 'object' && value !== null;
  if (!container(a) || !container(b) || Array.isArray(a) !== Array.isArray(b)) {
    return Object.is(a, b) ? undefined : pathText(path) || '(the whole document)';
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
  for (const key of keys) {
    const part = Array.isArray(a) ? Number(key) : key;
    const found = firstDifference(left[key], right[key], [...path, part]);
    if (found !== undefined) return found;
  }
  return undefined;
}
