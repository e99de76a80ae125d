/**
 * An expectations file (`pix reconcile --expected FILE`): what an ERP says it is owed — one invoice a row,
 * each with an id, an amount and, when known, the payer's CPF/CNPJ, a due date and a name. Read from CSV
 * (`,` or, as a Portuguese spreadsheet saves it, `;` with decimal commas) or from the first sheet of an xlsx
 * workbook, offline and pure (text or cells in, expectations or problems out).
 *
 * Columns are found by their header: by default `id`, `amount`, `document`, `due`, `name` (any case), and
 * every other column is refused (a typo in a header must not silently drop a column). `--map
 * id=Documento,amount=Valor,…` or a preset names the ERP's own headers instead; then other columns are the
 * ERP's and are ignored, but a header the map names and the file lacks is refused. Every problem names its
 * place as a batch file's do (domain/batch.ts formatProblem): `line 12 (id NF-7): amount: …`, or in a
 * workbook the cell, `C12 (id NF-7): …`.
 */

import type { BatchProblem } from './batch.js';
import { detectDelimiter, readCsvRecords } from './batchcsv.js';
import { amountText } from './batchrow.js';
import { columnLetters } from './cellref.js';
import { parseTaxId } from './documents.js';
import { parseFieldMap } from './fieldmap.js';
import { InvalidValue } from './invalid.js';
import { type Centavos, parseAmount } from './money.js';
import { foldName } from './names.js';
import { addDays, calendarDay } from './when.js';
import type { SheetCell, SheetCellValue, SheetData } from './xlsxsheet.js';

export const EXPECTATION_FIELDS = ['id', 'amount', 'document', 'due', 'name'] as const;
export type ExpectationField = (typeof EXPECTATION_FIELDS)[number];

/** One invoice the ERP expects to be paid. */
export interface Expectation {
  id: string;
  amountCentavos: Centavos;
  /** The payer's CPF (11 digits) or CNPJ (14 characters), bare. */
  document?: string;
  /** `YYYY-MM-DD`. */
  due?: string;
  name?: string;
  /** Where it was read: the line (CSV) or row (xlsx). */
  line: number;
}

/** The ERP's header for each field pix reads. */
export type ColumnMap = Partial<Record<ExpectationField, string>>;

/**
 * Presets for ERPs whose spreadsheet headers are public (their help pages list them). Conta Azul's
 * financial sheet has no invoice number: its description is the id, so it must be unique.
 */
export const PRESETS: Readonly<Record<string, ColumnMap>> = {
  contaazul: {
    id: 'Descrição',
    amount: 'Valor',
    document: 'CNPJ/CPF Cliente/Fornecedor',
    due: 'Data de Vencimento',
    name: 'Cliente/Fornecedor',
  },
  eccosys: { id: 'Ordem de Compra', amount: 'Valor Bruto', due: 'Data Vencimento' },
};

const MAX_ID = 64;
const MAX_NAME = 200;
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** `id=Documento,amount=Valor` → the map; throws InvalidValue naming what is wrong. */
export function parseColumnMap(text: string): ColumnMap {
  const map = parseFieldMap(text, EXPECTATION_FIELDS, (typed) => {
    const field = typed.toLowerCase();
    return (EXPECTATION_FIELDS as readonly string[]).includes(field)
      ? (field as ExpectationField)
      : undefined;
  });
  if (map.id === undefined || map.amount === undefined) {
    throw new InvalidValue('id and amount must be mapped, e.g. id=Documento,amount=Valor');
  }
  return map;
}

/** A header as compared: case, accents and repeated spaces do not count. */
export function headerKey(text: string): string {
  return foldName(text);
}

export type ExpectationsResult =
  | { ok: true; expectations: Expectation[] }
  | { ok: false; problems: BatchProblem[]; rowsRead: number };

/** A cell as read: text, or a workbook's number as the file stores it. */
type RawCell = { text: string; number?: undefined } | { text: string; number: string };

interface RawRow {
  line: number;
  cells: Partial<Record<ExpectationField, RawCell>>;
  /** Workbook rows: each field's cell (`C12`). */
  refs?: Partial<Record<ExpectationField, string>>;
}

const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

/** A due date: `YYYY-MM-DD`, `DD/MM/YYYY`, or in a workbook a date cell (a serial day number). */
function dueOf(cell: RawCell): string {
  if (cell.number !== undefined) {
    const serial = Number(cell.number);
    // A date cell stores days since 1899-12-30 (the time, if any, as a fraction): 1900 to 2199.
    if (!Number.isFinite(serial) || serial < 1 || serial > 109_574) {
      throw new InvalidValue(`holds the number ${cell.number}, not a date`);
    }
    return addDays(new Date(EXCEL_EPOCH_MS).toISOString().slice(0, 10), Math.floor(serial));
  }
  const text = cell.text.trim();
  // Only a day as written: `today` or `-7d` in an ERP's file is not a date it meant.
  const day = /^\d{4}-\d{2}-\d{2}$|^\d{1,2}\/\d{1,2}\/\d{4}$/.test(text)
    ? calendarDay(text, '2000-01-01')
    : undefined;
  if (day === undefined) throw new InvalidValue(`"${text}" is not a date: write YYYY-MM-DD or DD/MM/YYYY`);
  return day;
}

function amountOf(cell: RawCell): Centavos {
  return parseAmount(cell.number === undefined ? cell.text : amountText(Number(cell.number), true));
}

class Reader {
  readonly expectations: Expectation[] = [];
  readonly problems: BatchProblem[] = [];
  rowsRead = 0;
  private readonly ids = new Map<string, number>();
  constructor(private readonly inSheet: boolean) {}

  problem(problem: BatchProblem): void {
    this.problems.push(this.inSheet ? { ...problem, sheet: true } : problem);
  }

  row({ line, cells, refs }: RawRow): void {
    this.rowsRead++;
    const idText = cells.id?.text.trim() ?? '';
    const shown = idText !== '' && idText.length <= MAX_ID && !UNSAFE_TEXT.test(idText) ? idText : undefined;
    const at = (field: ExpectationField, message: string) => {
      const cell = refs?.[field];
      this.problem({
        line,
        ...(cell === undefined ? {} : { cell }),
        ...(shown === undefined ? {} : { id: shown }),
        column: field,
        message,
      });
    };
    const before = this.problems.length;
    if (idText === '') at('id', 'required');
    else if (idText.length > MAX_ID) at('id', `${idText.length} characters; at most ${MAX_ID}`);
    else if (UNSAFE_TEXT.test(idText)) at('id', 'contains a line break or a control character');
    else {
      const first = this.ids.get(idText);
      if (first !== undefined)
        at('id', `"${idText}" is already the id of ${this.inSheet ? 'row' : 'line'} ${first}`);
      else this.ids.set(idText, line);
    }
    const read = <T>(field: ExpectationField, parse: (cell: RawCell) => T): T | undefined => {
      const cell = cells[field];
      if (cell === undefined || (cell.number === undefined && cell.text.trim() === '')) return undefined;
      try {
        return parse(cell);
      } catch (error) {
        if (!(error instanceof InvalidValue)) throw error;
        at(field, error.message);
        return undefined;
      }
    };
    const amount = read('amount', amountOf);
    if (amount === undefined && !this.problems.slice(before).some((p) => p.column === 'amount')) {
      at('amount', 'required');
    }
    const document = read('document', (cell) => parseTaxId(cell.text).digits);
    const due = read('due', dueOf);
    const name = read('name', (cell) => {
      const text = cell.text.trim();
      if (UNSAFE_TEXT.test(text)) throw new InvalidValue('contains a line break or a control character');
      return text.slice(0, MAX_NAME);
    });
    if (this.problems.length > before || amount === undefined) return;
    this.expectations.push({
      id: idText,
      amountCentavos: amount,
      line,
      ...(document === undefined ? {} : { document }),
      ...(due === undefined ? {} : { due }),
      ...(name === undefined || name === '' ? {} : { name }),
    });
  }

  result(): ExpectationsResult {
    if (this.problems.length > 0) return { ok: false, problems: this.problems, rowsRead: this.rowsRead };
    return { ok: true, expectations: this.expectations };
  }
}

/**
 * The fields each column of the header holds (by position), or undefined after reporting the header's
 * problems. `ref` names a header cell for a problem (`B1` in a workbook, undefined in a CSV).
 */
function readHeader(
  names: readonly string[],
  map: ColumnMap | undefined,
  line: number,
  ref: (index: number) => string | undefined,
  reader: Reader,
): Array<ExpectationField | undefined> | undefined {
  const before = reader.problems.length;
  const columns: Array<ExpectationField | undefined> = names.map(() => undefined);
  const wanted = new Map<string, ExpectationField>();
  if (map)
    for (const [field, header] of Object.entries(map))
      wanted.set(headerKey(header), field as ExpectationField);
  else for (const field of EXPECTATION_FIELDS) wanted.set(field, field);
  const seen = new Set<ExpectationField>();
  names.forEach((name, index) => {
    const key = headerKey(name);
    const cell = ref(index);
    const field = wanted.get(key);
    const where = { line, ...(cell === undefined ? {} : { cell }) };
    if (field === undefined) {
      if (map || key === '') return; // an ERP's other columns, or an empty one at the end
      reader.problem({
        ...where,
        column: name.trim(),
        message: `unknown column (columns: ${EXPECTATION_FIELDS.join(', ')}; or name yours with --map id=…,amount=…)`,
      });
    } else if (seen.has(field)) {
      reader.problem({ ...where, column: name.trim(), message: 'the column appears twice in the header' });
    } else {
      seen.add(field);
      columns[index] = field;
    }
  });
  for (const [header, field] of map ? Object.entries(map).map(([f, h]) => [h, f] as const) : []) {
    if (!seen.has(field as ExpectationField)) {
      reader.problem({ line, column: field, message: `no column "${header}" in the header (--map)` });
    }
  }
  if (!map) {
    for (const field of ['id', 'amount'] as const) {
      if (!seen.has(field)) reader.problem({ line, column: field, message: 'missing column' });
    }
  }
  return reader.problems.length === before ? columns : undefined;
}

/** Reads an expectations CSV (`,` or `;`); `map` names the ERP's headers (default: the fields' own). */
export function parseExpectationsCsv(text: string, map?: ColumnMap): ExpectationsResult {
  const reader = new Reader(false);
  const delimiter = detectDelimiter(text);
  let header: Array<ExpectationField | undefined> | undefined;
  let headerSeen = false;
  readCsvRecords(text, delimiter, (record) => {
    const { line, fields } = record;
    if (fields.every((field) => field.trim() === '') && record.error === undefined) return;
    if (!headerSeen) {
      headerSeen = true;
      if (record.error !== undefined) reader.problem({ line, message: `header: ${record.error}` });
      else header = readHeader(fields, map, line, () => undefined, reader);
      return;
    }
    if (header === undefined) return;
    if (record.error !== undefined) {
      reader.rowsRead++;
      reader.problem({ line, message: record.error });
      return;
    }
    if (fields.length > header.length && fields.slice(header.length).some((field) => field.trim() !== '')) {
      reader.rowsRead++;
      const hint =
        delimiter === ','
          ? ': a value with a comma (like 10,50) must be in double quotes, or use ; between fields'
          : '';
      reader.problem({ line, message: `${fields.length} fields, the header has ${header.length}${hint}` });
      return;
    }
    const cells: RawRow['cells'] = {};
    header.forEach((field, index) => {
      if (field !== undefined) cells[field] = { text: fields[index] ?? '' };
    });
    reader.row({ line, cells });
  });
  if (!headerSeen) {
    reader.problem({
      line: 1,
      message: 'the file is empty: its first line must be a header, e.g. id;amount;document;due;name',
    });
  }
  return reader.result();
}

/** Why a person does not read in `cell` what pix would, or undefined when they do. */
function unseen(cell: SheetCell, field: ExpectationField): string | undefined {
  const { value } = cell;
  if (cell.unreadableStyle !== undefined)
    return `${cell.unreadableStyle}: a person cannot read it; clear the cell's formatting`;
  if (cell.hiddenColumn)
    return 'in a hidden column: a person does not see it; unhide the column or clear the cell';
  if (value.kind === 'formula') return `holds a formula (=${value.formula}): type the value itself`;
  if (value.kind === 'error') return `holds the error ${value.text}`;
  if (value.kind === 'date' && field !== 'due')
    return `holds a date (${value.text}), not ${field === 'amount' || field === 'id' ? 'an' : 'a'} ${field}`;
  if (value.kind === 'text' && value.rich?.hides !== undefined) {
    return `its text has ${value.rich.hides} that a person cannot read: clear the formatting of the cell`;
  }
  return undefined;
}

function cellText(value: SheetCellValue): string {
  switch (value.kind) {
    case 'text':
    case 'number':
    case 'error':
    case 'date':
      return value.text;
    case 'boolean':
      return value.value ? 'TRUE' : 'FALSE';
    case 'formula':
      return `=${value.formula}`;
  }
}

/**
 * Reads the first sheet of a workbook as a CSV is read: the first non-empty row is the header. A cell
 * holding a formula or an error is refused naming the cell: pix reads what the ERP wrote, not what a
 * formula evaluated to. A number cell is an amount read exactly, a date (its serial day) or an id.
 */
export function parseExpectationsSheet(sheet: SheetData, map?: ColumnMap): ExpectationsResult {
  const reader = new Reader(true);
  let header: Array<ExpectationField | undefined> | undefined;
  for (const { row, cells, hidden } of sheet.rows) {
    if (cells.length === 0) continue;
    if (header === undefined) {
      const width = Math.max(...cells.map((cell) => cell.column)) + 1;
      const names = Array.from({ length: width }, () => '');
      for (const cell of cells) names[cell.column] = cellText(cell.value);
      header = readHeader(names, map, row, (index) => `${columnLetters(index)}${row}`, reader);
      if (header === undefined) return reader.result();
      continue;
    }
    const raw: RawRow = { line: row, cells: {}, refs: {} };
    let broken = false;
    const refuse = (cell: SheetCell, field: ExpectationField, message: string) => {
      const id = raw.cells.id?.text;
      reader.problem({
        line: row,
        cell: cell.ref,
        sheet: true,
        ...(id ? { id } : {}),
        column: field,
        message,
      });
      broken = true;
    };
    if (hidden !== undefined) {
      reader.problem({
        line: row,
        sheet: true,
        message: `row ${row} is ${hidden}: a person does not see what pix would read; unhide it or delete it`,
      });
      reader.rowsRead++;
      continue;
    }
    for (const cell of cells) {
      const field = header[cell.column];
      if (field === undefined) continue;
      raw.refs![field] = cell.ref;
      // What pix reads is what a person sees there (domain/xlsxsheet.ts says when it is not).
      const why = unseen(cell, field);
      if (why !== undefined) {
        refuse(cell, field, why);
        continue;
      }
      const { value } = cell;
      raw.cells[field] =
        value.kind === 'number' && field !== 'id' && field !== 'document' && field !== 'name'
          ? { text: value.text, number: value.text }
          : value.kind === 'date'
            ? { text: value.text.slice(0, 10) }
            : { text: value.kind === 'number' ? String(Number(value.text)) : cellText(value) };
    }
    if (broken) {
      reader.rowsRead++;
      continue;
    }
    reader.row(raw);
  }
  if (header === undefined) {
    reader.problem({ line: 1, message: `the sheet ${sheet.name} is empty: its first row must be a header` });
  }
  return reader.result();
}
