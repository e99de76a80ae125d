import type { Deps, OutputFormat } from '../deps.js';
import { formatBRL, formatDecimal } from '../domain/money.js';
import { colorEnabled } from './iostreams.js';
import { jsonSafe } from './sanitize.js';
import { type TableRenderer, tableRenderer } from './table.js';

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
  /** stdout is a terminal and the format is `table`: tables, R$, local times, colour, QR drawings. */
  human: boolean;
  /** JSON is pretty-printed on a terminal, compact when piped. */
  pretty: boolean;
  colors: Palette;
  /** stderr is a terminal: progress may be shown there. */
  stderrIsTTY: boolean;
  timeZone: string;
  /** A table for people (human) or header-less TSV rows (piped), ready to call. */
  table: TableRenderer;
}

const plain = (text: string) => text;
const PLAIN: Palette = { green: plain, red: plain, yellow: plain, bold: plain, dim: plain };

/** chalk is loaded only when colour is on: piped and `--json` runs never pay for it. */
export async function palette(enabled: boolean): Promise<Palette> {
  if (!enabled) return PLAIN;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return { green: chalk.green, red: chalk.red, yellow: chalk.yellow, bold: chalk.bold, dim: chalk.dim };
}

/**
 * Decided once per command from the flags and the streams; async because it loads the colour and table
 * libraries only when a person is reading (a pipe or `--json` gets plain functions).
 */
export async function outputMode(deps: Deps, timeZone: string): Promise<OutputMode> {
  const { io, env, globals } = deps;
  const format = globals.output ?? 'table';
  const human = format === 'table' && io.stdout.isTTY;
  const [colors, table] = await Promise.all([
    palette(human && colorEnabled(io.stdout, env, !globals.color)),
    tableRenderer(human),
  ]);
  return { format, human, pretty: io.stdout.isTTY, colors, stderrIsTTY: io.stderr.isTTY, timeZone, table };
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
