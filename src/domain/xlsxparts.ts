/**
 * The parts of an xlsx workbook and their XML, for `domain/xlsxsheet.ts`: a streaming, strict XML reader
 * that resolves namespaces itself and refuses what a person would not see (an element in `extLst`,
 * `mc:AlternateContent` or another namespace), the workbook read part by part from its ZIP directory, the
 * parts' relationships, and the workbook part's sheets, window and date system.
 */

import sax from 'sax';
import { InvalidValue } from './invalid.js';
import { type InflateBudget, inflateEntry, notAWorkbook, type ZipEntry } from './xlsxzip.js';

export const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const PACKAGE_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
export const OFFICE_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
export const OFFICE_DOCUMENT = `${OFFICE_REL}/officeDocument`;
export const WORKBOOK_PART = 'xl/workbook.xml';

// ---------------------------------------------------------------------------------------------
// XML, as it inflates

/** Prefix → namespace, as declared on an element and its ancestors (`''` is the default namespace). */
type Scope = ReadonlyMap<string, string>;

const XML_SCOPE: Scope = new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]);

export class XmlElement {
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

export class Workbook {
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
export async function relationships(book: Workbook, name: string, base: string) {
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

export async function workbookInfo(book: Workbook): Promise<WorkbookInfo> {
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

export function isTrue(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}
