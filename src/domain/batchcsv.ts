/**
 * The records of a CSV text (RFC 4180): fields separated by a delimiter, records by LF or CRLF, a field
 * in double quotes may hold delimiters, line breaks and `""` (one quote). Pure and linear: one pass over
 * the text, slices rather than per-character string building, no regular expression per character.
 *
 * Lenient where spreadsheets are (a quote inside an unquoted field is kept as a character, a final
 * record without a line break is a record), strict where a value could silently change (text after a
 * closing quote, a quote never closed): those are reported on the record, and reading goes on.
 */

export interface CsvRecord {
  /** The line (1-based, counting every line break of the text) on which the record starts. */
  line: number;
  /** The fields as written, unquoted, not trimmed. */
  fields: string[];
  /** Which fields were written in double quotes (by index): a quoted field was delimited on purpose. */
  quoted: boolean[];
  /** What is wrong with the record's quoting, when something is. */
  error?: string;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const BOM = 0xfeff;

/** Counts the LFs in `text[from, to)`. */
function countLines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/**
 * The delimiter of a CSV file, read from its first line outside quotes: `;` when that line has
 * semicolons and no comma (the CSV a spreadsheet in Portuguese saves, where the comma is the decimal
 * separator), else `,`.
 */
export function detectDelimiter(text: string): ',' | ';' {
  let quoted = false;
  let semicolon = false;
  let content = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      quoted = !quoted;
      content = true;
    } else if (quoted) continue;
    else if (c === 0x2c) return ',';
    else if (c === 0x3b) semicolon = true;
    else if (c === LF) {
      if (semicolon || content) break;
    } else if (c > 0x20 && c !== BOM) content = true;
  }
  return semicolon ? ';' : ',';
}

/**
 * Calls `visit` with every record of `text` in order, blank lines included (as one empty field; the
 * caller decides what a blank record means). A UTF-8 byte order mark at the start is skipped.
 */
export function readCsvRecords(text: string, delimiter: ',' | ';', visit: (record: CsvRecord) => void): void {
  const delim = delimiter.charCodeAt(0);
  const n = text.length;
  let i = n > 0 && text.charCodeAt(0) === BOM ? 1 : 0;
  let line = 1;
  while (i < n) {
    const record: CsvRecord = { line, fields: [], quoted: [] };
    for (;;) {
      if (i < n && text.charCodeAt(i) === QUOTE) {
        // A quoted field: up to the quote that is not doubled.
        const opened = i;
        const openedLine = line;
        let value = '';
        let from = i + 1;
        let closed = false;
        for (;;) {
          const quote = text.indexOf('"', from);
          if (quote === -1) {
            value += text.slice(from);
            i = n;
            break;
          }
          if (text.charCodeAt(quote + 1) === QUOTE) {
            value += text.slice(from, quote + 1);
            from = quote + 2;
            continue;
          }
          value += text.slice(from, quote);
          i = quote + 1;
          closed = true;
          break;
        }
        line += countLines(text, opened, i);
        if (!closed) {
          record.error ??= `a quoted field opened on line ${openedLine} is never closed`;
          record.fields.push(value);
          record.quoted.push(true);
          break;
        }
        const next = i < n ? text.charCodeAt(i) : LF;
        if (
          next !== delim &&
          next !== LF &&
          !(next === CR && (i + 1 >= n || text.charCodeAt(i + 1) === LF))
        ) {
          // `"abc"x`: keep the rest of the field as written, and say so.
          record.error ??= `field ${record.fields.length + 1} has text after its closing quote`;
          let j = i;
          while (j < n && text.charCodeAt(j) !== delim && text.charCodeAt(j) !== LF) j++;
          const end = j > i && text.charCodeAt(j - 1) === CR ? j - 1 : j;
          value += text.slice(i, end);
          i = j;
        }
        record.fields.push(value);
        record.quoted.push(true);
      } else {
        let j = i;
        while (j < n) {
          const c = text.charCodeAt(j);
          if (c === delim || c === LF) break;
          j++;
        }
        const end =
          j > i && text.charCodeAt(j - 1) === CR && (j >= n || text.charCodeAt(j) === LF) ? j - 1 : j;
        record.fields.push(text.slice(i, end));
        record.quoted.push(false);
        i = j;
      }
      // After a field: a delimiter (another field follows), or the end of the record.
      if (i < n && text.charCodeAt(i) === delim) {
        i++;
        continue;
      }
      if (i < n && text.charCodeAt(i) === CR) i++;
      if (i < n && text.charCodeAt(i) === LF) {
        i++;
        line++;
      }
      break;
    }
    visit(record);
  }
}
