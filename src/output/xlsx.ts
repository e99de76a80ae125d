/**
 * `-o xlsx`: a list as an Office Open XML workbook (one sheet), streamed row by row. Loaded only when
 * `-o xlsx` is asked for (records.ts imports it on `begin`), with fflate for the ZIP container.
 *
 * Why not a spreadsheet library: exceljs (the one with a streaming writer) took 2.5 s and 143 MB for
 * 100,000 rows, bundled to 2.3 MB, and printed a Buffer() deprecation warning from its archiver once
 * bundled; a worksheet of typed cells is five fixed parts and one streamed part, written here, while the
 * part that is easy to get wrong — ZIP, deflate, CRC-32 — is fflate's. Tests read the workbooks back with
 * exceljs (a devDependency used only there), an implementation that is not ours.
 *
 * Cells are typed, never formulas: a column's `kind` says how its machine value is written.
 * - money: the decimal text (`-1234.56`) as a number, formatted `"R$ "#,##0.00` (Excel's invariant
 *   syntax; a pt-BR reader sees `R$ 1.234,56`). The text goes into the file as written: no float.
 * - date: an ISO instant as a date-time on the wall clock of the account's time zone (a cell has no
 *   zone), `dd/mm/yyyy hh:mm:ss`; a calendar day `YYYY-MM-DD` as a date, `dd/mm/yyyy`.
 * - number: a number.
 * - anything else, and any value a kind cannot read (the server's bytes are hostile): inline text, its
 *   control and direction characters shown escaped by the one sanitizer, XML-escaped, at most the 32,767
 *   characters a cell holds. A text starting with `=` is text: only a `<f>` element is a formula.
 */
import { Zip, ZipDeflate } from 'fflate';
import { columnLetters } from '../domain/cellref.js';
import { wallClockMs } from '../domain/timezones.js';
import { xmlSafe } from './sanitize.js';
import type { ColumnKind } from './table.js';

export interface SheetColumn {
  header: string;
  kind?: ColumnKind | undefined;
}

export type SheetValue = string | number | undefined | null;

export interface SheetWriter {
  /** The rows' XML, deflated; the chunks of the file produced so far are handed to `emit`. */
  rows(rows: readonly (readonly SheetValue[])[]): Promise<void>;
  end(): Promise<void>;
}

/** Excel's limit on a cell's text. */
const MAX_CELL_TEXT = 32_767;
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;
const FLUSH_AT = 64 * 1024;
const DECIMAL = /^-?\d{1,15}(?:\.\d{1,15})?$/;
const CALENDAR_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Style indexes of styles.xml's cellXfs. */
const STYLE = { money: 1, dateTime: 2, date: 3, header: 4 } as const;

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const CT = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

/** The package's parts that depend only on how many sheets the workbook has. */
function fixedParts(sheets: number): Array<[string, string]> {
  const numbers = Array.from({ length: sheets }, (_, i) => i + 1);
  return [
    [
      '[Content_Types].xml',
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
        `<Default Extension="xml" ContentType="application/xml"/>` +
        `<Override PartName="/xl/workbook.xml" ContentType="${CT}.sheet.main+xml"/>` +
        numbers
          .map((n) => `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="${CT}.worksheet+xml"/>`)
          .join('') +
        `<Override PartName="/xl/styles.xml" ContentType="${CT}.styles+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" ` +
        `Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="${PKG_REL}">` +
        numbers
          .map(
            (n) => `<Relationship Id="rId${n}" Type="${REL}/worksheet" Target="worksheets/sheet${n}.xml"/>`,
          )
          .join('') +
        `<Relationship Id="rId${sheets + 1}" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
    ],
    ['xl/styles.xml', STYLES],
  ];
}

const STYLES =
  `<styleSheet xmlns="${MAIN}"><numFmts count="3">` +
  `<numFmt numFmtId="164" formatCode="&quot;R$ &quot;#,##0.00"/>` +
  `<numFmt numFmtId="165" formatCode="dd/mm/yyyy hh:mm:ss"/>` +
  `<numFmt numFmtId="166" formatCode="dd/mm/yyyy"/></numFmts>` +
  `<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font>` +
  `<font><b/><sz val="11"/><name val="Calibri"/></font></fonts>` +
  `<fills count="2"><fill><patternFill patternType="none"/></fill>` +
  `<fill><patternFill patternType="gray125"/></fill></fills>` +
  `<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
  `<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
  `<cellXfs count="5"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>` +
  `<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>` +
  `<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>` +
  `<xf numFmtId="166" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>` +
  `<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>` +
  `<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

/** Text as a cell holds it (the one sanitizer's xmlSafe). */
function textCell(ref: string, value: string, style = ''): string {
  const text = xmlSafe(value, MAX_CELL_TEXT);
  const space = /^\s|\s$/.test(text) ? ' xml:space="preserve"' : '';
  return `<c r="${ref}" t="inlineStr"${style}><is><t${space}>${text}</t></is></c>`;
}

/** The serial day number Excel stores for a date: days since 1899-12-30, the time as its fraction. */
function serial(utcFieldsMs: number): string {
  return String((utcFieldsMs - EXCEL_EPOCH_MS) / DAY_MS);
}

function dateCell(ref: string, value: string, timeZone: string): string | undefined {
  const day = CALENDAR_DAY.exec(value);
  if (day) {
    const ms = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    return Number.isNaN(ms) ? undefined : `<c r="${ref}" s="${STYLE.date}"><v>${serial(ms)}</v></c>`;
  }
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(value)) return undefined;
  return `<c r="${ref}" s="${STYLE.dateTime}"><v>${serial(wallClockMs(ms, timeZone))}</v></c>`;
}

function cell(ref: string, value: SheetValue, kind: ColumnKind | undefined, timeZone: string): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value === 'number') {
    return Number.isFinite(value) ? `<c r="${ref}"><v>${value}</v></c>` : textCell(ref, String(value));
  }
  if (kind === 'money' && DECIMAL.test(value)) return `<c r="${ref}" s="${STYLE.money}"><v>${value}</v></c>`;
  if (kind === 'number' && DECIMAL.test(value)) return `<c r="${ref}"><v>${value}</v></c>`;
  if (kind === 'date') {
    const date = dateCell(ref, value, timeZone);
    if (date !== undefined) return date;
  }
  return textCell(ref, value);
}

/** Width in characters of a column, by kind, for a sheet that opens readable. */
function widthOf(column: SheetColumn): number {
  switch (column.kind) {
    case 'date':
      return 20;
    case 'money':
    case 'number':
      return 16;
    case 'id':
      return 38;
    case 'enum':
      return 12;
    default:
      return Math.max(14, Math.min(40, column.header.length + 2));
  }
}

/**
 * Starts a workbook of one sheet named `sheetName`; its bytes go to `emit` as they are produced, and
 * `emit` is awaited (the stream's back-pressure). The header row is bold and stays in view (frozen).
 */
export function createSheetWriter(
  emit: (chunk: Uint8Array) => Promise<void>,
  options: { sheetName: string; columns: readonly SheetColumn[]; timeZone: string },
): SheetWriter {
  const workbook = createWorkbookWriter(emit, {
    sheets: [{ name: options.sheetName, columns: options.columns }],
    timeZone: options.timeZone,
  });
  return { rows: (rows) => workbook.rows(0, rows), end: () => workbook.end() };
}

export interface SheetSpec {
  name: string;
  columns: readonly SheetColumn[];
}

export interface WorkbookWriter {
  /** Rows of sheet `index`: the sheets are written in order, so once a later sheet has rows an earlier one is closed. */
  rows(index: number, rows: readonly (readonly SheetValue[])[]): Promise<void>;
  end(): Promise<void>;
}

/**
 * A workbook of several sheets (`pix reconcile -o xlsx`: one per outcome), each as createSheetWriter's one,
 * streamed in order: sheet names must differ (a spreadsheet refuses two of one name).
 */
export function createWorkbookWriter(
  emit: (chunk: Uint8Array) => Promise<void>,
  options: { sheets: readonly SheetSpec[]; timeZone: string },
): WorkbookWriter {
  const { sheets, timeZone } = options;
  const pending: Uint8Array[] = [];
  let failure: Error | undefined;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else pending.push(chunk);
  });
  const flush = async () => {
    if (failure) throw failure;
    while (pending.length > 0) await emit(pending.shift()!);
  };
  const encoder = new TextEncoder();
  const sheetList = sheets
    .map((sheet, i) => `<sheet name="${xmlSafe(sheet.name, 31)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
    .join('');
  for (const [name, body] of [
    ...fixedParts(sheets.length),
    [
      'xl/workbook.xml',
      `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets>${sheetList}</sheets></workbook>`,
    ] as [string, string],
  ]) {
    const part = new ZipDeflate(name, { level: 6 });
    zip.add(part);
    part.push(encoder.encode(XML_HEAD + body), true);
  }
  let current = -1;
  let part: ZipDeflate | undefined;
  let letters: string[] = [];
  let rowNumber = 1;
  let text = '';
  const push = async (final: boolean) => {
    part!.push(encoder.encode(text), final);
    text = '';
    await flush();
  };
  /** Closes the sheet being written and opens the next, until sheet `index` is open. */
  const open = async (index: number) => {
    if (index < current) throw new Error(`sheet ${index} is already written`);
    while (current < index) {
      if (part) {
        text += '</sheetData></worksheet>';
        await push(true);
      }
      current++;
      const { columns } = sheets[current]!;
      part = new ZipDeflate(`xl/worksheets/sheet${current + 1}.xml`, { level: 6 });
      zip.add(part);
      letters = columns.map((_, i) => columnLetters(i));
      rowNumber = 1;
      text =
        `${XML_HEAD}<worksheet xmlns="${MAIN}"><sheetViews><sheetView workbookViewId="0"${current === 0 ? ' tabSelected="1"' : ''}>` +
        `<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>` +
        `<cols>${columns.map((column, i) => `<col min="${i + 1}" max="${i + 1}" width="${widthOf(column)}" customWidth="1"/>`).join('')}</cols>` +
        `<sheetData><row r="1">${columns.map((column, i) => textCell(`${letters[i]}1`, column.header, ` s="${STYLE.header}"`)).join('')}</row>`;
    }
  };
  return {
    async rows(index, rows) {
      await open(index);
      const { columns } = sheets[index]!;
      for (const values of rows) {
        rowNumber++;
        text += `<row r="${rowNumber}">`;
        for (let i = 0; i < columns.length; i++) {
          text += cell(`${letters[i]}${rowNumber}`, values[i], columns[i]!.kind, timeZone);
        }
        text += '</row>';
        if (text.length >= FLUSH_AT) await push(false);
      }
    },
    async end() {
      await open(sheets.length - 1);
      text += '</sheetData></worksheet>';
      await push(true);
      zip.end();
      await flush();
    },
  };
}
