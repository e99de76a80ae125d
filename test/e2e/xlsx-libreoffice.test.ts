import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BatchParseResult, formatProblem } from '../../src/domain/batch.js';
import { readCsvRecords } from '../../src/domain/batchcsv.js';
import { parseBatchSheet } from '../../src/domain/batchsheet.js';
import { InvalidValue } from '../../src/domain/invalid.js';
import { parseAmount } from '../../src/domain/money.js';
import { parsePixKey } from '../../src/domain/pixkey.js';
import { readFirstSheet } from '../../src/domain/xlsxsheet.js';
import { deferEach } from '../helpers/cleanup.js';
import { runProcess } from '../helpers/cli.js';
import { buildWorkbook, HEADER_ROW, inline, num, row, run, shared, str } from '../helpers/workbook.js';

/**
 * The property: for every generated workbook pix accepts, the ids, keys and amounts it pays are what
 * LibreOffice shows in those cells — LibreOffice is the oracle of what a person sees. Workbooks are
 * generated with number formats, text formats, rich and phonetic text, hidden rows, a hidden first sheet
 * and one that opens on another sheet, so that pix accepts some and refuses others; one that has none of
 * those hazards must be accepted. All of them are converted to CSV by one headless LibreOffice (its
 * start-up costs seconds), the cells "as shown".
 *
 * LibreOffice runs in the en-US locale, deliberately: a workbook stores its number formats in en-US
 * notation (`#,##0.00`) and ssf renders them so; in en-US LibreOffice shows the same notation, so its text
 * is read back with one grammar (`,` between thousands, `.` before centavos) with nothing left to guess. In
 * pt-BR it would show `1.234,50`: the same digits in the other notation, one more thing to translate
 * between oracle and pix, while the property is about which digits a person sees.
 */
const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0;
if (!soffice) {
  console.warn(
    'SKIPPED: the LibreOffice oracle test: soffice is not installed (bash scripts/provision-libreoffice.sh)',
  );
}

const WORKBOOKS = 48;
const cleanup = deferEach();

// ---------------------------------------------------------------------------------------------
// The model of a generated workbook, and which of its choices may make a spreadsheet show another thing

type Amount =
  | { kind: 'number'; centavos: number; extraDigit: boolean; format: string }
  | { kind: 'text'; text: string }
  | { kind: 'rich'; runs: string[]; tiny: boolean };
type Key = { text: string; format: string; as: 'inline' | 'shared' | 'phonetic' | 'rich' };
type Id = { kind: 'text' } | { kind: 'number'; format: string };
type Description = { text: string; as: 'plain' | 'bold' | 'tiny' | 'white' } | null;
interface RowModel {
  id: Id;
  key: Key;
  amount: Amount;
  description: Description;
  hidden: 'hidden' | 'zero' | null;
}
interface BookModel {
  rows: RowModel[];
  firstSheet: 'visible' | 'hidden';
  activeTab: 0 | 1;
}

/** Formats under which an amount of at most 2 decimals shows exactly its value. */
const SHOWS_VALUE = [
  'General',
  '0.00',
  '#,##0.00',
  '"R$ "#,##0.00',
  '[$R$-416] #,##0.00',
  '#,##0.00_);(#,##0.00)',
];
/** Formats that may show something else: rounded, scaled, literal, empty, a date, a percent… */
const MAY_NOT = [
  '0',
  '#,##0',
  '0.0',
  '#,##0.00,',
  '"R$ 50,00"',
  ';;;',
  'dd/mm/yyyy',
  '0%',
  '0.00%',
  '0.00E+00',
  '# ?/?',
  '(0.00)',
  '0000',
  '[Red]0',
  '@',
];
const KEY_FORMATS_SAFE = ['General', '@'];
const KEY_FORMATS_NOT = ['@".br"', ';;;', ';;;"x"@'];
const CPFS = ['529.982.247-25', '111.444.777-35', '390.533.447-05'];

/** The arbitraries of a harmless workbook (`risky` false) or of one that may hold any hazard. */
function arbitraries(risky: boolean) {
  const pick = <T>(safe: fc.Arbitrary<T>, hazard: fc.Arbitrary<T>, weight = 1): fc.Arbitrary<T> =>
    risky ? fc.oneof({ weight: 30, arbitrary: safe }, { weight: weight * 10, arbitrary: hazard }) : safe;
  const amount: fc.Arbitrary<Amount> = pick<Amount>(
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('number' as const),
          centavos: fc.oneof(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: 1, max: 9_999_999_999 })),
          extraDigit: fc.constant(false),
          format: fc.constantFrom(...SHOWS_VALUE),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.integer({ min: 1, max: 9_999_999 }).map((c) => ({
          kind: 'text' as const,
          text: `${Math.floor(c / 100)},${String(c % 100).padStart(2, '0')}`,
        })),
      },
    ),
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('number' as const),
          centavos: fc.integer({ min: 1, max: 9_999_999 }),
          extraDigit: fc.boolean(),
          format: fc.constantFrom(...SHOWS_VALUE, ...MAY_NOT),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('rich' as const),
          runs: fc.constant<string[]>(['1', '000']),
          tiny: fc.boolean(),
        }),
      },
    ),
  );
  const key: fc.Arbitrary<Key> = fc.record({
    text: fc.oneof(
      fc.integer({ min: 1, max: 999 }).map((n) => `fornecedor${n}@example.com`),
      fc.constantFrom(...CPFS),
      fc.integer({ min: 10_000_000, max: 99_999_999 }).map((n) => `+55119${n}`),
    ),
    format: pick(fc.constantFrom(...KEY_FORMATS_SAFE), fc.constantFrom(...KEY_FORMATS_NOT)),
    as: pick(
      fc.constantFrom('inline' as const, 'shared' as const, 'phonetic' as const),
      fc.constant('rich' as const),
    ),
  });
  const id: fc.Arbitrary<Id> = pick<Id>(
    fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: 'text' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'number' as const, format: 'General' }) },
    ),
    fc.constant({ kind: 'number' as const, format: '0000' }),
  );
  const description: fc.Arbitrary<Description> = fc.option(
    fc.record({
      text: fc.constantFrom('aluguel', 'nota 12', 'serviços de novembro'),
      as: pick(
        fc.constantFrom('plain' as const, 'bold' as const),
        fc.constantFrom('tiny' as const, 'white' as const),
      ),
    }),
    { nil: null },
  );
  return fc.record({
    rows: fc.array(
      fc.record({
        id,
        key,
        amount,
        description,
        hidden: pick<RowModel['hidden']>(
          fc.constant(null),
          fc.constantFrom('hidden' as const, 'zero' as const),
          0.3,
        ),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    firstSheet: pick<BookModel['firstSheet']>(fc.constant('visible'), fc.constant('hidden'), 0.2),
    activeTab: pick<BookModel['activeTab']>(fc.constant(0), fc.constant(1), 0.2),
  });
}

/** Half the workbooks harmless, half with hazards at random (which may turn out harmless too). */
const book: fc.Arbitrary<BookModel> = fc.boolean().chain((risky) => arbitraries(risky));

/** The amount's value as the cell stores it: centavos as reais, with a third decimal when asked. */
function stored(a: Extract<Amount, { kind: 'number' }>): string {
  const reais = a.centavos / 100;
  return a.extraDigit ? (a.centavos / 100 + 0.005).toFixed(3) : String(reais);
}

/** True when nothing in the workbook may make a spreadsheet show other than pix reads. */
function harmless(model: BookModel): boolean {
  if (model.firstSheet !== 'visible' || model.activeTab !== 0) return false;
  return model.rows.every((r) => {
    const a = r.amount;
    const amountOk =
      a.kind === 'text' ||
      (a.kind === 'number' && !a.extraDigit && SHOWS_VALUE.includes(a.format) && a.centavos < 1e10);
    const keyOk = KEY_FORMATS_SAFE.includes(r.key.format) && r.key.as !== 'rich';
    const idOk = r.id.kind === 'text' || r.id.format === 'General';
    const descriptionOk =
      r.description === null || r.description.as === 'plain' || r.description.as === 'bold';
    return amountOk && keyOk && idOk && descriptionOk && r.hidden === null;
  });
}

function render(model: BookModel): Uint8Array {
  const formats: string[] = [];
  const style = (code: string) => {
    if (code === 'General') return undefined;
    if (!formats.includes(code)) formats.push(code);
    return formats.indexOf(code) + 1;
  };
  const strings: string[] = [];
  const sharedCell = (ref: string, si: string, s?: number) => {
    strings.push(si);
    return shared(ref, strings.length - 1, s);
  };
  const t = (text: string) =>
    `<t xml:space="preserve">${text.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</t>`;
  const rows = model.rows.map((r, index) => {
    const n = index + 2;
    const idCell = r.id.kind === 'text' ? str(`A${n}`, `pg-${n}`) : num(`A${n}`, n, style(r.id.format));
    const ks = style(r.key.format);
    const keyCell =
      r.key.as === 'inline'
        ? str(`B${n}`, r.key.text, ks)
        : r.key.as === 'shared'
          ? sharedCell(`B${n}`, t(r.key.text), ks)
          : r.key.as === 'phonetic'
            ? inline(`B${n}`, `${t(r.key.text)}<rPh sb="0" eb="1">${t('.br')}</rPh>`, ks)
            : inline(`B${n}`, run(r.key.text.slice(0, 3)) + run(r.key.text.slice(3), '<b/>'), ks);
    const a = r.amount;
    const amountCell =
      a.kind === 'number'
        ? num(`C${n}`, stored(a), style(a.format))
        : a.kind === 'text'
          ? str(`C${n}`, a.text)
          : inline(`C${n}`, run(a.runs[0]!) + run(a.runs[1]!, a.tiny ? '<sz val="1"/>' : '<b/>'));
    const d = r.description;
    const descriptionCell =
      d === null
        ? ''
        : d.as === 'plain'
          ? sharedCell(`D${n}`, t(d.text))
          : inline(
              `D${n}`,
              run(d.text.slice(0, 4)) +
                run(
                  d.text.slice(4),
                  { bold: '<b/>', tiny: '<sz val="2"/>', white: '<color rgb="FFFFFFFF"/>' }[d.as],
                ),
            );
    const attributes =
      r.hidden === 'hidden' ? 'hidden="1"' : r.hidden === 'zero' ? 'ht="0" customHeight="1"' : '';
    return row(n, idCell + keyCell + amountCell + descriptionCell, attributes);
  });
  return buildWorkbook({
    formats,
    sharedStrings: strings,
    sheetData: HEADER_ROW + rows.join(''),
    sheets: `<sheet name="Pagamentos" sheetId="1"${model.firstSheet === 'hidden' ? ' state="hidden"' : ''} r:id="rId1"/><sheet name="Notas" sheetId="2" r:id="rId2"/>`,
    bookViews: `<workbookView activeTab="${model.activeTab}"/>`,
  });
}

// ---------------------------------------------------------------------------------------------
// Reading back what LibreOffice shows

/** Centavos of an amount as a person reads LibreOffice's en-US text: its digits, `.` before the decimals. */
function readShownAmount(text: string): number {
  const digits = text.replace(/[^\d.]/g, '');
  const match = /^(\d+)(?:\.(\d+))?$/.exec(digits);
  if (!match) return Number.NaN;
  const fraction = (match[2] ?? '').padEnd(2, '0');
  if (/[1-9]/.test(fraction.slice(2))) return Number.NaN;
  return Number(match[1]) * 100 + Number(fraction.slice(0, 2));
}

/** Sheet row → its fields, from LibreOffice's CSV of the first sheet. */
function csvRows(text: string): Map<number, string[]> {
  const rows = new Map<number, string[]>();
  let n = 0;
  readCsvRecords(text, ',', (record) => {
    n++;
    rows.set(n, record.fields);
  });
  return rows;
}

async function pixReads(bytes: Uint8Array): Promise<BatchParseResult | string> {
  try {
    return parseBatchSheet(await readFirstSheet(bytes));
  } catch (error) {
    if (error instanceof InvalidValue) return error.message;
    throw error;
  }
}

describe('pay batch FILE.xlsx against LibreOffice, the oracle of what a person sees', () => {
  it.skipIf(!soffice)(
    `for ${WORKBOOKS} generated workbooks: what pix pays is what LibreOffice shows; a harmless one is paid (skipped without LibreOffice)`,
    async () => {
      const dir = cleanup.dir();
      const seed = Number(process.env.PIX_PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31));
      const models = fc.sample(book, { numRuns: WORKBOOKS, seed });
      const input = join(dir, 'in');
      const output = join(dir, 'out');
      mkdirSync(input);
      mkdirSync(output);
      const files = models.map((model, i) => {
        const path = join(input, `book${i}.xlsx`);
        writeFileSync(path, render(model));
        return path;
      });
      // One LibreOffice for every workbook, in a profile of its own (another soffice on the machine keeps
      // its own), the first sheet's cells as shown (token 9), UTF-8 (76), `,` and `"`.
      const converted = await runProcess(
        'soffice',
        [
          `-env:UserInstallation=file://${join(dir, 'profile')}`,
          '--headless',
          '--convert-to',
          'csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true,true,false,false,1',
          '--outdir',
          output,
          ...files,
        ],
        {
          env: { PATH: process.env.PATH ?? '', HOME: dir, LC_ALL: 'en_US.UTF-8', LANG: 'en_US.UTF-8' },
          timeoutMs: 170_000,
        },
      );
      expect(converted.code, converted.stderr).toBe(0);
      // The same workbooks saved again by LibreOffice's own xlsx writer: a real application's file (its styles,
      // its extLst) of a harmless workbook must be paid as the original is.
      const resaved = join(dir, 'resaved');
      mkdirSync(resaved);
      const saved = await runProcess(
        'soffice',
        [
          `-env:UserInstallation=file://${join(dir, 'profile')}`,
          '--headless',
          '--convert-to',
          'xlsx:Calc MS Excel 2007 XML',
          '--outdir',
          resaved,
          ...files.filter((_, i) => harmless(models[i]!)),
        ],
        {
          env: { PATH: process.env.PATH ?? '', HOME: dir, LC_ALL: 'en_US.UTF-8', LANG: 'en_US.UTF-8' },
          timeoutMs: 170_000,
        },
      );
      expect(saved.code, saved.stderr).toBe(0);

      let accepted = 0;
      let refused = 0;
      for (const [i, model] of models.entries()) {
        const context = `seed ${seed}, workbook ${i}: ${JSON.stringify(model)}`;
        const result = await pixReads(readFileSync(files[i]!));
        const ok = typeof result !== 'string' && result.ok;
        if (harmless(model)) {
          const again = await pixReads(readFileSync(join(resaved, `book${i}.xlsx`)));
          const rowsOf = (read: BatchParseResult | string) =>
            typeof read === 'string' ? read : read.ok ? read.rows : read.problems.map(formatProblem);
          expect(rowsOf(again), `${context}\nas LibreOffice saved it`).toEqual(rowsOf(result));
          expect(
            ok,
            `${context}\n${typeof result === 'string' ? result : result.ok ? '' : result.problems.map(formatProblem).join('\n')}`,
          ).toBe(true);
        }
        if (!ok || typeof result === 'string') {
          refused++;
          continue;
        }
        accepted++;
        const shown = csvRows(readFileSync(join(output, `book${i}-Pagamentos.csv`), 'utf8'));
        expect(result.rows.length, context).toBe(model.rows.length);
        for (const paid of result.rows) {
          const fields = shown.get(paid.line) ?? [];
          const r = model.rows[paid.line - 2]!;
          expect(fields[0], context).toBe(paid.id);
          expect(paid.target.kind).toBe('key');
          if (paid.target.kind === 'key')
            expect(parsePixKey(fields[1] ?? '').key, context).toBe(paid.target.key);
          const amountShown =
            r.amount.kind === 'number' ? readShownAmount(fields[2] ?? '') : parseAmount(fields[2] ?? '');
          expect(amountShown, `${context}\nLibreOffice shows "${fields[2]}"`).toBe(paid.amount);
          expect((fields[3] ?? '').trim() || undefined, context).toBe(paid.description);
        }
      }
      // The generator's point: both sides of pix's judgement are exercised.
      expect(accepted, `seed ${seed}`).toBeGreaterThan(0);
      expect(refused, `seed ${seed}`).toBeGreaterThan(0);
    },
    240_000,
  );
});
