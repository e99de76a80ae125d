import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import QRCode from 'qrcode';
import { beforeEach, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../../src/config/store.js';
import { encodeBrCode } from '../../../src/domain/brcodeencode.js';
import { run } from '../../../src/main.js';
import { SYSTEM } from '../../../src/system.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { rememberAccount } from '../../helpers/config.js';
import { createTestIO } from '../../helpers/io.js';
import { intercept, mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';
import { pixWith } from '../../helpers/pix.js';

const IMMEDIATE = '/api/financial/v1/pix-cash-in/immediate';
const DUEDATE = '/api/financial/v1/pix-cash-in/duedate';
const KEYS = '/api/financial/v1/pix/keys';
const KEY_ID = '5f0b6a52-7a8e-4c1f-9d3b-1a2b3c4d5e01';
// 12:00 in São Paulo on 2026-11-20.
const NOW = new Date('2026-11-20T15:00:00.000Z');
const clock = { now: () => NOW };

const EMV = encodeBrCode({
  url: 'sandbox.pix.local/qr/v2/ABC123',
  merchantName: 'Loja Teste',
  merchantCity: 'Sao Paulo',
  amount: 1050,
  pointOfInitiation: '12',
});
const DATA_URL = await QRCode.toDataURL(EMV, { type: 'image/png' });
const PNG = Buffer.from(DATA_URL.slice('data:image/png;base64,'.length), 'base64');

const charge = (extra: Record<string, unknown> = {}) => ({
  id: '0c7e3d1a-1111-4222-8333-944455556666',
  amount: 10.5,
  status: 'PENDING',
  pixKey: 'loja@example.com',
  pixKeyId: KEY_ID,
  type: 'IMMEDIATE_QRCODE',
  emvqrcps: EMV,
  transactionId: 100001,
  transactionIdentification: 'ABC123',
  createdAt: '2026-11-20T15:04:05.000Z',
  expiresAt: '2026-11-20T16:04:05.000Z',
  qrCodeDataUrl: DATA_URL,
  ...extra,
});

const key = (index: number, value = `k${index}@example.com`) => ({
  id: `00000000-0000-4000-8000-00000000000${index}`,
  key: value,
  keyType: 'EMAIL',
  createdAt: '2026-11-01T10:00:00Z',
});

const mock = mockAgentPerTest();
let env: Record<string, string>;

beforeEach(async () => {
  env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: ORIGIN, PIX_TOKEN: 'test-token-charge' };
  await rememberAccount(env);
});

const JSON_HEADERS = { headers: { 'content-type': 'application/json' } };

/**
 * Intercepts one POST and returns what the server received. A created charge answers with the amount
 * and key id of the request, as the API does (pix checks them: test/commands/answers.test.ts).
 */
function interceptCharge(
  path: string,
  reply: { status: number; body: unknown } = { status: 201, body: charge() },
) {
  const seen: { body?: Record<string, unknown> } = {};
  mock.agent
    .get(ORIGIN)
    .intercept({ path, method: 'POST' })
    .reply((options) => {
      seen.body = JSON.parse(String(options.body));
      const created =
        reply.status < 300 && typeof reply.body === 'object' && reply.body !== null && 'amount' in reply.body;
      const body = created
        ? { ...(reply.body as object), amount: seen.body!.amount, pixKeyId: seen.body!.pixKeyId }
        : reply.body;
      return { statusCode: reply.status, data: JSON.stringify(body), responseOptions: JSON_HEADERS };
    });
  return seen;
}

function interceptKeys(query: Record<string, string>, page: { total: number; result: unknown[] }) {
  intercept(mock, KEYS, query, page);
}

const pix = pixWith(() => ({ env, dispatcher: mock.agent, clock }));

/** `pix charge immediate --key-id KEY_ID …flags` (a later --key-id wins). */
const immediate = (...flags: string[]) => pix(['charge', 'immediate', '--key-id', KEY_ID, ...flags]);

const DEBTOR = ['--debtor-name', 'Ana Souza', '--debtor-cpf', '529.982.247-25'];
const base = ['--amount', '150', '--due', '2026-12-10', '--key-id', KEY_ID, ...DEBTOR];
const without = (flag: string) => {
  const at = base.indexOf(flag);
  return [...base.slice(0, at), ...base.slice(at + 2)];
};

/** `pix charge duedate` with a valid request, then …flags (a later flag wins). */
const dueDate = (...flags: string[]) => pix(['charge', 'duedate', ...base, ...flags]);

describe('pix charge immediate', () => {
  it('sends the API request (reais, expiration, debtor, question, info) and --json prints the charge as is', async () => {
    const seen = interceptCharge(IMMEDIATE);
    const result = await immediate(
      '--amount',
      '10,50',
      '--expires-in',
      '2h',
      '--payer-name',
      'Ana Souza',
      '--payer-tax-id',
      '529.982.247-25',
      '--question',
      'Pedido 123?',
      '--info',
      'pedido=123',
      '--info',
      'loja=centro=1',
      '--json',
    );
    expect(result.code).toBe(0);
    expect(seen.body).toEqual({
      pixKeyId: KEY_ID,
      amount: 10.5,
      expiration: { value: 2, unit: 'hours' },
      debtor: { name: 'Ana Souza', taxId: '52998224725' },
      payerQuestion: 'Pedido 123?',
      additionalInformation: [
        { name: 'pedido', value: '123' },
        { name: 'loja', value: 'centro=1' },
      ],
    });
    // The server's object exactly: same fields, same order, unknown fields kept.
    expect(result.stdout).toBe(`${JSON.stringify(charge())}\n`);
  });

  it('--json keeps fields pix does not know, in the order the server sent them', async () => {
    const body = { zeta: 1, ...charge(), extra: { nested: true } };
    interceptCharge(IMMEDIATE, { status: 201, body });
    const result = await immediate('--amount', '10,50', '--json');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${JSON.stringify(body)}\n`);
  });

  it.each([
    ['90s', { value: 2, unit: 'minutes' }, 'rounded up to 2 minutes'],
    ['120s', { value: 2, unit: 'minutes' }, ''],
    ['45m', { value: 45, unit: 'minutes' }, ''],
    ['1d', { value: 1, unit: 'days' }, ''],
  ])(
    '--expires-in %s → %j (a note on stderr when seconds are rounded up)',
    async (text, expiration, note) => {
      const seen = interceptCharge(IMMEDIATE);
      const result = await immediate('--amount', '5', '--expires-in', text, '--json');
      expect(result.code).toBe(0);
      expect(seen.body?.expiration).toEqual(expiration);
      if (note) expect(result.stderr).toContain(note);
      else expect(result.stderr).toBe('');
    },
  );

  it('piped: one TSV line in the documented column order, the code included, no drawing', async () => {
    interceptCharge(IMMEDIATE);
    const result = await immediate('--amount', '10.50');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `${[
        '0c7e3d1a-1111-4222-8333-944455556666',
        'PENDING',
        'IMMEDIATE_QRCODE',
        '10.50',
        'loja@example.com',
        KEY_ID,
        'ABC123',
        '2026-11-20T15:04:05.000Z',
        '2026-11-20T16:04:05.000Z',
        '',
        EMV,
      ].join('\t')}\n`,
    );
  });

  it('on a terminal: the fields in the profile zone, the code on its own line, then the QR drawing', async () => {
    interceptCharge(IMMEDIATE);
    const result = await pix(['charge', 'immediate', '--amount', '10.50', '--key-id', KEY_ID], { tty: true });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(result.stdout).toContain('R$ 10,50');
    expect(result.stdout).toContain('immediate');
    // 15:04 UTC is 12:04 in São Paulo.
    expect(result.stdout).toContain('2026-11-20 12:04');
    expect(result.stdout).toContain('2026-11-20 13:04');
    expect(lines).toContain(EMV);
    expect(result.stdout).toMatch(/[▀▄█]{10,}/);
    expect(result.stdout.indexOf(EMV)).toBeLessThan(result.stdout.search(/[▀▄█]/));
  });

  it('--no-qr on a terminal prints the code but no drawing', async () => {
    interceptCharge(IMMEDIATE);
    const result = await pix(['charge', 'immediate', '--amount', '10.50', '--key-id', KEY_ID, '--no-qr'], {
      tty: true,
    });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toContain(EMV);
    expect(result.stdout).not.toMatch(/[▀▄█]/);
  });

  it('--key is resolved to its id through every page of GET pix/keys', async () => {
    interceptKeys({ limit: '100', offset: '0' }, { total: 2, result: [key(1)] });
    interceptKeys({ limit: '1', offset: '1' }, { total: 2, result: [key(2, 'Loja@Example.com')] });
    const seen = interceptCharge(IMMEDIATE);
    const result = await pix([
      'charge',
      'immediate',
      '--amount',
      '10',
      '--key',
      'loja@example.com',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(seen.body?.pixKeyId).toBe(key(2).id);
  });

  it('--key-id takes the start of an id as a narrow `pix keys` shows it (git-style), … and all', async () => {
    const keys = [
      { ...key(1), id: '5f0b6a52-1111-4222-8333-944455556666' },
      { ...key(2), id: '9c1d0e77-1111-4222-8333-944455556666' },
    ];
    interceptKeys({ limit: '100', offset: '0' }, { total: 2, result: keys });
    const seen = interceptCharge(IMMEDIATE);
    const result = await immediate('--amount', '10', '--key-id', '5F0B6A52…', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(seen.body?.pixKeyId).toBe('5f0b6a52-1111-4222-8333-944455556666');
  });

  it.each([
    [
      '5f0b',
      /^error: --key-id: 5f0b starts 2 key ids: give more of it\nhint: they are: .*5f0b6a52-1.*5f0b6a52-2/,
    ],
    ['abcd1234', /^error: --key-id: no key of this account has an id starting with abcd1234\n/],
  ])(
    '--key-id %s: ambiguous or unknown start → exit 2 listing the keys, no charge',
    async (start, message) => {
      const keys = [
        { ...key(1), id: '5f0b6a52-1111-4222-8333-944455556666' },
        { ...key(2), id: '5f0b6a52-2222-4222-8333-944455556666' },
      ];
      interceptKeys({ limit: '100', offset: '0' }, { total: 2, result: keys });
      const result = await immediate('--amount', '10', '--key-id', start);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    },
  );

  it('--key-id that is neither a UUID nor the start of one: exit 2 before anything is read', async () => {
    const result = await immediate('--amount', '10', '--key-id', 'loja@example.com');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: --key-id: "loja@example.com" is not a key id: a UUID, or its first/,
    );
  });

  it('--key that is not one of the account keys: exit 2 listing them, no charge', async () => {
    interceptKeys({ limit: '100', offset: '0' }, { total: 1, result: [key(1)] });
    const result = await pix(['charge', 'immediate', '--amount', '10', '--key', 'other@example.com']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --key: "other@example.com" is not a PIX key of this account/);
    expect(result.stderr).toContain('k1@example.com');
  });

  it('neither --key-id nor --key: the only key of the account', async () => {
    interceptKeys({ limit: '100', offset: '0' }, { total: 1, result: [key(1)] });
    const seen = interceptCharge(IMMEDIATE);
    const result = await pix(['charge', 'immediate', '--amount', '10', '--json']);
    expect(result.code).toBe(0);
    expect(seen.body?.pixKeyId).toBe(key(1).id);
  });

  it('neither, with several keys and no default-key: exit 2 listing the keys, no charge', async () => {
    interceptKeys({ limit: '100', offset: '0' }, { total: 2, result: [key(1), key(2)] });
    const result = await pix(['charge', 'immediate', '--amount', '10']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(/^error: --key-id: this account has 2 PIX keys/);
    expect(result.stderr).toContain(`k1@example.com (EMAIL, id ${key(1).id})`);
    expect(result.stderr).toContain('k2@example.com');
  });

  it("the profile's default-key (a key or an id) chooses among several keys", async () => {
    const store = openConfigStore(env, SYSTEM);
    await store.setProfile('work', { 'base-url': ORIGIN, 'default-key': 'k2@example.com' });
    await store.setCurrentProfile('work');
    env = { PIX_CONFIG_DIR: env.PIX_CONFIG_DIR!, PIX_TOKEN: 'test-token-charge' };
    interceptKeys({ limit: '100', offset: '0' }, { total: 2, result: [key(1), key(2)] });
    const seen = interceptCharge(IMMEDIATE);
    expect((await pix(['charge', 'immediate', '--amount', '10', '--json'])).code).toBe(0);
    expect(seen.body?.pixKeyId).toBe(key(2).id);

    await store.setProfile('work', { 'base-url': ORIGIN, 'default-key': key(1).id });
    interceptKeys({ limit: '100', offset: '0' }, { total: 2, result: [key(1), key(2)] });
    const again = interceptCharge(IMMEDIATE);
    expect((await pix(['charge', 'immediate', '--amount', '10', '--json'])).code).toBe(0);
    expect(again.body?.pixKeyId).toBe(key(1).id);
  });

  it.each([
    [['--amount', '4.99'], '--amount'],
    [['--amount', '0'], '--amount'],
    [['--amount', '-1'], '--amount'],
    [['--amount', '1e3'], '--amount'],
    [['--amount', '10.505'], '--amount'],
    [['--amount', '1,234.56'], '--amount'],
    [['--amount', '1.234'], '--amount'],
    [['--amount', 'abc'], '--amount'],
    [[], '--amount'],
    [['--amount', '10', '--key-id', 'not-a-uuid'], '--key-id'],
    [['--amount', '10', '--key-id', KEY_ID, '--key', 'a@b.com'], '--key'],
    [['--amount', '10', '--question', 'x'.repeat(141)], '--question'],
    [['--amount', '10', '--expires-in', '0'], '--expires-in'],
    [['--amount', '10', '--expires-in', '-5m'], '--expires-in'],
    [['--amount', '10', '--expires-in', '3w'], '--expires-in'],
    [['--amount', '10', '--payer-name', 'Ana', '--payer-tax-id', '529.982.247-24'], '--payer-tax-id'],
    [['--amount', '10', '--payer-name', 'Ana', '--payer-tax-id', '123'], '--payer-tax-id'],
    [['--amount', '10', '--payer-name', 'Ana'], '--payer-tax-id'],
    [['--amount', '10', '--payer-tax-id', '52998224725'], '--payer-name'],
    [['--amount', '10', '--info', 'novalue'], '--info'],
    [['--amount', '10', '--info', '=x'], '--info'],
  ])('%j → exit 2 naming %s, nothing sent', async (flags, flag) => {
    const result = await immediate(...flags);
    expect(result.code).toBe(2);
    const [first] = result.stderr.split('\n');
    expect(first).toMatch(/^error: /);
    expect(first).toContain(flag);
    expect(result.stdout).toBe('');
  });

  it.each([
    [404, 4, 'Chave PIX não encontrada'],
    [403, 3, 'IP não autorizado'],
    [422, 5, 'Valor da cobrança inválido'],
    [400, 5, 'Requisição inválida'],
    [500, 7, 'Erro interno'],
  ])('HTTP %i → exit %i with the server message', async (status, exit, message) => {
    interceptCharge(IMMEDIATE, { status, body: { message } });
    const result = await immediate('--amount', '10');
    expect(result.code).toBe(exit);
    expect(result.stderr.split('\n')[0]).toBe(
      `error: creating the charge: ${
        {
          404: 'not found',
          403: 'this IP address is not authorised',
          422: 'the request was refused',
          400: 'the request was refused',
          500: 'the server failed',
        }[status]
      } (${status}): ${message}`,
    );
    expect(result.stdout).toBe('');
    if (exit === 7) expect(result.stderr).toContain('pix statement');
  });

  it('an answer of the wrong shape after a 201 is an unknown outcome (exit 7), never a retry', async () => {
    interceptCharge(IMMEDIATE, { status: 201, body: { ok: true } });
    const result = await immediate('--amount', '10');
    expect(result.code).toBe(7);
  });
});

describe('pix charge immediate --qr-png', () => {
  it('writes the PNG of qrCodeDataUrl to the file', async () => {
    interceptCharge(IMMEDIATE);
    const file = join(env.PIX_CONFIG_DIR!, 'qr.png');
    const result = await immediate('--amount', '10', '--qr-png', file, '--json');
    expect(result.code).toBe(0);
    expect(readFileSync(file).equals(PNG)).toBe(true);
    expect(JSON.parse(result.stdout).id).toBe(charge().id);
  });

  it('refuses to overwrite an existing file without --force BEFORE creating the charge', async () => {
    const file = join(env.PIX_CONFIG_DIR!, 'qr.png');
    writeFileSync(file, 'keep me');
    const result = await immediate('--amount', '10', '--qr-png', file);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --qr-png: .*already exists; add --force/);
    expect(readFileSync(file, 'utf8')).toBe('keep me');
    // No interceptor was registered: a POST would have failed with a different exit code.
  });

  it('--force overwrites', async () => {
    interceptCharge(IMMEDIATE);
    const file = join(env.PIX_CONFIG_DIR!, 'qr.png');
    writeFileSync(file, 'old');
    const result = await immediate('--amount', '10', '--qr-png', file, '--force');
    expect(result.code).toBe(0);
    expect(readFileSync(file).equals(PNG)).toBe(true);
  });

  it('a missing directory is refused before the charge', async () => {
    const file = join(env.PIX_CONFIG_DIR!, 'nope', 'qr.png');
    const result = await immediate('--amount', '10', '--qr-png', file);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --qr-png: /);
  });

  it('`-` writes the PNG bytes to stdout and the charge to stderr', async () => {
    interceptCharge(IMMEDIATE);
    const test = createTestIO();
    // The test IO keeps text; keep the bytes written to stdout as they were.
    const bytes: Buffer[] = [];
    const write = test.io.stdout.write;
    test.io.stdout = {
      ...test.io.stdout,
      write: (chunk, done) => {
        bytes.push(Buffer.from(chunk));
        return write(chunk, done);
      },
    };
    const code = await run(['charge', 'immediate', '--amount', '10', '--key-id', KEY_ID, '--qr-png', '-'], {
      io: test.io,
      env,
      dispatcher: mock.agent,
      clock,
    });
    expect(code).toBe(0);
    expect(Buffer.concat(bytes).equals(PNG)).toBe(true);
    expect(test.stderr()).toContain(EMV);
    expect(test.stderr()).toContain('0c7e3d1a-1111-4222-8333-944455556666\tPENDING');
  });

  it('`-` with stdout on a terminal is refused before the charge', async () => {
    const result = await pix(['charge', 'immediate', '--amount', '10', '--key-id', KEY_ID, '--qr-png', '-'], {
      stdoutTTY: true,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --qr-png: /);
  });

  it('a data URL that is not a PNG: warning, the charge printed anyway, exit 0, no file', async () => {
    interceptCharge(IMMEDIATE, {
      status: 201,
      body: charge({ qrCodeDataUrl: 'data:image/gif;base64,R0lGODlh' }),
    });
    const file = join(env.PIX_CONFIG_DIR!, 'qr.png');
    const result = await immediate('--amount', '10', '--qr-png', file, '--json');
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^warning: --qr-png: the charge was created but its PNG was not written/);
    expect(JSON.parse(result.stdout).id).toBe(charge().id);
    expect(existsSync(file)).toBe(false);
  });

  it('base64 that does not hold a PNG is refused the same way', async () => {
    const notPng = `data:image/png;base64,${Buffer.from('GIF89a not a png').toString('base64')}`;
    interceptCharge(IMMEDIATE, { status: 201, body: charge({ qrCodeDataUrl: notPng }) });
    const file = join(env.PIX_CONFIG_DIR!, 'qr.png');
    const result = await immediate('--amount', '10', '--qr-png', file);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('does not hold a PNG');
    expect(result.stdout).toContain(EMV);
    expect(existsSync(file)).toBe(false);
  });
});

describe('pix charge duedate', () => {
  const dueCharge = charge({ type: 'DUE_DATE', dueDate: '2026-12-10', amount: 150 });

  it('sends the API §4.3 request with every modifier, in reais and percentages', async () => {
    const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const result = await pix([
      'charge',
      'duedate',
      '--amount',
      '150',
      '--due',
      '2026-12-10',
      '--key-id',
      KEY_ID,
      '--expire-after-days',
      '30',
      ...DEBTOR,
      '--debtor-email',
      'ana@example.com',
      '--debtor-street',
      'Av. Paulista, 1000',
      '--debtor-city',
      'São Paulo',
      '--debtor-state',
      'sp',
      '--debtor-postal-code',
      '01310-100',
      '--discount',
      '2026-12-01=10,50',
      '--discount',
      '2026-12-05=5',
      '--discount-modality',
      'FIXED_VALUE_UNTIL_THE_DATES_INFORMED',
      '--abatement',
      '2.5',
      '--abatement-modality',
      'PERCENT',
      '--fine',
      '2',
      '--fine-modality',
      'PERCENT',
      '--interest',
      '0,033',
      '--interest-modality',
      'PERCENTAGE_PER_DAY_CALENDAR_DAYS',
      '--question',
      'Mensalidade?',
      '--info',
      'contrato=42',
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen.body).toEqual({
      pixKeyId: KEY_ID,
      amount: 150,
      duedate: '2026-12-10',
      expirationAfterPayment: 30,
      debtor: {
        name: 'Ana Souza',
        cpf: '52998224725',
        email: 'ana@example.com',
        publicArea: 'Av. Paulista, 1000',
        city: 'São Paulo',
        state: 'SP',
        postalCode: '01310100',
      },
      payerQuestion: 'Mensalidade?',
      amountDiscount: {
        modality: 'FIXED_VALUE_UNTIL_THE_DATES_INFORMED',
        discountDateFixed: [
          { date: '2026-12-01', amountPerc: 10.5 },
          { date: '2026-12-05', amountPerc: 5 },
        ],
      },
      amountAbatement: { modality: 'PERCENT', amountPerc: 2.5 },
      amountFine: { modality: 'PERCENT', amountPerc: 2 },
      amountInterest: { modality: 'PERCENTAGE_PER_DAY_CALENDAR_DAYS', amountPerc: 0.033 },
      additionalInformation: [{ name: 'contrato', value: '42' }],
    });
    expect(JSON.parse(result.stdout)).toEqual(dueCharge);
  });

  it('default modalities are the ones the API document shows; a per-day discount takes a bare value', async () => {
    const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const result = await pix([
      'charge',
      'duedate',
      '--amount',
      '150',
      '--due',
      '2026-11-20',
      '--key-id',
      KEY_ID,
      ...DEBTOR,
      '--discount',
      '1',
      '--discount-modality',
      'AMOUNT_PER_CALENDAR_DAY_ADVANCE',
      '--fine',
      '3,50',
      '--interest',
      '1',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(seen.body).toMatchObject({
      duedate: '2026-11-20',
      amountDiscount: { modality: 'AMOUNT_PER_CALENDAR_DAY_ADVANCE', amountPerc: 1 },
      amountFine: { modality: 'FIXED_VALUE', amountPerc: 3.5 },
      amountInterest: { modality: 'PERCENTAGE_PER_MONTH_WORKING_DAYS', amountPerc: 1 },
    });
    expect(seen.body).not.toHaveProperty('amountAbatement');
  });

  it('an unknown UPPER_CASE modality is sent with a warning', async () => {
    const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const result = await dueDate('--fine', '2', '--fine-modality', 'NEW_FINE_KIND', '--json');
    expect(result.code).toBe(0);
    expect(seen.body?.amountFine).toEqual({ modality: 'NEW_FINE_KIND', amountPerc: 2 });
    expect(result.stderr).toMatch(
      /^warning: --fine-modality: NEW_FINE_KIND is not one of the fine modalities pix knows/,
    );
  });

  it('a value written with % selects the percentage modality; amounts take the Brazilian form', async () => {
    const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const result = await dueDate(
      '--amount',
      'R$ 1.500,00',
      '--discount',
      '2026-12-01=5%',
      '--abatement',
      '2,5%',
      '--fine',
      '2 %',
      '--interest',
      '1%',
      '--json',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen.body).toMatchObject({
      amount: 1500,
      amountDiscount: {
        modality: 'PERCENTAGE_DATE_REPORTED',
        discountDateFixed: [{ date: '2026-12-01', amountPerc: 5 }],
      },
      amountAbatement: { modality: 'PERCENT', amountPerc: 2.5 },
      amountFine: { modality: 'PERCENT', amountPerc: 2 },
      amountInterest: { modality: 'PERCENTAGE_PER_MONTH_WORKING_DAYS', amountPerc: 1 },
    });
  });

  it('a value written in R$ selects the modality in reais, for each of the four', async () => {
    const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const result = await dueDate(
      '--discount',
      '2026-12-01=R$ 5,00',
      '--abatement',
      'R$ 2,50',
      '--fine',
      'R$2',
      '--interest',
      'R$ 0,10',
      '--json',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen.body).toMatchObject({
      amountDiscount: {
        modality: 'FIXED_VALUE_UNTIL_THE_DATES_INFORMED',
        discountDateFixed: [{ date: '2026-12-01', amountPerc: 5 }],
      },
      amountAbatement: { modality: 'FIXED_VALUE', amountPerc: 2.5 },
      amountFine: { modality: 'FIXED_VALUE', amountPerc: 2 },
      amountInterest: { modality: 'VALUE_CALENDAR_DAYS', amountPerc: 0.1 },
    });
  });

  it.each([
    [
      ['--interest', 'R$ 1,00', '--interest-modality', 'PERCENTAGE_PER_MONTH_WORKING_DAYS'],
      /^error: --interest: "R\$ 1,00" is in reais, but --interest-modality is PERCENTAGE_PER_MONTH_WORKING_DAYS/,
    ],
    [
      ['--discount', '2026-12-01=R$ 5', '--discount', '2026-12-05=2%'],
      /^error: --discount: "R\$ 5" is in reais and "2%" \(--discount\) a percentage: one discount has one unit/,
    ],
  ])('%j: a unit that contradicts → exit 2, nothing sent', async (flags, message) => {
    const result = await dueDate(...flags);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(message);
  });

  it('on a terminal: the payer and every term sent, each with its unit, at 80 columns', async () => {
    interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const result = await pix(
      [
        'charge',
        'duedate',
        ...base,
        '--discount',
        '2026-12-01=5%',
        '--discount',
        '2026-12-05=2,5%',
        '--abatement',
        'R$ 2,50',
        '--fine',
        '2',
        '--interest',
        '1',
        '--no-qr',
      ],
      { tty: true, columns: 80 },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = stripVTControlCharacters(result.stdout)

      .split('\n')
      .map((line) => line.trimEnd());
    const row = (label: string) => lines.find((line) => line.startsWith(label))?.replace(/\s+/g, ' ');
    expect(row('Payer')).toBe('Payer Ana Souza, 529.982.247-25');
    // Wrapped inside its cell at 80 columns, never cut.
    const discount = lines.findIndex((line) => line.startsWith('Discount'));
    expect(`${lines[discount]} ${lines[discount + 1]}`.replace(/\s+/g, ' ')).toBe(
      'Discount 5 % until 2026-12-01; 2,5 % until 2026-12-05 (PERCENTAGE_DATE_REPORTED)',
    );
    expect(row('Abatement')).toBe('Abatement R$ 2,50 off the amount (FIXED_VALUE)');
    expect(row('Fine')).toBe('Fine R$ 2,00 once, after the due date (FIXED_VALUE)');
    expect(row('Interest')).toBe(
      'Interest 1 % per month late (working days) (PERCENTAGE_PER_MONTH_WORKING_DAYS)',
    );
    // The detail block fits; the copy-and-paste code after it is printed whole, whatever its length.
    const block = lines.slice(0, lines.indexOf('Pix copy and paste:'));
    expect(block.every((line) => Array.from(line).length <= 80)).toBe(true);

    // `charge show` later shows the same terms, from the ledger (the API's charge does not repeat them).
    const shown = await pix(['charge', 'show', dueCharge.id, '--offline', '--no-qr'], {
      tty: true,
      columns: 80,
    });
    expect(shown.code, shown.stderr).toBe(0);
    const again = stripVTControlCharacters(shown.stdout).split('\n');
    const detail = (text: string) => text.replace(/\s+/g, ' ').trim();
    for (const label of ['Payer', 'Abatement', 'Fine', 'Interest']) {
      expect(detail(again.find((line) => line.startsWith(label))!)).toBe(row(label));
    }
  });

  it.each([
    [
      ['--fine', '2%', '--fine-modality', 'FIXED_VALUE'],
      /^error: --fine: "2%" is a percentage, but --fine-modality is FIXED_VALUE/,
    ],
    [
      ['--interest', '1%', '--interest-modality', 'VALUE_WORKING_DAYS'],
      /^error: --interest: "1%" is a percentage/,
    ],
    [
      ['--discount', '2026-12-01=5%', '--discount-modality', 'FIXED_VALUE_UNTIL_THE_DATES_INFORMED'],
      /^error: --discount: "5%" is a percentage/,
    ],
  ])(
    '%j: a %% value against an explicit modality in reais → exit 2, nothing sent',
    async (flags, message) => {
      const result = await dueDate(...flags);
      expect(result.code).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(message);
      expect(result.stderr).toContain('hint: drop the %, or give a percentage modality');
    },
  );

  it('a % value in --body against its modality in reais → exit 2 naming the flag and the body field', async () => {
    const body = {
      pixKeyId: KEY_ID,
      amount: 50,
      duedate: '2026-12-10',
      debtor: { name: 'Ana', cpf: '52998224725' },
      amountFine: { modality: 'FIXED_VALUE', amountPerc: 2 },
    };
    const result = await pix(['charge', 'duedate', '--body', '-', '--fine', '3%'], {
      stdin: JSON.stringify(body),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: --fine: "3%" is a percentage, but --body: amountFine\.modality is FIXED_VALUE/,
    );
  });

  it('--due takes today, tomorrow and +N days (in the profile time zone), and so do discount dates', async () => {
    // NOW is 2026-11-20 in São Paulo.
    for (const [due, date] of [
      ['today', '2026-11-20'],
      ['tomorrow', '2026-11-21'],
      ['+30d', '2026-12-20'],
    ] as const) {
      const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
      const result = await dueDate('--due', due, '--json');
      expect(result.code, result.stderr).toBe(0);
      expect(seen.body?.duedate).toBe(date);
    }
    const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const result = await dueDate(
      '--due',
      '+30d',
      '--discount',
      '+10d=5%',
      '--discount',
      'today=10%',
      '--json',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(seen.body?.amountDiscount).toEqual({
      modality: 'PERCENTAGE_DATE_REPORTED',
      discountDateFixed: [
        { date: '2026-11-30', amountPerc: 5 },
        { date: '2026-11-20', amountPerc: 10 },
      ],
    });
    const late = await dueDate('--due', 'tomorrow', '--discount', '+2d=5%');
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/^error: --discount: 2026-11-22 is after the due date 2026-11-21/);
    const bad = await dueDate('--due', 'next week');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^error: --due: "next week" is not a day: use YYYY-MM-DD, today, tomorrow or \+N days/,
    );
  });

  it('PERCENTAGE_PER_DAY_WORKING_DAYS is sent as the provider spells it, without a warning', async () => {
    const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const result = await dueDate(
      '--interest',
      '0,05',
      '--interest-modality',
      'PERCENTAGE_PER_DAY_WORKING_DAYS',
      '--json',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen.body?.amountInterest).toEqual({
      modality: 'PERCENTAGE_PER_DAYWORKING_DAYS',
      amountPerc: 0.05,
    });
  });

  it.each([
    [
      ['--interest', '1', '--interest-modality', 'PERCENTAGE_PER_MONTH_WORKING_DAY'],
      'did you mean PERCENTAGE_PER_MONTH_WORKING_DAYS?',
    ],
    [['--fine', '2', '--fine-modality', 'percent'], 'did you mean PERCENT?'],
    [['--fine', '2', '--fine-modality', 'PERCENTAGE'], 'did you mean PERCENT?'],
    [
      ['--interest', '1', '--interest-modality', 'percentage-per-day-working-days'],
      'did you mean PERCENTAGE_PER_DAYWORKING_DAYS?',
    ],
    [['--interest', '1', '--interest-modality', 'PERCENT'], 'use one of VALUE_CALENDAR_DAYS'],
  ])('%j → exit 2 with a hint: %s', async (flags, hint) => {
    const result = await dueDate(...flags);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --(fine|interest)-modality: /);
    expect(result.stderr).toContain(`hint: ${hint}`);
  });

  it('on a terminal the due-date type (DUE_DATE or DUEDATE_QRCODE) reads "due date", with the due date', async () => {
    for (const type of ['DUE_DATE', 'DUEDATE_QRCODE']) {
      interceptCharge(DUEDATE, { status: 201, body: { ...dueCharge, type } });
      const result = await pix(
        [
          'charge',
          'duedate',
          '--amount',
          '150',
          '--due',
          '2026-12-10',
          '--key-id',
          KEY_ID,
          ...DEBTOR,
          '--no-qr',
        ],
        { tty: true },
      );
      expect(result.code).toBe(0);
      const plain = stripVTControlCharacters(result.stdout);
      expect(plain).toMatch(/Type\s+due date\n/);
      expect(plain).toMatch(/Due\s+2026-12-10\n/);
      expect(result.stdout).toContain('R$ 150,00');
    }
  });

  it('--body gives the whole request; flags override its fields', async () => {
    const file = join(env.PIX_CONFIG_DIR!, 'charge.json');
    writeFileSync(
      file,
      JSON.stringify({
        pixKeyId: KEY_ID,
        amount: 99.9,
        duedate: '2026-12-10',
        debtor: { name: 'Bruno Lima', cpf: '123.456.789-09', city: 'Recife', state: 'PE' },
        amountFine: { modality: 'PERCENT', amountPerc: 2 },
        additionalInformation: [{ name: 'a', value: 'b' }],
      }),
    );
    const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const result = await pix([
      'charge',
      'duedate',
      '--body',
      file,
      '--amount',
      '120',
      '--debtor-city',
      'Olinda',
      '--fine',
      '3',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(seen.body).toEqual({
      pixKeyId: KEY_ID,
      amount: 120,
      duedate: '2026-12-10',
      debtor: { name: 'Bruno Lima', cpf: '12345678909', city: 'Olinda', state: 'PE' },
      amountFine: { modality: 'PERCENT', amountPerc: 3 },
      additionalInformation: [{ name: 'a', value: 'b' }],
    });
  });

  it('--body - reads stdin', async () => {
    const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const body = { amount: 50, duedate: '2026-12-10', debtor: { name: 'Ana', cpf: '52998224725' } };
    const result = await pix(['charge', 'duedate', '--body', '-', '--key-id', KEY_ID, '--json'], {
      stdin: JSON.stringify(body),
    });
    expect(result.code).toBe(0);
    expect(seen.body).toEqual({ ...body, pixKeyId: KEY_ID });
  });

  it.each([
    [{ amount: 4 }, /^error: --body: amount: .*below R\$ 5,00/],
    [{ amount: 10.123 }, /^error: --body: amount: .*more than 2 decimals/],
    [{ amount: '10' }, /^error: --body: amount: /],
    [
      { duedate: '2026-11-19' },
      /^error: --body: duedate: 19\/11\/2026 is in the past \(today is \d\d\/\d\d\/\d{4}\)/,
    ],
    [{ dueDate: '2026-12-10' }, /^error: --body: .*dueDate/],
    [{ debtor: { name: 'Ana', cpf: '11111111111' } }, /^error: --body: debtor\.cpf: /],
    [{ debtor: { name: 'Ana', cpf: '52998224725', state: 'XX' } }, /^error: --body: debtor\.state: /],
    [{ amountFine: { modality: 'percent', amountPerc: 2 } }, /^error: --body: amountFine\.modality: /],
    [{ amountFine: { modality: 'PERCENT', amountPerc: 101 } }, /^error: --body: amountFine\.amountPerc: /],
    [{ payerQuestion: 'x'.repeat(141) }, /^error: --body: payerQuestion: /],
  ])('a bad --body field %j → exit 2 naming it, nothing sent', async (override, message) => {
    const body = {
      pixKeyId: KEY_ID,
      amount: 50,
      duedate: '2026-12-10',
      debtor: { name: 'Ana', cpf: '52998224725' },
      ...override,
    };
    const result = await pix(['charge', 'duedate', '--body', '-'], { stdin: JSON.stringify(body) });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(message);
  });

  it('--body that is not JSON or not there → exit 2', async () => {
    const notJson = await pix(['charge', 'duedate', '--body', '-'], { stdin: '{"amount": ' });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^error: --body: stdin is not JSON/);
    const missing = await pix(['charge', 'duedate', '--body', join(env.PIX_CONFIG_DIR!, 'missing.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: --body: cannot open .*missing.json: no such file or directory/);
  });

  it.each([
    [without('--amount'), '--amount'],
    [without('--due'), '--due'],
    [without('--debtor-name'), '--debtor-name'],
    [without('--debtor-cpf'), '--debtor-cpf'],
    [[...base, '--amount', '4,99'], '--amount'],
    [[...base, '--due', '2026-11-19'], '--due'],
    [[...base, '--due', '2026-02-30'], '--due'],
    [[...base, '--due', '10/12/26'], '--due'], // DD/MM/YYYY is a day (domain/when.ts calendarDay); a 2-digit year is not
    [[...base, '--debtor-cpf', '529.982.247-26'], '--debtor-cpf'],
    [[...base, '--debtor-email', 'ana@'], '--debtor-email'],
    [[...base, '--debtor-state', 'São Paulo'], '--debtor-state'],
    [[...base, '--debtor-state', 'XX'], '--debtor-state'],
    [[...base, '--debtor-postal-code', '1310-100'], '--debtor-postal-code'],
    [[...base, '--expire-after-days', '0'], '--expire-after-days'],
    [[...base, '--expire-after-days', '-3'], '--expire-after-days'],
    [[...base, '--fine', '2', '--fine-modality', 'percent'], '--fine-modality'],
    [[...base, '--fine', '2', '--fine-modality', 'PER-CENT'], '--fine-modality'],
    [[...base, '--fine-modality', 'PERCENT'], '--fine-modality'],
    [[...base, '--fine', '101', '--fine-modality', 'PERCENT'], '--fine'],
    [[...base, '--fine', '-1', '--fine-modality', 'PERCENT'], '--fine'],
    [[...base, '--interest', '1,5,5'], '--interest'],
    [[...base, '--abatement', '10.999'], '--abatement'],
    [[...base, '--discount', '2026-12-11=5'], '--discount'],
    [[...base, '--discount', '2026-12-31=5'], '--discount'],
    [[...base, '--discount', '2026-12-01'], '--discount'],
    [[...base, '--discount', '5'], '--discount'],
    [[...base, '--discount', '2026-12-01=5', '--discount', '2026-12-01=4'], '--discount'],
    [[...base, '--discount', '2026-12-01=5', '--discount-modality', 'lower_case'], '--discount-modality'],
    [[...base, '--question', 'y'.repeat(141)], '--question'],
    [[...base, '--info', 'x'], '--info'],
  ])('%j → exit 2 naming %s, nothing sent', async (flags, flag) => {
    const result = await pix(['charge', 'duedate', ...flags]);
    expect(result.code).toBe(2);
    const [first] = result.stderr.split('\n');
    expect(first).toMatch(/^error: /);
    expect(first).toContain(flag);
  });

  it('a question of exactly 140 characters (accents count once) is accepted', async () => {
    const seen = interceptCharge(DUEDATE, { status: 201, body: dueCharge });
    const question = 'ç'.repeat(140);
    const result = await dueDate('--question', question, '--json');
    expect(result.code).toBe(0);
    expect(seen.body?.payerQuestion).toBe(question);
  });
});
