import { Chalk } from 'chalk';
import type { Deps, OutputFormat } from '../deps.js';
import { formatBRL, formatDecimal } from '../domain/money.js';
import { colorEnabled } from './iostreams.js';

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
}

export function palette(enabled: boolean): Palette {
  const chalk = new Chalk({ level: enabled ? 1 : 0 });
  return { green: chalk.green, red: chalk.red, yellow: chalk.yellow, bold: chalk.bold, dim: chalk.dim };
}

export function outputMode(deps: Deps, timeZone: string): OutputMode {
  const { io, env, globals } = deps;
  const format = globals.output ?? 'table';
  const human = format === 'table' && io.stdout.isTTY;
  return {
    format,
    human,
    pretty: io.stdout.isTTY,
    colors: palette(human && colorEnabled(io.stdout, env, !globals.color)),
    stderrIsTTY: io.stderr.isTTY,
    timeZone,
  };
}

/** Money for people (`R$ 1.234,56`) or for machines (`1234.56`). */
export function money(centavos: number, human: boolean): string {
  return human ? formatBRL(centavos) : formatDecimal(centavos);
}

/** A JSON document on stdout: pretty on a terminal, compact when piped. */
export function jsonDocument(value: unknown, pretty: boolean): string {
  return `${pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`;
}

/** The stderr palette (hints, warnings), independent of stdout being piped. */
export function stderrPalette(deps: Deps): Palette {
  return palette(colorEnabled(deps.io.stderr, deps.env, !deps.globals.color));
}
