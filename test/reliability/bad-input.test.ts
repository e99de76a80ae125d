/**
 * Bad-input suite: malformed invocations across every command and flag. Each must exit 2 with
 * a one-line message naming the flag or argument, and the server (a recording loopback server that
 * would answer anything) must see NO request. Mostly in-process; a few through the built binary.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { DYNAMIC_CODE } from '../helpers/brcodes.js';
import { BIN, runCli, tempConfigDir } from '../helpers/cli.js';
import { type FakeServer, startFakeServer } from '../helpers/fake-server.js';
import { createTestIO } from '../helpers/io.js';
import { expectOneLineError, PAYEE } from '../helpers/reliability.js';

// Any key id: every command here is refused before anything is sent.
const KEY_ID = '5f0b6a52-7a8e-4c1f-9d3b-1a2b3c4d5e01';
const IN_30_DAYS = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
const IMMEDIATE = ['charge', 'immediate', '--amount', '10', '--key-id', KEY_ID, '--no-qr'];
const DUEDATE = [
  'charge',
  'duedate',
  '--amount',
  '150',
  '--due',
  IN_30_DAYS,
  '--key-id',
  KEY_ID,
  '--debtor-name',
  'Fulano de Tal',
  '--debtor-cpf',
  '529.982.247-25',
  '--no-qr',
];
const PAY_KEY = ['pay', 'key', PAYEE, '--amount', '10', '-y'];
/** The dynamic code with its last CRC digit changed. */
const BAD_CRC = DYNAMIC_CODE.slice(0, -1) + (DYNAMIC_CODE.endsWith('0') ? '1' : '0');

/** [what, argv, what the message must name] — the first line of stderr must contain the third item. */
type Case = [string, string[], string];

const CASES: Case[] = [
  // Amounts (contract §2)
  ['negative amount', ['charge', 'immediate', '--amount', '-1', '--key-id', KEY_ID], '--amount'],
  ['zero amount', ['charge', 'immediate', '--amount', '0', '--key-id', KEY_ID], '--amount'],
  ['exponent amount', ['charge', 'immediate', '--amount', '1e3', '--key-id', KEY_ID], '--amount'],
  ['three decimals', ['charge', 'immediate', '--amount', '10.505', '--key-id', KEY_ID], '--amount'],
  [
    'English thousands separator',
    ['charge', 'immediate', '--amount', '1,234.56', '--key-id', KEY_ID],
    '--amount',
  ],
  ['letters as amount', ['charge', 'immediate', '--amount', 'abc', '--key-id', KEY_ID], '--amount'],
  ['empty amount', ['charge', 'immediate', '--amount', '', '--key-id', KEY_ID], '--amount'],
  ['charge below 5.00', ['charge', 'immediate', '--amount', '4.99', '--key-id', KEY_ID], '--amount'],
  ['foreign currency sign in amount', [...DUEDATE, '--amount', 'US$ 10'], '--amount'],
  ['negative payment', ['pay', 'key', PAYEE, '--amount', '-5', '-y'], '--amount'],
  ['three-decimal payment', ['pay', 'key', PAYEE, '--amount', '10,505', '-y'], '--amount'],
  ['letters as QR amount', ['pay', 'qr', DYNAMIC_CODE, '--amount', 'dez', '-y'], '--amount'],
  // Dates (WHEN, --due, --month)
  ['impossible --from', ['statement', '--from', '2025-02-30', '--to', '2025-03-01'], '--from'],
  ['--from alone, a day to come', ['statement', '--from', 'tomorrow'], '--from'],
  ['--to alone', ['statement', '--to', '2025-03-01'], '--from'],
  ['--from after --to', ['statement', '--from', '2025-03-10', '--to', '2025-03-01'], '--from'],
  ['tomorrow, after today', ['statement', '--from', 'tomorrow', '--to', 'today'], '--from'],
  ['impossible ISO time', ['statement', '--from', '2025-03-01T25:00:00Z', '--to', 'today'], '--from'],
  ['month 13', ['statement', '--month', '2025-13'], '--month'],
  ['--month with --from', ['statement', '--month', '2025-03', '--from', 'today', '--to', 'today'], '--month'],
  ['past due date', [...DUEDATE, '--due', '2020-01-01'], '--due'],
  ['Brazilian date that does not exist', [...DUEDATE, '--due', '31/02/2030'], '--due'],
  ['impossible due date', [...DUEDATE, '--due', '2030-02-30'], '--due'],
  // Durations
  ['zero timeout', ['keys', '--timeout', '0s'], '--timeout'],
  ['negative timeout', ['keys', '--timeout', '-5s'], '--timeout'],
  ['unknown timeout unit', ['keys', '--timeout', '10x'], '--timeout'],
  ['zero expiry', [...IMMEDIATE, '--expires-in', '0m'], '--expires-in'],
  ['weeks are no unit', [...IMMEDIATE, '--expires-in', '5w'], '--expires-in'],
  ['negative expiry', [...IMMEDIATE, '--expires-in', '-1h'], '--expires-in'],
  ['clock advance in years', ['sandbox', 'clock', '--advance', '3y'], '--advance'],
  // Counts
  ['zero limit', ['statement', '--limit', '0'], '--limit'],
  ['letters as limit', ['statement', '--limit', 'abc'], '--limit'],
  ['negative offset', ['keys', '--offset', '-1'], '--offset'],
  ['fractional limit', ['keys', '--limit', '1.5'], '--limit'],
  ['negative seed', ['sandbox', 'seed', '--transactions', '-3'], '--transactions'],
  ['negative days after due', [...DUEDATE, '--expire-after-days', '-1'], '--expire-after-days'],
  // PIX keys and key ids
  ['prose as a key', ['pay', 'key', 'not a key', '--amount', '10', '-y'], 'KEY'],
  ['three digits as a key', ['pay', 'key', '123', '--amount', '10', '-y'], 'KEY'],
  ['short phone', ['pay', 'key', '+55 11 1234', '--amount', '10', '-y'], 'KEY'],
  ['e-mail without domain', ['pay', 'key', 'fulano@', '--amount', '10', '-y'], 'KEY'],
  ['broken EVP', ['pay', 'key', '7d9f0335-8dcc-4054-9bf9-0dbd61b3690', '--amount', '10', '-y'], 'KEY'],
  ['CPF key with a wrong check digit', ['pay', 'key', '529.982.247-26', '--amount', '10', '-y'], 'KEY'],
  ['key id not a UUID', ['charge', 'immediate', '--amount', '10', '--key-id', 'k1'], '--key-id'],
  ['--key-id and --key', [...IMMEDIATE, '--key', 'loja@sandbox.pix.local'], '--key'],
  // Documents
  [
    'payer CPF check digits',
    [...IMMEDIATE, '--payer-name', 'Ana', '--payer-tax-id', '123.456.789-00'],
    '--payer-tax-id',
  ],
  ['payer tax id without name', [...IMMEDIATE, '--payer-tax-id', '529.982.247-25'], '--payer-name'],
  ['repeated-digit CPF', [...DUEDATE, '--debtor-cpf', '111.111.111-11'], '--debtor-cpf'],
  ['short CPF', [...DUEDATE, '--debtor-cpf', '123'], '--debtor-cpf'],
  ['unknown state', [...DUEDATE, '--debtor-state', 'XX'], '--debtor-state'],
  ['short postal code', [...DUEDATE, '--debtor-postal-code', '123'], '--debtor-postal-code'],
  ['debtor e-mail', [...DUEDATE, '--debtor-email', 'not-an-email'], '--debtor-email'],
  // EMV codes
  ['truncated BR Code', ['pay', 'qr', '000201', '-y'], 'EMV'],
  ['BR Code with a bad CRC', ['pay', 'qr', BAD_CRC, '-y'], 'CRC'],
  ['prose as a BR Code', ['pay', 'qr', 'hello world', '-y'], 'EMV'],
  ['decode garbage', ['emv', 'decode', 'garbage'], 'EMV'],
  // Modalities (§2, §6)
  ['lower-case fine modality', [...DUEDATE, '--fine', '2', '--fine-modality', 'percent'], '--fine-modality'],
  [
    'malformed interest modality',
    [...DUEDATE, '--interest', '1', '--interest-modality', 'per-day'],
    '--interest-modality',
  ],
  [
    'lower-case discount modality',
    [...DUEDATE, '--discount', `${IN_30_DAYS}=5`, '--discount-modality', 'fixed'],
    '--discount-modality',
  ],
  [
    'mixed-case abatement modality',
    [...DUEDATE, '--abatement', '1', '--abatement-modality', 'Percent'],
    '--abatement-modality',
  ],
  ['discount value not a number', [...DUEDATE, '--discount', `${IN_30_DAYS}=abc`], '--discount'],
  ['discount date not a date', [...DUEDATE, '--discount', 'soon=5'], '--discount'],
  // Unknown flags, commands and values
  ['unknown flag on keys', ['keys', '--bogus'], '--bogus'],
  ['misspelt --from', ['statement', '--form', 'today'], '--form'],
  ['misspelt --yes', [...PAY_KEY, '--yess'], '--yess'],
  ['unknown output format', ['keys', '-o', 'xml'], 'xml'],
  ['unknown command', ['chrage', 'immediate'], 'chrage'],
  ['unknown completion shell', ['completion', 'powershell'], 'powershell'],
  // Missing arguments
  ['pay key without KEY', ['pay', 'key', '--amount', '10'], 'KEY'],
  ['pay qr without EMV', ['pay', 'qr'], 'EMV'],
  ['charge without --amount', ['charge', 'immediate', '--key-id', KEY_ID], '--amount'],
  ['pay key without --amount', ['pay', 'key', PAYEE, '-y'], '--amount'],
  ['due-date charge without --due', ['charge', 'duedate', '--amount', '150', '--key-id', KEY_ID], '--due'],
  ['config get without KEY', ['config', 'get'], 'key'],
  ['sandbox pay without id', ['sandbox', 'pay'], 'charge-id'],
  ['--amount without its value', ['pay', 'key', PAYEE, '--amount'], '--amount'],
  // Conflicting flags
  ['clock --advance with --reset', ['sandbox', 'clock', '--advance', '1h', '--reset'], '--'],
  ['login --with-token and --client-key', ['login', '--with-token', '--client-key', 'k'], '--'],
  // Over-long text
  ['141-character question', [...IMMEDIATE, '--question', 'q'.repeat(141)], '--question'],
  ['info without =', [...IMMEDIATE, '--info', 'Pedido'], '--info'],
  ['10,000-character question', [...IMMEDIATE, '--question', 'q'.repeat(10_000)], '--question'],
  [
    '10,000-character e-mail key',
    ['pay', 'key', `${'a'.repeat(10_000)}@example.com`, '--amount', '10', '-y'],
    'KEY',
  ],
  ['10,000-character unknown flag', ['keys', `--${'x'.repeat(10_000)}`], 'unknown option'],
  ['newline inside an amount', [...IMMEDIATE, '--amount', '10\n20'], '--amount'],
  [
    'terminal escape inside a key',
    ['pay', 'key', '\u001b[2J\u001b[31mana@example.com', '--amount', '10', '-y'],
    'KEY',
  ],
  // Non-UTF-8 bytes (Node turns them into U+FFFD in argv) and lone surrogates
  ['replacement char in a key', ['pay', 'key', 'fulano\uFFFD@example.com', '--amount', '10', '-y'], 'KEY'],
  ['replacement char in a date', ['statement', '--from', '2025-03-01\uFFFD', '--to', 'today'], '--from'],
  ['replacement char in an amount', [...IMMEDIATE, '--amount', '10\uFFFD'], '--amount'],
  // Globals and profiles
  ['plain http to a remote host', ['keys', '--base-url', 'http://api.example.com'], '--base-url'],
  ['base URL not a URL', ['keys', '--base-url', 'not a url'], '--base-url'],
  ['profile name with spaces', ['keys', '-p', 'bad name!'], '--profile'],
  ['config value not an amount', ['config', 'set', 'max-amount', 'abc'], 'max-amount'],
  ['unknown config key', ['config', 'set', 'colour', 'red'], 'colour'],
];

let server: FakeServer;
beforeAll(async () => {
  // Would answer anything with a plausible 200: any request reaching it is the failure.
  server = await startFakeServer(() => ({
    kind: 'json',
    status: 200,
    body: { total: 0, results: [], result: [] },
  }));
});
afterAll(() => server.close());

function envFor(dir: string): Record<string, string> {
  return { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'tok_bad_input' };
}

describe(`bad-input suite: ${CASES.length} malformed invocations, in-process`, () => {
  it('has at least 60 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(CASES)('%s', async (_what, argv, names) => {
    const before = server.requests.length;
    const test = createTestIO();
    const code = await run(argv, { io: test.io, env: envFor(tempConfigDir()), sleep: async () => {} });
    const stderr = test.stderr();
    expect(code, stderr).toBe(2);
    expectOneLineError(stderr);
    const errorLine = stderr.split('\n').find((line) => line.startsWith('error: '))!;
    expect(errorLine).toContain(names);
    // One line a person can read: the offending value is not echoed at length.
    expect(errorLine.length, errorLine.slice(0, 500)).toBeLessThanOrEqual(400);
    // Control characters the user typed are shown escaped, never sent raw to the terminal.
    expect(stderr).not.toMatch(/\u001b/);
    if (process.env.PIX_SHOW_ERRORS) process.stdout.write(`${argv.slice(0, 3).join(' ')} → ${errorLine}\n`);
    expect(test.stdout()).toBe('');
    expect(server.requests.length - before, 'requests sent').toBe(0);
  });
});

describe('bad-input suite: the built binary', () => {
  it.each([
    ['an unknown flag', ['keys', '--bogus'], '--bogus'],
    ['a bad amount', ['pay', 'key', PAYEE, '--amount', '1e3', '-y'], '--amount'],
    ['a missing argument', ['pay', 'key'], 'KEY'],
  ])('%s', async (_what, argv, names) => {
    const before = server.requests.length;
    const result = await runCli(argv, { env: envFor(tempConfigDir()) });
    expect(result.code, result.stderr).toBe(2);
    expectOneLineError(result.stderr);
    expect(result.stderr.split('\n').find((line) => line.startsWith('error: '))).toContain(names);
    expect(server.requests.length - before).toBe(0);
  });

  it('raw non-UTF-8 bytes in an argument (0xFF 0xFE) are refused, nothing sent', async () => {
    const before = server.requests.length;
    // The shell passes the bytes through untouched, as a user's terminal would.
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        `exec "${process.execPath}" "${BIN}" pay key "$(printf 'ana\\377\\376@example.com')" --amount 10 -y`,
      ],
      {
        env: { PATH: process.env.PATH ?? '', ...envFor(tempConfigDir()) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(2);
    expectOneLineError(stderr);
    expect(stderr).toMatch(/^error: .*KEY/m);
    expect(server.requests.length - before).toBe(0);
  });
});
