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
 * marked on the cells for the batch reader to refuse; phonetic runs are never part of a cell's text.
 */
import sax from 'sax';
import SSF from 'ssf';
import { columnLetters, parseRef } from './cellref.js';
import { InvalidValue } from './invalid.js';
import {
  type InflateBudget,
  inflateEntry,
  notAWorkbook,
  readZipDirectory,
  type ZipEntry,
} from './xlsxzip.js';

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
}

export interface SheetRow {
  /** 1-based, as the spreadsheet numbers it. */
  row: number;
  cells: SheetCell[];
  /** Why a person does not see the row: `hidden`, or its height (`0 points tall`). */
  hidden?: string;
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
}

export interface ReadOptions {
  /**
   * Awaited between slices of every part: the caller yields to the event loop there and throws to stop
   * (a signal). `done` and `total` are the bytes of the sheet's XML read so far and its size.
   */
  pause?: (done: number, total: number) => Promise<void>;
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const PACKAGE_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const OFFICE_DOCUMENT = `${OFFICE_REL}/officeDocument`;
const WORKBOOK_PART = 'xl/workbook.xml';
/** Rows shorter than this, in points, show nothing a person can read. */
const MIN_ROW_POINTS = 3;
/** Text runs smaller than this, in points, cannot be read. */
const MIN_RUN_POINTS = 6;
/** A payout sheet has none or a few: more than this is refused before any is checked. */
const MAX_MERGED_RANGES = 10_000;
const MAX_ROW = 1_048_576;
const MAX_COLUMN = 16_383;

// ---------------------------------------------------------------------------------------------
// XML, as it inflates

/** Prefix → namespace, as declared on an element and its ancestors (`''` is the default namespace). */
type Scope = ReadonlyMap<string, string>;

const XML_SCOPE: Scope = new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]);

class XmlElement {
  /** Set when this element or an ancestor is one whose content a spreadsheet may not show. */
  hiddenBy: string | undefined;

  constructor(
    readonly uri: string,
    readonly local: string,
    private readonly attributes: Record<string, string>,
    readonly scope: Scope,
  ) {}

  /** An attribute without a prefix (the only ones pix reads, but for `r:id`). */
  attr(name: string): string | undefined {
    return Object.hasOwn(this.attributes, name) ? this.attributes[name] : undefined;
  }

  /** An attribute in a namespace (`r:id`). */
  attrNs(uri: string, local: string): string | undefined {
    for (const [name, value] of Object.entries(this.attributes)) {
      const colon = name.indexOf(':');
      if (colon > 0 && name.slice(colon + 1) === local && this.scope.get(name.slice(0, colon)) === uri)
        return value;
    }
    return undefined;
  }
}

/** The scope of an element: its parent's, with the namespaces its own attributes declare. */
function scopeOf(attributes: Record<string, string>, parent: Scope): Scope {
  let scope: Map<string, string> | undefined;
  for (const name in attributes) {
    if (name.charCodeAt(0) !== 0x78 || !name.startsWith('xmlns')) continue;
    if (name !== 'xmlns' && name.charCodeAt(5) !== 0x3a) continue;
    scope ??= new Map(parent);
    scope.set(name === 'xmlns' ? '' : name.slice(6), attributes[name]!);
  }
  return scope ?? parent;
}

interface XmlHandlers {
  open?(element: XmlElement, stack: readonly XmlElement[]): void;
  text?(text: string, stack: readonly XmlElement[]): void;
  close?(element: XmlElement, stack: readonly XmlElement[]): void;
}

/**
 * Where content may hide: an extension list (`extLst`, read only by applications that know it), markup
 * compatibility (`mc:AlternateContent` and its `Choice` and `Fallback`: one of them is read), and any
 * element of another namespace.
 */
function hidingPlace(element: { uri: string; local: string }, home: string): string | undefined {
  if (element.uri === home) return element.local === 'extLst' ? 'extLst' : undefined;
  if (element.uri.startsWith('http://schemas.openxmlformats.org/markup-compatibility/')) {
    return `mc:${element.local}`;
  }
  return `an element of the namespace ${element.uri || '(none)'}`;
}

/**
 * A streaming XML reader for one part: strict, namespaces resolved. `content` names the elements that
 * hold what a person reads in this part: one of them inside a hiding place (see `hidingPlace`) refuses
 * the workbook, since what pix would read there is not what the spreadsheet shows.
 */
function xmlReader(part: string, home: string, content: ReadonlySet<string>, handlers: XmlHandlers) {
  // Namespaces are resolved here rather than by sax's xmlns mode: a third of the CPU a sheet cost went to
  // sax's qualified names for every attribute of every cell.
  const parser = sax.parser(true, { xmlns: false });
  const stack: XmlElement[] = [];
  parser.onopentag = (tag) => {
    const attributes = (tag as sax.Tag).attributes;
    const parent = stack[stack.length - 1];
    const scope = scopeOf(attributes, parent?.scope ?? XML_SCOPE);
    const colon = tag.name.indexOf(':');
    const prefix = colon === -1 ? '' : tag.name.slice(0, colon);
    const uri = scope.get(prefix) ?? (prefix === '' ? '' : `(undeclared prefix ${prefix})`);
    const element = new XmlElement(
      uri,
      colon === -1 ? tag.name : tag.name.slice(colon + 1),
      attributes,
      scope,
    );
    const hiddenBy = parent?.hiddenBy ?? (parent === undefined ? undefined : hidingPlace(element, home));
    if (hiddenBy !== undefined) {
      element.hiddenBy = hiddenBy;
      if (content.has(element.local)) {
        throw new InvalidValue(
          `${part} has a ${element.local} inside ${hiddenBy}, which a spreadsheet application does not show as the sheet's content: save the workbook again from the spreadsheet`,
        );
      }
    }
    stack.push(element);
    handlers.open?.(element, stack);
  };
  parser.onclosetag = () => {
    const element = stack[stack.length - 1]!;
    handlers.close?.(element, stack);
    stack.pop();
  };
  if (handlers.text) {
    const onText = (text: string) => handlers.text!(text, stack);
    parser.ontext = onText;
    parser.oncdata = onText;
  }
  const damaged = (error: unknown) =>
    error instanceof InvalidValue
      ? error
      : notAWorkbook(
          `${part} has damaged XML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        );
  return {
    write(text: string) {
      try {
        parser.write(text);
      } catch (error) {
        throw damaged(error);
      }
    },
    close() {
      try {
        parser.close();
      } catch (error) {
        throw damaged(error);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The workbook's parts

class Workbook {
  private readonly budget: InflateBudget = { used: 0 };

  constructor(
    private readonly bytes: Uint8Array,
    private readonly entries: Map<string, ZipEntry>,
    private readonly pause: (done: number, total: number) => Promise<void>,
  ) {}

  has(name: string): boolean {
    return this.entries.has(name.toLowerCase());
  }

  /** Parses one part as it inflates; `progress` makes its bytes the ones `pause` reports. */
  async read(
    name: string,
    home: string,
    content: ReadonlySet<string>,
    handlers: XmlHandlers,
    progress = false,
  ) {
    const entry = this.entries.get(name.toLowerCase());
    if (entry === undefined) throw notAWorkbook(`no ${name}`);
    const xml = xmlReader(name, home, content, handlers);
    const decoder = new TextDecoder('utf-8');
    const quiet = () => this.pause(0, 0);
    await inflateEntry(
      this.bytes,
      entry,
      this.budget,
      (chunk) => xml.write(decoder.decode(chunk, { stream: true })),
      progress ? this.pause : quiet,
    );
    xml.write(decoder.decode());
    xml.close();
  }
}

/** Relationship ids → targets, resolved against `base` (the folder of the part they belong to). */
async function relationships(book: Workbook, name: string, base: string) {
  const map = new Map<string, { type: string; target: string }>();
  if (!book.has(name)) return map;
  await book.read(name, PACKAGE_REL, new Set(['Relationship']), {
    open(element, stack) {
      if (element.local !== 'Relationship' || element.uri !== PACKAGE_REL || stack.length !== 2) return;
      const id = element.attr('Id');
      const target = element.attr('Target');
      if (id === undefined || target === undefined) return;
      if (map.has(id)) throw new InvalidValue(`${name} names the relationship ${id} twice`);
      if (element.attr('TargetMode') === 'External') {
        map.set(id, { type: element.attr('Type') ?? '', target: '' });
        return;
      }
      map.set(id, { type: element.attr('Type') ?? '', target: resolvePart(base, target) });
    },
  });
  return map;
}

/** A relationship's target as a part name: `worksheets/sheet1.xml` against `xl/` → `xl/worksheets/sheet1.xml`. */
function resolvePart(base: string, target: string): string {
  const path = target.startsWith('/') ? target.slice(1) : `${base}${target}`;
  const parts: string[] = [];
  for (const piece of path.split('/')) {
    if (piece === '..') parts.pop();
    else if (piece !== '.' && piece !== '') parts.push(piece);
  }
  return parts.join('/');
}

interface WorkbookInfo {
  first: { name: string; id: string; state: string } | undefined;
  activeTab: number;
  hidden: string | undefined;
  date1904: boolean;
}

async function workbookInfo(book: Workbook): Promise<WorkbookInfo> {
  const info: WorkbookInfo = { first: undefined, activeTab: 0, hidden: undefined, date1904: false };
  let views = 0;
  // Only the sheet list is content: Excel writes an x15:workbookPr in the workbook's extLst, and a view or a
  // property there changes no sheet pix reads.
  await book.read(WORKBOOK_PART, MAIN, new Set(['sheets', 'sheet']), {
    open(element, stack) {
      if (stack[0]!.uri !== MAIN || stack[0]!.local !== 'workbook') {
        throw notAWorkbook(`${WORKBOOK_PART} is not a SpreadsheetML workbook`);
      }
      const parent = stack[stack.length - 2];
      if (element.local === 'sheet' && parent?.local === 'sheets' && stack.length === 3) {
        const id = element.attrNs(OFFICE_REL, 'id');
        if (info.first === undefined && id !== undefined) {
          info.first = {
            name: element.attr('name') ?? 'Sheet1',
            id,
            state: element.attr('state') ?? 'visible',
          };
        }
      } else if (element.local === 'workbookView' && parent?.local === 'bookViews' && stack.length === 3) {
        // The window the workbook opens in is the first view's.
        if (views++ === 0) {
          info.activeTab = Number(element.attr('activeTab') ?? '0');
          const visibility = element.attr('visibility');
          if (visibility === 'hidden' || visibility === 'veryHidden') info.hidden = visibility;
        }
      } else if (element.local === 'workbookPr' && stack.length === 2) {
        info.date1904 = isTrue(element.attr('date1904'));
      }
    },
  });
  return info;
}

function isTrue(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

// ---------------------------------------------------------------------------------------------
// Shared strings and rich text

/** The text of an `si` or an `is`: its `t`, or its runs' `t`s; phonetic runs (`rPh`) are never part of it. */
class StringBuilder {
  text = '';
  rich = false;
  hides: string | undefined;
  private run: { text: string; size?: number; white?: boolean } | undefined;
  private into = false;

  /** `depth` is the element's depth below the `si` or `is`. */
  open(element: XmlElement, depth: number, parent: XmlElement): void {
    if (depth === 1 && element.local === 'r') {
      this.rich = true;
      this.run = { text: '' };
    } else if (
      element.local === 't' &&
      ((depth === 1 && parent.local !== 'rPh') || (depth === 2 && parent.local === 'r'))
    ) {
      this.into = true;
    } else if (depth === 3 && this.run !== undefined && parent.local === 'rPr') {
      if (element.local === 'sz') this.run.size = Number(element.attr('val'));
      else if (element.local === 'color') this.run.white = isWhite(element);
    }
  }

  add(text: string): void {
    if (!this.into) return;
    this.text += text;
    if (this.run !== undefined) this.run.text += text;
  }

  close(element: XmlElement, depth: number): void {
    if (element.local === 't') this.into = false;
    else if (depth === 1 && element.local === 'r' && this.run !== undefined) {
      const { text, size, white } = this.run;
      if (text.trim() !== '' && this.hides === undefined) {
        if (size !== undefined && !(size >= MIN_RUN_POINTS))
          this.hides = `a run of ${size} points ("${text}")`;
        else if (white) this.hides = `a white run ("${text}")`;
      }
      this.run = undefined;
    }
  }
}

/** White text: `FFFFFF` in any alpha, the theme's first colour (Background 1), or the palette's whites. */
function isWhite(color: XmlElement): boolean {
  const rgb = color.attr('rgb');
  if (rgb !== undefined) return /^(?:[0-9a-f]{2})?ffffff$/i.test(rgb);
  const theme = color.attr('theme');
  if (theme !== undefined) return theme === '0' && !(Number(color.attr('tint') ?? '0') < 0);
  const indexed = color.attr('indexed');
  return indexed === '1' || indexed === '9';
}

interface SharedString {
  text: string;
  rich?: { hides?: string };
}

const STRING_CONTENT = new Set(['si', 't', 'r', 'rPh']);
const STRING_PARTS = new Set(['t', 'r', 'rPh', 'phoneticPr']);

/** Inside an `si` or `is`: only its text, runs and phonetic parts, all of SpreadsheetML. */
function checkStringElement(element: XmlElement, depth: number, parent: XmlElement, where: string): void {
  if (element.uri !== MAIN) {
    throw new InvalidValue(
      `${where} holds an element of the namespace ${element.uri || '(none)'}, which a spreadsheet does not show`,
    );
  }
  const allowed =
    depth === 1
      ? STRING_PARTS.has(element.local)
      : parent.local === 'r'
        ? element.local === 'rPr' || element.local === 't'
        : parent.local === 'rPh'
          ? element.local === 't'
          : parent.local === 'rPr';
  if (!allowed) throw new InvalidValue(`${where} holds an unexpected ${element.local}`);
}

async function sharedStrings(book: Workbook, name: string | undefined): Promise<SharedString[]> {
  const strings: SharedString[] = [];
  if (name === undefined || !book.has(name)) return strings;
  let builder: StringBuilder | undefined;
  await book.read(name, MAIN, STRING_CONTENT, {
    open(element, stack) {
      const depth = stack.length - 2; // below the si
      if (stack.length === 2 && element.local === 'si') builder = new StringBuilder();
      else if (builder !== undefined && depth >= 1) {
        const parent = stack[stack.length - 2]!;
        checkStringElement(element, depth, parent, `the shared string ${strings.length}`);
        builder.open(element, depth, parent);
      }
    },
    text(text) {
      builder?.add(text);
    },
    close(element, stack) {
      if (builder === undefined) return;
      if (stack.length === 2) {
        strings.push({
          text: builder.text,
          ...(builder.rich ? { rich: builder.hides === undefined ? {} : { hides: builder.hides } } : {}),
        });
        builder = undefined;
      } else builder.close(element, stack.length - 2);
    },
  });
  return strings;
}

// ---------------------------------------------------------------------------------------------
// Styles: number formats

interface Styles {
  /** Per cell style (`s`): its number format code. */
  formats: string[];
  /**
   * Per differential format (`dxfId`, what a conditional format applies): what in it changes what a cell
   * shows — a number format of its own, or white text — when something does.
   */
  dxfChanges: Array<string | undefined>;
  /** Per cell style: why its text cannot be read (white on no fill or a white one, too small), when so. */
  hides: Array<string | undefined>;
}

async function styles(book: Workbook, name: string | undefined): Promise<Styles> {
  const custom = new Map<number, string>();
  const ids: number[] = [];
  const xfs: Array<{ font: number; fill: number }> = [];
  const dxfChanges: Array<string | undefined> = [];
  const fonts: Array<{ size?: number; white?: boolean }> = [];
  const fills: boolean[] = []; // a fill a person sees white text on (any but none and white)
  if (name !== undefined && book.has(name)) {
    // Nothing is refused for where it sits: Excel's own extensions of the styles (x14:dxfs) hold numFmt and
    // xf elements of theirs, and only the numFmts and cellXfs read below apply to cells.
    await book.read(name, MAIN, new Set(), {
      open(element, stack) {
        const parent = stack[stack.length - 2];
        if (
          stack.length === 3 &&
          element.local === 'dxf' &&
          parent?.local === 'dxfs' &&
          parent.uri === MAIN
        ) {
          dxfChanges.push(undefined);
          return;
        }
        if (stack.length >= 4 && stack[2]!.local === 'dxf' && stack[1]!.local === 'dxfs') {
          const change =
            element.local === 'numFmt'
              ? `the number format "${element.attr('formatCode') ?? ''}"`
              : element.local === 'color' && parent?.local === 'font' && isWhite(element)
                ? 'white text'
                : undefined;
          if (change !== undefined) dxfChanges[dxfChanges.length - 1] ??= change;
          return;
        }
        if (stack.length === 4 && stack[1]!.local === 'fonts' && parent?.local === 'font') {
          const font = fonts[fonts.length - 1]!;
          if (element.local === 'sz') font.size = Number(element.attr('val'));
          else if (element.local === 'color') font.white = isWhite(element);
          return;
        }
        if (stack.length === 5 && stack[1]!.local === 'fills' && element.local === 'fgColor') {
          fills[fills.length - 1] = parent?.attr('patternType') !== 'none' && !isWhite(element);
          return;
        }
        if (stack.length !== 3 || parent?.uri !== MAIN) return;
        if (parent.local === 'fonts' && element.local === 'font') fonts.push({});
        else if (parent.local === 'fills' && element.local === 'fill') fills.push(false);
        else if (parent.local === 'numFmts' && element.local === 'numFmt') {
          const id = Number(element.attr('numFmtId'));
          const code = element.attr('formatCode');
          if (Number.isInteger(id) && code !== undefined) custom.set(id, code);
        } else if (parent.local === 'cellXfs' && element.local === 'xf') {
          ids.push(Number(element.attr('numFmtId') ?? '0'));
          xfs.push({
            font: Number(element.attr('fontId') ?? '0'),
            fill: Number(element.attr('fillId') ?? '0'),
          });
        }
      },
    });
  }
  const table = SSF.get_table();
  // A format the workbook does not define and ssf does not know is shown as General, as spreadsheets do.
  const hides = xfs.map(({ font, fill }) => {
    const { size, white } = fonts[font] ?? {};
    if (size !== undefined && !(size >= MIN_RUN_POINTS)) return `its font is ${size} points`;
    return white && !fills[fill] ? 'its text is white on a white cell' : undefined;
  });
  return { formats: ids.map((id) => custom.get(id) ?? table[id] ?? 'General'), dxfChanges, hides };
}

// ---------------------------------------------------------------------------------------------
// The sheet

const SHEET_CONTENT = new Set(['sheetData', 'row', 'c']);
const CELL_PARTS = new Set(['v', 'f', 'is']);
/** XML Schema's decimal and double, as a number cell's `<v>` is written. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

interface RowAttributes {
  hidden: boolean;
  height: number | undefined;
}

interface OpenCell {
  ref: string;
  row: number;
  column: number;
  type: string;
  style: number;
  value: string | undefined;
  formula: string | undefined;
  inline: StringBuilder | undefined;
  into: 'v' | 'f' | undefined;
}

/** Reads the sheet's cells, rows, merged ranges, hidden columns and default row height. */
async function sheetCells(
  book: Workbook,
  part: string,
  strings: readonly SharedString[],
  styleSheet: Styles,
  date1904: boolean,
): Promise<{ rows: SheetRow[]; merges: MergedRange[] }> {
  const rows: SheetRow[] = [];
  const rowAttributes: RowAttributes[] = [];
  const hiddenColumns: Array<[number, number]> = [];
  const merges: MergedRange[] = [];
  let zeroHeight = false;
  let defaultHeight: number | undefined;
  let sheetDatas = 0;
  let row: SheetRow | undefined;
  let lastRow = 0;
  let lastColumn = -1;
  let cell: OpenCell | undefined;
  const format = (code: string, value: number | string | boolean, ref: string): string => {
    try {
      return SSF.format(code, value, { date1904 });
    } catch {
      throw new InvalidValue(`cell ${ref} has a number format a spreadsheet cannot apply ("${code}")`);
    }
  };

  const conditional = (range: string | undefined, change: string) =>
    new InvalidValue(
      `a conditional format ${range === undefined ? `in ${part}` : `on ${range}`} shows cells with ${change}, not as they hold: remove it (Home > Conditional Formatting > Clear Rules)`,
    );
  await book.read(
    part,
    MAIN,
    SHEET_CONTENT,
    {
      open(element, stack) {
        const depth = stack.length;
        if (depth === 1) {
          if (element.uri !== MAIN || element.local !== 'worksheet') {
            throw new InvalidValue(
              `the first sheet is not a worksheet (${element.local}): pix reads a worksheet of rows`,
            );
          }
          return;
        }
        const inData = depth >= 3 && stack[1]!.local === 'sheetData' && stack[1]!.uri === MAIN;
        if (!inData) {
          // A conditional format that shows a cell's value otherwise, wherever it is written (Excel 2010's
          // own, x14:conditionalFormatting in extLst, carry their format inline): a number format, or a
          // data bar or icon set shown without the value.
          if (depth >= 3 && stack.some((e) => e.local === 'conditionalFormatting')) {
            if (element.local === 'numFmt') {
              throw conditional(undefined, `the number format "${element.attr('formatCode') ?? ''}"`);
            }
            if (
              (element.local === 'dataBar' || element.local === 'iconSet') &&
              (element.attr('showValue') === '0' || element.attr('showValue') === 'false')
            ) {
              throw conditional(
                undefined,
                `a ${element.local === 'dataBar' ? 'data bar' : 'icon set'} without the value`,
              );
            }
          }
          if (depth !== 2 && depth !== 3) return;
          if (element.uri !== MAIN) return;
          if (depth === 2 && element.local === 'sheetData' && sheetDatas++ > 0) {
            throw new InvalidValue(`${part} has two sheetData: a spreadsheet shows one of them`);
          }
          if (depth === 2 && element.local === 'sheetFormatPr') {
            zeroHeight = isTrue(element.attr('zeroHeight'));
            const height = element.attr('defaultRowHeight');
            if (height !== undefined) defaultHeight = Number(height);
          } else if (depth === 3 && element.local === 'col' && stack[1]!.local === 'cols') {
            const min = Number(element.attr('min'));
            const max = Number(element.attr('max'));
            const width = element.attr('width');
            if (isTrue(element.attr('hidden')) || (width !== undefined && Number(width) <= 0)) {
              if (Number.isInteger(min) && Number.isInteger(max)) hiddenColumns.push([min - 1, max - 1]);
            }
          } else if (
            depth === 3 &&
            element.local === 'cfRule' &&
            stack[1]!.local === 'conditionalFormatting'
          ) {
            const dxf = element.attr('dxfId');
            const change = dxf === undefined ? undefined : styleSheet.dxfChanges[Number(dxf)];
            if (change !== undefined) throw conditional(stack[1]!.attr('sqref'), change);
          } else if (depth === 3 && element.local === 'mergeCell' && stack[1]!.local === 'mergeCells') {
            if (merges.length >= MAX_MERGED_RANGES) {
              throw new InvalidValue(
                `the first sheet has more than ${MAX_MERGED_RANGES.toLocaleString('en')} merged ranges, which a payout sheet does not: unmerge them`,
              );
            }
            merges.push(mergedRange(element.attr('ref') ?? ''));
          }
          return;
        }
        const where = cell === undefined ? `row ${row?.row ?? lastRow + 1}` : `cell ${cell.ref}`;
        if (element.uri !== MAIN) {
          throw new InvalidValue(
            `${where} holds an element of the namespace ${element.uri || '(none)'}, which a spreadsheet does not show`,
          );
        }
        if (depth === 3) {
          if (element.local !== 'row')
            throw new InvalidValue(`the sheet's data holds an unexpected ${element.local}`);
          const number = element.attr('r') === undefined ? lastRow + 1 : Number(element.attr('r'));
          if (!Number.isInteger(number) || number < 1 || number > MAX_ROW) {
            throw new InvalidValue(`row "${element.attr('r')}" is not a row number`);
          }
          if (number <= lastRow) {
            throw new InvalidValue(
              number === lastRow
                ? `row ${number} is written twice: a spreadsheet shows one of them`
                : `row ${number} is written after row ${lastRow}: save the workbook again from the spreadsheet`,
            );
          }
          lastRow = number;
          lastColumn = -1;
          row = { row: number, cells: [] };
          const height = element.attr('ht');
          rowAttributes.push({
            hidden: isTrue(element.attr('hidden')),
            height: height === undefined ? undefined : Number(height),
          });
          return;
        }
        if (depth === 4) {
          if (element.local !== 'c') throw new InvalidValue(`${where} holds an unexpected ${element.local}`);
          const rowNumber = row!.row;
          const reference = element.attr('r');
          let column = lastColumn + 1;
          if (reference !== undefined) {
            const at = parseRef(reference);
            if (at === undefined || at.column > MAX_COLUMN) {
              throw new InvalidValue(
                `row ${rowNumber} has a cell "${reference}" that is not a cell reference`,
              );
            }
            if (at.row !== rowNumber)
              throw new InvalidValue(`cell ${reference} is written inside row ${rowNumber}`);
            column = at.column;
          }
          if (column > MAX_COLUMN) throw new InvalidValue(`row ${rowNumber} runs past the last column`);
          const ref = `${columnLetters(column)}${rowNumber}`;
          if (column <= lastColumn) {
            throw new InvalidValue(
              column === lastColumn
                ? `cell ${ref} is written twice: a spreadsheet shows one of them`
                : `cell ${ref} is written after ${columnLetters(lastColumn)}${rowNumber}: save the workbook again from the spreadsheet`,
            );
          }
          lastColumn = column;
          const style = Number(element.attr('s') ?? '0');
          if (!Number.isInteger(style) || (style !== 0 && style >= styleSheet.formats.length)) {
            throw new InvalidValue(
              `cell ${ref} has a style (${element.attr('s')}) the workbook does not define`,
            );
          }
          cell = {
            ref,
            row: rowNumber,
            column,
            type: element.attr('t') ?? 'n',
            style,
            value: undefined,
            formula: undefined,
            inline: undefined,
            into: undefined,
          };
          return;
        }
        const open = cell!;
        if (depth === 5) {
          if (!CELL_PARTS.has(element.local))
            throw new InvalidValue(`${where} holds an unexpected ${element.local}`);
          const twice = () =>
            new InvalidValue(`${where} holds two ${element.local}s: a spreadsheet shows one of them`);
          if (element.local === 'v') {
            if (open.value !== undefined) throw twice();
            open.value = '';
            open.into = 'v';
          } else if (element.local === 'f') {
            if (open.formula !== undefined) throw twice();
            open.formula = '';
            open.into = 'f';
          } else {
            if (open.inline !== undefined) throw twice();
            open.inline = new StringBuilder();
          }
          return;
        }
        if (open.inline === undefined || stack[4]!.local !== 'is') {
          throw new InvalidValue(`${where} holds an unexpected ${element.local}`);
        }
        const parent = stack[depth - 2]!;
        checkStringElement(element, depth - 5, parent, where);
        open.inline.open(element, depth - 5, parent);
      },
      text(text) {
        if (cell === undefined) return;
        if (cell.into === 'v') cell.value += text;
        else if (cell.into === 'f') cell.formula += text;
        else cell.inline?.add(text);
      },
      close(element, stack) {
        const depth = stack.length;
        if (cell !== undefined && depth > 5 && cell.inline !== undefined) {
          cell.inline.close(element, depth - 5);
        } else if (depth === 5 && cell !== undefined) {
          cell.into = undefined;
        } else if (depth === 4 && cell !== undefined) {
          const read = readCell(cell, strings, styleSheet, format);
          if (read !== undefined) row!.cells.push(read);
          cell = undefined;
        } else if (depth === 3 && row !== undefined && element.local === 'row') {
          const attributes = rowAttributes.pop()!;
          if (row.cells.length > 0) {
            const hidden = rowHidden(attributes, zeroHeight, defaultHeight);
            if (hidden !== undefined) row.hidden = hidden;
            rows.push(row);
          }
          row = undefined;
        }
      },
    },
    true,
  );
  if (hiddenColumns.length > 0) markHiddenColumns(rows, hiddenColumns);
  return { rows, merges };
}

/**
 * Why a row cannot be seen: hidden, or too short to show a line of text — its own height, or, without
 * one, the sheet's default (or zero when the sheet hides rows by default).
 */
function rowHidden(
  { hidden, height }: RowAttributes,
  zeroHeight: boolean,
  defaultHeight: number | undefined,
): string | undefined {
  if (hidden) return 'hidden';
  const effective = height ?? (zeroHeight ? 0 : defaultHeight);
  if (effective !== undefined && !(effective >= MIN_ROW_POINTS)) return `${effective} points tall`;
  return undefined;
}

/** Marks the cells of hidden columns: the ranges merged and sorted, one binary search per cell. */
function markHiddenColumns(rows: SheetRow[], ranges: Array<[number, number]>): void {
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [from, to] of ranges) {
    const last = merged[merged.length - 1];
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  for (const { cells } of rows) {
    for (const cell of cells) {
      let low = 0;
      let high = merged.length - 1;
      while (low <= high) {
        const middle = (low + high) >> 1;
        const [from, to] = merged[middle]!;
        if (cell.column < from) high = middle - 1;
        else if (cell.column > to) low = middle + 1;
        else {
          cell.hiddenColumn = true;
          break;
        }
      }
    }
  }
}

function mergedRange(ref: string): MergedRange {
  const [from, to] = ref.split(':').map(parseRef);
  if (from === undefined || to === undefined || to.row < from.row || to.column < from.column) {
    throw new InvalidValue(`the merged range "${ref}" is not a range of cells`);
  }
  return { ref, from, to };
}

/** What a cell holds, and what it shows; undefined for an empty one. */
function readCell(
  cell: OpenCell,
  strings: readonly SharedString[],
  styleSheet: Styles,
  format: (code: string, value: number | string | boolean, ref: string) => string,
): SheetCell | undefined {
  const { ref, column, type } = cell;
  const code = styleSheet.formats[cell.style] ?? 'General';
  const plain = /^(?:general|@)$/i.test(code);
  const hides = styleSheet.hides[cell.style];
  const done = (value: SheetCellValue, shown?: string): SheetCell => ({
    ref,
    column,
    value,
    ...(shown === undefined ? {} : { shown, format: code }),
    ...(hides === undefined ? {} : { unreadableStyle: hides }),
  });
  if (cell.formula !== undefined) return done({ kind: 'formula', formula: cell.formula });
  if (cell.inline !== undefined && type !== 'inlineStr') {
    throw new InvalidValue(`cell ${ref} holds an inline string but is typed ${type}`);
  }
  const value = cell.value ?? '';
  const text = (string: SharedString | StringBuilder): SheetCell | undefined => {
    if (string.text === '') return undefined;
    const rich =
      string instanceof StringBuilder
        ? string.rich
          ? { ...(string.hides ? { hides: string.hides } : {}) }
          : undefined
        : string.rich;
    return done(
      { kind: 'text', text: string.text, ...(rich === undefined ? {} : { rich }) },
      plain ? undefined : format(code, string.text, ref),
    );
  };
  switch (type) {
    case 's': {
      const index = Number(value);
      const string = /^\d+$/.test(value.trim()) ? strings[index] : undefined;
      if (string === undefined) {
        throw new InvalidValue(
          `cell ${ref} refers to the shared string "${value}", which the workbook does not have`,
        );
      }
      return text(string);
    }
    case 'inlineStr':
      if (cell.value !== undefined) throw new InvalidValue(`cell ${ref} holds an inline string and a value`);
      return cell.inline === undefined ? undefined : text(cell.inline);
    case 'str':
      return value === '' ? undefined : text({ text: value });
    case 'b': {
      if (value === '') return undefined;
      if (!/^(?:0|1|true|false)$/.test(value.trim()))
        throw new InvalidValue(`cell ${ref} holds "${value}", not a boolean`);
      const bool = isTrue(value.trim());
      return done({ kind: 'boolean', value: bool }, plain ? undefined : format(code, bool, ref));
    }
    case 'e':
      return done({ kind: 'error', text: value });
    case 'd':
      return value === '' ? undefined : done({ kind: 'date', text: value });
    case 'n': {
      const number = value.trim();
      if (number === '') return undefined;
      if (!DECIMAL.test(number)) throw new InvalidValue(`cell ${ref} holds "${value}", not a decimal number`);
      // Kept only when it differs from the number's plain text (most cells): 400,000 strings fewer in a
      // 100,000-row sheet.
      const shown = format(code, Number(number), ref);
      return done({ kind: 'number', text: number }, shown === String(Number(number)) ? undefined : shown);
    }
    default:
      throw new InvalidValue(`cell ${ref} has a type ("${type}") spreadsheets do not have`);
  }
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
  const styleSheet = await styles(book, only('styles'));
  const strings = await sharedStrings(book, only('sharedStrings'));
  return { name: first.name, ...(await sheetCells(book, target, strings, styleSheet, info.date1904)) };
}
