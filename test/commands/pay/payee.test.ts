/**
 * Confirmation of payee (contract §7.8) against a real `pix sandbox serve` on loopback, pix in-process:
 * a batch row or a payment that names who it pays (a document, a name) is paid only to that owner; a
 * static code whose merchant name shares nothing with its key's owner is asked about, refused under --yes.
 * Transfers are counted from the sandbox's own request log: "never sent" is what the server saw.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDocument } from '../../../src/domain/documents.js';
import { merchantMatchesOwner, payeeMismatch } from '../../../src/domain/payee.js';
import { dictOwner } from '../../../src/sandbox/people.js';
import { deferEach } from '../../helpers/cleanup.js';
import { servedInProcess } from '../../helpers/served.js';

const deferred = deferEach();
const NOW = new Date('2026-03-10T17:00:00Z');
/** The README's static code: "Fulano de Tal", whose key the sandbox gives to someone else. */
const FULANO =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

async function served() {
  const sandbox = await servedInProcess(deferred, { now: () => NOW });
  const transfers = () => sandbox.server.requests.filter((request) => request.endpoint === 'transfer').length;
  return { ...sandbox, transfers };
}

const owner = (key: string) => dictOwner(key, 'EMAIL');
const records = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string; state: string; error?: string });

describe('the payee as the file or the flags name it', () => {
  it('documents agree as far as the mask shows; names fold case, accents and spaces, and the trade name counts', () => {
    const company = {
      name: 'Padaria São João Ltda',
      tradeName: 'Padaria do João',
      document: '**.338.691/0001-**',
    };
    expect(payeeMismatch({ document: '48338691000182' }, company)).toBeUndefined();
    expect(payeeMismatch({ name: 'PADARIA  SAO JOAO LTDA' }, company)).toBeUndefined();
    expect(payeeMismatch({ name: 'padaria do joão' }, company)).toBeUndefined();
    expect(payeeMismatch({ document: '11222333000181', name: 'Padaria do João' }, company)).toBe(
      'the receiver is Padaria São João Ltda / Padaria do João, **.338.691/0001-**, not the expected Padaria do João, 11.222.333/0001-81 (the document differs)',
    );
    expect(payeeMismatch({ name: 'Padaria' }, company)).toMatch(/\(the name differs\)$/);
    // A mask that shows too little confirms nothing; no document at all neither.
    expect(payeeMismatch({ document: '12345678909' }, { name: 'A', document: '***.***.***-09' })).toMatch(
      /the document differs/,
    );
    expect(payeeMismatch({ document: '12345678909' }, { name: 'A' })).toMatch(/gives no document/);
  });

  it("a static code's merchant name matches an owner that shares a word (cut words too), not one that shares none", () => {
    expect(merchantMatchesOwner('Fulano de Tal', { name: 'Eduarda Rocha Almeida' })).toBe(false);
    expect(merchantMatchesOwner('PADARIA S JOAO', { name: 'Padaria São João Ltda' })).toBe(true);
    expect(merchantMatchesOwner('DISTRIB SOL', { name: 'X', tradeName: 'Distribuidora Sol' })).toBe(true);
    // Connectors and company forms say nothing of who it is.
    expect(merchantMatchesOwner('DE TAL LTDA', { name: 'Maria de Souza Ltda' })).toBe(false);
  });

  it('a batch in Portuguese pays the rows whose owner is the one named; another owner is not_payable naming both, never sent', async () => {
    const { pix, dir, transfers } = await served();
    const [a, b, c] = ['forn1@example.com', 'forn2@example.com', 'forn3@example.com'].map(owner);
    const file = join(dir, 'fornecedores.csv');
    writeFileSync(
      file,
      [
        'ID;Chave;Valor;Descrição;Documento;NOME',
        `f1;forn1@example.com;10,00;nota 1;${formatDocument(a!.receiver.documentNumber)};`,
        // Someone else's document: the key was mistyped, or moved to another owner.
        `f2;forn2@example.com;20,00;nota 2;${formatDocument(c!.receiver.documentNumber)};`,
        // The name as a person types it: case and accents do not count.
        `f3;forn3@example.com;30,00;nota 3;;${c!.receiver.name.toUpperCase()}`,
      ].join('\n'),
    );
    const result = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(5);
    const rows = records(result.stdout);
    expect(rows.map((row) => [row.id, row.state])).toEqual([
      ['f1', 'paid'],
      ['f2', 'not_payable'],
      ['f3', 'paid'],
    ]);
    expect(rows[1]!.error).toContain(`the receiver is ${b!.receiver.name}`);
    expect(rows[1]!.error).toContain(`not the expected ${formatDocument(c!.receiver.documentNumber)}`);
    expect(transfers()).toBe(2);
  });

  it('a bad document or name in the file is exit 2 naming the cell, before anything is sent', async () => {
    const { pix, dir, server } = await served();
    const file = join(dir, 'bad.csv');
    writeFileSync(file, 'id,key,amount,document\nr1,ana@example.com,10,123.456.789-00\n');
    const result = await pix(['pay', 'batch', file, '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 2 (id r1): document: "123.456.789-00" is not a valid CPF');
    expect(server.requests).toEqual([]);
  });

  it("--map names a supplier file's own headers; its other columns are ignored", async () => {
    const { pix, dir, transfers } = await served();
    const file = join(dir, 'erp.csv');
    const a = owner('erp1@example.com');
    writeFileSync(
      file,
      `Nº;Chave PIX;Valor Líquido;CNPJ/CPF Fornecedor;Centro de custo\nE-1;erp1@example.com;12,34;${a.receiver.documentNumber};Obra 7\n`,
    );
    const map = 'id=Nº,key=Chave PIX,amount=Valor Liquido,document=cnpj/cpf fornecedor';
    const result = await pix(['pay', 'batch', file, '--map', map, '--yes', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    expect(records(result.stdout).map((row) => [row.id, row.state])).toEqual([['E-1', 'paid']]);
    expect(transfers()).toBe(1);
    const missing = await pix(['pay', 'batch', file, '--map', 'key=Pix', '--yes']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('key: no column "Pix" in the header (--map)');
    const bad = await pix(['pay', 'batch', file, '--map', 'chavinha=Pix', '--yes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--map: "chavinha" is not a field');
  });

  it('pay key --expect-document / --expect-name: another owner is exit 8 naming both, nothing sent; the owner is paid', async () => {
    const { pix, transfers } = await served();
    const other = owner('someone-else@example.com').receiver.documentNumber;
    const wrong = await pix([
      'pay',
      'key',
      'ana@example.com',
      '--amount',
      '5',
      '--expect-document',
      other,
      '-y',
    ]);
    expect(wrong.code).toBe(8);
    expect(wrong.stderr).toMatch(
      /error: the receiver is .+, not the expected .+ \(the document differs\); nothing was sent/,
    );
    expect(transfers()).toBe(0);
    const ana = owner('ana@example.com');
    const right = await pix([
      'pay',
      'key',
      'ana@example.com',
      '--amount',
      '5',
      '--expect-document',
      formatDocument(ana.receiver.documentNumber),
      '--expect-name',
      ana.tradeName ?? ana.receiver.name,
      '-y',
    ]);
    expect(right.code, right.stderr).toBe(0);
    expect(transfers()).toBe(1);
    const typo = await pix([
      'pay',
      'key',
      'ana@example.com',
      '--amount',
      '5',
      '--expect-document',
      '123',
      '-y',
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--expect-document:');
  });

  it("a static code naming someone other than its key's owner: shown side by side, refused under --yes, paid with --expect-name", async () => {
    const { pix, transfers } = await served();
    const look = await pix(['pay', 'qr', FULANO, '--amount', '25', '--dry-run']);
    expect(look.code, look.stderr).toBe(0);
    expect(look.stdout).toMatch(/^receiver\tEduarda Rocha Almeida\nmerchantName\tFulano de Tal\n/);
    expect(look.stderr).toContain(
      'warning: the code names "Fulano de Tal" but its key belongs to Eduarda Rocha Almeida',
    );
    const refused = await pix(['pay', 'qr', FULANO, '--amount', '25', '--yes']);
    expect(refused.code).toBe(8);
    expect(refused.stderr).toContain(
      'error: the code names "Fulano de Tal" but its key belongs to Eduarda Rocha Almeida; nothing was sent',
    );
    expect(transfers()).toBe(0);
    const meant = await pix([
      'pay',
      'qr',
      FULANO,
      '--amount',
      '25',
      '--expect-name',
      'eduarda rocha almeida',
      '--yes',
    ]);
    expect(meant.code, meant.stderr).toBe(0);
    expect(transfers()).toBe(1);
  });
});
