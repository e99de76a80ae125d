/**
 * xlsx workbooks written part by part, XML and ZIP as given, for the tests of what pix refuses: the
 * things a spreadsheet application never writes but a file can hold (rows in extLst, phonetic runs in an
 * inline string, a cell written twice, two ZIP entries of one name). A workbook as an application writes
 * one comes from exceljs instead (test/domain/batchsheet.test.ts).
 */
import { crc32 } from 'node:zlib';
import { deflateSync, Zip, ZipDeflate, type ZipInputFile, ZipPassThrough } from 'fflate';

export const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** An entry's bytes, or bytes already deflated (so a test can add 3 GB of padding in 3 MB). */
export type EntryContent = string | Uint8Array | Deflated;

export interface Deflated {
  deflated: Uint8Array;
  size: number;
  crc: number;
}

/** `size` zero bytes, deflated once: the padding part of a ZIP bomb. */
export function zeros(size: number): Deflated {
  const bytes = new Uint8Array(size);
  return { deflated: deflateSync(bytes, { level: 9 }), size, crc: crc32(bytes) };
}

export interface WorkbookParts {
  /** The inside of `<sheetData>`: rows as `row()` and the cell helpers write them. */
  sheetData: string;
  /**
   * Elements of the worksheet before `<sheetData>` (`<sheetFormatPr/>`, `<cols>`) and after it. Without a
   * `<cols>` of its own, columns A to H are 40 digits wide: what the tests write shows whole (pix refuses
   * a key or amount its column cuts, domain/xlsxlayout.ts).
   */
  beforeData?: string;
  afterData?: string;
  /** Custom number formats: cell style `s = i + 1` applies `formats[i]` (style 0 is General). */
  formats?: string[];
  /**
   * Fonts and fills after the default ones (font 0 Calibri 11, fill 0 none), and cell styles using them:
   * `xfs[i]` (raw attributes, e.g. `fontId="1" fillId="1"`, and `numFmtId="164"` for `formats[0]`) is style
   * `formats.length + 1 + i`.
   */
  fonts?: string;
  fills?: string;
  /** Raw attributes, or attributes and the xf's inside (`<alignment wrapText="1"/>`). */
  xfs?: Array<string | { attributes: string; inner: string }>;
  /** The inside of the styles' `<colors>` (an `<indexedColors>` palette of the workbook's own), raw. */
  colors?: string;
  /** The inside of a theme part's `<a:clrScheme>` (xl/theme/theme1.xml), raw, with `a:` DrawingML. */
  theme?: string;
  /** The inside of the styles' `<dxfs>` (the formats conditional formats apply), raw. */
  dxfs?: string;
  /** The `<si>` contents of the shared strings, raw. */
  sharedStrings?: string[];
  /** The inside of `<sheets>`; default: the first sheet `Pagamentos` (sheet1.xml) and a second, `Notas`. */
  sheets?: string;
  /** The inside of `<bookViews>`. */
  bookViews?: string;
  /** Elements of the workbook after `<sheets>` (an `<extLst>` as Excel writes one). */
  workbookExtra?: string;
  /** Entries added to the ZIP after the workbook's own, in order (a name may repeat). */
  extraEntries?: Array<[name: string, content: EntryContent]>;
  /** Written stored (no compression): raw bytes, for tests that corrupt them. */
  stored?: boolean;
}

const esc = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

export function row(number: number | undefined, cells: string, attributes = ''): string {
  return `<row${number === undefined ? '' : ` r="${number}"`}${attributes ? ` ${attributes}` : ''}>${cells}</row>`;
}

/** A number cell (`s`: the style, 1 + the index in `formats`). */
export function num(ref: string, value: string | number, s?: number): string {
  return `<c r="${ref}"${s === undefined ? '' : ` s="${s}"`}><v>${value}</v></c>`;
}

/** An inline string cell with plain text. */
export function str(ref: string, text: string, s?: number): string {
  return `<c r="${ref}" t="inlineStr"${s === undefined ? '' : ` s="${s}"`}><is><t xml:space="preserve">${esc(text)}</t></is></c>`;
}

/** An inline string cell whose `<is>` is given raw (runs, phonetic runs). */
export function inline(ref: string, inner: string, s?: number): string {
  return `<c r="${ref}" t="inlineStr"${s === undefined ? '' : ` s="${s}"`}><is>${inner}</is></c>`;
}

/** A shared string cell. */
export function shared(ref: string, index: number, s?: number): string {
  return `<c r="${ref}" t="s"${s === undefined ? '' : ` s="${s}"`}><v>${index}</v></c>`;
}

/** A run of rich text, with its `<rPr>` inside given raw (`<sz val="1"/><color rgb="FFFFFFFF"/>`). */
export function run(text: string, properties = ''): string {
  return `<r>${properties ? `<rPr>${properties}</rPr>` : ''}<t xml:space="preserve">${esc(text)}</t></r>`;
}

/** The header row and data rows as inline strings and numbers: `[['a', 'x@example.com', 10]]`. */
export function table(rows: Array<Array<string | number | undefined>>, first = 1): string {
  return rows
    .map((cells, index) => {
      const number = first + index;
      const xml = cells
        .map((value, column) => {
          if (value === undefined) return '';
          const ref = `${String.fromCharCode(65 + column)}${number}`;
          return typeof value === 'number' ? num(ref, value) : str(ref, value);
        })
        .join('');
      return row(number, xml);
    })
    .join('');
}

const WIDE_COLUMNS = '<cols><col min="1" max="8" width="40" customWidth="1"/></cols>';

export const HEADER_ROW = table([['id', 'key', 'amount', 'description']]);

function stylesXml({
  formats = [],
  dxfs = '',
  fonts = '',
  fills = '',
  xfs: extra = [],
  colors,
}: WorkbookParts): string {
  const numFmts = formats
    .map((code, i) => `<numFmt numFmtId="${164 + i}" formatCode="${esc(code)}"/>`)
    .join('');
  const xfs = formats
    .map(
      (_, i) =>
        `<xf numFmtId="${164 + i}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="${MAIN_NS}"><numFmts count="${formats.length}">${numFmts}</numFmts><fonts><font><sz val="11"/><name val="Calibri"/></font>${fonts}</fonts><fills><fill><patternFill patternType="none"/></fill>${fills}</fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>${xfs}${extra.map(xf).join('')}</cellXfs><dxfs>${dxfs}</dxfs>${colors === undefined ? '' : `<colors>${colors}</colors>`}</styleSheet>`;
}

/** A cell style: number format 0 (General) unless its attributes name one (`numFmtId="164"`). */
function xf(spec: string | { attributes: string; inner: string }): string {
  const attributes = typeof spec === 'string' ? spec : spec.attributes;
  const start = `<xf ${attributes.includes('numFmtId=') ? '' : 'numFmtId="0" '}borderId="0" xfId="0" ${attributes}`;
  return typeof spec === 'string' ? `${start}/>` : `${start}>${spec.inner}</xf>`;
}

/** The parts of a workbook as a map of name → XML (before zipping), for a test that changes one. */
export function workbookParts(parts: WorkbookParts): Array<[string, EntryContent]> {
  const sheets =
    parts.sheets ??
    `<sheet name="Pagamentos" sheetId="1" r:id="rId1"/><sheet name="Notas" sheetId="2" r:id="rId2"/>`;
  const entries: Array<[string, EntryContent]> = [
    [
      '[Content_Types].xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>${parts.theme === undefined ? '' : '<Override PartName="/xl/theme/theme1.xml" ContentType="application/vnd.openxmlformats-officedocument.theme+xml"/>'}</Types>`,
    ],
    [
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><bookViews>${parts.bookViews ?? '<workbookView/>'}</bookViews><sheets>${sheets}</sheets>${parts.workbookExtra ?? ''}</workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL_NS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL_NS}/worksheet" Target="worksheets/sheet2.xml"/><Relationship Id="rId3" Type="${REL_NS}/styles" Target="styles.xml"/><Relationship Id="rId4" Type="${REL_NS}/sharedStrings" Target="sharedStrings.xml"/>${parts.theme === undefined ? '' : `<Relationship Id="rId5" Type="${REL_NS}/theme" Target="theme/theme1.xml"/>`}</Relationships>`,
    ],
    [
      'xl/worksheets/sheet1.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">${parts.beforeData ?? ''}${parts.beforeData?.includes('<cols') ? '' : WIDE_COLUMNS}<sheetData>${parts.sheetData}</sheetData>${parts.afterData ?? ''}</worksheet>`,
    ],
    [
      'xl/worksheets/sheet2.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="${MAIN_NS}"><sheetData>${table([['conferido por', 'ana']])}</sheetData></worksheet>`,
    ],
    ['xl/styles.xml', stylesXml(parts)],
    [
      'xl/sharedStrings.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="${MAIN_NS}" count="${parts.sharedStrings?.length ?? 0}">${(parts.sharedStrings ?? []).map((si) => `<si>${si}</si>`).join('')}</sst>`,
    ],
  ];
  if (parts.theme !== undefined) {
    entries.push([
      'xl/theme/theme1.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Office Theme"><a:themeElements><a:clrScheme name="Office">${parts.theme}</a:clrScheme></a:themeElements></a:theme>`,
    ]);
  }
  return [...entries, ...(parts.extraEntries ?? [])];
}

/** Zips entries in order, a name as often as it is given (fflate's streaming Zip checks nothing). */
export function zipEntries(entries: Array<[string, EntryContent]>, stored = false): Uint8Array {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  for (const [name, content] of entries) {
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
      // fflate's documented ZipInputFile: data already compressed, with its size and CRC.
      const file: ZipInputFile = { filename: name, size: content.size, crc: content.crc, compression: 8 };
      zip.add(file);
      file.ondata!(null, new Uint8Array(content.deflated), true);
      continue;
    }
    const file = stored ? new ZipPassThrough(name) : new ZipDeflate(name, { level: 6 });
    zip.add(file);
    file.push(typeof content === 'string' ? new TextEncoder().encode(content) : content, true);
  }
  zip.end();
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

export function buildWorkbook(parts: WorkbookParts): Uint8Array {
  return zipEntries(workbookParts(parts), parts.stored);
}
