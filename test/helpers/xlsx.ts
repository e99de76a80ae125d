import ExcelJS from 'exceljs';

/** A cell as a reader that is not pix's sees it (exceljs): its value and its number format. */
export interface ReadCell {
  value: unknown;
  numFmt: string | undefined;
  formula: string | undefined;
}

export interface ReadSheet {
  name: string;
  /** Rows from the header (row 1), each cell by column order. */
  rows: ReadCell[][];
  frozenRows: number;
}

/** Reads the first sheet of a workbook with exceljs: an independent check of what pix writes. */
export async function readWorkbook(bytes: Buffer): Promise<ReadSheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0]!;
  const rows: ReadCell[][] = [];
  const columns = sheet.columnCount; // computed over every row on each call
  sheet.eachRow({ includeEmpty: true }, (row) => {
    const cells: ReadCell[] = [];
    for (let i = 1; i <= columns; i++) {
      const cell = row.getCell(i);
      cells.push({
        value: cell.value,
        numFmt: cell.numFmt,
        formula: cell.formula,
      });
    }
    rows.push(cells);
  });
  const view = sheet.views[0] as { ySplit?: number } | undefined;
  return { name: sheet.name, rows, frozenRows: view?.ySplit ?? 0 };
}
