/**
 * A batch payout file (`pix pay batch FILE`): read, checked row by row, offline and pure (text in,
 * result out). Every problem of every row is collected with its line number, id and column, so one
 * run shows the operator everything to fix; the command shows the first 20 and sends nothing.
 *
 * Formats: CSV with a header (RFC 4180; `,` or, when the header has only semicolons, `;`), or NDJSON
 * (one JSON object per line). Columns (any order, any case): `id`, `key` or `emv`, `amount`,
 * `description`, and `key_type` (or `keyType`) to name a key's type instead of having it detected. The
 * rules of each are in `RowChecker.check` below and in the README ("Batch payouts").
 *
 * A batch file never pays an amount the operator did not write: in a comma file, a whole amount
 * followed by a field of one to three digits (`10,50` or `10,500` left unquoted) is refused as ambiguous.
 */

import { detectDelimiter, readCsvRecords } from './batchcsv.js';
import { decodeBrCode } from './brcode.js';
import { emvHash } from './digest.js';
import { InvalidValue } from './invalid.js';
import { type Centavos, formatBRL, parseAmount } from './money.js';
import { type PixKeyType, parseKeyType, parsePixKey } from './pixkey.js';
import type { SheetCell, SheetCellValue, SheetData } from './xlsxsheet.js';

export type BatchFormat = 'csv' | 'ndjson' | 'xlsx';
/** The formats read as text (a workbook is bytes: parseBatchSheet). */
export type TextBatchFormat = Exclude<BatchFormat, 'xlsx'>;

export const BATCH_COLUMNS = ['id', 'key', 'key_type', 'emv', 'amount', 'description'] as const;
export type BatchColumn = (typeof BATCH_COLUMNS)[number];

/** A header's (or JSON field's) name as a column: any case, and `keyType` as the API spells it. */
function columnName(field: string): string {
  const name = field.trim().toLowerCase();
  return name === 'keytype' ? 'key_type' : name;
}

/** At most 64 letters, digits, `.`, `_` and `-`: safe in a file name, a URL, a log and a spreadsheet. */
export const BATCH_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const MAX_BATCH_ID = 64;
/** Where the API is silent: the 140 characters PIX gives every free-text field shown to the other side. */
export const MAX_BATCH_DESCRIPTION = 140;

export type BatchTarget =
  | {
      kind: 'key';
      /** In DICT form (`parsePixKey`): what the consultation is sent. */
      key: string;
      keyType: PixKeyType;
    }
  | {
      kind: 'emv';
      /** The code as written in the file, trimmed: what the consultation is sent. */
      emv: string;
      /** SHA-256 (hex) of `emv`: the same digest the journal keeps instead of the code. */
      emvHash: string;
      /** A URL code, or one whose point of initiation is 12: meant to be paid once. */
      dynamic: boolean;
      /** Field 54 of the code: the amount the code itself fixes. */
      fixedAmount?: Centavos;
    };

export interface BatchRow {
  /** The operator's reference: unique in the file; what makes a rerun skip a paid row. */
  id: string;
  /** The line the row starts on (1-based; a CSV header is line 1). */
  line: number;
  target: BatchTarget;
  /**
   * What the row pays as far as the file tells: the `amount` column, or the code's own amount
   * (`fixedAmount`). Undefined only for a dynamic code without either: the consultation decides it
   * (see `planRowAmount`).
   */
  amount: Centavos | undefined;
  /** Key payments only. */
  description?: string;
}

export interface BatchProblem {
  /** The line of the row (or of the header); absent for a problem of the whole batch. */
  line?: number;
  /** In a workbook: `line` is the sheet's row number, and `cell` (`B7`) the cell at fault when one is. */
  sheet?: boolean;
  cell?: string;
  /** The row's id, when it has a valid one. */
  id?: string;
  /** The column (or JSON field) at fault, when one is. */
  column?: string;
  /** One sentence; may quote the file's own text (sanitize it before showing it). */
  message: string;
}

export type BatchParseResult =
  | {
      ok: true;
      rows: BatchRow[];
      /**
       * Not errors, worth a line on stderr before the question: the same key (or static code) and
       * amount on two rows, which pays that receiver twice.
       */
      warnings: BatchProblem[];
    }
  | {
      ok: false;
      /** Every problem, in line order; show the first 20. */
      problems: BatchProblem[];
      /** Data rows read (blank lines and the header not counted). */
      rowsRead: number;
    };

/**
 * `line 12 (id inv-7): key: "123" has 3 digits: …`. The text may quote the file (a key, an amount),
 * which is the operator's own input but may still hold control characters: pass it through the output
 * sanitizer (`safeText`) before writing it to a terminal.
 */
export function formatProblem(problem: BatchProblem): string {
  const place = problem.cell ?? (problem.sheet ? `row ${problem.line}` : `line ${problem.line}`);
  const where =
    problem.line === undefined && problem.cell === undefined
      ? ''
      : `${place}${problem.id === undefined ? '' : ` (id ${problem.id})`}: `;
  return `${where}${problem.column === undefined ? '' : `${problem.column}: `}${problem.message}`;
}

/**
 * The format of a batch file from its name: `.ndjson` and `.jsonl` are NDJSON, anything else (`.csv`,
 * `.txt`, `-` for stdin) CSV. A `--format` flag, when given, wins over this.
 */
export function batchFormatFor(fileName: string): BatchFormat {
  const name = fileName.trim();
  return /\.(?:ndjson|jsonl)$/i.test(name) ? 'ndjson' : /\.xlsx$/i.test(name) ? 'xlsx' : 'csv';
}

export { emvHash };

/** Reads and checks a whole batch file. Linear in its size; never throws on bad content. */
export function parseBatchFile(text: string, format: TextBatchFormat): BatchParseResult {
  const checker = new RowChecker();
  if (format === 'csv') readCsv(text, checker);
  else readNdjson(text, checker);
  return checker.result();
}

// ---------------------------------------------------------------------------------------------
// The rules of a row

/** A row as read: trimmed non-empty text per column; an NDJSON number amount kept as a number. */
interface RawRow {
  line: number;
  cells: Partial<Record<BatchColumn, string>>;
  amountNumber?: number;
  /** A workbook's row: `line` is its row number, and each column's cell (`B7`) names its problems. */
  refs?: Partial<Record<BatchColumn, string>>;
  /** A comma file's whole amount followed by a field of one to three digits (see `splitDecimal`). */
  split?: SplitDecimal;
}

/** `10` in the amount column and `50` in the next: maybe an unquoted `10,50` (or `10,500`) cut in two by the comma. */
interface SplitDecimal {
  amount: string;
  column: BatchColumn;
  digits: string;
}

/**
 * The amount as the row would read if it were `10,50` (or `10,500`) split by the comma: the problem names
 * both readings and what to write for each, since only the operator knows which was meant.
 */
function splitMessage({ amount, column, digits }: SplitDecimal): string {
  const reais = amount.replace(/^R\$\s*/i, '').replaceAll('.', '');
  // Two digits or fewer read as centavos; three as centavos mistyped or a thousands separator.
  const whole =
    digits.length < 3
      ? `"${amount},${digits}" in double quotes (or ${reais}.${digits})`
      : `the amount you mean in double quotes ("${reais},${digits.slice(0, 2)}" or "${reais}.${digits},00")`;
  return (
    `"${amount}" then "${digits}" in the next field: an unquoted ${amount},${digits} split in two by the ` +
    `comma, or ${amount} and ${column} "${digits}"? Write ${whole}, or ${reais}.00 if the ${column} is ` +
    `${digits} (or "${digits}" in double quotes); or use ; between fields`
  );
}

// Control characters and the invisible bidi controls that could disguise a description.
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

function reason(error: unknown): string {
  if (error instanceof InvalidValue) return error.message;
  throw error;
}

/**
 * A JSON number amount (or a workbook's number cell, `sheet`) is read as reais only when JavaScript prints it with at most 2 decimals
 * (`10`, `10.5`, `1234.56`): that printed text is exactly the number the file's author wrote, so no
 * float is ever rounded into centavos. `10.005`, `0.1 + 0.2` as printed (`0.30000000000000004`) and
 * exponents (`1e21`) are refused with a hint to write the amount as a string.
 */
export function amountText(number: number, inSheet: boolean): string {
  const text = String(number);
  const what = inSheet ? `the number ${text}` : `the JSON number ${text}`;
  const fix = inSheet ? 'round the cell to centavos' : 'write the amount as a string, e.g. "10.50"';
  if (/e/i.test(text)) throw new InvalidValue(`${what} is not plain reais: ${fix}`);
  if (/\.\d{3,}$/.test(text)) throw new InvalidValue(`${what} has more than 2 decimals: ${fix}`);
  return text;
}

const NONE: ReadonlySet<BatchColumn> = new Set();

function shownId(text: string | undefined): string | undefined {
  return text !== undefined && BATCH_ID_PATTERN.test(text) ? text : undefined;
}

class RowChecker {
  readonly rows: BatchRow[] = [];
  readonly problems: BatchProblem[] = [];
  readonly warnings: BatchProblem[] = [];
  rowsRead = 0;
  private readonly ids = new Map<string, number>();
  private readonly dynamicCodes = new Map<string, number>();
  /** A key or a static code's hash → the first row paying it (by amount once it is seen twice). */
  private readonly payments = new Map<string, BatchRow | Map<Centavos | undefined, BatchRow>>();
  private sum = 0;

  /** `inSheet`: the lines are a workbook's rows (problems say `row 7`, or the cell). */
  constructor(private readonly inSheet = false) {}

  problem(problem: BatchProblem): void {
    this.problems.push(this.inSheet ? { ...problem, sheet: true } : problem);
  }

  result(): BatchParseResult {
    if (this.problems.length > 0) return { ok: false, problems: this.problems, rowsRead: this.rowsRead };
    return { ok: true, rows: this.rows, warnings: this.warnings };
  }

  /**
   * Checks one row. `broken` names the columns that were there but could not be read (an NDJSON
   * field of the wrong type, already reported): they count as present, so no "required" follows.
   */
  check(raw: RawRow, broken: ReadonlySet<BatchColumn> = NONE): void {
    this.rowsRead++;
    const { line, cells } = raw;
    const before = this.problems.length;
    const id = broken.has('id') ? undefined : this.checkId(line, cells.id);
    // Problems name the row by its id whenever it has a well-formed one (a duplicate included).
    const named = shownId(cells.id);
    const at = (column: string | undefined, message: string) => {
      const cell = raw.refs?.[column as BatchColumn];
      this.problem({
        line,
        ...(cell === undefined ? {} : { cell }),
        ...(named === undefined ? {} : { id: named }),
        ...(column ? { column } : {}),
        message,
      });
    };

    let amount: Centavos | undefined;
    const amountGiven = cells.amount !== undefined || raw.amountNumber !== undefined || broken.has('amount');
    try {
      if (raw.split !== undefined) at('amount', splitMessage(raw.split));
      else if (raw.amountNumber !== undefined) amount = parseAmount(amountText(raw.amountNumber, !!raw.refs));
      else if (cells.amount !== undefined) amount = parseAmount(cells.amount);
    } catch (error) {
      at('amount', reason(error));
    }

    let target: BatchTarget | undefined;
    const hasKey = cells.key !== undefined || broken.has('key');
    const hasEmv = cells.emv !== undefined || broken.has('emv');
    if (hasKey && hasEmv) {
      at('key', 'a row pays either a key or an emv code, not both');
    } else if (hasKey) {
      let type: PixKeyType | undefined;
      let typeOk = true;
      if (cells.key_type !== undefined) {
        try {
          type = parseKeyType(cells.key_type);
        } catch (error) {
          at('key_type', reason(error));
          typeOk = false;
        }
      }
      if (cells.key !== undefined && typeOk) {
        try {
          // domain/pixkey.ts: one rule with `pix pay key` (11 digits are a CPF, a wrong one refused).
          const key = parsePixKey(cells.key, type);
          target = { kind: 'key', key: key.key, keyType: key.type };
        } catch (error) {
          at('key', reason(error));
        }
      }
      if (!amountGiven) at('amount', 'required for a key payment');
    } else if (hasEmv) {
      if (cells.emv !== undefined) target = this.checkEmv(cells.emv, line, amountGiven, at);
      if (cells.key_type !== undefined) at('key_type', 'names the type of a key; an emv row has none');
      if (cells.description !== undefined) {
        at('description', 'only key payments take a description (the API refuses one for a QR code)');
      }
    } else {
      at('key', 'a row needs a key or an emv code');
    }

    let description: string | undefined;
    if (cells.description !== undefined && !hasEmv) {
      description = cells.description;
      const length = Array.from(description).length;
      if (length > MAX_BATCH_DESCRIPTION) {
        at('description', `${length} characters; at most ${MAX_BATCH_DESCRIPTION}`);
      } else if (UNSAFE_TEXT.test(description)) {
        at('description', 'contains a line break, a control or an invisible direction character');
      }
    }

    if (this.problems.length > before || id === undefined || target === undefined) return;
    const row: BatchRow = {
      id,
      line,
      target,
      amount: target.kind === 'emv' && target.fixedAmount !== undefined ? target.fixedAmount : amount,
      ...(description === undefined ? {} : { description }),
    };
    if (row.amount !== undefined) {
      this.sum += row.amount;
      if (!Number.isSafeInteger(this.sum)) {
        at(
          'amount',
          `the file's total passes ${formatBRL(Number.MAX_SAFE_INTEGER)}, more than can be added exactly`,
        );
        return;
      }
    }
    this.warnDuplicatePayment(row);
    this.rows.push(row);
  }

  private checkId(line: number, text: string | undefined): string | undefined {
    const fail = (message: string) => {
      this.problem({ line, column: 'id', message });
      return undefined;
    };
    if (text === undefined) return fail('required');
    if (text.length > MAX_BATCH_ID) return fail(`${text.length} characters; at most ${MAX_BATCH_ID}`);
    if (!BATCH_ID_PATTERN.test(text)) {
      return fail(`"${text}" may contain only letters, digits, ".", "_" and "-"`);
    }
    const first = this.ids.get(text);
    if (first !== undefined) {
      this.problem({ line, id: text, column: 'id', message: `"${text}" is already the id of line ${first}` });
      return undefined;
    }
    // Reserved now, so a second row with this id is reported even when this one has other problems.
    this.ids.set(text, line);
    return text;
  }

  private checkEmv(
    text: string,
    line: number,
    amountGiven: boolean,
    at: (column: string | undefined, message: string) => void,
  ): BatchTarget | undefined {
    let decoded: ReturnType<typeof decodeBrCode>;
    try {
      decoded = decodeBrCode(text);
    } catch (error) {
      at('emv', reason(error));
      return undefined;
    }
    const emv = text.trim();
    const dynamic = decoded.kind === 'dynamic' || decoded.pointOfInitiation === '12';
    const hash = emvHash(emv);
    if (decoded.amount !== undefined && amountGiven) {
      at('amount', `this code fixes the amount (${formatBRL(decoded.amount)}): leave the column empty`);
    }
    if (decoded.amount === undefined && !dynamic && !amountGiven) {
      at('amount', 'required: this code lets the payer choose the amount');
    }
    if (dynamic) {
      const first = this.dynamicCodes.get(hash);
      if (first !== undefined) {
        at('emv', `the same dynamic code is on line ${first}: it can be paid only once`);
        return undefined;
      }
      this.dynamicCodes.set(hash, line);
    }
    return {
      kind: 'emv',
      emv,
      emvHash: hash,
      dynamic,
      ...(decoded.amount === undefined ? {} : { fixedAmount: decoded.amount }),
    };
  }

  private warnDuplicatePayment(row: BatchRow): void {
    const target = row.target;
    if (target.kind === 'emv' && target.dynamic) return; // a second one is already a problem
    // A key and a code's hash never look alike; the amount map is made only for a key seen twice.
    const identity = target.kind === 'key' ? target.key : target.emvHash;
    const earlier = this.payments.get(identity);
    if (earlier === undefined) {
      this.payments.set(identity, row);
      return;
    }
    let byAmount: Map<Centavos | undefined, BatchRow>;
    if (earlier instanceof Map) byAmount = earlier;
    else {
      byAmount = new Map([[earlier.amount, earlier]]);
      this.payments.set(identity, byAmount);
    }
    const first = byAmount.get(row.amount);
    if (first === undefined) {
      byAmount.set(row.amount, row);
      return;
    }
    this.warnings.push({
      line: row.line,
      id: row.id,
      column: target.kind,
      message: `the same ${target.kind === 'key' ? 'key' : 'code'} and amount (${formatBRL(row.amount ?? 0)}) as line ${first.line} (id ${first.id}): both rows are paid`,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// CSV

const COLUMN_LIST = BATCH_COLUMNS.join(', ');

function isColumn(name: string): name is BatchColumn {
  return (BATCH_COLUMNS as readonly string[]).includes(name);
}

/** The header's columns by position, or undefined after reporting what is wrong with it. */
function readHeader(line: number, fields: string[], checker: RowChecker): Array<BatchColumn> | undefined {
  const before = checker.problems.length;
  const columns: BatchColumn[] = [];
  const seen = new Set<string>();
  fields.forEach((field, index) => {
    const name = columnName(field);
    if (name === '') {
      checker.problem({
        line,
        message: `column ${index + 1} of the header has no name (columns: ${COLUMN_LIST})`,
      });
    } else if (!isColumn(name)) {
      checker.problem({ line, column: name, message: `unknown column (columns: ${COLUMN_LIST})` });
    } else if (seen.has(name)) {
      checker.problem({ line, column: name, message: 'the column appears twice in the header' });
    } else {
      seen.add(name);
      columns.push(name);
    }
  });
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
  header: readonly BatchColumn[],
  fields: readonly string[],
  quoted: readonly boolean[],
): SplitDecimal | undefined {
  if (delimiter !== ',') return undefined;
  const at = header.indexOf('amount');
  if (at === -1 || at + 1 >= header.length || quoted[at] || quoted[at + 1]) return undefined;
  const amount = fields[at]!.trim();
  const digits = fields[at + 1]!.trim();
  if (!WHOLE_AMOUNT.test(amount) || !AFTER_COMMA.test(digits)) return undefined;
  return { amount, column: header[at + 1]!, digits };
}

/**
 * The row's id for a problem of its shape (a field too many or too few), when no comma before the id
 * column could have moved it: the id is before every column whose text may hold one.
 */
function idBeforeCommas(header: readonly BatchColumn[], fields: readonly string[]): string | undefined {
  const at = header.indexOf('id');
  const loose = header.findIndex((column) => column === 'amount' || column === 'description');
  if (at === -1 || (loose !== -1 && loose < at)) return undefined;
  return shownId(fields[at]?.trim());
}

function readCsv(text: string, checker: RowChecker): void {
  const delimiter = detectDelimiter(text);
  let header: BatchColumn[] | undefined;
  let headerSeen = false;
  readCsvRecords(text, delimiter, (record) => {
    const { line, fields } = record;
    if (fields.every((field) => field.trim() === '') && record.error === undefined) return; // blank line
    if (!headerSeen) {
      headerSeen = true;
      if (record.error === undefined) header = readHeader(line, fields, checker);
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
      if (value !== '') cells[header[index]!] = value;
    }
    const split = splitDecimal(delimiter, header, fields, record.quoted);
    if (split === undefined) {
      checker.check({ line, cells });
      return;
    }
    // The digits may not belong to their column at all: reported once, as the amount's problem.
    delete cells[split.column];
    checker.check({ line, cells, split }, new Set([split.column]));
  });
  if (!headerSeen) {
    checker.problem({
      line: 1,
      message: `the file is empty: its first line must be a header, e.g. id,key,amount,description`,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// xlsx

/**
 * The first sheet of a workbook (`readFirstSheet`, loaded only for one), read as a CSV is: the first
 * non-empty row is the header, then one payment per row. A cell holds what was typed and shows it, or it
 * is refused naming the cell, since pix pays only what the operator sees: a formula (whatever it
 * evaluated to), a merged cell, an error or a date cell; a cell in a hidden row or column; a number
 * whose format shows something else (`10` over 10.4, `1,234.57` over 1234567, `1250%`, a date, nothing
 * at all); text whose format adds to it or hides it; rich text in an amount, key or emv cell, and text
 * with a run too small or white to read anywhere. A number cell is an amount read exactly (12.5 →
 * R$ 12,50), an id (whole numbers only) or a description; a key or emv code must be text — as a number a
 * CPF loses its leading 0 and a phone its +.
 */
export function parseBatchSheet(sheet: SheetData): BatchParseResult {
  const checker = new RowChecker(true);
  let header: Array<BatchColumn | undefined> | undefined;
  let headerSeen = false;
  const merged = mergedCells(sheet);
  for (const { row, cells, hidden } of sheet.rows) {
    const idCell = header === undefined ? undefined : cells.find((cell) => header![cell.column] === 'id');
    const id = idCell === undefined ? undefined : shownId(sheetText(idCell.value).trim());
    const problem = (cell: SheetCell, message: string, column?: BatchColumn) =>
      checker.problem({
        line: row,
        cell: cell.ref,
        ...(id === undefined ? {} : { id }),
        ...(column ? { column } : {}),
        message,
      });
    if (hidden !== undefined) {
      // One problem for the row, at its first cell: every cell of it is as unseen as the others.
      if (headerSeen) checker.rowsRead++;
      problem(
        cells[0]!,
        `row ${row} is ${hidden}: a person does not see what pix would pay; unhide it or delete it`,
      );
      if (!headerSeen) return checker.result();
      continue;
    }
    const unreadable = (cell: SheetCell, column?: BatchColumn): boolean => {
      const message = unreadableCell(cell, merged.get(cell.ref), column);
      if (message === undefined) return false;
      problem(cell, message, column);
      return true;
    };
    if (!headerSeen) {
      headerSeen = true;
      if (cells.some((cell) => unreadable(cell))) return checker.result();
      const width = Math.max(...cells.map((cell) => cell.column)) + 1;
      const names = Array.from({ length: width }, () => '');
      for (const cell of cells) names[cell.column] = sheetText(cell.value);
      const columns = readHeader(row, names, checker);
      if (columns === undefined) return checker.result();
      header = names.map((name) => columnName(name) as BatchColumn);
      continue;
    }
    const texts: Partial<Record<BatchColumn, string>> = {};
    const refs: Partial<Record<BatchColumn, string>> = {};
    const broken = new Set<BatchColumn>();
    let amountNumber: number | undefined;
    let rowProblem = false;
    for (const cell of cells) {
      const column = header?.[cell.column];
      if (column === undefined) {
        problem(cell, "a value outside the header's columns");
        rowProblem = true;
        continue;
      }
      refs[column] = cell.ref;
      if (unreadable(cell, column)) {
        broken.add(column);
        continue;
      }
      const { value } = cell;
      if (value.kind === 'number') {
        if (column === 'amount') amountNumber = Number(value.text);
        else if (column === 'key' || column === 'emv') {
          problem(
            cell,
            `holds the number ${value.text}: a ${column === 'key' ? 'key' : 'code'} must be a text cell (as a number a CPF loses its leading 0 and a phone its +); format the column as Text`,
            column,
          );
          broken.add(column);
        } else if (column === 'id' && !Number.isSafeInteger(Number(value.text))) {
          problem(cell, `holds the number ${value.text}: an id is text or a whole number`, column);
          broken.add(column);
        } else texts[column] = String(Number(value.text));
        continue;
      }
      const text = sheetText(value).trim();
      if (text !== '') texts[column] = text;
    }
    if (rowProblem) {
      checker.rowsRead++;
      continue;
    }
    checker.check(
      { line: row, cells: texts, refs, ...(amountNumber === undefined ? {} : { amountNumber }) },
      broken,
    );
  }
  if (!headerSeen) {
    checker.problem({
      line: 1,
      message: `the sheet ${sheet.name} is empty: its first row must be a header, e.g. id, key, amount, description`,
    });
  }
  return checker.result();
}

/** Why a cell cannot be paid as a person reads it, or undefined when it can. `column` is undefined in the header. */
function unreadableCell(
  cell: SheetCell,
  range: string | undefined,
  column?: BatchColumn,
): string | undefined {
  const { value } = cell;
  if (range !== undefined) return `part of the merged cells ${range}: unmerge them`;
  if (cell.unreadableStyle !== undefined) {
    return `${cell.unreadableStyle}: a person cannot read it; clear the cell's formatting`;
  }
  if (cell.hiddenColumn)
    return 'in a hidden column: a person does not see it; unhide the column or clear the cell';
  switch (value.kind) {
    case 'formula':
      return `holds a formula (=${value.formula}): type the value itself`;
    case 'error':
      return `holds the error ${value.text}`;
    case 'date':
      return `holds a date (${value.text}), not ${column === undefined ? 'text' : `a${column === 'amount' || column === 'id' ? 'n' : ''} ${column}`}`;
    case 'text':
      if (value.rich?.hides !== undefined) {
        return `its text has ${value.rich.hides} that a person cannot read: clear the formatting of the cell`;
      }
      if (value.rich !== undefined && (column === 'amount' || column === 'key' || column === 'emv')) {
        return `holds formatted text (rich text): ${column === 'amount' ? 'an amount' : `a ${column}`} must be plain; clear the formatting of the cell`;
      }
      if (cell.shown !== undefined && cell.shown !== value.text) return shownMessage(cell, `"${value.text}"`);
      return undefined;
    case 'boolean':
      if (cell.shown !== undefined && cell.shown !== (value.value ? 'TRUE' : 'FALSE')) {
        return shownMessage(cell, value.value ? 'TRUE' : 'FALSE');
      }
      return undefined;
    case 'number': {
      if (cell.shown === undefined) return undefined;
      const stored = String(Number(value.text));
      const same = column === 'amount' ? sameDecimal(shownNumber(cell.shown), stored) : cell.shown === stored;
      return same ? undefined : shownMessage(cell, stored);
    }
  }
}

function shownMessage(cell: SheetCell, holds: string): string {
  const shows = cell.shown === '' ? 'shows nothing' : `shows "${cell.shown}"`;
  return `${shows} but holds ${holds} (number format "${cell.format}"): format the cell to show its value (General, or #,##0.00 for an amount)`;
}

/**
 * The number a person reads in a cell's shown text, as ssf writes it (`,` between thousands, `.` before
 * decimals): one run of digits with letters, currency signs or spaces around it (`R$ 1,234.50`, `10.50
 * reais`). Undefined for anything else: a percent, a sign or parentheses, a date, a fraction, an exponent,
 * two numbers, none.
 */
function shownNumber(shown: string): string | undefined {
  const match = /^([\p{L}\p{Sc}\s]*)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?([\p{L}\p{Sc}\s]*)$/u.exec(shown);
  if (!match) return undefined;
  return `${match[2]!.replaceAll(',', '')}${match[3] ?? ''}`;
}

/** Two decimal texts (`1234.50`, `1234.5`) are the same number. */
function sameDecimal(a: string | undefined, b: string): boolean {
  if (a === undefined || !/^\d+(?:\.\d+)?$/.test(b)) return false;
  const canonical = (text: string) => {
    const [whole, fraction = ''] = text.split('.');
    return `${whole!.replace(/^0+(?=\d)/, '')}.${fraction.replace(/0+$/, '')}`;
  };
  return canonical(a) === canonical(b);
}

function sheetText(value: SheetCellValue): string {
  switch (value.kind) {
    case 'text':
      return value.text;
    case 'number':
      return value.text;
    case 'boolean':
      return value.value ? 'TRUE' : 'FALSE';
    case 'error':
      return value.text;
    case 'formula':
      return `=${value.formula}`;
    case 'date':
      return value.text;
  }
}

/**
 * The first value cell (in row order) of each merged range, → the range. Ranges are checked as ranges and
 * never expanded (a range may span a million rows): per range, a binary search in each column of the
 * header's width (at most the five batch columns: any cell beyond them is refused on its own).
 */
function mergedCells(sheet: SheetData): Map<string, string> {
  const found = new Map<string, string>();
  if (sheet.merges.length === 0) return found;
  const width = BATCH_COLUMNS.length;
  const columns: Array<Array<{ row: number; ref: string }>> = Array.from({ length: width }, () => []);
  for (const { row, cells } of sheet.rows) {
    for (const cell of cells) if (cell.column < width) columns[cell.column]!.push({ row, ref: cell.ref });
  }
  for (const range of sheet.merges) {
    let first: { row: number; ref: string } | undefined;
    for (let column = range.from.column; column <= Math.min(range.to.column, width - 1); column++) {
      const cells = columns[column]!;
      let low = 0;
      let high = cells.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (cells[middle]!.row < range.from.row) low = middle + 1;
        else high = middle;
      }
      const cell = cells[low];
      if (cell !== undefined && cell.row <= range.to.row && (first === undefined || cell.row < first.row)) {
        first = cell;
      }
    }
    if (first !== undefined && !found.has(first.ref)) found.set(first.ref, range.ref);
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// NDJSON

function readNdjson(text: string, checker: RowChecker): void {
  let from = text.length > 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 0;
  while (from <= text.length) {
    const end = text.indexOf('\n', from);
    const stop = end === -1 ? text.length : end;
    line++;
    const source = text.slice(from, stop).trim();
    from = stop + 1;
    if (source === '') continue;
    readJsonRow(line, source, checker);
  }
}

function readJsonRow(line: number, source: string, checker: RowChecker): void {
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
    const name = columnName(field);
    if (!isColumn(name)) {
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
