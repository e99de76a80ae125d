import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/domain/batch.js';
import {
  PRESETS,
  parseColumnMap,
  parseExpectationsCsv,
  parseExpectationsSheet,
} from '../../src/domain/expectations.js';
import type { SheetData } from '../../src/domain/xlsxsheet.js';

const problems = (result: ReturnType<typeof parseExpectationsCsv>) =>
  result.ok ? [] : result.problems.map(formatProblem);

describe('expectations files', () => {
  it('reads a CSV with the default headers', () => {
    const result = parseExpectationsCsv(
      'id,amount,document,due,name\nNF-1,150.00,529.982.247-25,2026-03-10,Ana\nNF-2,"1.234,56",,10/03/2026,\n',
    );
    expect(result).toEqual({
      ok: true,
      expectations: [
        {
          id: 'NF-1',
          amountCentavos: 150_00,
          document: '52998224725',
          due: '2026-03-10',
          name: 'Ana',
          line: 2,
        },
        { id: 'NF-2', amountCentavos: 1234_56, due: '2026-03-10', line: 3 },
      ],
    });
  });

  it("reads a pt-BR CSV through --map, ignoring the ERP's other columns", () => {
    const map = parseColumnMap('id=Documento,amount=Valor,document=CNPJ,due=Vencimento,name=Cliente');
    const text =
      '\ufeffDocumento;Emissão;Cliente;CNPJ;Vencimento;Valor\r\nNF 7/1;01/03/2026;Mercado Bom Preço;04.252.011/0001-10;15/03/2026;R$ 2.500,00\r\n';
    const result = parseExpectationsCsv(text, map);
    expect(result.ok && result.expectations[0]).toEqual({
      id: 'NF 7/1',
      amountCentavos: 2500_00,
      document: '04252011000110',
      due: '2026-03-15',
      name: 'Mercado Bom Preço',
      line: 2,
    });
  });

  it('names the cell of an unknown column, a bad amount, a bad date, a bad document (exit 2 upstream)', () => {
    expect(problems(parseExpectationsCsv('id,amount,valor\nA,1\n'))).toEqual([
      'line 1: valor: unknown column (columns: id, amount, document, due, name; or name yours with --map id=…,amount=…)',
    ]);
    expect(
      problems(parseExpectationsCsv('id;amount;due;document\nA;1,234;31/02/2026;123\nA;-5;;\n')),
    ).toEqual([
      expect.stringMatching(/^line 2 \(id A\): amount: "1,234" is ambiguous/),
      expect.stringMatching(/^line 2 \(id A\): document: "123" has 3 characters/),
      expect.stringMatching(/^line 2 \(id A\): due: "31\/02\/2026" is not a date: February 2026 has 28 days/),
      'line 3 (id A): id: "A" is already the id of line 2',
      expect.stringMatching(/^line 3 \(id A\): amount: "-5" is negative/),
    ]);
    expect(
      problems(parseExpectationsCsv('Documento;Valor\nA;1\n', parseColumnMap('id=Documento,amount=Total'))),
    ).toEqual(['line 1: amount: no column "Total" in the header (--map)']);
  });

  it('reads a workbook: number cells exactly, date cells as days, formulas refused by cell', () => {
    const sheet: SheetData = {
      name: 'Contas',
      merges: [],
      rows: [
        {
          row: 1,
          cells: [
            'Descrição',
            'Valor',
            'CNPJ/CPF Cliente/Fornecedor',
            'Data de Vencimento',
            'Cliente/Fornecedor',
          ].map((text, column) => ({
            ref: `${'ABCDE'[column]}1`,
            column,
            value: { kind: 'text' as const, text },
          })),
        },
        {
          row: 2,
          cells: [
            { ref: 'A2', column: 0, value: { kind: 'number', text: '1001' } },
            { ref: 'B2', column: 1, value: { kind: 'number', text: '12.5' } },
            { ref: 'D2', column: 3, value: { kind: 'number', text: '46091' } },
          ],
        },
        {
          row: 3,
          cells: [
            { ref: 'A3', column: 0, value: { kind: 'text', text: 'X' } },
            { ref: 'B3', column: 1, value: { kind: 'formula', formula: 'B2*2' } },
          ],
        },
      ],
    };
    const result = parseExpectationsSheet(sheet, PRESETS.contaazul);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map(formatProblem)).toEqual([
      'B3 (id X): amount: holds a formula (=B2*2): type the value itself',
    ]);
    sheet.rows.pop();
    expect(parseExpectationsSheet(sheet, PRESETS.contaazul)).toEqual({
      ok: true,
      expectations: [{ id: '1001', amountCentavos: 12_50, due: '2026-03-10', line: 2 }],
    });
  });
});
