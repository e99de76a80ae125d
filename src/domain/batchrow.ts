/**
 * The rules of a batch row (`domain/batch.ts`), whatever file it came from: `RowChecker` checks each
 * row's id, key or emv code, key type, amount and description, collects every problem with its line, id
 * and column, refuses a repeated id, and makes the parse result. A whole amount followed by a field of one
 * to three digits in a comma file is refused as ambiguous (`10,50` cut at the comma).
 */

import {
  BATCH_ID_PATTERN,
  type BatchColumn,
  type BatchParseResult,
  type BatchProblem,
  type BatchRow,
  type BatchTarget,
  MAX_BATCH_DESCRIPTION,
  MAX_BATCH_ID,
} from './batch.js';
import { decodeBrCode } from './brcode.js';
import { emvHash } from './digest.js';
import { InvalidValue } from './invalid.js';
import { type Centavos, formatBRL, parseAmount } from './money.js';
import { type PayeeExpectation, parseExpectedDocument, parseExpectedName } from './payee.js';
import { type PixKeyType, parseKeyType, parsePixKey } from './pixkey.js';

// ---------------------------------------------------------------------------------------------
// The rules of a row

/** A row as read: trimmed non-empty text per column; an NDJSON number amount kept as a number. */
export interface RawRow {
  line: number;
  cells: Partial<Record<BatchColumn, string>>;
  amountNumber?: number;
  /** A workbook's row: `line` is its row number, and each column's cell (`B7`) names its problems. */
  refs?: Partial<Record<BatchColumn, string>>;
  /** A comma file's whole amount followed by a field of one to three digits (see `splitDecimal`). */
  split?: SplitDecimal;
}

/** `10` in the amount column and `50` in the next: maybe an unquoted `10,50` (or `10,500`) cut in two by the comma. */
export interface SplitDecimal {
  amount: string;
  /** The next column; undefined when it is one of the file's own that `--map` leaves out. */
  column: BatchColumn | undefined;
  digits: string;
}

/**
 * The amount as the row would read if it were `10,50` (or `10,500`) split by the comma: the problem names
 * both readings and what to write for each, since only the operator knows which was meant.
 */
function splitMessage({ amount, column: next, digits }: SplitDecimal): string {
  const column = next ?? 'next column';
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

/** Says a problem of a row's cell (`column`), or of the row. */
type SayProblem = (column: string | undefined, message: string) => void;

/** A key row's target: its key read with its `key_type` (domain/pixkey.ts, one rule with `pix pay key`). */
function keyTarget(cells: RawRow['cells'], at: SayProblem): BatchTarget | undefined {
  let type: PixKeyType | undefined;
  if (cells.key_type !== undefined) {
    try {
      type = parseKeyType(cells.key_type);
    } catch (error) {
      at('key_type', reason(error));
      return undefined;
    }
  }
  if (cells.key === undefined) return undefined;
  try {
    // 11 digits are a CPF, a wrong one refused.
    const key = parsePixKey(cells.key, type);
    return { kind: 'key', key: key.key, keyType: key.type };
  } catch (error) {
    at('key', reason(error));
    return undefined;
  }
}

/** Who the row must pay (domain/payee.ts): checked offline here, against the consultation later. */
function payeeExpectation(cells: RawRow['cells'], at: SayProblem): PayeeExpectation {
  const expect: PayeeExpectation = {};
  if (cells.document !== undefined) {
    try {
      expect.document = parseExpectedDocument(cells.document);
    } catch (error) {
      at('document', reason(error));
    }
  }
  if (cells.name !== undefined) {
    try {
      expect.name = parseExpectedName(cells.name);
    } catch (error) {
      at('name', reason(error));
    }
  }
  return expect;
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

export function shownId(text: string | undefined): string | undefined {
  return text !== undefined && BATCH_ID_PATTERN.test(text) ? text : undefined;
}

export class RowChecker {
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
      target = keyTarget(cells, at);
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

    const expect = payeeExpectation(cells, at);

    if (this.problems.length > before || id === undefined || target === undefined) return;
    const row: BatchRow = {
      id,
      line,
      target,
      amount: target.kind === 'emv' && target.fixedAmount !== undefined ? target.fixedAmount : amount,
      ...(description === undefined ? {} : { description }),
      ...(Object.keys(expect).length === 0 ? {} : { expect }),
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
