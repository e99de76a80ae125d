import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeBrCode } from '../../src/domain/brcode.js';
import { todayIn } from '../../src/domain/when.js';
import { SEEDED_KEYS } from '../../src/sandbox/seed.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { accountReads, type FakeServer, startFakeServer } from '../helpers/fake-server.js';
import { serveSandbox } from '../helpers/served.js';
import { runOnPty } from '../helpers/terminal.js';

// jsqr is CommonJS with `export default`: under NodeNext the callable is `.default` at type level.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ??
  jsQRModule) as unknown as typeof jsQRModule.default;

const IMMEDIATE = '/api/financial/v1/pix-cash-in/immediate';
const DUEDATE = '/api/financial/v1/pix-cash-in/duedate';
/** A key id in the right form that no sandbox has: for requests refused before, or by, the server. */
const KEY_ID = '5f0b6a52-7a8e-4c1f-9d3b-1a2b3c4d5e01';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Every field of API §2.2 (description and dueDate only when they apply). */
const CHARGE_FIELDS = [
  'id',
  'amount',
  'status',
  'pixKey',
  'pixKeyId',
  'type',
  'emvqrcps',
  'transactionId',
  'transactionIdentification',
  'createdAt',
  'expiresAt',
  'qrCodeDataUrl',
];

const today = todayIn('America/Sao_Paulo', new Date());
/** A valid `pix charge duedate` request, due today. */
const dueFlags = [
  '--amount',
  '150',
  '--due',
  today,
  '--key',
  SEEDED_KEYS.email.key,
  '--debtor-name',
  'Ana',
  '--debtor-cpf',
  '52998224725',
];

function decodePng(file: string): string | undefined {
  const png = PNG.sync.read(readFileSync(file));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

describe('pix charge, built binary against the sandbox server', () => {
  let sandbox: SandboxServer;
  let dir: string;
  let env: Record<string, string>;
  /** The served state's own email key id (each state makes its own). */
  let keyId: string;

  beforeEach(async () => {
    let keyIds: { email: string };
    ({ server: sandbox, dir, env, keyIds } = await serveSandbox());
    keyId = keyIds.email;
  });
  afterEach(async () => {
    await sandbox.close();
  });

  const charges = () => sandbox.requests.filter((request) => request.endpoint === 'charge');

  it('a charge of 10,50: a code with a valid CRC, and a PNG that decodes to the same code', async () => {
    const file = join(dir, 'charge.png');
    const result = await runCli(
      ['charge', 'immediate', '--amount', '10,50', '--key-id', keyId, '--qr-png', file],
      {
        env,
      },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Piped: one TSV line, the copy-and-paste code last.
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const columns = lines[0]!.split('\t');
    expect(columns).toHaveLength(11);
    expect(columns.slice(1, 5)).toEqual(['PENDING', 'IMMEDIATE_QRCODE', '10.50', SEEDED_KEYS.email.key]);
    const code = columns[10]!;
    const decoded = decodeBrCode(code); // throws on a bad CRC or TLV
    expect(decoded.amount).toBe(1050);
    const bytes = readFileSync(file);
    expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(decodePng(file)).toBe(code);
    expect(charges()).toHaveLength(1);
  });

  it('--json: the API charge object, every field of API §2.2', async () => {
    const result = await runCli(['charge', 'immediate', '--amount', '10.50', '--key-id', keyId, '--json'], {
      env,
    });
    expect(result.code).toBe(0);
    const charge = JSON.parse(result.stdout);
    for (const field of CHARGE_FIELDS) expect(charge).toHaveProperty(field);
    expect(charge).toMatchObject({
      amount: 10.5,
      type: 'IMMEDIATE_QRCODE',
      status: 'PENDING',
      pixKeyId: keyId,
    });
    expect(charge).not.toHaveProperty('dueDate');
  });

  it('due date: --body with flags over it; --json carries dueDate and description too', async () => {
    const body = join(dir, 'body.json');
    writeFileSync(
      body,
      JSON.stringify({
        amount: 99,
        duedate: today,
        description: 'Mensalidade',
        debtor: { name: 'Ana Souza', cpf: '52998224725' },
      }),
    );
    const result = await runCli(
      [
        'charge',
        'duedate',
        '--body',
        body,
        '--amount',
        '150',
        '--key',
        'loja@sandbox.pix.local',
        '--fine',
        '2',
        '--json',
      ],
      { env },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const charge = JSON.parse(result.stdout);
    for (const field of [...CHARGE_FIELDS, 'dueDate', 'description']) expect(charge).toHaveProperty(field);
    expect(charge).toMatchObject({
      amount: 150,
      dueDate: today,
      description: 'Mensalidade',
      pixKeyId: keyId,
    });
    expect(['DUEDATE_QRCODE', 'DUE_DATE']).toContain(charge.type);
    decodeBrCode(charge.emvqrcps);
  });

  it('several keys and no default-key: exit 2 listing them, and no charge was sent', async () => {
    const result = await runCli(['charge', 'immediate', '--amount', '10'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --key-id: this account has 4 PIX keys/);
    expect(result.stderr).toContain(SEEDED_KEYS.email.key);
    expect(charges()).toHaveLength(0);
  });

  const yesterday = new Date(Date.parse(`${today}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

  it.each([
    [['immediate', '--amount', '4,99', '--key-id', KEY_ID], '--amount'],
    [['immediate', '--amount', '10.505', '--key-id', KEY_ID], '--amount'],
    [['immediate', '--amount', '10', '--key-id', KEY_ID, '--question', 'q'.repeat(141)], '--question'],
    [['immediate', '--amount', '10', '--key-id', KEY_ID, '--expires-in', '0'], '--expires-in'],
    [
      [
        'immediate',
        '--amount',
        '10',
        '--key-id',
        KEY_ID,
        '--payer-name',
        'A',
        '--payer-tax-id',
        '11111111111',
      ],
      '--payer-tax-id',
    ],
    [['immediate', '--amount', '10', '--key-id', KEY_ID, '--info', 'no-equals'], '--info'],
    [['duedate', ...dueFlags, '--due', yesterday], '--due'],
    [['duedate', ...dueFlags, '--debtor-cpf', '52998224724'], '--debtor-cpf'],
    [['duedate', ...dueFlags, '--debtor-email', 'ana.example.com'], '--debtor-email'],
    [['duedate', ...dueFlags, '--debtor-state', 'S'], '--debtor-state'],
    [['duedate', ...dueFlags, '--debtor-postal-code', '0131010'], '--debtor-postal-code'],
    [['duedate', ...dueFlags, '--expire-after-days', '0'], '--expire-after-days'],
    [['duedate', ...dueFlags, '--fine', '2', '--fine-modality', 'percent'], '--fine-modality'],
    [
      [
        'duedate',
        ...dueFlags,
        '--interest',
        '120',
        '--interest-modality',
        'PERCENTAGE_PER_MONTH_CALENDAR_DAYS',
      ],
      '--interest',
    ],
    [['duedate', ...dueFlags, '--discount', '2999-01-01=5'], '--discount'],
  ])('%j → exit 2 naming %s; the sandbox saw no request', async (args, flag) => {
    const result = await runCli(['charge', ...args], { env });
    expect(result.code).toBe(2);
    const [first] = result.stderr.split('\n');
    expect(first).toMatch(/^error: /);
    expect(first).toContain(flag);
    expect(sandbox.requests).toHaveLength(0);
  });

  it.each([
    [
      'an unknown key id (404)',
      4,
      ['--amount', '10', '--key-id', '00000000-0000-4000-8000-000000000404'],
      'Chave PIX não encontrada',
    ],
    [
      'the magic amount 403,00 (403)',
      3,
      ['--amount', '403,00', '--key', SEEDED_KEYS.email.key],
      'IP não autorizado',
    ],
    [
      'an amount above the sandbox maximum (422)',
      5,
      ['--amount', '1000000001', '--key', SEEDED_KEYS.email.key],
      'Valor da cobrança inválido',
    ],
  ])('%s → exit %i with the server message, sent once', async (_what, exit, args, message) => {
    const result = await runCli(['charge', 'immediate', ...args], { env });
    expect(result.code).toBe(exit);
    expect(result.stderr.split('\n')[0]).toContain(message);
    expect(charges()).toHaveLength(1);
  });
});

describe('pix charge against a misbehaving server: never retried', () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each([
    ['hangs', 7, { kind: 'hang' } as const],
    ['resets the connection', 7, { kind: 'reset' } as const],
    ['answers 500', 7, { kind: 'json', status: 500, body: { message: 'Erro interno' } } as const],
    [
      'answers 503',
      7,
      {
        kind: 'json',
        status: 503,
        body: { message: 'Indisponível' },
        headers: { 'retry-after': '0' },
      } as const,
    ],
    ['answers 429', 6, { kind: 'json', status: 429, body: { message: 'Muitas requisições' } } as const],
  ])('the charge endpoint %s → exit %i after exactly ONE request', async (_what, exit, behaviour) => {
    server = await startFakeServer((request) => accountReads(request) ?? behaviour);
    const env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: server.url, PIX_TOKEN: 't' };
    const result = await runCli(
      ['charge', 'immediate', '--amount', '10', '--key-id', KEY_ID, '--timeout', '1s'],
      {
        env,
      },
    );
    expect(result.code).toBe(exit);
    expect(server.requestsTo(IMMEDIATE)).toHaveLength(1);
    if (exit === 7) expect(result.stderr).toMatch(/hint: .*pix statement/);
    expect(result.stdout).toBe('');
  });

  it('the due-date endpoint hanging → exit 7 after one request', async () => {
    server = await startFakeServer((request) => accountReads(request) ?? { kind: 'hang' });
    const env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: server.url, PIX_TOKEN: 't' };
    // By key id: the fake server lists no `loja@…` key.
    const flags = dueFlags.map((flag) =>
      flag === '--key' ? '--key-id' : flag === SEEDED_KEYS.email.key ? KEY_ID : flag,
    );
    const result = await runCli(['charge', 'duedate', ...flags, '--timeout', '1s'], { env });
    expect(result.code).toBe(7);
    expect(server.requestsTo(DUEDATE)).toHaveLength(1);
  });
});

describe('pix charge on the embedded sandbox (nothing configured)', () => {
  it('says it is the sandbox, and prints the charge', async () => {
    const result = await runCli(
      ['charge', 'immediate', '--amount', '10,50', '--key', SEEDED_KEYS.email.key, '--json'],
      {
        env: { PIX_CONFIG_DIR: tempConfigDir() },
      },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('sandbox: simulated account');
    expect(JSON.parse(result.stdout)).toMatchObject({ amount: 10.5, status: 'PENDING' });
  });
});

describe('pix charge on a terminal of 80 columns (pty), embedded sandbox', () => {
  it('charge duedate shows every term sent with its unit, wrapped, never cut; charge show the same', async () => {
    const env = { PIX_CONFIG_DIR: tempConfigDir() };
    const args = [
      'charge',
      'duedate',
      '--amount',
      '150',
      '--due',
      '+30d',
      '--key',
      SEEDED_KEYS.email.key,
      '--debtor-name',
      'Ana Souza',
      '--debtor-cpf',
      '529.982.247-25',
      '--discount',
      '+10d=5%',
      '--discount',
      '+20d=2,5%',
      '--fine',
      'R$ 2,00',
      '--interest',
      '1%',
      '--no-qr',
    ];
    const created = await runOnPty(args, { env, columns: 80, rows: 40 });
    expect(created.code, created.lines.join('\n')).toBe(0);
    const screen = created.lines.map((line) => line.replace(/\s+/g, ' ').trim()).join('\n');
    expect(screen).toMatch(/^Payer Ana Souza, 529\.982\.247-25$/m);
    expect(screen).toMatch(/^Fine R\$ 2,00 once, after the due date \(FIXED_VALUE\)$/m);
    expect(screen).toMatch(
      /^Interest 1 % per month late \(working days\) \(PERCENTAGE_PER_MONTH_WORKING_DAYS\)$/m,
    );
    // Too long for 80 columns: wrapped inside its cell onto the next line, not cut.
    expect(screen).toMatch(
      /^Discount 5 % until \d{4}-\d{2}-\d{2}; 2,5 % until \d{4}-\d{2}-\d{2}\n\(PERCENTAGE_DATE_REPORTED\)$/m,
    );
    expect(created.lines.every((line) => line.length <= 80 && !line.endsWith('…'))).toBe(true);
    const id = /^Id ([0-9a-f-]{36})$/m.exec(screen)?.[1];
    expect(id, screen).toBeDefined();
    const shown = await runOnPty(['charge', 'show', id!.slice(0, 8), '--offline', '--no-qr'], {
      env,
      columns: 80,
    });
    expect(shown.code, shown.lines.join('\n')).toBe(0);
    const again = shown.lines.map((line) => line.replace(/\s+/g, ' ').trim());
    for (const label of ['Payer', 'Fine', 'Interest', 'Discount', 'Expires']) {
      const line = (lines: string[]) => lines.find((l) => l.startsWith(`${label} `));
      expect(line(again), label).toBe(line(screen.split('\n')));
    }
  });
});
