import { escapeUnsafe } from './sanitize.js';

/** Renders rows under headers: a boxed table for people, or tab-separated lines for pipes. */
export type TableRenderer = (headers: string[], rows: string[][]) => string;

/**
 * Header-less tab-separated rows, so `cut -f` and `awk -F'\t'` work; control characters in cells (tabs
 * and newlines included) are shown escaped (`\u0009`), so a cell never splits a column or a line.
 */
export function renderTsv(rows: string[][]): string {
  return rows.map((row) => `${row.map(escapeUnsafe).join('\t')}\n`).join('');
}

/** The renderer for people on a terminal (cli-table3, loaded only then) or for pipes (TSV). */
export async function tableRenderer(human: boolean): Promise<TableRenderer> {
  if (!human) return (_headers, rows) => renderTsv(rows);
  const { default: Table } = await import('cli-table3');
  return (headers, rows) => {
    const table = new Table({ head: headers, style: { head: [], border: [], compact: true } });
    for (const row of rows) table.push(row);
    return `${table.toString()}\n`;
  };
}
