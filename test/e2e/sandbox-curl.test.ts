import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, NODE, tempConfigDir } from '../helpers/cli.js';

const run = promisify(execFile);
const API = '/api/financial/v1';

let server: ChildProcess;
let base = '';

/** One request with the system's curl, as a user of `pix sandbox serve` would make it. */
async function curl(method: 'GET' | 'POST', path: string, body?: unknown, token = 'any-token') {
  const args = [
    '-s',
    '-w',
    '\n%{http_code}',
    '-X',
    method,
    `${base}${API}${path}`,
    '-H',
    `Authorization: Bearer ${token}`,
  ];
  if (body !== undefined) args.push('-H', 'Content-Type: application/json', '-d', JSON.stringify(body));
  const { stdout } = await run('curl', args);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) };
}

beforeAll(async () => {
  const dir = tempConfigDir();
  server = spawn(NODE, [BIN, 'sandbox', 'serve', '--port', '0', '--state', join(dir, 'state.json')], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, PIX_CONFIG_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (url) resolve(url[0]);
    });
    server.on('exit', (code) => reject(new Error(`sandbox serve exited with ${code}`)));
  });
});

// Waits for the server to exit: on Node 22+ it writes its compile cache into HOME (the file's temporary
// folder) on the way out, and that folder is removed after this.
afterAll(async () => {
  if (server === undefined || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
});

describe('pix sandbox serve, driven by plain curl', () => {
  it('serves the statement ({total, results}) and the keys ({total, result}) with the document fields', async () => {
    const statement = await curl('GET', '/account/transactions?limit=2&offset=0');
    expect(statement.status).toBe(200);
    expect(Object.keys(statement.body).sort()).toEqual(['results', 'total']);
    expect(statement.body.results[0]).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        type: expect.any(String),
        amount: expect.any(Number),
        fee: expect.any(Number),
        status: 'CONFIRMED',
        method: expect.any(String),
        confirmedAt: expect.any(String),
      }),
    );
    const keys = await curl('GET', '/pix/keys');
    expect(keys.status).toBe(200);
    expect(keys.body.result.map((key: { keyType: string }) => key.keyType).sort()).toEqual([
      'CPF',
      'EMAIL',
      'EVP',
      'PHONE',
    ]);
  });

  it('creates both kinds of charge, consults the code and the key, and transfers', async () => {
    // Each state makes its own key ids: the email key's, from the key list.
    const listed = await curl('GET', '/pix/keys');
    const EMAIL_KEY_ID = listed.body.result.find((key: { keyType: string }) => key.keyType === 'EMAIL').id;
    const immediate = await curl('POST', '/pix-cash-in/immediate', {
      pixKeyId: EMAIL_KEY_ID,
      amount: 12.34,
      expiration: { value: 1, unit: 'hours' },
    });
    expect(immediate.status).toBeGreaterThanOrEqual(200);
    expect(immediate.status).toBeLessThan(300);
    expect(immediate.body).toMatchObject({
      type: 'IMMEDIATE_QRCODE',
      status: 'PENDING',
      amount: 12.34,
      pixKeyId: EMAIL_KEY_ID,
    });
    expect(immediate.body.qrCodeDataUrl).toMatch(/^data:image\/png;base64,/);

    const due = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const duedate = await curl('POST', '/pix-cash-in/duedate', {
      pixKeyId: EMAIL_KEY_ID,
      amount: 50,
      duedate: due,
      debtor: {
        name: 'Maria',
        cpf: '52998224725',
        city: 'São Paulo',
        publicArea: 'Rua A',
        state: 'SP',
        postalCode: '01001000',
        email: 'maria@example.com',
      },
    });
    expect(duedate.body).toMatchObject({ type: 'DUEDATE_QRCODE', dueDate: due, status: 'PENDING' });
    expect(duedate.body).not.toHaveProperty('duedate');

    const consult = await curl('POST', '/pix/emv/consult', { emv: immediate.body.emvqrcps });
    expect(consult.body).toMatchObject({
      type: 'DYNAMIC_QRCODE',
      amount: { final: 12.34, canModifyFinalAmount: false },
    });
    const transfer = await curl('POST', '/pix-cash-out/transfer', { endToEndId: consult.body.endToEndId });
    expect(transfer.body).toMatchObject({
      endToEndId: consult.body.endToEndId,
      status: 'PENDING',
      amount: 12.34,
    });
    const reused = await curl('POST', '/pix-cash-out/transfer', { endToEndId: consult.body.endToEndId });
    expect(reused.status).toBe(400);

    const dict = await curl('POST', '/pix/dict/consult', { key: 'maria@example.com' });
    expect(dict.status).toBe(200);
    // The DICT consultation spells it with a lower-case t (API §2.7).
    expect(dict.body).toHaveProperty('endtoEndId');
    expect(dict.body.owner).toHaveProperty('name');
  });

  it('answers the documented errors: 400 one date alone, 401 expired token, 404 unknown code, 422 below 5.00', async () => {
    expect((await curl('GET', '/account/transactions?dateFrom=2026-11-01T00:00:00Z')).status).toBe(400);
    expect((await curl('GET', '/pix/keys', undefined, 'sandbox-expired-token')).status).toBe(401);
    const unknown =
      '00020101021226360014br.gov.bcb.pix2514example.test/x52040000530398654041.005802BR5905Teste6009SAO PAULO62070503***6304';
    const { crc16 } = await import('../../src/domain/crc16.js');
    expect((await curl('POST', '/pix/emv/consult', { emv: unknown + crc16(unknown) })).status).toBe(404);
    const listed = await curl('GET', '/pix/keys');
    const pixKeyId = listed.body.result[0].id;
    const small = await curl('POST', '/pix-cash-in/immediate', { pixKeyId, amount: 4.99 });
    expect(small.status).toBe(422);
    expect(typeof small.body.message).toBe('string');
  });
});
