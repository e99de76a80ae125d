import { escapeUnsafe, safeText } from './sanitize.js';
import { cutStartToWidth, cutToWidth, displayWidth } from './width.js';
import { wordLines } from './wrap.js';

/**
 * One table cell: plain text (sanitized by the renderer: server text can never carry an escape
 * sequence to the terminal), optionally painted by our own palette *after* sanitizing.
 */
export type Cell = string | { text: string; paint?: ((text: string) => string) | undefined };

/**
 * What a column holds, which decides how it is laid out for people:
 * - `text` (default): free text; shortened with `…` to what is left of the width.
 * - `id`: an identifier; shortened to its first 8 characters + `…` when the screen is narrow.
 * - `enum`: a short word from a list (a type, a status); shortened only past 10 columns.
 * - `date`, `money`, `number`: never shortened; money and numbers are right-aligned.
 * - `code`: digits that are a name, not a quantity (a CPF/CNPJ, a bank's code): text in every
 *   spreadsheet, never `1` for `001` or `4,6E+13` for a CNPJ (output/records.ts csvBrField).
 */
export type ColumnKind = 'text' | 'id' | 'enum' | 'date' | 'money' | 'number' | 'code';

/** The layout part of a column: its header, kind and priority. */
export interface TableColumn {
  header: string;
  /** Default `text`. */
  kind?: ColumnKind;
  /**
   * How important the column is: 1 (the default) is the most important. When the columns do not fit
   * the terminal even shortened, the one with the largest number is left out first (the rightmost
   * among equals), then the next, until the rest fits.
   */
  priority?: number;
  /**
   * Long text (a detail view's names and meanings): wrapped inside its cell at word boundaries, over as
   * many lines as it needs, rather than cut with `…`. A table with such a column fits the terminal even
   * with `--wide` (which then only keeps every column), since nothing of its text is lost.
   */
  wrap?: boolean;
  /** An id whose start its kind shares (an endToEndId: E, the institution, the date): shortened to its end. */
  keepEnd?: boolean;
}

export interface TableOptions {
  /** Terminal columns the table must fit; undefined: no limit (a file, a pipe). */
  width: number | undefined;
  /** `--wide`: every column, each in full, whatever the width. */
  wide: boolean;
  /** `boxed` (default): borders and a header row. `plain`: two spaces between columns, no header (details). */
  style?: 'boxed' | 'plain';
}

/** A table written as its rows arrive. */
export interface TableStream {
  /** Adds a row; returns the text to write now ('' while the first rows are held to lay out the columns). */
  row(cells: Cell[]): string;
  /** How many rows are held, not yet returned as text. */
  readonly held: number;
  /** Ends the table: the rows still held and the closing border. */
  end(): string;
  /** The headers of the columns left out to fit the width (known once the first row was returned). */
  readonly hidden: string[];
  /** The headers of the id columns shortened to fit (known once the first row was returned). */
  readonly shortened: string[];
}

/** Rows gathered before the columns are laid out; every later row is written as it comes. */
export const LAYOUT_SAMPLE = 100;

/** Narrowest a column of each kind is shortened to (never below what it needs, if less). */
const MIN_WIDTH: Readonly<Record<ColumnKind, number>> = {
  text: 16,
  id: 9,
  enum: 10,
  date: Number.POSITIVE_INFINITY,
  money: Number.POSITIVE_INFINITY,
  number: Number.POSITIVE_INFINITY,
  // A document or a bank's code cut short names nobody.
  code: Number.POSITIVE_INFINITY,
};

function cellText(cell: Cell): string {
  return typeof cell === 'string' ? cell : cell.text;
}

/**
 * Header-less tab-separated rows, so `cut -f` and `awk -F'\t'` work; control characters in cells (tabs
 * and newlines included) are shown escaped (`\u0009`), so a cell never splits a column or a line.
 */
export function renderTsv(rows: Cell[][]): string {
  return rows.map((row) => `${row.map((cell) => escapeUnsafe(cellText(cell))).join('\t')}\n`).join('');
}

/** A cell made safe once: sanitized text, its width on the terminal, and our paint. */
interface Prepared {
  text: string;
  width: number;
  paint: ((text: string) => string) | undefined;
}

function prepare(cell: Cell): Prepared {
  const text = safeText(cellText(cell));
  return { text, width: displayWidth(text), paint: typeof cell === 'string' ? undefined : cell.paint };
}

/** The priority wrapped columns share when shortened: before any other. */
const WRAPPED = 1_000_000;

function kindOf(column: TableColumn): ColumnKind {
  return column.kind ?? 'text';
}

function minWidth(column: TableColumn, natural: number, floor = 0): number {
  return Math.min(natural, Math.max(MIN_WIDTH[kindOf(column)], floor));
}

/**
 * How wide an id column must stay for its ids to be told apart (git-style): the shortest prefix that no two
 * of them share (their shortest distinct end for `keepEnd`), plus the `…`. The sandbox's keys differ only in
 * their last characters: their ids are then shown whole.
 */
export function distinctWidth(values: readonly string[], keepEnd = false): number {
  const unique = [...new Set(values)]
    .map((value) => (keepEnd ? [...value].reverse().join('') : value))
    .sort();
  let shared = 0;
  for (let at = 1; at < unique.length; at++) {
    const [a, b] = [unique[at - 1]!, unique[at]!];
    let same = 0;
    while (same < a.length && same < b.length && a[same] === b[same]) same++;
    shared = Math.max(shared, same);
  }
  return unique.length < 2 ? 0 : shared + 2;
}

/**
 * Takes `excess` columns off `widths` (in place), never below each column's minimum: ids first, then
 * text columns from the least important (widest first among equals), then enums likewise. Returns
 * what could not be taken.
 */
function shorten(columns: TableColumn[], widths: number[], mins: number[], excess: number): number {
  const stage = (kind: ColumnKind) => (kind === 'id' ? 0 : kind === 'text' ? 1 : kind === 'enum' ? 2 : 3);
  const order = columns
    // Wrapped columns lose nothing when narrower: shortened first, together, the widest first.
    .map((column, index) => ({
      index,
      stage: stage(kindOf(column)),
      priority: column.wrap ? WRAPPED : (column.priority ?? 1),
    }))
    .filter((entry) => entry.stage < 3)
    .sort((a, b) => a.stage - b.stage || b.priority - a.priority);
  let left = excess;
  for (let at = 0; at < order.length && left > 0; ) {
    // One group: same stage and priority; shortened together, the widest first.
    let end = at;
    while (
      end < order.length &&
      order[end]!.stage === order[at]!.stage &&
      order[end]!.priority === order[at]!.priority
    )
      end++;
    const group = order.slice(at, end).map((entry) => entry.index);
    while (left > 0) {
      let widest = -1;
      for (const index of group) {
        if (widths[index]! > mins[index]! && (widest === -1 || widths[index]! > widths[widest]!))
          widest = index;
      }
      if (widest === -1) break;
      widths[widest]!--;
      left--;
    }
    at = end;
  }
  return left;
}

export interface Layout {
  /** Indices of the columns shown, in order. */
  shown: number[];
  /** Width of each shown column (same order as `shown`). */
  widths: number[];
}

function overhead(count: number, style: 'boxed' | 'plain'): number {
  return style === 'boxed' ? 3 * count + 1 : 2 * Math.max(0, count - 1);
}

/**
 * Fits columns whose content needs `natural` widths into `options.width`: shorten (ids, then text,
 * then enums, least important first), and only when even shortened they do not fit, leave out the
 * least important column and try again. `--wide` or no width: every column at its natural width.
 */
export function layoutColumns(
  columns: TableColumn[],
  natural: number[],
  options: TableOptions,
  floors: readonly number[] = [],
): Layout {
  const style = options.style ?? 'boxed';
  let shown = columns.map((_column, index) => index);
  const limit = options.width;
  // `--wide` keeps every column; with a wrapped column it still fits the width, wrapping instead of cutting.
  const keepAll = options.wide && columns.some((column) => column.wrap);
  if ((options.wide && !keepAll) || limit === undefined) {
    return { shown, widths: shown.map((index) => natural[index]!) };
  }
  for (;;) {
    const widths = shown.map((index) => natural[index]!);
    const mins = shown.map((index) => minWidth(columns[index]!, natural[index]!, floors[index]));
    const excess = widths.reduce((sum, width) => sum + width, 0) + overhead(shown.length, style) - limit;
    const left =
      excess > 0
        ? shorten(
            shown.map((index) => columns[index]!),
            widths,
            mins,
            excess,
          )
        : 0;
    if (left <= 0 || shown.length === 1 || keepAll) return { shown, widths };
    let drop = 0;
    for (let at = 1; at < shown.length; at++) {
      if ((columns[shown[at]!]!.priority ?? 1) >= (columns[shown[drop]!]!.priority ?? 1)) drop = at;
    }
    shown = shown.filter((_index, at) => at !== drop);
  }
}

const BOX = {
  top: ['┌', '┬', '┐'],
  middle: ['├', '┼', '┤'],
  bottom: ['└', '┴', '┘'],
} as const;

/** A table being written (createTable's steps below share it; architecture rule 14). */
interface TableWriting {
  readonly columns: TableColumn[];
  readonly options: TableOptions;
  readonly style: NonNullable<TableOptions['style']>;
  readonly headers: Prepared[];
  /** Whether cells are cut or wrapped to their column (a width, and not --wide, or a column that wraps). */
  readonly cut: boolean;
  /** The first rows, held until they decide the layout; undefined once it is decided. */
  sample: Prepared[][] | undefined;
  layout: Layout | undefined;
  /** Each shown column's narrowest width, when a later row needs room. */
  mins: number[];
  /** The id columns shown narrower than their widest sampled id. */
  shortened: string[];
}

function line(table: TableWriting, kind: keyof typeof BOX): string {
  const [left, join, right] = BOX[kind];
  return `${left}${table.layout!.widths.map((width) => '─'.repeat(width + 2)).join(join)}${right}\n`;
}

/**
 * The row's column widths: the layout's, but a cell that may not be shortened and is wider than its column
 * widens it for this row only (and a shortenable cell of the row gives the room back when it can).
 */
function rowWidths(table: TableWriting, cells: Prepared[]): number[] {
  const { columns } = table;
  const { shown } = table.layout!;
  const widths = [...table.layout!.widths];
  if (!table.cut) return widths;
  let over = 0;
  cells.forEach((cell, at) => {
    const kind = kindOf(columns[shown[at]!]!);
    if (cell.width > widths[at]! && MIN_WIDTH[kind] === Number.POSITIVE_INFINITY) {
      over += cell.width - widths[at]!;
      widths[at] = cell.width;
    }
  });
  if (over > 0) {
    shorten(
      shown.map((index) => columns[index]!),
      widths,
      shown.map((_index, at) => Math.min(table.mins[at]!, cells[at]!.width)),
      over,
    );
  }
  return widths;
}

function render(table: TableWriting, row: Prepared[], header = false): string {
  const { columns, style, cut } = table;
  const { shown } = table.layout!;
  const cells = shown.map((index) => row[index] ?? prepare(''));
  const widths = rowWidths(table, cells);
  // Each cell as its lines: one, cut to its column, or several for a wrapped column's long text.
  const cellLines = cells.map((cell, at) => {
    const width = widths[at]!;
    if (!cut || cell.width <= width) return [cell.text];
    const column = columns[shown[at]!]!;
    // The last column of a plain table has nothing to its right: a word too long for it (an id) runs on.
    if (column.wrap) return wordLines(cell.text, width, style === 'plain' && at === cells.length - 1);
    return [column.keepEnd ? cutStartToWidth(cell.text, width) : cutToWidth(cell.text, width)];
  });
  const height = Math.max(1, ...cellLines.map((lines) => lines.length));
  let text = '';
  for (let at = 0; at < height; at++) {
    const texts = cells.map((cell, index) => {
      const width = widths[index]!;
      const part = cellLines[index]![at] ?? '';
      const painted = cell.paint && !header && part !== '' ? cell.paint(part) : part;
      const pad = ' '.repeat(Math.max(0, width - displayWidth(part)));
      const kind = kindOf(columns[shown[index]!]!);
      return kind === 'money' || kind === 'number' ? `${pad}${painted}` : `${painted}${pad}`;
    });
    text += style === 'plain' ? `${texts.join('  ').trimEnd()}\n` : `│ ${texts.join(' │ ')} │\n`;
  }
  return text;
}

/** The sample decides the layout; the header and the sampled rows are then written. */
function lay(table: TableWriting): string {
  const { columns, style, headers } = table;
  const rows = table.sample ?? [];
  table.sample = undefined;
  const natural = columns.map((_column, index) => {
    let width = style === 'plain' ? 0 : headers[index]!.width;
    for (const row of rows) width = Math.max(width, row[index]?.width ?? 0);
    return width;
  });
  // An id column keeps the characters that tell its sampled ids apart.
  const floors = columns.map((column, index) =>
    kindOf(column) === 'id'
      ? distinctWidth(
          rows.map((row) => row[index]?.text ?? ''),
          column.keepEnd,
        )
      : 0,
  );
  const layout = layoutColumns(columns, natural, table.options, floors);
  table.layout = layout;
  // A later row that needs room may still take it from an id (the width is the promise).
  table.mins = layout.shown.map((index) => minWidth(columns[index]!, natural[index]!));
  table.shortened = layout.shown
    .filter((index, at) => kindOf(columns[index]!) === 'id' && layout.widths[at]! < natural[index]!)
    .map((index) => columns[index]!.header);
  let text =
    style === 'boxed' ? `${line(table, 'top')}${render(table, headers, true)}${line(table, 'middle')}` : '';
  for (const row of rows) text += render(table, row);
  return text;
}

/**
 * A table for people, written as rows arrive: the first LAYOUT_SAMPLE rows (or all, if fewer) decide
 * the column widths, then every row is returned as text at once, so the cost is linear in the rows and
 * memory holds at most the sample. Later cells that are wider than their column are shortened with `…`
 * (money, dates and numbers never are: that row is then wider, and a shortenable cell of the same row
 * gives the room back when it can).
 */
export function createTable(columns: TableColumn[], options: TableOptions): TableStream {
  const table: TableWriting = {
    columns,
    options,
    style: options.style ?? 'boxed',
    headers: columns.map((column) => prepare(column.header)),
    cut: options.width !== undefined && (!options.wide || columns.some((column) => column.wrap === true)),
    sample: [],
    layout: undefined,
    mins: [],
    shortened: [],
  };
  return {
    row(cells) {
      const prepared = cells.map(prepare);
      if (!table.sample) return render(table, prepared);
      table.sample.push(prepared);
      return table.sample.length >= LAYOUT_SAMPLE ? lay(table) : '';
    },
    get held() {
      return table.sample?.length ?? 0;
    },
    end() {
      const text = table.sample ? lay(table) : '';
      return table.style === 'boxed' ? `${text}${line(table, 'bottom')}` : text;
    },
    get hidden() {
      const { layout } = table;
      return layout
        ? columns.filter((_column, index) => !layout.shown.includes(index)).map((c) => c.header)
        : [];
    },
    get shortened() {
      return table.shortened;
    },
  };
}

/** A whole table at once (details, short lists). */
export function renderTable(columns: TableColumn[], rows: Cell[][], options: TableOptions): string {
  const table = createTable(columns, options);
  let text = '';
  for (const row of rows) text += table.row(row);
  return text + table.end();
}
