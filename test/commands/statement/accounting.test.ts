import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../../helpers/cli.js';
import { intercept, mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';
import { readOfx } from '../../helpers/ofx.js';
import { pixWith } from '../../helpers/pix.js';
import { readWorkbook } from '../../helpers/xlsx.js';

const PATH = '/api/financial/v1/account/transactions';
const NOW = new Date('2025-03-10T15:00:00.000Z');
const PINNED = { dateFrom: '2000-01-01T00:00:00.000Z', dateTo: NOW.toISOString() };

const income = {
  id: 'in-1',
  type: 'INCOME',
  amount: 1234.56,
  fee: 0,
  status: 'CONFIRMED',
  method: 'PIX',
  confirmedAt: '2025-03-09T13:04:05.000Z',
  creditor: { name: '=HYPERLINK("http://x","pague")', bank: '001', documentNumber: '01234567890' },
};
const outcome = {
  ...income,
  id: 'out-2',
  type: 'OUTCOME',
  amount: -0.1,
  fee: 1.5,
  creditor: undefined,
  debtor: { name: 'Mercado\u001b[2J Bom', bank: '237', documentNumber: '04252011000110' },
};

const mock = mockAgentPerTest();
let env: Record<string, string>;
let dir: string;
beforeEach(() => {
  dir = tempConfigDir();
  env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: ORIGIN, PIX_TOKEN: 'test-token-xlsx' };
});

const pix = pixWith(() => ({ columns: 80, env, dispatcher: mock.agent, clock: { now: () => NOW } }));

describe('-o xlsx', () => {
  it('statement --all: one typed row per entry, across pages', async () => {
    intercept(mock, PATH, { ...PINNED, limit: '1', offset: '0' }, { total: 2, results: [income] });
    intercept(mock, PATH, { ...PINNED, limit: '1', offset: '1' }, { total: 2, results: [outcome] });
    const result = await pix(['statement', '--all', '--limit', '1', '-o', 'xlsx']);
    expect(result.code, result.stderr).toBe(0);
    const sheet = await readWorkbook(result.stdoutBytes);
    expect(sheet.name).toBe('Statement');
    expect(sheet.rows[0]!.map((cell) => cell.value)).toEqual([
      'confirmedAt',
      'type',
      'amount',
      'fee',
      'method',
      'counterpartyName',
      'counterpartyDocument',
      'counterpartyBank',
      'status',
      'id',
    ]);
    const values = sheet.rows.slice(1).map((row) => row.map((cell) => cell.value));
    expect(values).toEqual([
      [
        new Date('2025-03-09T10:04:05.000Z'), // 13:04 UTC on São Paulo's clock
        'INCOME',
        1234.56,
        0,
        'PIX',
        '=HYPERLINK("http://x","pague")',
        '01234567890',
        '001',
        'CONFIRMED',
        'in-1',
      ],
      [
        new Date('2025-03-09T10:04:05.000Z'),
        'OUTCOME',
        -0.1,
        1.5,
        'PIX',
        'Mercado\\u001b[2J Bom',
        '04252011000110',
        '237',
        'CONFIRMED',
        'out-2',
      ],
    ]);
    expect(sheet.rows[1]![2]!.numFmt).toBe('"R$ "#,##0.00');
    expect(sheet.rows.flat().every((cell) => cell.formula === undefined)).toBe(true);
  });

  it('statement: one page, and the filters, as any list format', async () => {
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 2, results: [income, outcome] });
    const result = await pix(['statement', '--type', 'outcome', '-o', 'xlsx']);
    expect(result.code, result.stderr).toBe(0);
    const sheet = await readWorkbook(result.stdoutBytes);
    expect(sheet.rows.slice(1).map((row) => row[9]!.value)).toEqual(['out-2']);
  });

  it('--output-file: the workbook is written whole to FILE', async () => {
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 2, results: [income, outcome] });
    const file = join(dir, 'statement.xlsx');
    const result = await pix(['statement', '-o', 'xlsx', '--output-file', file], { tty: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toHaveLength(0);
    const sheet = await readWorkbook(readFileSync(file));
    expect(sheet.rows).toHaveLength(3);
  });

  it('--output-file NAME.xlsx|.ofx|.json|.csv picks that format without -o', async () => {
    for (const [name, check] of [
      ['s.xlsx', async (bytes: Buffer) => expect((await readWorkbook(bytes)).rows).toHaveLength(3)],
      ['s.ofx', (bytes: Buffer) => expect(readOfx(bytes.toString('utf8')).transactions).toHaveLength(3)],
      ['s.json', (bytes: Buffer) => expect(JSON.parse(bytes.toString('utf8')).results).toHaveLength(2)],
      ['s.csv', (bytes: Buffer) => expect(bytes.toString('utf8')).toMatch(/^confirmedAt,type,amount,/)],
    ] as const) {
      intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 2, results: [income, outcome] });
      const file = join(dir, name);
      const result = await pix(['statement', '--output-file', file]);
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      await check(readFileSync(file));
    }
  });

  it('an -o that disagrees with the file name, or a format the command lacks, is exit 2 naming both; nothing is read', async () => {
    const wrong = await pix(['statement', '-o', 'csv', '--output-file', join(dir, 's.xlsx')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^error: --output-file: .*s\.xlsx names xlsx, and -o says csv\n/);
    const lacking = await pix(['statement', '--output-file', join(dir, 's.pdf')]);
    expect(lacking.code).toBe(2);
    expect(lacking.stderr).toMatch(/s\.pdf names pdf, and pix statement has no pdf output/);
    const br = await pix(['statement', '-o', 'csv-br', '--output-file', join(dir, 'b.xlsx')]);
    expect(br.code).toBe(2);
    expect(mock.agent.pendingInterceptors()).toEqual([]);
  });

  it('a terminal gets a refusal, not binary, and nothing is read', async () => {
    const result = await pix(['statement', '-o', 'xlsx'], { tty: true });
    expect(result.code).toBe(2);
    expect(result.stdout).toHaveLength(0);
    expect(result.stderr).toMatch(/^error: -o: xlsx is a binary workbook, not for a terminal\n/);
    expect(result.stderr).toContain('--output-file FILE.xlsx');
    expect(mock.agent.pendingInterceptors()).toEqual([]);
  });

  it('--follow refuses a workbook, which would never be complete', async () => {
    const result = await pix(['statement', '--follow', '-o', 'xlsx']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--follow: cannot write -o xlsx, a document that would never be complete',
    );
  });

  it('statement summary: periods as numbers in R$', async () => {
    const february = { dateFrom: '2025-02-01T03:00:00.000Z', dateTo: '2025-03-01T02:59:59.999Z' };
    const inFebruary = { confirmedAt: '2025-02-09T13:04:05.000Z' };
    intercept(
      mock,
      PATH,
      { ...february, limit: '100', offset: '0' },
      {
        total: 2,
        results: [
          { ...income, ...inFebruary },
          { ...outcome, ...inFebruary },
        ],
      },
    );
    const result = await pix(['statement', 'summary', '--month', '2025-02', '--by', 'month', '-o', 'xlsx']);
    expect(result.code, result.stderr).toBe(0);
    const sheet = await readWorkbook(result.stdoutBytes);
    expect(sheet.name).toBe('Summary');
    expect(sheet.rows[0]!.map((cell) => cell.value)).toEqual([
      'period',
      'count',
      'income',
      'outcome',
      'fees',
      'net',
    ]);
    expect(sheet.rows[1]!.slice(1).map((cell) => cell.value)).toEqual([2, 1234.56, -0.1, 1.5, 1232.96]);
  });

  it('journal: an empty journal is a workbook with its header', async () => {
    const result = await pix(['journal', '-o', 'xlsx']);
    expect(result.code, result.stderr).toBe(0);
    const sheet = await readWorkbook(result.stdoutBytes);
    expect(sheet.name).toBe('Journal');
    expect(sheet.rows).toHaveLength(1);
  });
});

describe('-o ofx', () => {
  it('statement --all: every entry once, its fee apart, the pinned period, the profile as the account', async () => {
    intercept(mock, PATH, { ...PINNED, limit: '1', offset: '0' }, { total: 2, results: [income] });
    intercept(mock, PATH, { ...PINNED, limit: '1', offset: '1' }, { total: 2, results: [outcome] });
    const result = await pix(['statement', '--all', '--limit', '1', '-o', 'ofx']);
    expect(result.code, result.stderr).toBe(0);
    const ofx = readOfx(result.stdout);
    expect(ofx.validation.isValid).toBe(true);
    expect(ofx.transactions.map((t) => [t.TRNTYPE, t.TRNAMT, t.FITID])).toEqual([
      ['CREDIT', '1234.56', 'in-1'],
      ['DEBIT', '-0.10', 'out-2'],
      ['FEE', '-1.50', 'out-2:fee'],
    ]);
    // --all pinned 2000-01-01T00:00Z (21:00 on the 31st in São Paulo) to the start of the export.
    expect(ofx.period).toEqual(['1999-12-31', '2025-03-10']);
    expect(ofx.account.ACCTID).toBe('sandbox'); // the profile in use (PIX_BASE_URL only moves its API)
  });

  it('one page with a range: the range is the period; the filters apply', async () => {
    const range = { dateFrom: '2025-03-01T03:00:00.000Z', dateTo: '2025-03-10T02:59:59.999Z' };
    intercept(mock, PATH, { ...range, limit: '10', offset: '0' }, { total: 2, results: [income, outcome] });
    const result = await pix([
      'statement',
      '--from',
      '2025-03-01',
      '--to',
      '2025-03-09',
      '--type',
      'income',
      '-o',
      'ofx',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const ofx = readOfx(result.stdout);
    expect(ofx.transactions.map((t) => t.FITID)).toEqual(['in-1']);
    expect(ofx.period).toEqual(['2025-03-01', '2025-03-09']);
  });

  it('only the statement writes OFX: elsewhere it is exit 2 naming the formats, nothing sent', async () => {
    for (const argv of [['statement', 'summary'], ['keys'], ['journal']]) {
      const result = await pix([...argv, '-o', 'ofx']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`-o: pix ${argv.join(' ')} has no ofx output`);
    }
    const follow = await pix(['statement', '--follow', '-o', 'ofx']);
    expect(follow.code).toBe(2);
    expect(follow.stderr).toContain('--follow: cannot write -o ofx');
  });
});

describe('-o csv-br and -o csv', () => {
  it('csv-br: one BOM, ; between fields, decimal commas, day-first dates, formulas guarded, across pages', async () => {
    intercept(mock, PATH, { ...PINNED, limit: '1', offset: '0' }, { total: 2, results: [income] });
    intercept(mock, PATH, { ...PINNED, limit: '1', offset: '1' }, { total: 2, results: [outcome] });
    const result = await pix(['statement', '--all', '--limit', '1', '-o', 'csv-br']);
    expect(result.code, result.stderr).toBe(0);
    const text = result.stdout;
    // For people: Portuguese names and values (output/ptbr.ts); -o csv below keeps the English ones.
    expect(text.startsWith('\ufeffData;Tipo;Valor;Tarifa;')).toBe(true);
    expect(text.lastIndexOf('\ufeff')).toBe(0);
    // Documents and bank codes as text a spreadsheet keeps (001 stays 001, a CNPJ is no 4,25E+12).
    expect(text.split('\r\n').slice(1, 3)).toEqual([
      `09/03/2025 10:04:05;Entrada;1234,56;0,00;PIX;"'=HYPERLINK(""http://x"",""pague"")";012.345.678-90;001 Banco do Brasil S.A.;Confirmado;in-1`,
      '09/03/2025 10:04:05;Saída;-0,10;1,50;PIX;Mercado\\u001b[2J Bom;04.252.011/0001-10;237 Banco Bradesco S.A.;Confirmado;out-2',
    ]);
  });

  it('csv: the exact data a script reads back, formula-looking text and all', async () => {
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 1, results: [income] });
    const result = await pix(['statement', '-o', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\r\n')[1]).toBe(
      '2025-03-09T13:04:05.000Z,INCOME,1234.56,0.00,PIX,"=HYPERLINK(""http://x"",""pague"")",01234567890,001,CONFIRMED,in-1',
    );
  });
});
