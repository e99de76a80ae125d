import type { Deps, OutputFormat } from '../context.js';
import { formatBRL, formatDecimal } from '../domain/money.js';
import { colorEnabled } from './iostreams.js';
import { jsonSafe } from './sanitize.js';
import {
  type Cell,
  createTable,
  renderTsv,
  type TableColumn,
  type TableOptions,
  type TableStream,
} from './table.js';

export interface Palette {
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

/** How a command's result is shown, decided once from the flags and the streams. */
export interface OutputMode {
  format: OutputFormat;
  /**
   * Output for people: the format is `table` and stdout is a terminal, or `-o table` was asked for
   * (then even piped: a boxed table with a header). Tables, R$, local times, colour.
   */
  human: boolean;
  /** JSON is pretty-printed on a terminal, compact when piped. */
  pretty: boolean;
  colors: Palette;
  /** stderr is a terminal: progress may be shown there. */
  stderrIsTTY: boolean;
  timeZone: string;
  /**
   * A table for people, streamed (output/table.ts), laid out for the terminal's width (`--wide`: every
   * column in full); the columns it had to leave out are named on stderr after it.
   */
  openTable(columns: TableColumn[], style?: TableOptions['style']): TableStream;
  /** A whole table: for people when `human`, else header-less tab-separated rows. */
  table(columns: Array<string | TableColumn>, rows: Cell[][], style?: TableOptions['style']): string;
}

const plain = (text: string) => text;
/** No colour: what a palette is when colour is off (and for machine columns). */
export const PLAIN: Palette = { green: plain, red: plain, yellow: plain, bold: plain, dim: plain };

/** chalk is loaded only when colour is on: piped and `--json` runs never pay for it. */
export async function palette(enabled: boolean): Promise<Palette> {
  if (!enabled) return PLAIN;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return { green: chalk.green, red: chalk.red, yellow: chalk.yellow, bold: chalk.bold, dim: chalk.dim };
}

/**
 * The width tables must fit: the terminal's, or for a pipe or a file `COLUMNS` when set, else none
 * (the table is as wide as its content).
 */
export function tableWidth(deps: Deps): number | undefined {
  const { io, env } = deps;
  if (io.stdout.isTTY) return io.stdout.columns;
  const columns = Number(env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

/** Opens a table for people on stdout; names on stderr, after it, the columns left out to fit. */
export function openTable(
  deps: Deps,
  columns: TableColumn[],
  style: TableOptions['style'] = 'boxed',
): TableStream {
  const table = createTable(columns, { width: tableWidth(deps), wide: deps.globals.wide, style });
  return {
    row: (cells) => table.row(cells),
    get held() {
      return table.held;
    },
    get hidden() {
      return table.hidden;
    },
    get shortened() {
      return table.shortened;
    },
    end() {
      const text = table.end();
      const { hidden, shortened } = table;
      const width = tableWidth(deps);
      const notes = [
        ...(hidden.length
          ? [`${hidden.join(', ')}: left out to fit ${width} columns; --wide shows every column`]
          : []),
        ...(shortened.length
          ? [`${shortened.join(', ')}: shortened to fit ${width} columns; --wide shows them whole`]
          : []),
      ];
      // After the caller has written the table's end (it does so at once): the notes follow the table.
      if (notes.length) queueMicrotask(() => deps.io.stderr.write(`${notes.join('\n')}\n`));
      return text;
    },
  };
}

/**
 * Decided once per command from the flags and the streams; async because it loads the colour library
 * only when a person is reading (a pipe or `--json` gets plain functions).
 */
export async function outputMode(deps: Deps, timeZone: string): Promise<OutputMode> {
  const { io, env, globals } = deps;
  const format = globals.output ?? 'table';
  const human = format === 'table' && (io.stdout.isTTY || globals.output === 'table');
  const colors = await palette(human && colorEnabled(io.stdout, env, !globals.color));
  const open = (columns: TableColumn[], style?: TableOptions['style']) => openTable(deps, columns, style);
  return {
    format,
    human,
    pretty: io.stdout.isTTY,
    colors,
    stderrIsTTY: io.stderr.isTTY,
    timeZone,
    openTable: open,
    table(columns, rows, style) {
      if (!human) return renderTsv(rows);
      const table = open(
        columns.map((column) => (typeof column === 'string' ? { header: column } : column)),
        style,
      );
      let text = '';
      for (const row of rows) text += table.row(row);
      return text + table.end();
    },
  };
}

/** Money for people (`R$ 1.234,56`) or for machines (`1234.56`). */
export function money(centavos: number, human: boolean): string {
  return human ? formatBRL(centavos) : formatDecimal(centavos);
}

/** A JSON document on stdout: pretty on a terminal, compact when piped. */
export function jsonDocument(value: unknown, pretty: boolean): string {
  return `${jsonSafe(pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value))}\n`;
}

/** The stderr palette (hints, warnings), independent of stdout being piped. */
export function stderrPalette(deps: Deps): Promise<Palette> {
  return palette(colorEnabled(deps.io.stderr, deps.env, !deps.globals.color));
}
