/**
 * A batch payout file (`pix pay batch FILE`): read, checked row by row, offline and pure (text in,
 * result out). Every problem of every row is collected with its line number, id and column, so one
 * run shows the operator everything to fix; the command shows the first 20 and sends nothing.
 *
 * Formats: CSV with a header (RFC 4180; `,` or, when the header has only semicolons, `;`), or NDJSON
 * (one JSON object per line), read by `batchtext.ts`; an xlsx workbook's first sheet, by `batchsheet.ts`.
 * Columns (any order, any case and accents, in English or Portuguese): `id`, `key` (`chave`) or `emv`,
 * `amount` (`valor`), `description` (`descrição`), `key_type` (`keyType`, `tipo_chave`) to name a key's
 * type instead of having it detected, and `document` (`documento`) and `name` (`nome`), who the row is
 * expected to pay (domain/payee.ts). `--map field=Header,…` names other headers (the reconcile's
 * convention: domain/expectations.ts parseFieldMap). The rules of each are in `RowChecker.check`
 * (`batchrow.ts`) and in the README ("Batch payouts"). This module holds what they share: the columns,
 * the limits, the result and how a problem is written.
 *
 * A batch file never pays an amount the operator did not write: in a comma file, a whole amount
 * followed by a field of one to three digits (`10,50` or `10,500` left unquoted) is refused as ambiguous.
 */

import { emvHash } from './digest.js';
import type { Centavos } from './money.js';
import { foldName } from './names.js';
import type { PayeeExpectation } from './payee.js';
import type { PixKeyType } from './pixkey.js';

export type BatchFormat = 'csv' | 'ndjson' | 'xlsx';
/** The formats read as text (a workbook is bytes: parseBatchSheet). */
export type TextBatchFormat = Exclude<BatchFormat, 'xlsx'>;

export const BATCH_COLUMNS = [
  'id',
  'key',
  'key_type',
  'emv',
  'amount',
  'description',
  'document',
  'name',
] as const;
export type BatchColumn = (typeof BATCH_COLUMNS)[number];

/** Other names of the columns, folded (domain/names.ts): the API's `keyType` and the Portuguese ones. */
const COLUMN_ALIASES: Readonly<Record<string, BatchColumn>> = {
  keytype: 'key_type',
  'key type': 'key_type',
  chave: 'key',
  'chave pix': 'key',
  tipo_chave: 'key_type',
  'tipo chave': 'key_type',
  'tipo da chave': 'key_type',
  valor: 'amount',
  descricao: 'description',
  documento: 'document',
  'cpf/cnpj': 'document',
  nome: 'name',
};

/**
 * A header's (or JSON field's) name as a column: any case, accents and runs of space (foldName), the
 * API's `keyType` and the Portuguese names (`chave`, `valor`, `descrição`, `documento`, `nome`…).
 */
export function columnName(field: string): string {
  const name = foldName(field);
  return COLUMN_ALIASES[name] ?? name;
}

/** `--map field=Header,…`: the file's own header for each column it names. */
export type BatchColumnMap = Partial<Record<BatchColumn, string>>;

export const COLUMN_LIST = BATCH_COLUMNS.join(', ');

export function isColumn(name: string): name is BatchColumn {
  return (BATCH_COLUMNS as readonly string[]).includes(name);
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
  /** Who the row must pay (its `document` and `name` columns): checked against the consultation. */
  expect?: PayeeExpectation;
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
