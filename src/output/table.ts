import Table from 'cli-table3';

/**
 * A table for people on a terminal (cli-table3, with a header), or header-less tab-separated rows when
 * piped, so `cut -f` and `awk -F'\t'` work. Tabs and newlines inside cells are flattened to spaces.
 */
export function renderTable(headers: string[], rows: string[][], human: boolean): string {
  if (!human)
    return rows.map((row) => `${row.map((cell) => cell.replace(/[\t\r\n]+/g, ' ')).join('\t')}\n`).join('');
  const table = new Table({ head: headers, style: { head: [], border: [], compact: true } });
  for (const row of rows) table.push(row);
  return `${table.toString()}\n`;
}
