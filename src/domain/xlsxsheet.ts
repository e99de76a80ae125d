/**
 * The first sheet of an xlsx workbook, read as a person reads it in a spreadsheet application, or refused —
 * for `pix pay batch FILE.xlsx`. Loaded only for a workbook: the ZIP is read by its directory, one part at
 * a time, in slices (`xlsxzip.ts`, fflate inflating), and each part's XML is parsed as it inflates (sax, in
 * strict mode with namespaces), so the read is bounded by the limits there and yields between slices
 * through the caller's `pause` (Ctrl-C and SIGTERM keep their turn).
 *
 * Nothing is evaluated: a formula is reported as a formula, whatever value the spreadsheet cached. A
 * number is kept as the text the file stores (`1234.56`), so the batch reader converts it to centavos
 * without float arithmetic, and beside it what a spreadsheet shows for it under its number format
 * (`shown`, from SheetJS's ssf), so a cell that shows one amount and holds another is refused by the batch
 * reader. What a person cannot see is refused here, naming the part or the cell: a hidden first sheet, a
 * workbook that opens on another sheet, rows in `extLst`, `mc:AlternateContent` or another namespace, a
 * cell or row written twice, a number that is not decimal. Hidden rows and columns and rich text are
 * marked on the cells for the batch reader to refuse; phonetic runs are never part of a cell's text. How
 * the cells are drawn (colours, column widths, conditional formats) is the sheet's `layout`, which the
 * readers of payments ask about the cells that decide who is paid how much (`xlsxlayout.ts`).
 *
 * The work is shared out by job: the parts and their XML in `xlsxparts.ts`, the shared strings and styles in
 * `xlsxstrings.ts` and `xlsxstyles.ts` (colours in `xlsxcolors.ts`), the sheet's rows in `xlsxcells.ts`, one
 * cell's value in `xlsxcell.ts`, how cells are drawn in `xlsxlayout.ts` (`xlsxformat.ts`, `xlsxwidths.ts`).
 */
import { InvalidValue } from './invalid.js';
import { sheetCells } from './xlsxcells.js';
import { themeColors } from './xlsxcolors.js';
import { SheetLayout } from './xlsxlayout.js';
import {
  OFFICE_DOCUMENT,
  OFFICE_REL,
  relationships,
  WORKBOOK_PART,
  Workbook,
  workbookInfo,
} from './xlsxparts.js';
import { sharedStrings } from './xlsxstrings.js';
import { styles } from './xlsxstyles.js';
import { notAWorkbook, readZipDirectory } from './xlsxzip.js';

export type SheetCellValue =
  /** `rich` when the text is made of runs; `hides` says why a run of it cannot be seen. */
  | { kind: 'text'; text: string; rich?: { hides?: string } }
  /** A number as the file writes it (`12.5`, `1234.56`, `1E-3`). */
  | { kind: 'number'; text: string }
  | { kind: 'boolean'; value: boolean }
  /** `#N/A`, `#DIV/0!`… */
  | { kind: 'error'; text: string }
  /** Any cell with a formula (`<f>`), whatever it evaluated to. */
  | { kind: 'formula'; formula: string }
  /** A date cell (`t="d"`), as the file writes it. */
  | { kind: 'date'; text: string };

export interface SheetCell {
  /** `B7` */
  ref: string;
  /** 0-based column. */
  column: number;
  value: SheetCellValue;
  /**
   * What a spreadsheet shows for the cell under its number format (SheetJS's ssf), when that is not the
   * value's own text: a number's shown text when it differs from `String(number)`, text and booleans under
   * a format other than General or `@`.
   */
  shown?: string;
  /** The number format, as the workbook writes it, when `shown` is set. */
  format?: string;
  /** Set when the cell's column is hidden (or 0 wide). */
  hiddenColumn?: boolean;
  /** Why the cell's style makes its text unreadable (white on white, a 1-point font), when it does. */
  unreadableStyle?: string;
  /** Its cell style (`s`), when not the default: how `layout` draws it. */
  style?: number;
}

export interface SheetRow {
  /** 1-based, as the spreadsheet numbers it. */
  row: number;
  cells: SheetCell[];
  /** Why a person does not see the row: `hidden`, or its height (`0 points tall`). */
  hidden?: string;
  /** Its height in points, when the file gives it (its own, or the sheet's default). */
  height?: number;
  /** Its style, when the row has one for the cells it does not write. */
  style?: number;
  /**
   * Cells written without anything to show: `holds` when they have a value all the same (an empty string),
   * which stops text running on over them as a value does; else only a style.
   */
  blanks?: Array<{ column: number; style: number; holds: boolean }>;
}

export interface MergedRange {
  /** As written (`B7:C7`). */
  ref: string;
  from: { row: number; column: number };
  to: { row: number; column: number };
}

export interface SheetData {
  name: string;
  rows: SheetRow[];
  merges: MergedRange[];
  /**
   * How a spreadsheet draws the cells (colours, widths, conditional formats): the readers of payments ask
   * it about the cells that decide who is paid how much. Absent from a sheet built by hand (tests).
   */
  layout?: SheetLayout;
}

export interface ReadOptions {
  /**
   * Awaited between slices of every part: the caller yields to the event loop there and throws to stop
   * (a signal). `done` and `total` are the bytes of the sheet's XML read so far and its size.
   */
  pause?: (done: number, total: number) => Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The first sheet

const resolved = Promise.resolve();
const noPause = () => resolved;

/**
 * Reads the workbook's first sheet. Throws InvalidValue when the bytes are not an xlsx workbook (a legacy
 * .xls, a CSV renamed, a damaged file) or when what pix would read is not what a spreadsheet shows there.
 */
export async function readFirstSheet(bytes: Uint8Array, options: ReadOptions = {}): Promise<SheetData> {
  if (bytes[0] !== 0x50 || bytes[1] !== 0x4b) throw notAWorkbook('not a ZIP file');
  const book = new Workbook(bytes, readZipDirectory(bytes), options.pause ?? noPause);
  if (!book.has(WORKBOOK_PART)) throw notAWorkbook(`no ${WORKBOOK_PART}`);
  // The package's own relationship names the workbook part a spreadsheet opens: pix reads that one.
  const root = await relationships(book, '_rels/.rels', '');
  const office = [...root.values()].filter((rel) => rel.type === OFFICE_DOCUMENT);
  if (office.length > 1 || (office.length === 1 && office[0]!.target.toLowerCase() !== WORKBOOK_PART)) {
    throw notAWorkbook(
      `its package opens ${office.map((rel) => rel.target).join(' and ')}, not ${WORKBOOK_PART}`,
    );
  }
  const info = await workbookInfo(book);
  const first = info.first;
  if (first === undefined) throw notAWorkbook('it has no sheet');
  if (first.state === 'hidden' || first.state === 'veryHidden') {
    throw new InvalidValue(
      `the first sheet, ${first.name}, is ${first.state === 'hidden' ? 'hidden' : 'very hidden'}: pix pays only a sheet a person sees; unhide it or move the payments to a visible first sheet`,
    );
  }
  if (info.hidden !== undefined)
    throw new InvalidValue('the workbook window is hidden: unhide it and save again');
  if (info.activeTab !== 0) {
    throw new InvalidValue(
      `the workbook opens on its sheet ${info.activeTab + 1}, not on ${first.name}, the sheet pix pays: open ${first.name}, save, and run it again`,
    );
  }
  const rels = await relationships(book, 'xl/_rels/workbook.xml.rels', 'xl/');
  const target = rels.get(first.id)?.target;
  if (target === undefined || target === '' || !book.has(target))
    throw notAWorkbook(`the sheet ${first.name} is missing`);
  const only = (kind: string) => {
    const found = [...rels.values()].filter((rel) => rel.type === `${OFFICE_REL}/${kind}`);
    if (found.length > 1) throw notAWorkbook(`it has two ${kind} parts`);
    return found[0]?.target;
  };
  const styleSheet = await styles(book, only('styles'), await themeColors(book, only('theme')));
  const strings = await sharedStrings(book, only('sharedStrings'));
  const { rows, merges, facts } = await sheetCells(book, target, strings, styleSheet, info.date1904);
  return { name: first.name, rows, merges, layout: new SheetLayout(styleSheet, facts, merges) };
}
