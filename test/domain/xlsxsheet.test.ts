import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { type BatchParseResult, formatProblem } from '../../src/domain/batch.js';
import { parseBatchSheet } from '../../src/domain/batchsheet.js';
import { InvalidValue } from '../../src/domain/invalid.js';
import { readFirstSheet } from '../../src/domain/xlsxsheet.js';
import { WORKBOOK_LIMITS } from '../../src/domain/xlsxzip.js';
import {
  buildWorkbook,
  HEADER_ROW,
  inline,
  MAIN_NS,
  num,
  row,
  run,
  shared,
  str,
  table,
  type WorkbookParts,
  workbookParts,
  zipEntries,
} from '../helpers/workbook.js';

async function parse(parts: WorkbookParts): Promise<BatchParseResult> {
  return parseBatchSheet(await readFirstSheet(buildWorkbook(parts)));
}

/** The problems of a refused sheet, as the command prints them. */
async function problems(parts: WorkbookParts): Promise<string[]> {
  const result = await parse(parts);
  expect(result.ok, 'the workbook was accepted').toBe(false);
  return result.ok ? [] : result.problems.map(formatProblem);
}

/** The rows paid: [id, key, centavos]. */
async function paid(parts: WorkbookParts): Promise<Array<[string, string, number | undefined]>> {
  const result = await parse(parts);
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.rows.map((r) => [r.id, r.target.kind === 'key' ? r.target.key : r.target.emv, r.amount]);
}

/** The one-line refusal of a whole workbook (exit 2 in the command). */
async function refusal(bytes: Uint8Array): Promise<string> {
  const error = await Promise.resolve()
    .then(() => readFirstSheet(bytes))
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  expect(error).toBeInstanceOf(InvalidValue);
  return (error as Error).message;
}

/** One data row whose amount cell C2 holds `value` under the format `code`. */
function amountWith(code: string, value: string | number): WorkbookParts {
  return {
    formats: [code],
    sheetData: HEADER_ROW + row(2, str('A2', 'a') + str('B2', 'ana@example.com') + num('C2', value, 1)),
  };
}

describe('pay batch FILE.xlsx pays the amount a spreadsheet shows, or refuses the cell', () => {
  it.each([
    ['a hidden decimal', '0', 10.4, 'shows "10" but holds 10.4'],
    ['a scaled format', '#,##0.00,', 1234567, 'shows "1,234.57" but holds 1234567'],
    ['a literal', '"R$ 50,00"', 5000, 'shows "R$ 50,00" but holds 5000'],
    ['an empty format', ';;;', 777, 'shows nothing but holds 777'],
    ['a date', 'dd/mm/yyyy', 45292, 'shows "01/01/2024" but holds 45292'],
    ['a percent', '0%', 12.5, 'shows "1250%" but holds 12.5'],
    ['parentheses', '(0.00)', 10, 'shows "(10.00)" but holds 10'],
    ['a fraction', '# ?/?', 10.5, 'shows "10 1/2" but holds 10.5'],
  ])('%s: the cell is refused, naming it and both values', async (_what, code, value, says) => {
    expect(await problems(amountWith(code, value))).toEqual([
      `C2 (id a): amount: ${says} (number format "${code}"): format the cell to show its value (General, or #,##0.00 for an amount)`,
    ]);
  });

  it.each([
    ['General', 'General', 10.4, 1040],
    ['two decimals and thousands', '#,##0.00', 1234.5, 123450],
    ['a currency literal', '"R$ "#,##0.00', 1234.5, 123450],
    ['a locale currency', '[$R$-416] #,##0.00', 1234.56, 123456],
    ['more decimals than the value', '0.000', 10, 1000],
    ['text format', '@', 12.5, 1250],
  ])('%s: a format that shows the value pays it', async (_what, code, value, centavos) => {
    expect(await paid(amountWith(code, value))).toEqual([['a', 'ana@example.com', centavos]]);
  });

  it('text whose format adds to it or hides it is refused: the key a person reads is another', async () => {
    const sheet = (code: string): WorkbookParts => ({
      formats: [code],
      sheetData: HEADER_ROW + row(2, str('A2', 'a') + str('B2', 'ana@example.com', 1) + num('C2', 10)),
    });
    expect(await problems(sheet('@".br"'))).toEqual([
      'B2 (id a): key: shows "ana@example.com.br" but holds "ana@example.com" (number format "@".br""): format the cell to show its value (General, or #,##0.00 for an amount)',
    ]);
    expect((await problems(sheet(';;;')))[0]).toContain(
      'B2 (id a): key: shows nothing but holds "ana@example.com"',
    );
    expect(await paid(sheet('@'))).toEqual([['a', 'ana@example.com', 1000]]);
  });

  it('a conditional format that shows cells otherwise refuses the workbook; one that only colours them refuses the paid cells it covers', async () => {
    const sheetData = HEADER_ROW + table([['a', 'ana@example.com', 10.4]], 2);
    const rule = (dxf: number) =>
      `<conditionalFormatting sqref="C2:C10"><cfRule type="expression" dxfId="${dxf}" priority="1"><formula>TRUE</formula></cfRule></conditionalFormatting>`;
    const dxfs =
      '<dxf><numFmt numFmtId="170" formatCode="0"/></dxf><dxf><fill><patternFill><bgColor rgb="FFFFC7CE"/></patternFill></fill></dxf><dxf><font><color rgb="FFFFFFFF"/></font></dxf>';
    expect(await refusal(buildWorkbook({ sheetData, dxfs, afterData: rule(0) }))).toBe(
      'a conditional format on C2:C10 shows cells with the number format "0", not as they hold: remove it (Home > Conditional Formatting > Clear Rules)',
    );
    expect(await refusal(buildWorkbook({ sheetData, dxfs, afterData: rule(2) }))).toContain(
      'a conditional format on C2:C10 shows cells with white text',
    );
    expect(await problems({ sheetData, dxfs, afterData: rule(1) })).toEqual([
      "C2 (id a): amount: a conditional format on C2:C10 covers it: it may change the cell's colours or font as values change, which pix does not judge; remove it (Home > Conditional Formatting > Clear Rules)",
    ]);
    const x14 = `<extLst><ext uri="{78C0D931-6437-407d-A8EE-F0AAD7539E65}" xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main"><x14:conditionalFormattings><x14:conditionalFormatting xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main"><x14:cfRule type="expression" priority="1" id="{1}"><xm:f>TRUE</xm:f><x14:dxf><numFmt numFmtId="170" formatCode="0"/></x14:dxf></x14:cfRule><xm:sqref>C2:C10</xm:sqref></x14:conditionalFormatting></x14:conditionalFormattings></ext></extLst>`;
    expect(await refusal(buildWorkbook({ sheetData, afterData: x14 }))).toBe(
      'a conditional format in xl/worksheets/sheet1.xml shows cells with the number format "0", not as they hold: remove it (Home > Conditional Formatting > Clear Rules)',
    );
    const bar = `<conditionalFormatting sqref="C2:C10"><cfRule type="dataBar" priority="1"><dataBar showValue="0"><cfvo type="min"/><cfvo type="max"/><color rgb="FF638EC6"/></dataBar></cfRule></conditionalFormatting>`;
    expect(await refusal(buildWorkbook({ sheetData, afterData: bar }))).toContain(
      'shows cells with a data bar without the value',
    );
  });

  it('a cell whose style hides its text (white on no fill, a 1-point font) is refused; white on a dark fill is read', async () => {
    const styled = (key: number, amount: number): WorkbookParts => ({
      fonts: '<font><sz val="11"/><color rgb="FFFFFFFF"/></font><font><sz val="1"/></font>',
      fills: '<fill><patternFill patternType="solid"><fgColor rgb="FF1F4E79"/></patternFill></fill>',
      xfs: ['fontId="1" fillId="0"', 'fontId="2" fillId="0"', 'fontId="1" fillId="1"'],
      sheetData:
        HEADER_ROW + row(2, str('A2', 'a') + str('B2', 'ana@example.com', key) + num('C2', 10, amount)),
    });
    expect(await problems(styled(1, 2))).toEqual([
      "B2 (id a): key: its text (#FFFFFF) on its background (#FFFFFF) has a contrast of 1.0:1: a person cannot read it; clear the cell's formatting",
      "C2 (id a): amount: its font is 1 points: a person cannot read it; clear the cell's formatting",
    ]);
    expect(await paid(styled(3, 3))).toEqual([['a', 'ana@example.com', 1000]]);
  });

  it('an id shown otherwise than pix reads it is refused (0017 over 17)', async () => {
    expect(
      await problems({
        formats: ['0000'],
        sheetData: HEADER_ROW + row(2, num('A2', 17, 1) + str('B2', 'ana@example.com') + num('C2', 10)),
      }),
    ).toEqual([
      'A2 (id 17): id: shows "0017" but holds 17 (number format "0000"): format the cell to show its value (General, or #,##0.00 for an amount)',
    ]);
  });
});

describe('pay batch FILE.xlsx reads the sheet a person sees, or refuses the workbook', () => {
  const rows = HEADER_ROW + table([['a', 'ana@example.com', 10]], 2);

  it.each([
    ['hidden', 'the first sheet, Pagamentos, is hidden'],
    ['veryHidden', 'the first sheet, Pagamentos, is very hidden'],
  ])('a %s first sheet', async (state, says) => {
    const bytes = buildWorkbook({
      sheetData: rows,
      sheets: `<sheet name="Pagamentos" sheetId="1" state="${state}" r:id="rId1"/><sheet name="Notas" sheetId="2" r:id="rId2"/>`,
    });
    expect(await refusal(bytes)).toContain(says);
  });

  it('a workbook that opens on another sheet', async () => {
    const bytes = buildWorkbook({ sheetData: rows, bookViews: '<workbookView activeTab="1"/>' });
    expect(await refusal(bytes)).toBe(
      'the workbook opens on its sheet 2, not on Pagamentos, the sheet pix pays: open Pagamentos, save, and run it again',
    );
    expect(await paid({ sheetData: rows, bookViews: '<workbookView activeTab="0"/>' })).toHaveLength(1);
  });

  it.each([
    ['hidden', 'hidden="1"', 'row 3 is hidden'],
    ['zero-height', 'ht="0" customHeight="1"', 'row 3 is 0 points tall'],
  ])('a %s row is refused at its first cell', async (_what, attributes, says) => {
    const sheetData =
      HEADER_ROW +
      table([['a', 'ana@example.com', 10]], 2) +
      row(3, str('A3', 'b') + str('B3', 'bia@example.com') + num('C3', 900), attributes);
    expect(await problems({ sheetData })).toEqual([
      `A3 (id b): ${says}: a person does not see what pix would pay; unhide it or delete it`,
    ]);
  });

  it('rows hidden by the sheet (zeroHeight) and cells in a hidden column are refused', async () => {
    const sheetData = HEADER_ROW + table([['a', 'ana@example.com', 10, 'aluguel']], 2);
    expect(
      (await problems({ sheetData, beforeData: '<sheetFormatPr defaultRowHeight="15" zeroHeight="1"/>' }))[0],
    ).toBe('A1: row 1 is 0 points tall: a person does not see what pix would pay; unhide it or delete it');
    expect(
      await problems({ sheetData, beforeData: '<cols><col min="4" max="4" width="9" hidden="1"/></cols>' }),
    ).toEqual(['D1: in a hidden column: a person does not see it; unhide the column or clear the cell']);
  });

  it.each([
    ['extLst', `<extLst><ext uri="{x}">${row(3, num('C3', 900))}</ext></extLst>`, 'inside extLst'],
    [
      'mc:Fallback',
      `<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="x14"/><mc:Fallback><sheetData>${row(3, num('C3', 900))}</sheetData></mc:Fallback></mc:AlternateContent>`,
      'inside mc:AlternateContent',
    ],
  ])('rows inside %s refuse the workbook, naming the part', async (_what, afterData, says) => {
    expect(await refusal(buildWorkbook({ sheetData: rows, afterData }))).toContain(
      `xl/worksheets/sheet1.xml has a sheetData ${says}`.replace(
        'sheetData inside extLst',
        'row inside extLst',
      ),
    );
  });

  it("an application's own extensions are read past: Excel's x15:workbookPr, absPath, sparklines", async () => {
    const x14 = 'http://schemas.microsoft.com/office/spreadsheetml/2009/9/main';
    const workbookExtra = `<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="x15"><x15ac:absPath xmlns:x15ac="http://schemas.microsoft.com/office/spreadsheetml/2010/11/ac" url="C:\\pagamentos\\"/></mc:Choice></mc:AlternateContent><extLst><ext uri="{140A7094-0E35-4892-8432-C4D2E57EDEB5}" xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main"><x15:workbookPr chartTrackingRefBase="1"/></ext></extLst>`;
    const afterData = `<extLst><ext uri="{05C60535-1F16-4fd2-B633-F4F36F0B64E0}" xmlns:x14="${x14}"><x14:sparklineGroups xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main"><x14:sparklineGroup><x14:sparklines><x14:sparkline><xm:f>Pagamentos!C2:C2</xm:f><xm:sqref>E2</xm:sqref></x14:sparkline></x14:sparklines></x14:sparklineGroup></x14:sparklineGroups></ext></extLst>`;
    expect(await paid({ sheetData: rows, workbookExtra, afterData })).toEqual([
      ['a', 'ana@example.com', 1000],
    ]);
  });

  it('a value in a foreign namespace refuses the workbook, naming the cell', async () => {
    const sheetData =
      HEADER_ROW +
      row(
        2,
        `${str('A2', 'a')}${str('B2', 'ana@example.com')}<c r="C2"><x:v xmlns:x="urn:other">999</x:v></c>`,
      );
    expect(await refusal(buildWorkbook({ sheetData }))).toBe(
      'cell C2 holds an element of the namespace urn:other, which a spreadsheet does not show',
    );
  });

  it('a cell or a row written twice refuses the workbook (a spreadsheet shows one of them)', async () => {
    const twiceCell =
      HEADER_ROW + row(2, str('A2', 'a') + str('B2', 'ana@example.com') + num('C2', 10) + num('C2', 999));
    expect(await refusal(buildWorkbook({ sheetData: twiceCell }))).toBe(
      'cell C2 is written twice: a spreadsheet shows one of them',
    );
    const twiceRow =
      HEADER_ROW + table([['a', 'ana@example.com', 10]], 2) + table([['b', 'bia@example.com', 20]], 2);
    expect(await refusal(buildWorkbook({ sheetData: twiceRow }))).toBe(
      'row 2 is written twice: a spreadsheet shows one of them',
    );
  });

  it('a second sheetData refuses the workbook', async () => {
    const afterData = `<sheetData>${table([['b', 'bia@example.com', 900]], 3)}</sheetData>`;
    expect(await refusal(buildWorkbook({ sheetData: rows, afterData }))).toBe(
      'xl/worksheets/sheet1.xml has two sheetData: a spreadsheet shows one of them',
    );
  });

  it('number text that is not decimal (0x10) refuses the workbook, naming the cell', async () => {
    const sheetData = HEADER_ROW + row(2, str('A2', 'a') + str('B2', 'ana@example.com') + num('C2', '0x10'));
    expect(await refusal(buildWorkbook({ sheetData }))).toBe('cell C2 holds "0x10", not a decimal number');
  });

  it('two ZIP entries named as the sheet refuse the workbook', async () => {
    const entries = workbookParts({ sheetData: rows });
    const other = `<worksheet xmlns="${MAIN_NS}"><sheetData>${HEADER_ROW}${table([['a', 'ana@example.com', 99999]], 2)}</sheetData></worksheet>`;
    expect(await refusal(zipEntries([...entries, ['xl/worksheets/sheet1.xml', other]]))).toBe(
      'the ZIP holds two entries named xl/worksheets/sheet1.xml: a spreadsheet application reads one of them, and which is not certain',
    );
  });
});

describe('pay batch FILE.xlsx reads text as shown: phonetic runs never, rich text only where it cannot mislead', () => {
  it('a phonetic run in an inline string is not part of the text (as in shared strings)', async () => {
    const sheetData =
      HEADER_ROW +
      row(
        2,
        str('A2', 'a') +
          inline('B2', '<t>ana@example.com</t><rPh sb="0" eb="1"><t>.br</t></rPh>') +
          inline('C2', '<t>10</t><rPh sb="0" eb="1"><t>0</t></rPh>'),
      );
    expect(await paid({ sheetData })).toEqual([['a', 'ana@example.com', 1000]]);
  });

  it('rich text in an amount or key is refused; a run too small or white to read is refused anywhere', async () => {
    const tiny = '<sz val="1"/><color rgb="FFFFFFFF"/>';
    const sheetData =
      HEADER_ROW +
      row(2, str('A2', 'a') + str('B2', 'ana@example.com') + inline('C2', run('1') + run('000', tiny))) +
      row(3, str('A3', 'b') + inline('B3', run('bia@') + run('example.com', '<b/>')) + num('C3', 5)) +
      row(
        4,
        str('A4', 'c') +
          str('B4', 'caio@example.com') +
          num('C4', 5) +
          inline('D4', run('nota ') + run('paga', '<color theme="0"/>')),
      ) +
      row(
        5,
        str('A5', 'd') +
          str('B5', 'duda@example.com') +
          num('C5', 5) +
          inline('D5', run('nota ') + run('paga', '<b/>')),
      );
    expect(await problems({ sheetData })).toEqual([
      'C2 (id a): amount: its text has a run of 1 points ("000") that a person cannot read: clear the formatting of the cell',
      'B3 (id b): key: holds formatted text (rich text): a key must be plain; clear the formatting of the cell',
      'D4 (id c): description: its text has a white run ("paga") that a person cannot read: clear the formatting of the cell',
    ]);
    const sharedRich = await parse({
      sharedStrings: [`${run('nota ')}${run('x', '<sz val="1"/>')}`],
      sheetData:
        HEADER_ROW + row(2, str('A2', 'a') + str('B2', 'ana@example.com') + num('C2', 5) + shared('D2', 0)),
    });
    expect(sharedRich.ok || sharedRich.problems.map(formatProblem)).toEqual([
      'D2 (id a): description: its text has a run of 1 points ("x") that a person cannot read: clear the formatting of the cell',
    ]);
  });
});

describe('pay batch FILE.xlsx: bounded work', () => {
  it('300 merges of A1:BM1048576 are checked as ranges, never expanded: one problem each first cell', async () => {
    const merges = Array.from({ length: 300 }, () => '<mergeCell ref="A1:BM1048576"/>').join('');
    const sheetData = HEADER_ROW + table([['a', 'ana@example.com', 10]], 2);
    expect(
      await problems({ sheetData, afterData: `<mergeCells count="300">${merges}</mergeCells>` }),
    ).toEqual(['A1: part of the merged cells A1:BM1048576: unmerge them']);
  });

  it('parts a spreadsheet does not need are never inflated (padding that would not even inflate)', async () => {
    const garbage = new Uint8Array(4096).fill(0xff); // not a deflate stream
    const entries = workbookParts({ sheetData: HEADER_ROW + table([['a', 'ana@example.com', 10]], 2) });
    const bytes = zipEntries(entries);
    // The same workbook with 50 padding entries whose deflate data is broken: read as if they were absent.
    const padded = zipEntries([
      ...entries,
      ...Array.from({ length: 50 }, (_, i) => [`xl/padding/p${i}.bin`, garbage] as [string, Uint8Array]),
    ]);
    const broken = corruptDeflate(padded, 'xl/padding/');
    expect(parseBatchSheet(await readFirstSheet(broken)).ok).toBe(true);
    expect(parseBatchSheet(await readFirstSheet(bytes)).ok).toBe(true);
  });

  it('a part that inflates past the limit, past the ratio, or past the size its entry declares is refused', async () => {
    const spaces = (n: number) => `<!--${' '.repeat(n)}-->`;
    const sheetData = HEADER_ROW;
    // A sheet whose entry says it inflates to 129 MiB: over the 128 MiB a part may inflate to, refused from
    // the directory before a byte is inflated. (A part that says less and inflates to more is the lying
    // entry below: refused once past what it said. Deflating 129 MiB here took 20 s of a busy machine.)
    const huge = await refusal(
      declareSize(
        buildWorkbook({ sheetData }),
        'xl/worksheets/sheet1.xml',
        WORKBOOK_LIMITS.partBytes + 1024 * 1024,
      ),
    );
    expect(huge).toMatch(
      /^the part xl\/worksheets\/sheet1\.xml inflates to 129 MiB, more than a payout workbook holds/,
    );
    const bomb = await refusal(buildWorkbook({ sheetData, beforeData: spaces(20 * 1024 * 1024) }));
    expect(bomb).toMatch(
      /^the part xl\/worksheets\/sheet1\.xml inflates \d+ times its compressed size \(at most 200\): refused as a ZIP bomb$/,
    );
    // The directory declares 100 bytes for a sheet that inflates to far more: refused once past 100.
    const lying = declareSize(
      buildWorkbook({ sheetData: HEADER_ROW + table([['a', 'ana@example.com', 10]], 2) }),
      'xl/worksheets/sheet1.xml',
      100,
    );
    expect(await refusal(lying)).toBe(
      'not an xlsx workbook (xl/worksheets/sheet1.xml inflates past the size its ZIP entry declares): save it from the spreadsheet as .xlsx',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// ZIP surgery on the central directory

function centralEntries(
  bytes: Uint8Array,
): Array<{ at: number; name: string; local: number; compressed: number }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.length - 22;
  while (view.getUint32(end, true) !== 0x06054b50) end--;
  let at = view.getUint32(end + 16, true);
  const count = view.getUint16(end + 10, true);
  const out = [];
  for (let n = 0; n < count; n++) {
    const nameLength = view.getUint16(at + 28, true);
    out.push({
      at,
      name: new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      local: view.getUint32(at + 42, true),
      compressed: view.getUint32(at + 20, true),
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return out;
}

/** Overwrites the deflate data of the entries under `prefix` with bytes that are no deflate stream. */
function corruptDeflate(zip: Uint8Array, prefix: string): Uint8Array {
  const bytes = zip.slice();
  const view = new DataView(bytes.buffer);
  for (const entry of centralEntries(bytes)) {
    if (!entry.name.startsWith(prefix)) continue;
    const start =
      entry.local + 30 + view.getUint16(entry.local + 26, true) + view.getUint16(entry.local + 28, true);
    bytes.fill(0xff, start, start + entry.compressed);
  }
  expect(() => deflateSync(new Uint8Array(1))).not.toThrow();
  return bytes;
}

/** Sets the uncompressed size the central directory declares for `name`. */
function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const bytes = zip.slice();
  const entry = centralEntries(bytes).find((e) => e.name === name)!;
  new DataView(bytes.buffer).setUint32(entry.at + 24, size, true);
  return bytes;
}
