import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/domain/batch.js';
import { parseBatchSheet } from '../../src/domain/batchsheet.js';
import { InvalidValue } from '../../src/domain/invalid.js';
import { readFirstSheet } from '../../src/domain/xlsxsheet.js';

/** A workbook as a spreadsheet application writes one (exceljs, not pix's writer). */
async function workbook(rows: unknown[][], shape?: (sheet: ExcelJS.Worksheet) => void): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Pagamentos');
  for (const row of rows) sheet.addRow(row);
  shape?.(sheet);
  // A second sheet: only the first is read.
  book.addWorksheet('Notas').addRow(['id', 'key', 'amount']);
  return new Uint8Array(await book.xlsx.writeBuffer());
}

async function parse(rows: unknown[][], shape?: (sheet: ExcelJS.Worksheet) => void) {
  return parseBatchSheet(await readFirstSheet(await workbook(rows, shape)));
}

const HEADER = ['id', 'key', 'amount', 'description'];

describe('pay batch FILE.xlsx: the first sheet, read as a CSV is', () => {
  it('converts number cells to centavos exactly, and reads text cells as in CSV', async () => {
    const result = await parse([
      HEADER,
      ['a', 'maria@example.com', 12.5, 'aluguel'],
      ['b', 'joao@example.com', 1234.56],
      ['c', '+5511987654321', 0.1],
      ['d', '529.982.247-25', '10,50'],
      ['e', 'loja@example.com', 'R$ 1.234,56'],
      [17, 'f@example.com', 1],
    ]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.rows.map((row) => [row.id, row.amount, row.line])).toEqual([
      ['a', 1250, 2],
      ['b', 123456, 3],
      ['c', 10, 4],
      ['d', 1050, 5],
      ['e', 123456, 6],
      ['17', 100, 7],
    ]);
    expect(result.rows[0]!.description).toBe('aluguel');
    expect(result.rows[2]!.target).toMatchObject({ kind: 'key', keyType: 'PHONE', key: '+5511987654321' });
  });

  it('refuses a formula, merged cells (once, at the cell that holds the value), an error and a number where a key goes, naming each cell', async () => {
    const result = await parse(
      [
        HEADER,
        ['a', 'maria@example.com', { formula: 'B9*2', result: 20 }],
        ['b', 52998224725, 10],
        ['c', 'joao@example.com', 10.005],
        ['d', 'x@example.com', 5, 'merged'],
        ['e', 'y@example.com', { error: '#N/A' }],
      ],
      (sheet) => sheet.mergeCells('D5:D6'),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map(formatProblem)).toEqual([
      'C2 (id a): amount: holds a formula (=B9*2): type the value itself',
      'B3 (id b): key: holds the number 52998224725: a key must be a text cell (as a number a CPF loses its leading 0 and a phone its +); format the column as Text',
      'C4 (id c): amount: the number 10.005 has more than 2 decimals: round the cell to centavos',
      'D5 (id d): description: part of the merged cells D5:D6: unmerge them',
      'C6 (id e): amount: holds the error #N/A',
    ]);
  });

  it('a phone key the spreadsheet turned into a number (shown 5.51199E+12) is told to be text, not to be formatted as General', async () => {
    const result = await parse([HEADER, ['p', 5511987654321, 10]]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map(formatProblem)).toEqual([
      'B2 (id p): key: holds the number 5511987654321: a key must be a text cell (as a number a CPF loses its leading 0 and a phone its +); format the column as Text',
    ]);
  });

  it('a header missing a column, an empty sheet, and bytes that are not a workbook', async () => {
    const missing = await parse([
      ['id', 'key'],
      ['a', 'maria@example.com'],
    ]);
    expect(missing.ok || missing.problems.map(formatProblem)).toEqual([
      'row 1: amount: missing column: key payments need an amount',
    ]);
    const empty = await parse([]);
    expect(empty.ok || empty.problems.map(formatProblem)).toEqual([
      'row 1: the sheet Pagamentos is empty: its first row must be a header, e.g. id, key, amount, description',
    ]);
    await expect(readFirstSheet(new TextEncoder().encode('id,key,amount\n'))).rejects.toThrow(InvalidValue);
    await expect(readFirstSheet(new TextEncoder().encode('id,key,amount\n'))).rejects.toThrow(
      /not an xlsx workbook/,
    );
    const zipNotXlsx = (await workbook([HEADER])).slice(0, 200);
    await expect(readFirstSheet(zipNotXlsx)).rejects.toThrow(InvalidValue);
  });

  it('reads rich text as the text it shows in a description, and refuses it in a key (exceljs writes the runs)', async () => {
    const bold = { font: { bold: true } };
    const result = await parse([
      HEADER,
      ['a', 'maria@example.com', 3, { richText: [{ text: 'nota ' }, { text: 'paga', ...bold }] }],
      ['b', { richText: [{ text: 'joao@' }, { text: 'example.com', ...bold }] }, 3],
    ]);
    expect(result.ok || result.problems.map(formatProblem)).toEqual([
      'B3 (id b): key: holds formatted text (rich text): a key must be plain; clear the formatting of the cell',
    ]);
    const description = await parse([
      HEADER,
      ['a', 'maria@example.com', 3, { richText: [{ text: 'nota ' }, { text: 'paga', ...bold }] }],
    ]);
    expect(description.ok && description.rows[0]!.description).toBe('nota paga');
  });

  it('11 digits that are not a valid CPF are refused as in a CSV, unless a keyType column names the phone', async () => {
    const refused = await parse([HEADER, ['a', '11987654375', 5]]);
    expect(refused.ok || refused.problems.map(formatProblem)).toEqual([
      'B2 (id a): key: "11987654375" is not a valid CPF: check digits do not match; a phone is written +55… (+5511987654375)',
    ]);
    const typed = await parse([
      ['id', 'key', 'keyType', 'amount'],
      ['a', '11987654375', 'phone', 5],
    ]);
    expect(typed.ok && typed.rows[0]!.target).toEqual({
      kind: 'key',
      key: '+5511987654375',
      keyType: 'PHONE',
    });
  });
});
