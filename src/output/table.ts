import { escapeUnsafe, safeText } from './sanitize.js';

/**
 * One table cell: plain text (sanitized by the renderer: server text can never carry an escape
 * sequence to the terminal), optionally painted by our own palette *after* sanitizing.
 */
export type Cell = string | { text: string; paint?: (text: string) => string };

/** Renders rows under headers: a boxed table for people, or tab-separated lines for pipes. */
export type TableRenderer = (headers: string[], rows: Cell[][]) => string;

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

/** A cell for people: sanitized and cut, then painted. */
function humanCell(cell: Cell): string {
  const text = safeText(cellText(cell));
  return typeof cell !== 'string' && cell.paint ? cell.paint(text) : text;
}

/** The renderer for people on a terminal (cli-table3, loaded only then) or for pipes (TSV). */
export async function tableRenderer(human: boolean): Promise<TableRenderer> {
  if (!human) return (_headers, rows) => renderTsv(rows);
  const { default: Table } = await import('cli-table3');
  return (headers, rows) => {
    const table = new Table({ head: headers, style: { head: [], border: [], compact: true } });
    for (const row of rows) table.push(row.map(humanCell));
    return `${table.toString()}\n`;
  };
}
