/**
 * LibreOffice as the oracle of what a person's spreadsheet shows: a workbook is opened by LibreOffice
 * headless in a Brazilian Portuguese locale and saved as flat ODF, whose cells say what LibreOffice read
 * (`float`, `date`, `string`…) and show the text it displays (`R$ 1.234,56`, `26/11/2026 02:58:00`).
 * Absent LibreOffice (`soffice` not on PATH: scripts/provision-libreoffice.sh installs it), `soffice()` is
 * undefined and the tests that need it skip saying so.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sax from 'sax';
import { runProcess } from './cli.js';

export const NO_LIBREOFFICE =
  'LibreOffice (soffice) is not installed: the spreadsheet oracle is skipped (scripts/provision-libreoffice.sh installs it)';

/** The path of soffice, or undefined when LibreOffice is not installed. */
export function soffice(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v soffice || command -v libreoffice'], { encoding: 'utf8' });
  const path = found.stdout.trim().split('\n')[0];
  return found.status === 0 && path ? path : undefined;
}

export interface OfficeCell {
  /** What LibreOffice read the cell as: float, currency, percentage, date, time, boolean, string, or '' (empty). */
  type: string;
  /** The value LibreOffice keeps (a number's, a date's ISO text); undefined for text. */
  value: string | undefined;
  /** The text it shows. */
  text: string;
}

export interface OfficeSheet {
  name: string;
  rows: OfficeCell[][];
}

/** Opens `xlsx` in LibreOffice (pt-BR) and returns each sheet's cells as it shows them. */
export async function openInLibreOffice(path: string, xlsx: Uint8Array): Promise<OfficeSheet[]> {
  const work = mkdtempSync(join(tmpdir(), 'pix-libreoffice-'));
  try {
    const input = join(work, 'book.xlsx');
    writeFileSync(input, xlsx);
    // A profile of its own: another LibreOffice running on the machine must not take the conversion.
    const profile = pathToFileURL(join(work, 'profile')).href;
    const result = await runProcess(
      path,
      [`-env:UserInstallation=${profile}`, '--headless', '--convert-to', 'fods', '--outdir', work, input],
      {
        env: { PATH: process.env.PATH ?? '', HOME: work, LANG: 'pt_BR.UTF-8', LC_ALL: 'pt_BR.UTF-8' },
        timeoutMs: 120_000,
      },
    );
    if (result.code !== 0) throw new Error(`soffice exited ${result.code}: ${result.stderr}`);
    return readFlatOds(readFileSync(join(work, 'book.fods'), 'utf8'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function readFlatOds(xml: string): OfficeSheet[] {
  const sheets: OfficeSheet[] = [];
  const parser = sax.parser(true, {});
  let sheet: OfficeSheet | undefined;
  let row: OfficeCell[] | undefined;
  let cell: (OfficeCell & { repeat: number }) | undefined;
  let paragraphs: string[] = [];
  let inText = false;
  parser.onopentag = (tag) => {
    const a = tag.attributes as Record<string, string>;
    if (tag.name === 'table:table') {
      sheet = { name: a['table:name'] ?? '', rows: [] };
      sheets.push(sheet);
    } else if (tag.name === 'table:table-row') row = [];
    else if (tag.name === 'table:table-cell' || tag.name === 'table:covered-table-cell') {
      const type = a['office:value-type'] ?? '';
      const value =
        a['office:value'] ?? a['office:date-value'] ?? a['office:time-value'] ?? a['office:boolean-value'];
      cell = { type, value, text: '', repeat: Number(a['table:number-columns-repeated'] ?? 1) };
      paragraphs = [];
    } else if (tag.name === 'text:p') {
      inText = true;
      paragraphs.push('');
    }
  };
  parser.ontext = (text) => {
    if (inText && cell) paragraphs[paragraphs.length - 1] += text;
  };
  parser.onclosetag = (name) => {
    if (name === 'text:p') inText = false;
    else if ((name === 'table:table-cell' || name === 'table:covered-table-cell') && cell && row) {
      cell.text = paragraphs.join('\n');
      for (let i = 0; i < Math.min(cell.repeat, 1_024); i++)
        row.push({ type: cell.type, value: cell.value, text: cell.text });
      cell = undefined;
    } else if (name === 'table:table-row' && row && sheet) {
      // The empty cells that run to the sheet's last column are not the row's.
      while (row.length > 0 && row.at(-1)!.type === '' && row.at(-1)!.text === '') row.pop();
      if (row.length > 0) sheet.rows.push(row);
      row = undefined;
    }
  };
  parser.write(xml).close();
  return sheets;
}
