import { describe, expect, it } from 'vitest';
import { type BatchParseResult, formatProblem } from '../../src/domain/batch.js';
import { parseBatchSheet } from '../../src/domain/batchsheet.js';
import { parseExpectationsSheet } from '../../src/domain/expectations.js';
import { readFirstSheet } from '../../src/domain/xlsxsheet.js';
import { buildWorkbook, HEADER_ROW, num, row, str, table, type WorkbookParts } from '../helpers/workbook.js';

/**
 * What a reader sees in the cells pix pays (key, key type, code, amount; an ERP's amount and document): a
 * number format's colour or literal separator, a font too close to its background, a conditional format, a
 * column too narrow, as a spreadsheet at 100 % zoom draws them. Each is refused naming the cell; what is
 * plain keeps paying. test/e2e/xlsx-libreoffice.test.ts checks the same judgement against LibreOffice.
 */

async function parse(parts: WorkbookParts): Promise<BatchParseResult> {
  return parseBatchSheet(await readFirstSheet(buildWorkbook(parts)));
}

async function problems(parts: WorkbookParts): Promise<string[]> {
  const result = await parse(parts);
  expect(result.ok, 'the workbook was accepted').toBe(false);
  return result.ok ? [] : result.problems.map(formatProblem);
}

async function paid(parts: WorkbookParts): Promise<Array<[string, string, number | undefined]>> {
  const result = await parse(parts);
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.rows.map((r) => [r.id, r.target.kind === 'key' ? r.target.key : r.target.emv, r.amount]);
}

/** One row: its amount C2 holds `value` under the format `code`; columns as wide as `cols` says. */
function amountWith(code: string, value: string | number, cols = ''): WorkbookParts {
  return {
    formats: [code],
    beforeData: cols,
    sheetData: HEADER_ROW + row(2, str('A2', 'a') + str('B2', 'ana@example.com') + num('C2', value, 1)),
  };
}

const WIDE =
  '<cols><col min="2" max="2" width="30" customWidth="1"/><col min="3" max="3" width="16" customWidth="1"/></cols>';

describe('pay batch FILE.xlsx: a number format every reader shows alike, or the cell is refused', () => {
  it.each([
    ['white', '[White]0.00', 10, '[White]'],
    ['a palette colour', '[Color 2]#,##0.00', 10, '[Color 2]'],
    ['red', '[Red]#,##0.00', 10, '[Red]'],
    ['blue', '[Blue]0.00', 7.25, '[Blue]'],
    ['a colour under a condition', '[>=0][White]0.00;0.00', 10, '[White]'],
  ])(
    '%s: the colour of the section that shows the value refuses the cell',
    async (_what, code, value, colour) => {
      expect(await problems(amountWith(code, value, WIDE))).toEqual([
        `C2 (id a): amount: its number format "${code}" colours the value (${colour}): pix does not judge a format's colours; remove the colour from the format (General, or #,##0.00 for an amount)`,
      ]);
    },
  );

  it('the literal-comma format: 0","000 over 10500 shows 10,500, which a Brazilian reads as R$ 10,50: refused, as 0"."00 and an escaped comma are', async () => {
    expect(await problems(amountWith('0","000', 10500, WIDE))).toEqual([
      'C2 (id a): amount: its number format "0","000" writes a literal "," among the digits ("10,500"): a reader takes it for a separator and reads another amount; use #,##0.00, whose separators each reader sees in their own notation',
    ]);
    // A literal "." is read as the decimal point: the value shown is another, refused as such.
    expect((await problems(amountWith('0"."00', 1050, WIDE)))[0]).toMatch(
      /^C2 \(id a\): amount: shows "10\.50" but holds 1050/,
    );
    expect((await problems(amountWith('0\\,000', 10500, WIDE)))[0]).toContain('writes a literal ","');
  });

  it.each([
    ['General', 'General', 10500, 1050000],
    ['0', '0', 10500, 1050000],
    ['0.00', '0.00', 10500, 1050000],
    ['#,##0.00', '#,##0.00', 10500, 1050000],
    ['@', '@', 12.5, 1250],
    ['"R$" #,##0.00', '"R$" #,##0.00', 1234.5, 123450],
    [
      'a locale currency with a red negative section',
      '[$R$-416] #,##0.00;[Red]-[$R$-416] #,##0.00',
      1234.5,
      123450,
    ],
    ["Excel's pt-BR currency", '"R$" #,##0.00;[Red]\\-"R$" #,##0.00', 10500, 1050000],
    [
      "Excel's pt-BR accounting",
      '_-"R$"\\ * #,##0.00_-;\\-"R$"\\ * #,##0.00_-;_-"R$"\\ * "-"??_-;_-@_-',
      10500,
      1050000,
    ],
    ['parentheses for negatives', '#,##0.00_);[Red](#,##0.00)', 10500, 1050000],
  ])('%s keeps paying', async (_what, code, value, centavos) => {
    expect(await paid(amountWith(code, value, WIDE))).toEqual([['a', 'ana@example.com', centavos]]);
  });
});

describe('pay batch FILE.xlsx: text a person sees against its background, or the cell is refused', () => {
  /** The key B2 in font 1 on fill 1 (after the defaults); the amount plain. */
  const keyStyled = (font: string, fill: string, extra: Partial<WorkbookParts> = {}): WorkbookParts => ({
    fonts: `<font><sz val="11"/>${font}<name val="Calibri"/></font>`,
    fills: fill === '' ? '' : `<fill><patternFill patternType="solid">${fill}</patternFill></fill>`,
    xfs: [`fontId="1" fillId="${fill === '' ? 0 : 1}"`],
    beforeData: WIDE,
    sheetData: HEADER_ROW + row(2, str('A2', 'a') + str('B2', 'ana@example.com', 1) + num('C2', 10)),
    ...extra,
  });
  const OFFICE_THEME =
    '<a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1><a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1><a:dk2><a:srgbClr val="44546A"/></a:dk2><a:lt2><a:srgbClr val="E7E6E6"/></a:lt2><a:accent1><a:srgbClr val="4472C4"/></a:accent1><a:accent2><a:srgbClr val="ED7D31"/></a:accent2><a:accent3><a:srgbClr val="A5A5A5"/></a:accent3><a:accent4><a:srgbClr val="FFC000"/></a:accent4><a:accent5><a:srgbClr val="5B9BD5"/></a:accent5><a:accent6><a:srgbClr val="70AD47"/></a:accent6><a:hlink><a:srgbClr val="0563C1"/></a:hlink><a:folHlink><a:srgbClr val="954F72"/></a:folHlink>';

  it.each([
    ['near-white on the default background', '<color rgb="FFF2F2F2"/>', '', '#F2F2F2', '#FFFFFF', '1.1'],
    ['the system background colour (indexed 65)', '<color indexed="65"/>', '', '#FFFFFF', '#FFFFFF', '1.0'],
    ['yellow on yellow', '<color rgb="FFFFFF00"/>', '<fgColor rgb="FFFFFF00"/>', '#FFFF00', '#FFFF00', '1.0'],
    ['light grey on white', '<color rgb="FFA6A6A6"/>', '', '#A6A6A6', '#FFFFFF', '2.4'],
    ['the default (black) text on a dark fill', '', '<fgColor rgb="FF1F1F1F"/>', '#000000', '#1F1F1F', '1.2'],
  ])(
    '%s: refused, with both colours and their contrast',
    async (_what, font, fill, text, background, ratio) => {
      const all = await problems(keyStyled(font, fill));
      expect(all.filter((p) => p.startsWith('B2'))[0]).toMatch(
        new RegExp(
          `^B2 \\(id a\\): key: its text \\(${text}\\) on its background \\(${background}\\) has a contrast of ${ratio.replace('.', '\\.')}:1`,
        ),
      );
    },
  );

  it('theme colours with a tint, as the workbook theme defines them: near-white text and dark-on-dark are refused', async () => {
    // Background 1 (lt1, white) darkened 5 %: #F2F2F2.
    expect(
      (
        await problems(
          keyStyled('<color theme="0" tint="-4.9989318521683403E-2"/>', '', { theme: OFFICE_THEME }),
        )
      )[0],
    ).toContain(
      'its text (#F2F2F2) on its background (#FFFFFF) has a contrast of 1.1:1: a person cannot read it',
    );
    // Text 2 (dk2) on Text 2 lightened 10 %.
    expect(
      (
        await problems(
          keyStyled('<color theme="3"/>', '<fgColor theme="3" tint="0.1"/>', { theme: OFFICE_THEME }),
        )
      )[0],
    ).toMatch(/its text \(#44546A\) on its background \(#[0-9A-F]{6}\) has a contrast of 1\.\d:1/);
  });

  it('readable colours keep paying: black, red, white on dark blue, the theme text colour, the system foreground', async () => {
    for (const [font, fill, extra] of [
      ['<color rgb="FF000000"/>', '', {}],
      ['<color rgb="FFFF0000"/>', '', {}],
      ['<color rgb="FFFFFFFF"/>', '<fgColor rgb="FF1F4E79"/>', {}],
      ['<color theme="1"/>', '', { theme: OFFICE_THEME }],
      ['<color indexed="64"/>', '', {}],
      ['<color theme="0"/>', '<fgColor theme="1" tint="0.249977111117893"/>', { theme: OFFICE_THEME }],
    ] as const) {
      expect(await paid(keyStyled(font, fill, extra)), `${font} on ${fill}`).toEqual([
        ['a', 'ana@example.com', 1000],
      ]);
    }
  });

  it("a workbook's own palette is the one read: indexed 10 redefined as white is refused", async () => {
    const palette = `<indexedColors>${Array.from({ length: 64 }, (_, i) => `<rgbColor rgb="${i === 10 ? 'FFFFFFFF' : 'FF000000'}"/>`).join('')}</indexedColors>`;
    expect((await problems(keyStyled('<color indexed="10"/>', '', { colors: palette })))[0]).toContain(
      'its text (#FFFFFF) on its background (#FFFFFF)',
    );
    expect(await paid(keyStyled('<color indexed="10"/>', ''))).toEqual([['a', 'ana@example.com', 1000]]);
  });

  it('a theme colour in a workbook without a theme is one pix cannot tell: refused, even Text 1 (LibreOffice draws it white, Excel black)', async () => {
    expect((await problems(keyStyled('<color theme="5"/>', '')))[0]).toBe(
      "B2 (id a): key: pix cannot tell its text colour (theme colour 5, and the workbook has no theme): set the cell's colours again",
    );
    expect((await problems(keyStyled('', '<fgColor theme="1" tint="0.249977111117893"/>')))[0]).toBe(
      "B2 (id a): key: pix cannot tell its background (theme colour 1, and the workbook has no theme): set the cell's colours again",
    );
  });

  it('a description in light grey is still paid: the contrast rule is for the cells that decide who is paid how much', async () => {
    expect(
      await paid({
        fonts: '<font><sz val="11"/><color rgb="FFA6A6A6"/></font>',
        xfs: ['fontId="1" fillId="0"'],
        beforeData: WIDE,
        sheetData:
          HEADER_ROW +
          row(2, str('A2', 'a') + str('B2', 'ana@example.com') + num('C2', 10) + str('D2', 'nota', 1)),
      }),
    ).toEqual([['a', 'ana@example.com', 1000]]);
  });
});

describe('pay batch FILE.xlsx: a conditional format over a paid cell refuses it', () => {
  const sheetData = HEADER_ROW + table([['a', 'ana@example.com', 10.4, 'nota']], 2);
  const dxfs = '<dxf><fill><patternFill><bgColor rgb="FFFFFF00"/></patternFill></fill></dxf>';
  const rule = (sqref: string) =>
    `<conditionalFormatting sqref="${sqref}"><cfRule type="expression" dxfId="0" priority="1"><formula>TRUE</formula></cfRule></conditionalFormatting>`;

  it('a fill on the amounts, a colour scale on the keys, one from Excel 2010 on the amounts', async () => {
    expect(await problems({ sheetData, dxfs, beforeData: WIDE, afterData: rule('A1:A3 C2:C10') })).toEqual([
      "C2 (id a): amount: a conditional format on A1:A3 C2:C10 covers it: it may change the cell's colours or font as values change, which pix does not judge; remove it (Home > Conditional Formatting > Clear Rules)",
    ]);
    const scale =
      '<conditionalFormatting sqref="B:B"><cfRule type="colorScale" priority="1"><colorScale><cfvo type="min"/><cfvo type="max"/><color rgb="FFFFFFFF"/><color rgb="FFFFFF00"/></colorScale></cfRule></conditionalFormatting>';
    expect((await problems({ sheetData, beforeData: WIDE, afterData: scale }))[0]).toContain(
      'B2 (id a): key: a conditional format on B:B covers it',
    );
    const x14 = `<extLst><ext uri="{78C0D931-6437-407d-A8EE-F0AAD7539E65}" xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main"><x14:conditionalFormattings><x14:conditionalFormatting xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main"><x14:cfRule type="expression" priority="1" id="{1}"><xm:f>TRUE</xm:f><x14:dxf><font><color rgb="FFFFFFFF"/></font></x14:dxf></x14:cfRule><xm:sqref>C2:C10</xm:sqref></x14:conditionalFormatting></x14:conditionalFormattings></ext></extLst>`;
    expect((await problems({ sheetData, beforeData: WIDE, afterData: x14 }))[0]).toContain(
      'C2 (id a): amount: a conditional format on C2:C10 covers it',
    );
  });

  it('one over the descriptions only is paid', async () => {
    expect(await paid({ sheetData, dxfs, beforeData: WIDE, afterData: rule('D2:D10') })).toEqual([
      ['a', 'ana@example.com', 1040],
    ]);
  });
});

describe('pay batch FILE.xlsx: the text a column is wide enough to show, at 100 % zoom', () => {
  const cols = (...widths: Array<[number, number]>) =>
    `<cols>${widths.map(([column, width]) => `<col min="${column}" max="${column}" width="${width}" customWidth="1"/>`).join('')}</cols>`;

  it('a narrow amount column: 10,500.00 in a column of 4 shows ###; General rounds 1234.56 in one of 5', async () => {
    expect(await problems(amountWith('#,##0.00', 10500, cols([2, 30], [3, 5])))).toEqual([
      'C2 (id a): amount: shows "10,500.00" (8.0 characters wide) in a column of 4.0: a spreadsheet shows ### or a rounded number instead; widen column C',
    ]);
    expect((await problems(amountWith('General', 1234.56, cols([2, 30], [3, 5]))))[0]).toContain(
      'shows "1234.56" (6.5 characters wide) in a column of 4.0',
    );
  });

  it('a column of the default width (8 digits, margins included, as LibreOffice draws it) shows 1,234.56, not 12,345.67', async () => {
    expect(await paid(amountWith('#,##0.00', 1234.56, cols([2, 30])))).toEqual([
      ['a', 'ana@example.com', 123456],
    ]);
    expect((await problems(amountWith('#,##0.00', 12345.67, cols([2, 30]))))[0]).toContain(
      'shows "12,345.67" (8.0 characters wide) in a column of 7.0',
    );
  });

  it('a narrow key column hides mallory@example.com behind the amount beside it: refused', async () => {
    const parts: WorkbookParts = {
      beforeData: cols([2, 8]),
      sheetData: HEADER_ROW + table([['a', 'mallory@example.com', 10]], 2),
    };
    expect(await problems(parts)).toEqual([
      'B2 (id a): key: shows "mallory@example.com" (19.1 characters wide) in a column of 7.0 with C2 beside it: a person sees only part of it; widen column B',
    ]);
  });

  it('text in the last column runs on over the empty cells beside it: paid; over a dark empty cell it is refused', async () => {
    const lastKey = (more = ''): WorkbookParts => ({
      fills: '<fill><patternFill patternType="solid"><fgColor rgb="FF000000"/></patternFill></fill>',
      xfs: ['fontId="0" fillId="1"'],
      beforeData: cols([3, 6]),
      sheetData:
        table([['id', 'amount', 'key']]) +
        row(2, str('A2', 'a') + num('B2', 10) + str('C2', 'mallory@example.com') + more),
    });
    expect(await paid(lastKey())).toEqual([['a', 'mallory@example.com', 1000]]);
    expect((await problems(lastKey('<c r="D2" s="1"/>')))[0]).toContain(
      'C2 (id a): key: shows "mallory@example.com" (19.1 characters wide) in a column of 5.0 with D2 beside it',
    );
  });

  it('wrapped text does not run on, and a larger font needs a wider column', async () => {
    const styled = (attributes: string, inner: string, fonts = ''): WorkbookParts => ({
      fonts,
      xfs: [{ attributes, inner }],
      beforeData: cols([2, 12], [3, 12]),
      sheetData:
        table([['id', 'amount', 'key']]) +
        row(2, str('A2', 'a') + num('B2', 1234.5, 1) + str('C2', 'mallory@example.com', 1)),
    });
    expect(await paid(styled('fontId="0" fillId="0"', ''))).toEqual([['a', 'mallory@example.com', 123450]]);
    expect((await problems(styled('fontId="0" fillId="0"', '<alignment wrapText="1"/>')))[0]).toContain(
      'C2 (id a): key: shows "mallory@example.com" (19.1 characters wide) in a column of 11.0, wrapped',
    );
    expect(
      (
        await problems(
          styled('fontId="1" fillId="0"', '', '<font><sz val="24"/><name val="Calibri"/></font>'),
        )
      )[0],
    ).toContain('B2 (id a): amount: shows "1234.5" (12.0 characters wide) in a column of 11.0');
  });

  it('a row shorter than its text, and rotated text, are refused', async () => {
    expect(
      (
        await problems({
          beforeData: WIDE,
          sheetData:
            HEADER_ROW +
            row(2, str('A2', 'a') + str('B2', 'ana@example.com') + num('C2', 10), 'ht="6" customHeight="1"'),
        })
      )[0],
    ).toContain('B2 (id a): key: its 11-point text in a row 6 points tall is cut: make the row taller');
    expect(
      (
        await problems({
          xfs: [{ attributes: 'fontId="0" fillId="0"', inner: '<alignment textRotation="90"/>' }],
          beforeData: WIDE,
          sheetData: HEADER_ROW + row(2, str('A2', 'a') + str('B2', 'ana@example.com') + num('C2', 10, 1)),
        })
      )[0],
    ).toContain('C2 (id a): amount: its text is rotated (90°)');
  });
});

describe('pix reconcile --expected FILE.xlsx: the amount and document as every reader sees them', () => {
  const sheet = (amountStyle: number | undefined, cols: string, extra: Partial<WorkbookParts> = {}) =>
    buildWorkbook({
      formats: ['[White]0.00'],
      beforeData: cols,
      sheetData:
        table([['id', 'amount', 'document']]) +
        row(
          2,
          str('A2', 'NF-1') +
            num('B2', 10500, amountStyle) +
            str('C2', '04.252.011/0001-10') +
            str('D2', 'x'),
        ),
      ...extra,
    });
  const refused = async (bytes: Uint8Array) => {
    const result = parseExpectationsSheet(await readFirstSheet(bytes));
    expect(result.ok).toBe(false);
    return result.ok ? [] : result.problems.map(formatProblem);
  };

  it('a white amount and a document cut by the next column are refused; wide and plain, read', async () => {
    const wide =
      '<cols><col min="2" max="2" width="12" customWidth="1"/><col min="3" max="3" width="24" customWidth="1"/></cols>';
    expect((await refused(sheet(1, wide)))[0]).toContain(
      'B2 (id NF-1): amount: its number format "[White]0.00" colours the value',
    );
    expect(
      await refused(sheet(undefined, '<cols><col min="3" max="3" width="10" customWidth="1"/></cols>')),
    ).toEqual([
      'C2 (id NF-1): document: shows "04.252.011/0001-10" (16.4 characters wide) in a column of 9.0 with D2 beside it: a person sees only part of it; widen column C',
    ]);
    const result = parseExpectationsSheet(await readFirstSheet(sheet(undefined, wide)));
    expect(result.ok && result.expectations).toEqual([
      { id: 'NF-1', amountCentavos: 1_050_000, document: '04252011000110', line: 2 },
    ]);
  });
});
