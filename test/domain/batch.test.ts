import { describe, expect, it } from 'vitest';
import {
  type BatchParseResult,
  type BatchProblem,
  type BatchRow,
  batchFormatFor,
  emvHash,
  formatProblem,
} from '../../src/domain/batch.js';
import { parseBatchFile } from '../../src/domain/batchtext.js';
import { encodeBrCode } from '../../src/domain/brcodeencode.js';
import { hashEmv } from '../../src/journal/entries.js';
import { DYNAMIC_CODE, STATIC_CODE } from '../helpers/brcodes.js';

const FIXED_CODE = encodeBrCode({
  pixKey: 'loja@example.com',
  amount: 25_90,
  merchantName: 'Loja da Esquina',
  merchantCity: 'SAO PAULO',
});
const BAD_CRC = `${STATIC_CODE.slice(0, -4)}0000`;
const EVP = '71c7d9be-4b85-4e43-9f1c-1f3b8b4e9a2d';

function rowsOf(result: BatchParseResult): BatchRow[] {
  if (!result.ok)
    throw new Error(`expected no problems, got:\n${result.problems.map(formatProblem).join('\n')}`);
  return result.rows;
}

function problemsOf(result: BatchParseResult): string[] {
  if (result.ok) throw new Error('expected problems, the file was accepted');
  return result.problems.map(formatProblem);
}

const csv = (text: string) => parseBatchFile(text, 'csv');
const ndjson = (lines: unknown[]) =>
  parseBatchFile(
    lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'),
    'ndjson',
  );

describe('parseBatchFile — CSV rows', () => {
  it('reads key rows: key normalised by the key parser, amount in centavos, description, line', () => {
    const rows = rowsOf(
      csv(
        [
          'id,key,amount,description',
          'inv-1,123.456.789-09,10.50,Reembolso',
          'inv-2,11.222.333/0001-81,"1234,56",',
          'inv-3,Ana.Souza@Example.COM,7,Comissão março',
          'inv-4,+55 (11) 91234-5678,0.01,',
          `inv_5.x,${EVP.toUpperCase()},99,`,
        ].join('\n'),
      ),
    );
    expect(rows).toEqual([
      {
        id: 'inv-1',
        line: 2,
        target: { kind: 'key', key: '12345678909', keyType: 'CPF' },
        amount: 10_50,
        description: 'Reembolso',
      },
      {
        id: 'inv-2',
        line: 3,
        target: { kind: 'key', key: '11222333000181', keyType: 'CNPJ' },
        amount: 1234_56,
      },
      {
        id: 'inv-3',
        line: 4,
        target: { kind: 'key', key: 'ana.souza@example.com', keyType: 'EMAIL' },
        amount: 7_00,
        description: 'Comissão março',
      },
      { id: 'inv-4', line: 5, target: { kind: 'key', key: '+5511912345678', keyType: 'PHONE' }, amount: 1 },
      { id: 'inv_5.x', line: 6, target: { kind: 'key', key: EVP, keyType: 'EVP' }, amount: 99_00 },
    ]);
  });

  it('reads emv rows: static with and without an amount, dynamic; hash as the journal keeps it', () => {
    const rows = rowsOf(
      csv(
        ['id,emv,amount', `a,${STATIC_CODE},12.00`, `b,${FIXED_CODE},`, `c,  ${DYNAMIC_CODE}  ,`].join('\n'),
      ),
    );
    expect(rows).toEqual([
      {
        id: 'a',
        line: 2,
        target: { kind: 'emv', emv: STATIC_CODE, emvHash: hashEmv(STATIC_CODE), dynamic: false },
        amount: 12_00,
      },
      {
        id: 'b',
        line: 3,
        target: {
          kind: 'emv',
          emv: FIXED_CODE,
          emvHash: hashEmv(FIXED_CODE),
          dynamic: false,
          fixedAmount: 25_90,
        },
        amount: 25_90,
      },
      {
        id: 'c',
        line: 4,
        target: { kind: 'emv', emv: DYNAMIC_CODE, emvHash: hashEmv(DYNAMIC_CODE), dynamic: true },
        amount: undefined,
      },
    ]);
  });

  it('takes a dynamic code with an amount as the amount expected', () => {
    const [row] = rowsOf(csv(`id,emv,amount\nd,${DYNAMIC_CODE},42`));
    expect(row?.amount).toBe(42_00);
  });

  it('takes a code whose field 01 is 12 as dynamic even with a key', () => {
    const code = encodeBrCode({
      pixKey: 'loja@example.com',
      merchantName: 'L',
      merchantCity: 'C',
      pointOfInitiation: '12',
    });
    const [row] = rowsOf(csv(`id,emv,amount\nd,${code},5`));
    expect(row?.target).toMatchObject({ kind: 'emv', dynamic: true });
  });

  it('mixes key and emv rows under one header', () => {
    const rows = rowsOf(
      csv(['id,key,emv,amount,description', `k,${EVP},,10,Aluguel`, `e,,${FIXED_CODE},,`].join('\n')),
    );
    expect(rows.map((row) => [row.id, row.target.kind, row.amount])).toEqual([
      ['k', 'key', 10_00],
      ['e', 'emv', 25_90],
    ]);
  });

  it('gives the same rows whatever the column order, case and spacing of the header', () => {
    const a = rowsOf(csv(`id,key,amount,description\nx,${EVP},10,Hi`));
    const b = rowsOf(csv(` Description ,AMOUNT, Key,Id\nHi,10,${EVP},x`));
    expect(b).toEqual(a);
  });

  it('tolerates a BOM, CRLF, blank lines and rows of empty cells; trims cells', () => {
    const rows = rowsOf(
      csv(`\uFEFF\r\nid,key,amount\r\n\r\n  a , ${EVP} , 10 \r\n,,\r\n   \r\nb,${EVP},11\r\n`),
    );
    expect(rows.map((row) => [row.id, row.line, row.amount])).toEqual([
      ['a', 4, 10_00],
      ['b', 7, 11_00],
    ]);
  });

  it('reads a semicolon file, where 10,50 needs no quotes', () => {
    const rows = rowsOf(csv(`id;key;amount;description\na;${EVP};10,50;Comissão, março`));
    expect(rows[0]).toMatchObject({ amount: 10_50, description: 'Comissão, março' });
  });

  it('counts the lines of quoted line breaks in the line numbers', () => {
    const result = csv(`id,key,amount,description\na,${EVP},1,"two\nlines"\nb,${EVP},x,`);
    expect(problemsOf(result)).toEqual([
      'line 2 (id a): description: contains a line break, a control or an invisible direction character',
      'line 4 (id b): amount: "x" is not an amount in reais',
    ]);
  });

  it('accepts a header without rows (nothing to pay)', () => {
    expect(csv('id,key,amount\n')).toEqual({ ok: true, rows: [], warnings: [] });
  });
});

describe('parseBatchFile — CSV header problems', () => {
  it('reports an empty file', () => {
    expect(problemsOf(csv(''))).toEqual([
      'line 1: the file is empty: its first line must be a header, e.g. id,key,amount,description',
    ]);
    expect(problemsOf(csv('\n\n'))).toHaveLength(1);
  });

  it('reports unknown, repeated, unnamed and missing columns, all at once, and checks no row', () => {
    const result = csv(`Id,key,price,KEY,,notes\n1,${EVP},10,x,y,z`);
    const columns = 'columns: id, key, key_type, emv, amount, description, document, name';
    expect(problemsOf(result)).toEqual([
      `line 1: price: unknown column (${columns}, or in Portuguese; or name yours with --map key=…,amount=…)`,
      'line 1: key: the column appears twice in the header',
      `line 1: column 5 of the header has no name (${columns}; or name yours with --map key=…,amount=…)`,
      `line 1: notes: unknown column (${columns}, or in Portuguese; or name yours with --map key=…,amount=…)`,
      'line 1: amount: missing column: key payments need an amount',
    ]);
    expect(result).toMatchObject({ ok: false, rowsRead: 0 });
  });

  it('reads Portuguese headers in any case and accents, and document and name columns', () => {
    const result = csv(
      `ID;Chave;VALOR;Descrição;Documento;nome\n1;${EVP};10,50;Aluguel;111.444.777-35;José da Silva\n`,
    );
    expect(result).toMatchObject({
      ok: true,
      rows: [
        {
          id: '1',
          amount: 1050,
          description: 'Aluguel',
          expect: { document: '11144477735', name: 'José da Silva' },
        },
      ],
    });
  });

  it('needs id, and key or emv', () => {
    expect(problemsOf(csv('amount,description\n1,x'))).toEqual([
      'line 1: id: missing column',
      'line 1: key: missing column: the header needs key or emv (or both)',
    ]);
  });

  it('lets an emv-only file leave out the amount column', () => {
    expect(rowsOf(csv(`id,emv\nf,${FIXED_CODE}`))).toHaveLength(1);
  });

  it('reports a header whose quoting is broken', () => {
    expect(problemsOf(csv('id,"key\n1,2'))).toEqual([
      'line 1: header: a quoted field opened on line 1 is never closed',
    ]);
  });
});

describe('parseBatchFile — CSV row problems', () => {
  it('collects every problem of every row, in line order, naming line, id and column', () => {
    const text = [
      'id,key,amount,description',
      `ok-1,${EVP},10,`,
      'bad-cpf,123.456.789-00,10,',
      `no-amount,${EVP},,`,
      `bad amount!,${EVP},10.505,`,
      ',+5511912345678,-1,',
      `ok-1,${EVP},0,`,
      `${'x'.repeat(65)},${EVP},10,`,
      'two,,,',
      `long,${EVP},1,${'d'.repeat(141)}`,
      `ctl,${EVP},1,"bell\u0007"`,
      `bidi,${EVP},1,pay \u202Eevil`,
    ].join('\n');
    const result = csv(text);
    expect(problemsOf(result)).toEqual([
      'line 3 (id bad-cpf): key: "123.456.789-00" is not a valid CPF: check digits do not match',
      'line 4 (id no-amount): amount: required for a key payment',
      'line 5: id: "bad amount!" may contain only letters, digits, ".", "_" and "-"',
      'line 5: amount: "10.505" is ambiguous: a thousands separator, or a third decimal (amounts have two)? For 10505 reais write 10505 or 10.505,00',
      'line 6: id: required',
      'line 6: amount: "-1" is negative; amounts are positive reais',
      'line 7 (id ok-1): id: "ok-1" is already the id of line 2',
      'line 7 (id ok-1): amount: "0" must be more than zero',
      'line 8: id: 65 characters; at most 64',
      'line 9 (id two): key: a row needs a key or an emv code',
      'line 10 (id long): description: 141 characters; at most 140',
      'line 11 (id ctl): description: contains a line break, a control or an invisible direction character',
      'line 12 (id bidi): description: contains a line break, a control or an invisible direction character',
    ]);
    expect(result).toMatchObject({ rowsRead: 11 });
  });

  it('a key_type (or keyType) column names the type of a key row: 11 digits read as a phone when it says phone', () => {
    const rows = rowsOf(
      csv(`id,key,key_type,amount\na,55956510081,phone,1\nb,52998224725,,2\nc,52998224725,CPF,3`),
    );
    expect(rows.map((row) => row.target)).toEqual([
      { kind: 'key', key: '+5555956510081', keyType: 'PHONE' },
      { kind: 'key', key: '52998224725', keyType: 'CPF' },
      { kind: 'key', key: '52998224725', keyType: 'CPF' },
    ]);
    const json = parseBatchFile('{"id":"a","key":"55956510081","keyType":"phone","amount":"1"}', 'ndjson');
    expect(json.ok && json.rows[0]!.target).toEqual({ kind: 'key', key: '+5555956510081', keyType: 'PHONE' });
    expect(
      problemsOf(
        csv(
          `id,key,key_type,amount\na,ana@example.com,cpf,1\nb,ana@example.com,pix,1\nc,52998224725,phone,1`,
        ),
      ),
    ).toEqual([
      'line 2 (id a): key: "ana@example.com" is not a CPF: only digits, dots and a dash are allowed',
      'line 3 (id b): key_type: "pix" is not a key type (cpf, cnpj, phone, email, evp)',
      'line 4 (id c): key: "52998224725" is not a Brazilian mobile number (area code, then 9 digits starting with 9)',
    ]);
    expect(problemsOf(csv(`id,emv,key_type\na,${FIXED_CODE},cpf`))).toEqual([
      'line 1: key_type: names the type of a key: the header needs key too',
    ]);
    expect(problemsOf(csv(`id,key,emv,key_type,amount\na,,${FIXED_CODE},cpf,`))).toEqual([
      'line 2 (id a): key_type: names the type of a key; an emv row has none',
    ]);
  });

  it('takes 11 digits for a CPF, never for a phone: a CPF typo must not pay a phone key', () => {
    // 55956510081 is not a valid CPF but is a valid mobile number (area code 55).
    expect(problemsOf(csv(`id,key,amount\na,55956510081,1\nb,559.565.100-81,1`))).toEqual([
      'line 2 (id a): key: "55956510081" is not a valid CPF: check digits do not match; a phone is written +55… (+5555956510081)',
      'line 3 (id b): key: "559.565.100-81" is not a valid CPF: check digits do not match',
    ]);
    const rows = rowsOf(csv(`id,key,amount\na,+55 55 95651-0081,1\nb,(55) 95651-0081,1\nc,5555956510081,1`));
    expect(rows.map((row) => row.target)).toEqual([
      { kind: 'key', key: '+5555956510081', keyType: 'PHONE' },
      { kind: 'key', key: '+5555956510081', keyType: 'PHONE' },
      { kind: 'key', key: '+5555956510081', keyType: 'PHONE' },
    ]);
  });

  it('reports a duplicate id even when the first row with it had problems', () => {
    expect(problemsOf(csv(`id,key,amount\nx,bad,10\nx,${EVP},10`))).toEqual([
      expect.stringMatching(/^line 2 \(id x\): key: "bad" is not a PIX key/),
      'line 3 (id x): id: "x" is already the id of line 2',
    ]);
  });

  it('applies the amount rules of each kind of code', () => {
    const text = [
      'id,key,emv,amount,description',
      `both,${EVP},${STATIC_CODE},10,`,
      `static-no-amount,,${STATIC_CODE},,`,
      `fixed-with-amount,,${FIXED_CODE},25.90,`,
      `emv-description,,${FIXED_CODE},,Thanks`,
      `broken,,${BAD_CRC},10,`,
      `dyn-1,,${DYNAMIC_CODE},,`,
      `dyn-2,,${DYNAMIC_CODE},,`,
    ].join('\n');
    const problems = problemsOf(csv(text));
    expect(problems).toEqual([
      'line 2 (id both): key: a row pays either a key or an emv code, not both',
      'line 3 (id static-no-amount): amount: required: this code lets the payer choose the amount',
      'line 4 (id fixed-with-amount): amount: this code fixes the amount (R$ 25,90): leave the column empty',
      'line 5 (id emv-description): description: only key payments take a description (the API refuses one for a QR code)',
      expect.stringMatching(
        /^line 6 \(id broken\): emv: CRC mismatch: code ends in 0000, content gives [0-9A-F]{4}$/,
      ),
      'line 8 (id dyn-2): emv: the same dynamic code is on line 7: it can be paid only once',
    ]);
  });

  it('says how many fields a row has, with the comma hint when there are too many', () => {
    expect(problemsOf(csv(`id,key,amount\na,${EVP},10,50\nb,${EVP}`))).toEqual([
      'line 2 (id a): 4 fields, the header has 3: a value with a comma (like 10,50) must be in double quotes, or use ; between fields',
      'line 3 (id b): 2 fields, the header has 3',
    ]);
    // The id is named only where no comma before it could have shifted it.
    expect(problemsOf(csv(`key,amount,id\n${EVP},10,50,a`))).toEqual([
      'line 2: 4 fields, the header has 3: a value with a comma (like 10,50) must be in double quotes, or use ; between fields',
    ]);
  });

  // `a1,ana@example.com,10,50` under `id,key,amount,description` paid R$ 10,00 (the 50 became the
  // description), and `10,500` did the same with "500": a whole amount followed by a field of one to three
  // digits could be an unquoted 10,50 or 10,500 split by the comma: refused, naming line and id.
  it('refuses a whole amount followed by a field of one to three digits in a comma file as ambiguous', () => {
    const result = csv(
      [
        'id,key,amount,description',
        'a1,ana@example.com,10,50',
        'a2,ana@example.com,R$ 7,5',
        'a3,ana@example.com,1.234,56',
        'a4,ana@example.com,10,Rent',
        'a5,ana@example.com,10.00,50',
        'a6,ana@example.com,"10,50",',
        'a7,ana@example.com,10,500',
        'a8,ana@example.com,10,',
      ].join('\n'),
    );
    expect(problemsOf(result)).toEqual([
      'line 2 (id a1): amount: "10" then "50" in the next field: an unquoted 10,50 split in two by the comma, or 10 and description "50"? Write "10,50" in double quotes (or 10.50), or 10.00 if the description is 50 (or "50" in double quotes); or use ; between fields',
      'line 3 (id a2): amount: "R$ 7" then "5" in the next field: an unquoted R$ 7,5 split in two by the comma, or R$ 7 and description "5"? Write "R$ 7,5" in double quotes (or 7.5), or 7.00 if the description is 5 (or "5" in double quotes); or use ; between fields',
      'line 4 (id a3): amount: "1.234" then "56" in the next field: an unquoted 1.234,56 split in two by the comma, or 1.234 and description "56"? Write "1.234,56" in double quotes (or 1234.56), or 1234.00 if the description is 56 (or "56" in double quotes); or use ; between fields',
      'line 8 (id a7): amount: "10" then "500" in the next field: an unquoted 10,500 split in two by the comma, or 10 and description "500"? Write the amount you mean in double quotes ("10,50" or "10.500,00"), or 10.00 if the description is 500 (or "500" in double quotes); or use ; between fields',
    ]);
  });

  it('pays what the row says when the split is not possible: text, decimals, quotes, four digits', () => {
    const rows = rowsOf(
      csv(
        [
          'id,key,amount,description',
          'a4,ana@example.com,10,Rent',
          'a5,ana@example.com,10.00,50',
          'a6,ana@example.com,"10,50",',
          'a7,ana@example.com,10,"500"',
          'a8,ana@example.com,10,',
          'a9,ana@example.com,"10",500',
          'b1,ana@example.com,10,5000',
        ].join('\n'),
      ),
    );
    expect(rows.map((row) => [row.id, row.amount, row.description])).toEqual([
      ['a4', 10_00, 'Rent'],
      ['a5', 10_00, '50'],
      ['a6', 10_50, undefined],
      ['a7', 10_00, '500'],
      ['a8', 10_00, undefined],
      ['a9', 10_00, '500'],
      ['b1', 10_00, '5000'],
    ]);
    // A semicolon file has no such split: 10;50 is 10 and a description.
    const [row] = rowsOf(csv('id;key;amount;description\na1;ana@example.com;10;50'));
    expect([row?.amount, row?.description]).toEqual([10_00, '50']);
  });

  it('names the column the digits fell into, whatever the header order', () => {
    expect(problemsOf(csv(`id,amount,key\na1,10,50`))).toEqual([
      'line 2 (id a1): amount: "10" then "50" in the next field: an unquoted 10,50 split in two by the comma, or 10 and key "50"? Write "10,50" in double quotes (or 10.50), or 10.00 if the key is 50 (or "50" in double quotes); or use ; between fields',
    ]);
    expect(problemsOf(csv(`key,amount,id\nana@example.com,10,500`))).toEqual([
      'line 2: amount: "10" then "500" in the next field: an unquoted 10,500 split in two by the comma, or 10 and id "500"? Write the amount you mean in double quotes ("10,50" or "10.500,00"), or 10.00 if the id is 500 (or "500" in double quotes); or use ; between fields',
    ]);
    // The amount last: the split makes a field too many, refused as such.
    expect(problemsOf(csv(`id,key,amount\na1,ana@example.com,10,500`))).toEqual([
      'line 2 (id a1): 4 fields, the header has 3: a value with a comma (like 10,50) must be in double quotes, or use ; between fields',
    ]);
  });

  it('reports broken quoting on its row and checks the others', () => {
    expect(problemsOf(csv(`id,key,amount\na,"${EVP}"x,10\nb,bad,10`))).toEqual([
      'line 2: field 2 has text after its closing quote',
      expect.stringMatching(/^line 3 \(id b\): key: "bad" is not a PIX key/),
    ]);
  });

  it('accepts ids that differ only in case (they are different ids)', () => {
    expect(rowsOf(csv(`id,key,amount\nA,${EVP},1\na,${EVP},2`))).toHaveLength(2);
  });
});

describe('parseBatchFile — warnings', () => {
  it('warns about the same key or static code with the same amount on two rows, not about others', () => {
    const result = csv(
      [
        'id,key,emv,amount',
        `a,${EVP},,10`,
        `b,${EVP.toUpperCase()},,10.00`,
        `c,${EVP},,11`,
        `d,,${STATIC_CODE},5`,
        `e,,${STATIC_CODE},5`,
        `f,,${FIXED_CODE},`,
      ].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(result.ok && result.warnings.map(formatProblem)).toEqual([
      'line 3 (id b): key: the same key and amount (R$ 10,00) as line 2 (id a): both rows are paid',
      'line 6 (id e): emv: the same code and amount (R$ 5,00) as line 5 (id d): both rows are paid',
    ]);
  });
});

describe('parseBatchFile — NDJSON', () => {
  it('reads the same fields; amounts as strings or numbers; null is absent; blank lines skipped', () => {
    const rows = rowsOf(
      ndjson([
        { id: 'a', key: EVP, amount: '10,50', description: 'Aluguel' },
        '',
        { ID: 'b', Key: EVP, amount: 1234.56, description: null },
        { id: 'c', emv: FIXED_CODE, amount: null },
        { id: 'd', key: EVP, amount: 7 },
        { id: 'e', key: EVP, amount: 0.1 },
      ]),
    );
    expect(rows.map((row) => [row.id, row.line, row.amount, row.description])).toEqual([
      ['a', 1, 10_50, 'Aluguel'],
      ['b', 3, 1234_56, undefined],
      ['c', 4, 25_90, undefined],
      ['d', 5, 7_00, undefined],
      ['e', 6, 10, undefined],
    ]);
  });

  it('tolerates a BOM and CRLF', () => {
    const text = `\uFEFF${JSON.stringify({ id: 'a', key: EVP, amount: 1 })}\r\n\r\n${JSON.stringify({ id: 'b', key: EVP, amount: 2 })}\r\n`;
    expect(rowsOf(parseBatchFile(text, 'ndjson')).map((row) => [row.id, row.line])).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
  });

  it('reads a JSON number amount only when it prints with at most 2 decimals', () => {
    expect(
      problemsOf(
        ndjson([
          { id: 'a', key: EVP, amount: 0.1 + 0.2 },
          { id: 'b', key: EVP, amount: 10.005 },
          { id: 'c', key: EVP, amount: 1e21 },
          { id: 'd', key: EVP, amount: -5 },
          { id: 'e', key: EVP, amount: 0 },
        ]),
      ),
    ).toEqual([
      'line 1 (id a): amount: the JSON number 0.30000000000000004 has more than 2 decimals: write the amount as a string, e.g. "10.50"',
      'line 2 (id b): amount: the JSON number 10.005 has more than 2 decimals: write the amount as a string, e.g. "10.50"',
      'line 3 (id c): amount: the JSON number 1e+21 is not plain reais: write the amount as a string, e.g. "10.50"',
      'line 4 (id d): amount: "-5" is negative; amounts are positive reais',
      'line 5 (id e): amount: "0" must be more than zero',
    ]);
  });

  it('reports lines that are not JSON objects, unknown and repeated fields, and wrong types', () => {
    expect(
      problemsOf(
        ndjson([
          '{"id": "a", "key": ',
          '[1, 2]',
          { id: 'b', key: EVP, amount: 1, note: 'x' },
          '{"id": "c", "ID": "c2", "key": "a@b.co", "amount": 1}',
          { id: 'd', key: 12345678909, amount: 1 },
          { id: 7, key: EVP, amount: 1 },
          { id: 'e', key: EVP, amount: true },
          { id: 'f', key: EVP, amount: 1, description: ['x'] },
        ]),
      ),
    ).toEqual([
      expect.stringMatching(/^line 1: not JSON: /),
      'line 2: each line must be one JSON object, e.g. {"id":"a1","key":"…","amount":"10.50"}',
      'line 3 (id b): note: unknown field (fields: id, key, key_type, emv, amount, description, document, name)',
      'line 4 (id c): id: the field appears twice',
      'line 5 (id d): key: must be a JSON string ("12345678909"): a number would lose leading zeros',
      'line 6: id: must be a JSON string ("7"): a number would lose leading zeros',
      'line 7 (id e): amount: must be a JSON string or number, not boolean',
      'line 8 (id f): description: must be a JSON string, not an array',
    ]);
  });

  it('checks rows the same way as CSV', () => {
    expect(
      problemsOf(
        ndjson([
          { id: 'a', key: EVP },
          { key: EVP, amount: 1 },
          { id: 'c', emv: DYNAMIC_CODE, description: 'x' },
        ]),
      ),
    ).toEqual([
      'line 1 (id a): amount: required for a key payment',
      'line 2: id: required',
      'line 3 (id c): description: only key payments take a description (the API refuses one for a QR code)',
    ]);
  });

  it('accepts an empty file (nothing to pay)', () => {
    expect(parseBatchFile('', 'ndjson')).toEqual({ ok: true, rows: [], warnings: [] });
  });
});

describe('formatProblem', () => {
  it('writes line, id and column when known', () => {
    const problems: BatchProblem[] = [
      { line: 3, id: 'a', column: 'key', message: 'bad' },
      { line: 3, column: 'id', message: 'required' },
      { line: 1, message: 'empty' },
      { column: '--max-total', message: 'over' },
    ];
    expect(problems.map(formatProblem)).toEqual([
      'line 3 (id a): key: bad',
      'line 3: id: required',
      'line 1: empty',
      '--max-total: over',
    ]);
  });
});

describe('batchFormatFor and emvHash', () => {
  it('reads NDJSON from .ndjson and .jsonl, CSV from anything else', () => {
    expect(batchFormatFor('payouts.ndjson')).toBe('ndjson');
    expect(batchFormatFor('PAYOUTS.JSONL')).toBe('ndjson');
    expect(batchFormatFor('payouts.csv')).toBe('csv');
    expect(batchFormatFor('payouts.json')).toBe('csv');
    expect(batchFormatFor('-')).toBe('csv');
  });

  it('is the digest the journal keeps for a code', () => {
    expect(emvHash(` ${STATIC_CODE}\n`)).toBe(hashEmv(STATIC_CODE));
    expect(emvHash(STATIC_CODE)).toMatch(/^[0-9a-f]{64}$/);
  });
});
