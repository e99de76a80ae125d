import { describe, expect, it } from 'vitest';
import { columnLetters, parseRef } from '../../src/domain/cellref.js';
import { createSheetWriter, type SheetColumn, type SheetValue } from '../../src/output/xlsx.js';
import { readWorkbook } from '../helpers/xlsx.js';

const COLUMNS: SheetColumn[] = [
  { header: 'when', kind: 'date' },
  { header: 'amount', kind: 'money' },
  { header: 'count', kind: 'number' },
  { header: 'id', kind: 'id' },
  { header: 'name' },
];

async function workbook(rows: SheetValue[][], columns = COLUMNS, timeZone = 'America/Sao_Paulo') {
  const chunks: Uint8Array[] = [];
  const sheet = createSheetWriter(
    async (chunk) => {
      chunks.push(chunk);
    },
    { sheetName: 'Statement', columns, timeZone },
  );
  await sheet.rows(rows);
  await sheet.end();
  return { bytes: Buffer.concat(chunks), chunks: chunks.length };
}

describe('xlsx: typed cells, read back by exceljs', () => {
  it('writes amounts as numbers in R$, instants on the account wall clock, days as dates, ids as text', async () => {
    const { bytes } = await workbook([
      ['2026-11-23T21:31:46.000Z', '-1234.56', 3, '00123', 'Padaria Pão Quente'],
      ['2026-12-01', '0.10', '7', 'E9999999202611231200abcdef', 'Maria'],
    ]);
    const sheet = await readWorkbook(bytes);
    expect(sheet.name).toBe('Statement');
    expect(sheet.frozenRows).toBe(1);
    expect(sheet.rows[0]!.map((cell) => cell.value)).toEqual(['when', 'amount', 'count', 'id', 'name']);
    const [when, amount, count, id, name] = sheet.rows[1]!;
    // A cell has no zone: 21:31 UTC is 18:31 in São Paulo, which exceljs reads back as 18:31 "UTC".
    expect(when!.value).toEqual(new Date('2026-11-23T18:31:46.000Z'));
    expect(when!.numFmt).toBe('dd/mm/yyyy hh:mm:ss');
    expect(amount!.value).toBe(-1234.56);
    expect(amount!.numFmt).toBe('"R$ "#,##0.00');
    expect(count!.value).toBe(3);
    expect(id!.value).toBe('00123');
    expect(name!.value).toBe('Padaria Pão Quente');
    const [day, cents, countText] = sheet.rows[2]!;
    expect(day!.value).toEqual(new Date('2026-12-01T00:00:00.000Z'));
    expect(day!.numFmt).toBe('dd/mm/yyyy');
    expect(cents!.value).toBe(0.1);
    expect(countText!.value).toBe(7);
  });

  it('never writes a formula: text that looks like one stays text, as written', async () => {
    const { bytes } = await workbook([
      [null, null, null, null, '=HYPERLINK("http://evil.example","click")'],
      [null, null, null, null, '+5511987654321'],
      [null, null, null, null, '@SUM(A1:A9)'],
    ]);
    const sheet = await readWorkbook(bytes);
    expect(sheet.rows.slice(1).map((row) => row[4]!.value)).toEqual([
      '=HYPERLINK("http://evil.example","click")',
      '+5511987654321',
      '@SUM(A1:A9)',
    ]);
    expect(sheet.rows.flat().every((cell) => cell.formula === undefined)).toBe(true);
    expect(bytes.includes(Buffer.from('<f>'))).toBe(false);
  });

  it("keeps hostile server text inside its cell: markup, controls, a lone surrogate, Excel's length", async () => {
    const markup = '</t></is></c><c><f>1+1</f></c><![CDATA[x]]>&amp;"';
    const long = 'x'.repeat(40_000);
    const { bytes } = await workbook([
      [null, null, null, null, markup],
      [null, null, null, null, 'a\u001b[31mred\u0007\r\nb\u202e'],
      [null, null, null, null, 'lone \ud800 surrogate'],
      [null, null, null, null, long],
      [null, null, null, null, '  padded  '],
    ]);
    const sheet = await readWorkbook(bytes);
    const names = sheet.rows.slice(1).map((row) => row[4]!.value as string);
    expect(names[0]).toBe(markup);
    expect(names[1]).toBe('a\\u001b[31mred\\u0007\\u000d\\u000ab\\u202e');
    expect(names[2]).toBe('lone \ufffd surrogate');
    expect(Array.from(names[3]!)).toHaveLength(32_767);
    expect(names[3]!.endsWith('…')).toBe(true);
    expect(names[4]).toBe('  padded  ');
  });

  it('writes a value its kind cannot read as text, never as a wrong number or date', async () => {
    const { bytes } = await workbook([['yesterday', '1e9', 'NaN', null, null]]);
    const [when, amount, count] = (await readWorkbook(bytes)).rows[1]!;
    expect([when!.value, amount!.value, count!.value]).toEqual(['yesterday', '1e9', 'NaN']);
  });

  it('streams: a long sheet comes out in many chunks, every row read back', async () => {
    const rows: SheetValue[][] = Array.from({ length: 20_000 }, (_, i) => [
      '2026-11-23T12:00:00.000Z',
      `${i}.25`,
      i,
      `id-${i}`,
      `name ${i}`,
    ]);
    const { bytes, chunks } = await workbook(rows);
    expect(chunks).toBeGreaterThan(5);
    const sheet = await readWorkbook(bytes);
    expect(sheet.rows).toHaveLength(20_001);
    expect(sheet.rows[20_000]!.map((cell) => cell.value).slice(1, 4)).toEqual([
      19_999.25,
      19_999,
      'id-19999',
    ]);
  });

  it('names columns and reads references as a spreadsheet does', () => {
    const indexes = [0, 25, 26, 51, 52, 701, 702];
    expect(indexes.map(columnLetters)).toEqual(['A', 'Z', 'AA', 'AZ', 'BA', 'ZZ', 'AAA']);
    expect(indexes.map((index) => parseRef(`${columnLetters(index)}7`)?.column)).toEqual(indexes);
    expect(parseRef('AA10')).toEqual({ column: 26, row: 10 });
    expect(parseRef('b7')).toBeUndefined();
  });
});
