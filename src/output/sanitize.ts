/**
 * The ONE sanitizer of server text (architecture rule 11). Every string that came from the server, a
 * file or the user and is shown to a person — table cells, detail rows, the y/N question, "Sent …",
 * stderr messages, TSV — passes through `safeText` (or `escapeUnsafe`) before it is written. JSON and
 * NDJSON keep the exact values (`jsonSafe` only re-spells the characters JSON leaves raw, which parse
 * back to the same string). CSV text cells that a spreadsheet would run as a formula get a `'`.
 *
 * What is unsafe: C0 controls (ESC, CR, LF, TAB, BEL, BS…), DEL, C1 controls (U+0080–U+009F, e.g. the
 * 8-bit CSI U+009B), the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the
 * invisible direction marks (U+200E, U+200F, U+061C) and the line/paragraph separators (U+2028, U+2029).
 * Each is shown escaped and visible, `\u001b`, so a payee cannot clear the screen, hide text, move the
 * cursor, or reorder what the operator reads.
 */

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_TEST = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** What JSON.stringify leaves raw among the above (it already escapes C0 controls). */
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const JSON_RAW_TEST = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Longest server-provided value shown to a person, in characters (code points), before `…`. */
export const MAX_SHOWN = 256;

function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** True when `text` holds a character a terminal could act on. */
export function hasUnsafe(text: string): boolean {
  return UNSAFE_TEST.test(text);
}

/** Every unsafe character shown escaped (`\u001b`); nothing cut. */
export function escapeUnsafe(text: string): string {
  return UNSAFE_TEST.test(text) ? text.replace(UNSAFE, escapeChar) : text;
}

/**
 * Cuts `text` to `max` characters (code points, so no surrogate pair is split), ending in `…` when cut.
 * Run after escaping, so the cut never splits an escape in a way that hides a character.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** A value for a person: unsafe characters escaped and visible, at most `max` characters. */
export function safeText(value: unknown, max = MAX_SHOWN): string {
  if (value === undefined || value === null) return '';
  return truncate(escapeUnsafe(String(value)), max);
}

/**
 * A JSON text made safe to show on a terminal without changing what it parses to: the characters
 * JSON.stringify leaves raw (C1 controls, bidi controls, U+2028/9) are written as `\uXXXX` escapes.
 * Only valid where they can occur, inside strings — which is the only place JSON allows them.
 */
export function jsonSafe(json: string): string {
  return JSON_RAW_TEST.test(json) ? json.replace(JSON_RAW, escapeChar) : json;
}

const NUMERIC = /^-?\d+(?:\.\d+)?$/;
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A CSV text cell that a spreadsheet would evaluate (`=HYPERLINK(…)`, `+cmd`, `-2+3`, `@SUM`, a leading
 * TAB or CR) gets a leading `'` so it stays text. Plain numbers (`-10.50`) are left as they are.
 */
export function spreadsheetSafe(text: string): string {
  if (!FORMULA_START.test(text) || NUMERIC.test(text)) return text;
  return `'${text}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const XML_SPECIAL = /[<>&"]/g;
const XML_ENTITY: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' };

/**
 * Text for an XML file (a workbook's cells): unsafe characters escaped and visible as everywhere (XML 1.0
 * forbids most controls anyway), a lone surrogate — which no XML may hold — as U+FFFD, `<>&"` as entities,
 * at most `max` characters.
 */
export function xmlSafe(text: string, max: number): string {
  const shown = truncate(escapeUnsafe(text).replace(LONE_SURROGATE, '\uFFFD'), max);
  return shown.replace(XML_SPECIAL, (char) => XML_ENTITY[char]!);
}
