/**
 * `pix reconcile` with pix's own records and its outputs, against the sandbox server with the test's clock:
 * a payment meets its debit, a charge its credit, a debit nobody made through pix is said to be outside
 * pix; a bad expectations file is exit 2 naming the cell; `-o xlsx` has one sheet per outcome, which
 * LibreOffice (pt-BR) opens with amounts as numbers and dates as dates.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { beforeEach, describe, expect, it } from 'vitest';
import { SEEDED_KEYS } from '../../../src/sandbox/seed.js';
import { deferEach } from '../../helpers/cleanup.js';
import { NO_LIBREOFFICE, openInLibreOffice, soffice } from '../../helpers/libreoffice.js';
import { type InProcessRun, servedInProcess } from '../../helpers/served.js';

let dir: string;
let now: Date;
const deferred = deferEach();
let pix: (args: string[]) => Promise<InProcessRun>;

beforeEach(async () => {
  now = new Date('2026-03-10T15:00:00.000Z');
  ({ pix, dir } = await servedInProcess(deferred, { now: () => now }));
});

interface Result {
  outcome: string;
  flag?: string;
  why: string;
  expectations: Array<{ id: string; source: string }>;
  entries: Array<{ id: string }>;
}

describe('pix reconcile', () => {
  it("pix's own payments and charges are expectations; a debit made elsewhere is outside pix", async () => {
    const paid = await pix(['pay', 'key', 'ana@example.com', '--amount', '77,70', '--yes']);
    expect(paid.code, paid.stderr).toBe(0);
    const charge = await pix([
      'charge',
      'immediate',
      '--amount',
      '25',
      '--key',
      SEEDED_KEYS.email.key,
      '--json',
      '--no-qr',
    ]);
    expect(charge.code, charge.stderr).toBe(0);
    const chargeId = (JSON.parse(charge.stdout) as { id: string }).id;
    now = new Date(now.getTime() + 60_000);
    expect((await pix(['sandbox', 'pay', chargeId, '--state', join(dir, 'sandbox.json')])).code).toBe(0);
    now = new Date(now.getTime() + 60_000);
    const report = await pix(['reconcile', '--from', '-60d', '--json']);
    expect(report.code, report.stderr).toBe(0);
    const results = (JSON.parse(report.stdout) as { results: Result[] }).results;
    const payment = results.find((r) => r.expectations.some((e) => e.source === 'payment'))!;
    expect(payment).toMatchObject({ outcome: 'proven', why: 'the debit is the transfer itself (same id)' });
    const charged = results.find((r) => r.expectations.some((e) => e.id === `charge:${chargeId}`))!;
    expect(charged.outcome).toMatch(/^(proven|probable)$/);
    expect(charged.entries).toHaveLength(1);
    const outside = results.filter((r) => r.flag === 'outside-pix');
    expect(outside.length).toBeGreaterThan(0);
    for (const r of outside) expect(r.why).toBe('a debit no journal payment explains: made outside pix');
  });

  it('a charge issued for an invoice (--ref): kept in the charge ledger, sent to the payer, and reconcile pairs the invoice with its payment', async () => {
    const charge = await pix([
      'charge',
      'immediate',
      '--amount',
      '1250',
      '--key',
      SEEDED_KEYS.email.key,
      '--payer-name',
      'Mercado Bom Preço Ltda',
      '--payer-tax-id',
      '04.252.011/0001-10',
      '--ref',
      'NF-1042',
      '--json',
      '--no-qr',
    ]);
    expect(charge.code, charge.stderr).toBe(0);
    const created = JSON.parse(charge.stdout) as { id: string; additionalInfo?: unknown };
    const journal = JSON.parse((await pix(['journal', '--all', '--json'])).stdout) as {
      results: Array<{ ref?: string }>;
    };
    expect(journal.results[0]!.ref).toBe('NF-1042');
    // Sent where the API allows it: the charge's extra information, shown to the payer.
    expect(readFileSync(join(dir, 'sandbox.json'), 'utf8')).toContain('"Referência"');
    now = new Date(now.getTime() + 60_000);
    expect((await pix(['sandbox', 'pay', created.id, '--state', join(dir, 'sandbox.json')])).code).toBe(0);
    now = new Date(now.getTime() + 60_000);
    const csv = join(dir, 'receber.csv');
    writeFileSync(
      csv,
      'Documento;Cliente;CNPJ;Vencimento;Valor\nNF-1042;Mercado Bom Preço Ltda;04.252.011/0001-10;10/03/2026;R$ 1.250,00\n',
    );
    const report = await pix([
      'reconcile',
      '--expected',
      csv,
      '--map',
      'id=Documento,amount=Valor,document=CNPJ,due=Vencimento,name=Cliente',
      '--from',
      '-7d',
      '--json',
    ]);
    expect(report.code, report.stderr).toBe(0);
    const results = (JSON.parse(report.stdout) as { results: Result[] }).results;
    const paired = results.find((r) => r.expectations.some((e) => e.id === 'NF-1042'))!;
    expect(paired.expectations.map((e) => e.id)).toEqual([`charge:${created.id}`, 'NF-1042']);
    expect(paired.outcome).toMatch(/^(proven|probable)$/);
    expect(paired.entries).toHaveLength(1);
    expect(paired.why).toMatch(
      new RegExp(`NF-1042 is the invoice charge ${created.id} collects \\(--ref\\)$`),
    );
    expect(results.filter((r) => r.outcome === 'unmatched-expectation')).toEqual([]);
  });

  it('a bad expectations file is exit 2 naming the cell, before anything is read', async () => {
    const csv = join(dir, 'receber.csv');
    writeFileSync(csv, 'id;amount;valor\nNF-1;10,00;x\n');
    const unknown = await pix(['reconcile', '--expected', csv]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('line 1: valor: unknown column');
    expect(unknown.stderr).toContain(
      `error: ${csv}: the expectations file has problems: 1 problem; nothing was reconciled`,
    );

    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Receber');
    sheet.addRow(['Documento', 'Valor', 'Vencimento']);
    sheet.addRow(['NF-1', 10.5, new Date(Date.UTC(2026, 2, 10))]);
    sheet.addRow(['NF-2', '1,234', '31/02/2026']);
    const xlsx = join(dir, 'receber.xlsx');
    writeFileSync(xlsx, Buffer.from(await workbook.xlsx.writeBuffer()));
    const bad = await pix([
      'reconcile',
      '--expected',
      xlsx,
      '--map',
      'id=Documento,amount=Valor,due=Vencimento',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('B3 (id NF-2): amount: "1,234" is ambiguous');
    expect(bad.stderr).toContain('C3 (id NF-2): due: "31/02/2026" is not a date');
    expect(bad.stderr).not.toContain('NF-1');

    const badMap = await pix(['reconcile', '--expected', xlsx, '--map', 'id=Documento,amount=Total']);
    expect(badMap.code).toBe(2);
    expect(badMap.stderr).toContain('amount: no column "Total" in the header (--map)');
  });

  it('-o xlsx: one sheet per outcome, opened by LibreOffice with amounts as numbers and dates as dates', async (context) => {
    const csv = join(dir, 'receber.csv');
    writeFileSync(csv, 'id;amount;due\nNF-1;999.999,99;10/03/2026\n');
    const report = await pix(['reconcile', '--expected', csv, '--from', '-60d', '-o', 'xlsx']);
    expect(report.code, report.stderr).toBe(0);
    const office = soffice();
    if (office === undefined) {
      context.skip(NO_LIBREOFFICE);
      return;
    }
    const sheets = await openInLibreOffice(office, report.bytes);
    expect(sheets.map((s) => s.name)).toEqual([
      'Proven',
      'Probable',
      'Partial',
      'Overpaid',
      'Manual',
      'Not due',
      'Unmatched expected',
      'Unmatched entries',
    ]);
    const unmatched = sheets[6]!.rows;
    expect(unmatched[1]![0]).toMatchObject({ type: 'string', text: 'NF-1' });
    expect(unmatched[1]![2]).toMatchObject({ type: 'date', text: '10/03/2026' });
    expect(unmatched[1]![3]).toMatchObject({ type: 'float', text: 'R$ 999.999,99' });
    const entries = sheets[7]!.rows.slice(1);
    expect(entries.length).toBeGreaterThan(10);
    for (const row of entries) {
      expect(row[4]).toMatchObject({
        type: 'float',
        text: expect.stringMatching(/^R\$ \d{1,3}(\.\d{3})*,\d{2}$/),
      });
      expect(row[6]).toMatchObject({
        type: 'date',
        text: expect.stringMatching(/^\d{2}\/\d{2}\/2026 \d{2}:\d{2}:\d{2}$/),
      });
    }
  }, 180_000);
});
