import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeBrCode } from '../../src/domain/brcode.js';
import { encodeBrCode } from '../../src/domain/brcodeencode.js';
import { crc16 } from '../../src/domain/crc16.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { sandboxKeyIds } from '../helpers/served.js';
import { tempDir } from '../helpers/temp.js';
import { within } from '../helpers/wait.js';

// jsqr is CommonJS with `export default`: under NodeNext the callable is `.default` at type level.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ??
  jsQRModule) as unknown as typeof jsQRModule.default;

const API = '/api/financial/v1';
const E2E = /^E\d{8}\d{12}[A-Za-z0-9]{11}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test access to arbitrary JSON
  json: any;
}

let dir: string;
let server: SandboxServer;
let realNow: number;
/** The ids of this state's keys (each state makes its own). */
let keyIds: Awaited<ReturnType<typeof sandboxKeyIds>>;

async function call(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  token = 'test-token',
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await request(`${server.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

const post = (path: string, body?: unknown, token?: string) => call('POST', path, body, token);
const get = (path: string, token?: string) => call('GET', path, undefined, token);

async function start(faults?: string): Promise<void> {
  server = await startSandboxServer({
    port: 0,
    stateFile: join(dir, 'state.json'),
    clock: () => new Date(realNow),
    ...(faults ? { faults } : {}),
  });
  keyIds = faults ? keyIds : await sandboxKeyIds(server.url);
}

function expectError(answer: Answer, status: number, code?: string): void {
  expect(answer.status).toBe(status);
  expect(Object.keys(answer.json).sort()).toEqual(['code', 'message']);
  expect(typeof answer.json.message).toBe('string');
  expect(answer.json.message.length).toBeGreaterThan(5);
  if (code) expect(answer.json.code).toBe(code);
}

function immediate(extra: Record<string, unknown> = {}) {
  return post(`${API}/pix-cash-in/immediate`, { pixKeyId: keyIds.email, amount: 12.5, ...extra });
}

function duedate(extra: Record<string, unknown> = {}) {
  return post(`${API}/pix-cash-in/duedate`, {
    pixKeyId: keyIds.cpf,
    amount: 100,
    duedate: '2025-03-14',
    debtor: {
      name: 'Maria Oliveira',
      cpf: '529.982.247-25',
      city: 'São Paulo',
      publicArea: 'Rua A, 1',
      state: 'SP',
      postalCode: '01001000',
      email: 'maria@example.com',
    },
    ...extra,
  });
}

beforeEach(async () => {
  dir = tempDir('pix-sandbox-');
  realNow = Date.parse('2025-03-10T15:00:00.000Z'); // a Monday, 12:00 in Brasília
  await start();
});

afterEach(async () => {
  await server.close();
});

describe('auth', () => {
  it('mints a token for the sandbox client key and secret', async () => {
    const answer = await post(
      `${API}/auth/token`,
      { clientKey: 'sandbox-client-key', clientSecret: 'sandbox-client-secret' },
      '',
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      clientToken: expect.stringMatching(/^sandbox-[0-9a-f]{32}$/),
      expiresIn: 900,
    });
    const statement = await get(`${API}/account/transactions`, answer.json.clientToken);
    expect(statement.status).toBe(200);
  });

  it('refuses other credentials (401) and a body without them (400)', async () => {
    expectError(
      await post(`${API}/auth/token`, { clientKey: 'sandbox-client-key', clientSecret: 'wrong' }, ''),
      401,
    );
    expectError(await post(`${API}/auth/token`, { clientKey: 'sandbox-client-key' }, ''), 400);
    expectError(await post(`${API}/auth/token`, '{not json', ''), 400, 'INVALID_JSON');
  });

  it.each([
    ['GET', `${API}/account/transactions`],
    ['GET', `${API}/pix/keys`],
    ['POST', `${API}/pix-cash-in/immediate`],
    ['POST', `${API}/pix-cash-in/duedate`],
    ['POST', `${API}/pix/emv/consult`],
    ['POST', `${API}/pix/dict/consult`],
    ['POST', `${API}/pix-cash-out/transfer`],
  ] as const)('%s %s answers 401 without a token and with the expired one', async (method, path) => {
    expectError(await call(method, path, method === 'POST' ? {} : undefined, ''), 401, 'UNAUTHORIZED');
    expectError(await call(method, path, method === 'POST' ? {} : undefined, 'sandbox-expired-token'), 401);
  });

  it('answers unknown routes 404 and wrong methods 405', async () => {
    expectError(await get(`${API}/nothing`), 404, 'ROUTE_NOT_FOUND');
    expectError(await post(`${API}/pix/keys`, {}), 405);
  });
});

describe('statement (GET /account/transactions)', () => {
  it('returns total and results with the fields of §2.1, newest first, 10 by default', async () => {
    const answer = await get(`${API}/account/transactions`);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json).sort()).toEqual(['results', 'total']);
    expect(answer.json.total).toBeGreaterThanOrEqual(24);
    expect(answer.json.results).toHaveLength(10);
    const times = answer.json.results.map((entry: { confirmedAt: string }) => entry.confirmedAt);
    expect([...times].sort().reverse()).toEqual(times);
    for (const entry of answer.json.results) {
      expect(entry).toMatchObject({
        id: expect.any(String),
        type: expect.stringMatching(/^(INCOME|OUTCOME)$/),
        amount: expect.any(Number),
        fee: expect.any(Number),
        status: 'CONFIRMED',
        method: expect.stringMatching(/^(PIX|TED)$/),
        confirmedAt: expect.stringMatching(ISO),
      });
      const party = entry.type === 'INCOME' ? entry.creditor : entry.debtor;
      expect(party).toEqual({
        name: expect.any(String),
        bank: expect.stringMatching(/^\d{3}$/),
        documentNumber: expect.stringMatching(/^\d{11}$|^\d{14}$/),
      });
      expect(entry.type === 'INCOME' ? entry.amount > 0 : entry.amount < 0).toBe(true);
      expect(Math.round(entry.amount * 100)).toBeCloseTo(entry.amount * 100, 6);
      const age = realNow - Date.parse(entry.confirmedAt);
      expect(age).toBeGreaterThan(0);
      expect(age).toBeLessThanOrEqual(60 * 86_400_000);
    }
  });

  it('is deterministic, pages with limit and offset, and filters by dates', async () => {
    const all = await get(`${API}/account/transactions?limit=1000`);
    const total = all.json.total as number;
    expect(all.json.results).toHaveLength(total);
    const page = await get(`${API}/account/transactions?limit=5&offset=3`);
    expect(page.json.total).toBe(total);
    expect(page.json.results).toEqual(all.json.results.slice(3, 8));
    const past = await get(`${API}/account/transactions?offset=${total}`);
    expect(past.json).toEqual({ total, results: [] });

    const from = '2025-02-01T00:00:00Z';
    const to = '2025-02-20T23:59:59Z';
    const inRange = all.json.results.filter(
      (entry: { confirmedAt: string }) =>
        entry.confirmedAt >= '2025-02-01T00:00:00.000Z' && entry.confirmedAt <= '2025-02-20T23:59:59.000Z',
    );
    const filtered = await get(`${API}/account/transactions?dateFrom=${from}&dateTo=${to}&limit=1000`);
    expect(filtered.json.total).toBe(inRange.length);
    expect(filtered.json.results).toEqual(inRange);
  });

  it('answers 400 for one date alone, dateFrom after dateTo, bad dates and bad paging', async () => {
    expectError(await get(`${API}/account/transactions?dateFrom=2025-03-01`), 400);
    expectError(await get(`${API}/account/transactions?dateTo=2025-03-01`), 400);
    expectError(await get(`${API}/account/transactions?dateFrom=2025-03-02&dateTo=2025-03-01`), 400);
    expectError(await get(`${API}/account/transactions?dateFrom=2025-02-30&dateTo=2025-03-01`), 400);
    expectError(await get(`${API}/account/transactions?dateFrom=yesterday&dateTo=2025-03-01`), 400);
    expectError(await get(`${API}/account/transactions?limit=abc`), 400);
    expectError(await get(`${API}/account/transactions?limit=0`), 400);
    expectError(await get(`${API}/account/transactions?offset=-1`), 400);
  });

  it('answers 404 (account not found) for the no-account token', async () => {
    expectError(
      await get(`${API}/account/transactions`, 'sandbox-no-account-token'),
      404,
      'ACCOUNT_NOT_FOUND',
    );
  });
});

describe('keys (GET /pix/keys)', () => {
  it('lists the seeded keys under `result`', async () => {
    const answer = await get(`${API}/pix/keys`);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json).sort()).toEqual(['result', 'total']);
    expect(answer.json.total).toBe(4);
    expect(answer.json.result.map((key: { keyType: string }) => key.keyType)).toEqual([
      'EMAIL',
      'EVP',
      'CPF',
      'PHONE',
    ]);
    expect(answer.json.result[0]).toEqual({
      id: keyIds.email,
      key: 'loja@sandbox.pix.local',
      keyType: 'EMAIL',
      createdAt: expect.stringMatching(ISO),
    });
    const page = await get(`${API}/pix/keys?limit=2&offset=3`);
    expect(page.json.total).toBe(4);
    expect(page.json.result.map((key: { id: string }) => key.id)).toEqual([keyIds.phone]);
  });

  it('answers 400 for invalid parameters', async () => {
    expectError(await get(`${API}/pix/keys?limit=x`), 400, 'INVALID_PARAMETERS');
    expectError(await get(`${API}/pix/keys?offset=1.5`), 400, 'INVALID_PARAMETERS');
  });
});

describe('immediate charge (POST /pix-cash-in/immediate)', () => {
  it('returns every field of §2.2, a valid dynamic BR Code and its PNG QR code', async () => {
    const answer = await immediate({
      description: 'Pedido 42',
      payerQuestion: 'Qual o número do pedido?',
      additionalInformation: [{ name: 'Pedido', value: '42' }],
      debtor: { name: 'João Pereira', taxId: '39053344705' },
    });
    expect(answer.status).toBe(201);
    const charge = answer.json;
    expect(charge).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      amount: 12.5,
      status: 'PENDING',
      pixKey: 'loja@sandbox.pix.local',
      pixKeyId: keyIds.email,
      type: 'IMMEDIATE_QRCODE',
      emvqrcps: expect.any(String),
      transactionId: expect.any(Number),
      transactionIdentification: expect.stringMatching(/^[A-Za-z0-9]{25}$/),
      description: 'Pedido 42',
      createdAt: '2025-03-10T15:00:00.000Z',
      expiresAt: '2025-03-11T15:00:00.000Z', // 24 h by default
      qrCodeDataUrl: expect.stringMatching(/^data:image\/png;base64,/),
    });
    expect(Number.isInteger(charge.transactionId)).toBe(true);

    const code: string = charge.emvqrcps;
    expect(code.slice(-4)).toBe(crc16(code.slice(0, -4)));
    const decoded = decodeBrCode(code);
    expect(decoded.kind).toBe('dynamic');
    expect(decoded.pointOfInitiation).toBe('12');
    expect(decoded.url).toBe(`sandbox.pix.local/qr/v2/${charge.transactionIdentification}`);
    expect(decoded.amount).toBe(12_50);
    expect(code).toContain('0014br.gov.bcb.pix');

    const png = PNG.sync.read(Buffer.from(charge.qrCodeDataUrl.split(',')[1], 'base64'));
    const read = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(read?.data).toBe(code);
  });

  it('honours expiration in minutes, hours and days', async () => {
    expect((await immediate({ expiration: { value: 30, unit: 'minutes' } })).json.expiresAt).toBe(
      '2025-03-10T15:30:00.000Z',
    );
    expect((await immediate({ expiration: { value: 2, unit: 'hours' } })).json.expiresAt).toBe(
      '2025-03-10T17:00:00.000Z',
    );
    expect((await immediate({ expiration: { value: 3, unit: 'days' } })).json.expiresAt).toBe(
      '2025-03-13T15:00:00.000Z',
    );
  });

  it('answers 400 for a bad request, 404 for an unknown key, 422 for an amount below 5.00, 403 for the magic amount', async () => {
    expectError(await post(`${API}/pix-cash-in/immediate`, { amount: 10 }), 400);
    expectError(await immediate({ amount: undefined }), 400);
    expectError(await immediate({ amount: '10.00' }), 400);
    expectError(await immediate({ pixKeyId: 'not-a-uuid' }), 400);
    expectError(await immediate({ payerQuestion: 'x'.repeat(141) }), 400);
    expect((await immediate({ payerQuestion: 'x'.repeat(140) })).status).toBe(201);
    expectError(await immediate({ expiration: { value: 10, unit: 'weeks' } }), 400);
    expectError(await immediate({ expiration: { value: 0, unit: 'days' } }), 400);
    expectError(await immediate({ debtor: { name: 'X', taxId: '11111111111' } }), 400);
    expectError(await immediate({ additionalInformation: [{ name: 'a' }] }), 400);
    expectError(await post(`${API}/pix-cash-in/immediate`, [1, 2]), 400);
    expectError(
      await immediate({ pixKeyId: '00000000-0000-4000-8000-000000000000' }),
      404,
      'PIX_KEY_NOT_FOUND',
    );
    expectError(await immediate({ amount: 4.99 }), 422, 'INVALID_AMOUNT');
    expectError(await immediate({ amount: 10.005 }), 422, 'INVALID_AMOUNT');
    expect((await immediate({ amount: 5 })).status).toBe(201);
    expectError(await immediate({ amount: 403 }), 403, 'IP_NOT_AUTHORIZED');
  });
});

describe('due-date charge (POST /pix-cash-in/duedate)', () => {
  it('takes duedate and returns dueDate, DUEDATE_QRCODE, and expiry 30 days after the due date by default', async () => {
    const answer = await duedate();
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({
      amount: 100,
      status: 'PENDING',
      type: 'DUEDATE_QRCODE',
      pixKey: '12345678909',
      pixKeyId: keyIds.cpf,
      dueDate: '2025-03-14',
      // Payable through 2025-04-13 (Brasília), expires at 00:00 of 04-14 in Brasília.
      expiresAt: '2025-04-14T03:00:00.000Z',
      qrCodeDataUrl: expect.stringMatching(/^data:image\/png;base64,/),
    });
    expect(answer.json).not.toHaveProperty('duedate');
    expect(decodeBrCode(answer.json.emvqrcps).kind).toBe('dynamic');
    const custom = await duedate({ expirationAfterPayment: 5 });
    expect(custom.json.expiresAt).toBe('2025-03-20T03:00:00.000Z');
  });

  it('accepts today as the due date and refuses the past with 422', async () => {
    expect((await duedate({ duedate: '2025-03-10' })).status).toBe(201);
    expectError(await duedate({ duedate: '2025-03-09' }), 422, 'INVALID_CHARGE_DATA');
  });

  it('answers 400 for missing debtor, bad dates and bad shapes; 422 for unknown modalities and bad values', async () => {
    expectError(await duedate({ debtor: undefined }), 400);
    expectError(await duedate({ debtor: { name: 'Maria' } }), 400);
    expectError(await duedate({ duedate: '14/03/2025' }), 400);
    expectError(await duedate({ duedate: '2025-02-30' }), 400);
    expectError(await duedate({ expirationAfterPayment: 'soon' }), 400);
    expectError(await duedate({ payerQuestion: 'y'.repeat(141) }), 400);
    expectError(await duedate({ amountFine: { modality: 'fixed', amountPerc: 2 } }), 422);
    expectError(await duedate({ amountInterest: { modality: 'PERCENT', amountPerc: 2 } }), 422);
    expectError(await duedate({ amountFine: { modality: 'PERCENT', amountPerc: 150 } }), 422);
    expectError(
      await duedate({
        amountDiscount: {
          modality: 'PERCENTAGE_DATE_REPORTED',
          discountDateFixed: [{ date: '2025-03-20', amountPerc: 5 }],
        },
      }),
      422,
    );
    expectError(await duedate({ amount: 4 }), 422);
    expectError(await duedate({ pixKeyId: '00000000-0000-4000-8000-000000000000' }), 404);
  });
});

describe('paying by QR code (emv consult + transfer)', () => {
  it('consults a sandbox charge as DYNAMIC_QRCODE, pays it once, completes it, and books both entries after settling', async () => {
    const charge = (
      await immediate({ payerQuestion: 'Pedido?', additionalInformation: [{ name: 'Pedido', value: '42' }] })
    ).json;
    const consult = await post(`${API}/pix/emv/consult`, { emv: charge.emvqrcps });
    expect(consult.status).toBe(200);
    expect(consult.json).toEqual({
      type: 'DYNAMIC_QRCODE',
      endToEndId: expect.stringMatching(E2E),
      payerQuestion: 'Pedido?',
      additionalInfo: [{ key: 'Pedido', value: '42' }],
      amount: {
        original: 12.5,
        final: 12.5,
        abatement: 0,
        discount: 0,
        interest: 0,
        fine: 0,
        canModifyFinalAmount: false,
      },
      receiver: { name: 'Loja Sandbox Ltda', participant: '99999999', documentNumber: '11.222.333/0001-81' },
      calendar: { expirationDate: charge.expiresAt },
    });
    expect(consult.json.endToEndId).toHaveLength(32);
    expect(consult.json.endToEndId.slice(9, 21)).toBe('202503101500');

    const before = (await get(`${API}/account/transactions`)).json.total;
    const paid = await post(`${API}/pix-cash-out/transfer`, { endToEndId: consult.json.endToEndId });
    expect(paid.status).toBe(201);
    expect(paid.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      endToEndId: consult.json.endToEndId,
      amount: 12.5,
      fee: 0,
      status: 'PENDING',
    });
    expectError(
      await post(`${API}/pix-cash-out/transfer`, { endToEndId: consult.json.endToEndId }),
      400,
      'INVALID_END_TO_END_ID',
    );
    // Single use: the charge is paid.
    expectError(await post(`${API}/pix/emv/consult`, { emv: charge.emvqrcps }), 400, 'CHARGE_ALREADY_PAID');

    expect((await get(`${API}/account/transactions`)).json.total).toBe(before); // still settling
    realNow += 2_000;
    const after = await get(`${API}/account/transactions?limit=2`);
    expect(after.json.total).toBe(before + 2);
    expect(
      after.json.results.map((entry: { type: string; amount: number }) => [entry.type, entry.amount]).sort(),
    ).toEqual([
      ['INCOME', 12.5],
      ['OUTCOME', -12.5],
    ]);
  });

  it('refuses an expired immediate charge', async () => {
    const charge = (await immediate({ expiration: { value: 10, unit: 'minutes' } })).json;
    realNow += 10 * 60_000;
    expectError(await post(`${API}/pix/emv/consult`, { emv: charge.emvqrcps }), 400, 'CHARGE_EXPIRED');
  });

  it('prices a due-date charge with discount before, fine and interest after, and refuses it once expired', async () => {
    const charge = (
      await duedate({
        expirationAfterPayment: 10,
        amountDiscount: {
          modality: 'PERCENTAGE_DATE_REPORTED',
          discountDateFixed: [{ date: '2025-03-12', amountPerc: 5 }],
        },
        amountFine: { modality: 'PERCENT', amountPerc: 2 },
        amountInterest: { modality: 'PERCENTAGE_PER_MONTH_CALENDAR_DAYS', amountPerc: 3 },
      })
    ).json;
    const other = (await duedate({ expirationAfterPayment: 1 })).json;
    const early = await post(`${API}/pix/emv/consult`, { emv: charge.emvqrcps });
    expect(early.json.type).toBe('DYNAMIC_QRCODE');
    expect(early.json.amount).toMatchObject({ original: 100, discount: 5, fine: 0, interest: 0, final: 95 });
    expect(early.json.debtor).toEqual({ name: 'Maria Oliveira', documentNumber: '***.982.247-**' });

    realNow = Date.parse('2025-03-24T15:00:00Z'); // 10 days late
    const late = await post(`${API}/pix/emv/consult`, { emv: charge.emvqrcps });
    expect(late.json.amount).toMatchObject({ original: 100, discount: 0, fine: 2, interest: 1, final: 103 });
    const paid = await post(`${API}/pix-cash-out/transfer`, {
      endToEndId: late.json.endToEndId,
      amount: 103,
    });
    expect(paid.json).toMatchObject({ amount: 103, status: 'PENDING' });

    realNow = Date.parse('2025-03-16T03:00:00Z'); // 00:00 in Brasília, two days after the due date
    expectError(await post(`${API}/pix/emv/consult`, { emv: other.emvqrcps }), 400, 'CHARGE_EXPIRED');
  });

  it('consults other static codes as STATIC_QRCODE, with or without an amount', async () => {
    const fixed = encodeBrCode({
      pixKey: 'fulano@example.com',
      amount: 25_00,
      merchantName: 'Fulano',
      merchantCity: 'Recife',
      description: 'Aluguel',
    });
    const withAmount = await post(`${API}/pix/emv/consult`, { emv: fixed });
    expect(withAmount.json).toMatchObject({
      type: 'STATIC_QRCODE',
      endToEndId: expect.stringMatching(E2E),
      additionalInfo: [{ key: 'description', value: 'Aluguel' }],
      amount: { original: 25, final: 25, canModifyFinalAmount: false },
      receiver: {
        name: expect.any(String),
        participant: expect.stringMatching(/^\d{8}$/),
        documentNumber: expect.stringMatching(/\*|\//),
      },
      calendar: { expirationDate: expect.stringMatching(ISO) },
    });
    expectError(
      await post(`${API}/pix-cash-out/transfer`, { endToEndId: withAmount.json.endToEndId, amount: 30 }),
      400,
      'AMOUNT_CANNOT_BE_CHANGED',
    );
    expectError(
      await post(`${API}/pix-cash-out/transfer`, {
        endToEndId: withAmount.json.endToEndId,
        description: 'oi',
      }),
      400,
      'DESCRIPTION_NOT_ALLOWED',
    );
    expect(
      (await post(`${API}/pix-cash-out/transfer`, { endToEndId: withAmount.json.endToEndId, amount: 25 }))
        .status,
    ).toBe(201);

    const open = encodeBrCode({ pixKey: '+5521987654321', merchantName: 'Fulano', merchantCity: 'Recife' });
    const noAmount = await post(`${API}/pix/emv/consult`, { emv: open });
    expect(noAmount.json.amount).toEqual({
      original: 0,
      final: 0,
      abatement: 0,
      discount: 0,
      interest: 0,
      fine: 0,
      canModifyFinalAmount: true,
    });
    expectError(
      await post(`${API}/pix-cash-out/transfer`, { endToEndId: noAmount.json.endToEndId }),
      400,
      'AMOUNT_REQUIRED',
    );
    expectError(
      await post(`${API}/pix-cash-out/transfer`, { endToEndId: noAmount.json.endToEndId, amount: 0 }),
      422,
    );
    expectError(
      await post(`${API}/pix-cash-out/transfer`, { endToEndId: noAmount.json.endToEndId, amount: 1.234 }),
      422,
    );
    expectError(
      await post(`${API}/pix-cash-out/transfer`, { endToEndId: noAmount.json.endToEndId, amount: 422 }),
      422,
    );
    expectError(
      await post(`${API}/pix-cash-out/transfer`, { endToEndId: noAmount.json.endToEndId, amount: 400 }),
      400,
      'TRANSFER_ERROR',
    );
    const ok = await post(`${API}/pix-cash-out/transfer`, {
      endToEndId: noAmount.json.endToEndId,
      amount: 7.77,
    });
    expect(ok.json).toMatchObject({ amount: 7.77, fee: 0, status: 'PENDING' });
  });

  it('answers 404 for codes it cannot find: bad CRC, broken TLV, unknown charges, missing keys', async () => {
    const charge = (await immediate()).json;
    const code: string = charge.emvqrcps;
    const badCrc = code.slice(0, -1) + (code.endsWith('0') ? '1' : '0');
    expectError(await post(`${API}/pix/emv/consult`, { emv: badCrc }), 404, 'EMV_NOT_FOUND');
    expectError(await post(`${API}/pix/emv/consult`, { emv: 'hello' }), 404, 'EMV_NOT_FOUND');
    const unknown = encodeBrCode({
      url: 'sandbox.pix.local/qr/v2/NOSUCHCHARGE',
      merchantName: 'X',
      merchantCity: 'Y',
    });
    expectError(await post(`${API}/pix/emv/consult`, { emv: unknown }), 404);
    const elsewhere = encodeBrCode({
      url: 'pix.example.com/qr/v2/abc',
      merchantName: 'X',
      merchantCity: 'Y',
    });
    expectError(await post(`${API}/pix/emv/consult`, { emv: elsewhere }), 404);
    const missing = encodeBrCode({
      pixKey: 'naoexiste@sandbox.pix.local',
      merchantName: 'X',
      merchantCity: 'Y',
    });
    expectError(await post(`${API}/pix/emv/consult`, { emv: missing }), 404);
    expectError(await post(`${API}/pix/emv/consult`, {}), 400);
  });

  it('answers 400 for an invalid endToEndId', async () => {
    expectError(await post(`${API}/pix-cash-out/transfer`, {}), 400, 'INVALID_END_TO_END_ID');
    expectError(
      await post(`${API}/pix-cash-out/transfer`, { endToEndId: 'E123' }),
      400,
      'INVALID_END_TO_END_ID',
    );
    expectError(
      await post(`${API}/pix-cash-out/transfer`, {
        endToEndId: 'E99999999202503101500abcdefghijk',
        amount: 10,
      }),
      400,
      'INVALID_END_TO_END_ID',
    );
  });
});

describe('paying by key (dict consult + transfer)', () => {
  it('answers with endtoEndId, a deterministic owner and account, and takes the transfer with an amount', async () => {
    const first = await post(`${API}/pix/dict/consult`, { key: 'fulano@example.com' });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      key: 'fulano@example.com',
      keyType: 'EMAIL',
      endtoEndId: expect.stringMatching(E2E),
      account: {
        participant: expect.stringMatching(/^\d{8}$/),
        accountType: 'CACC',
        branch: expect.stringMatching(/^\d{4}$/),
        account: expect.stringMatching(/^\d+$/),
      },
      owner: {
        name: expect.any(String),
        type: expect.stringMatching(/^(NATURAL|LEGAL)_PERSON$/),
        documentNumber: expect.stringMatching(/^\d{11}$|^\d{14}$/),
        ...(first.json.owner.type === 'LEGAL_PERSON' ? { tradeName: expect.any(String) } : {}),
      },
    });
    expect(first.json).not.toHaveProperty('endToEndId');
    const second = await post(`${API}/pix/dict/consult`, { key: 'fulano@example.com' });
    expect(second.json.owner).toEqual(first.json.owner);
    expect(second.json.account).toEqual(first.json.account);
    expect(second.json.endtoEndId).not.toBe(first.json.endtoEndId);

    const cpf = await post(`${API}/pix/dict/consult`, { key: '39053344705' });
    expect(cpf.json).toMatchObject({
      keyType: 'CPF',
      owner: { type: 'NATURAL_PERSON', documentNumber: '39053344705' },
    });
    const cnpj = await post(`${API}/pix/dict/consult`, { key: '33000167000101' });
    expect(cnpj.json).toMatchObject({
      keyType: 'CNPJ',
      owner: { type: 'LEGAL_PERSON', tradeName: expect.any(String) },
    });
    expect((await post(`${API}/pix/dict/consult`, { key: '+5511987654321' })).json.keyType).toBe('PHONE');
    expect(
      (await post(`${API}/pix/dict/consult`, { key: '123e4567-e89b-42d3-a456-426614174000' })).json.keyType,
    ).toBe('EVP');

    expectError(
      await post(`${API}/pix-cash-out/transfer`, { endToEndId: first.json.endtoEndId }),
      400,
      'AMOUNT_REQUIRED',
    );
    const paid = await post(`${API}/pix-cash-out/transfer`, {
      endToEndId: first.json.endtoEndId,
      amount: 50,
    });
    expect(paid.json).toMatchObject({ endToEndId: first.json.endtoEndId, amount: 50, status: 'PENDING' });
    realNow += 2_000;
    const newest = (await get(`${API}/account/transactions?limit=1`)).json.results[0];
    expect(newest).toMatchObject({
      id: paid.json.id,
      type: 'OUTCOME',
      amount: -50,
      status: 'CONFIRMED',
      method: 'PIX',
      confirmedAt: '2025-03-10T15:00:02.000Z',
      debtor: { name: first.json.owner.name, documentNumber: first.json.owner.documentNumber },
    });
  });

  it('answers 404 for the magic missing keys and 400 for malformed keys', async () => {
    for (const key of [
      'naoexiste@sandbox.pix.local',
      '+5511900000404',
      '00000000-0000-0000-0000-000000000404',
    ]) {
      expectError(await post(`${API}/pix/dict/consult`, { key }), 404, 'PIX_KEY_NOT_FOUND');
    }
    expectError(await post(`${API}/pix/dict/consult`, { key: 'not a key' }), 400);
    expectError(await post(`${API}/pix/dict/consult`, { key: '12345678900' }), 400); // bad CPF check digits
    expectError(await post(`${API}/pix/dict/consult`, {}), 400);
  });
});

describe('faults on demand', () => {
  beforeEach(async () => {
    await server.close();
  });

  it('503 with Retry-After for the first N requests, then the real answer', async () => {
    await start('statement:503x2');
    const first = await get(`${API}/account/transactions`);
    expect(first.status).toBe(503);
    expect(first.headers['retry-after']).toBe('1');
    expect((await get(`${API}/account/transactions`)).status).toBe(503);
    expect((await get(`${API}/account/transactions`)).status).toBe(200);
    expect(server.requests.filter((entry) => entry.endpoint === 'statement')).toHaveLength(3);
  });

  it('500, HTML 502, 429 with Retry-After, truncated JSON and the wrong shape', async () => {
    await start('keys:500,charge:html502,dict:429,emv:badjson,transfer:wrongshape');
    expectError(await get(`${API}/pix/keys`), 500);
    const html = await immediate();
    expect(html.status).toBe(502);
    expect(html.headers['content-type']).toContain('text/html');
    expect(html.json).toBeUndefined();
    const limited = await post(`${API}/pix/dict/consult`, { key: 'a@b.co' });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    const truncated = await post(`${API}/pix/emv/consult`, { emv: 'x' });
    expect(truncated.status).toBe(200);
    expect(() => JSON.parse(truncated.text)).toThrow();
    const shape = await post(`${API}/pix-cash-out/transfer`, { endToEndId: 'x' });
    expect(shape.json).toBeDefined();
    expect(shape.json).not.toHaveProperty('endToEndId');
    expect(shape.json).not.toHaveProperty('status');
  });

  it('a faulted charge changes nothing', async () => {
    await start('charge:500x1');
    expect((await immediate()).status).toBe(500);
    const second = await immediate();
    expect(second.status).toBe(201);
    expect(second.json.transactionId).toBe(100_001);
  });

  it('reset destroys the connection before any byte; timeout never answers and close() still ends', async () => {
    await start('keys:reset,transfer:timeout');
    await expect(get(`${API}/pix/keys`)).rejects.toThrow(/other side closed|ECONNRESET|socket/i);
    const hanging = request(`${server.url}${API}/pix-cash-out/transfer`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{}',
      headersTimeout: 300,
    });
    await expect(hanging).rejects.toThrow(/timeout/i);
    await within(server.close(), 'close() with a request held by the timeout fault');
    expect(server.requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      `GET ${API}/pix/keys`,
      `POST ${API}/pix-cash-out/transfer`,
    ]);
  });

  it('rejects a bad spec when starting', async () => {
    await expect(start('statement:teapot')).rejects.toThrow(/unknown fault/);
    await start();
  });
});

describe('state across servers', () => {
  let other: SandboxServer;

  it('two servers over one state file see each other’s charges and the shared clock', async () => {
    other = await startSandboxServer({
      port: 0,
      stateFile: join(dir, 'state.json'),
      clock: () => new Date(realNow),
    });
    try {
      const charge = (await immediate({ expiration: { value: 1, unit: 'hours' } })).json;
      const consult = await request(`${other.url}${API}/pix/emv/consult`, {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: JSON.stringify({ emv: charge.emvqrcps }),
      });
      expect(consult.statusCode).toBe(200);
      expect(((await consult.body.json()) as { type: string }).type).toBe('DYNAMIC_QRCODE');
    } finally {
      await other.close();
    }
  });
});
