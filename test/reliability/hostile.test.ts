/**
 * Hostile-server suite: a loopback API that tries to make an operator pay the wrong person
 * or amount, to leak the credentials pix holds, and to make pix forget or misreport a transfer.
 *
 * - What a person sees, on a real terminal (the built binary on a pty, rendered by a terminal emulator):
 *   escape sequences (`ESC[2J ESC[H`, `ESC[8m`), a fake table and a fake `Pay R$ 10,00 to …? [y/N]`
 *   line, bidi controls, in the receiver's name, the payer question, the additional info and owner and
 *   trade names. The y/N question shows the true amount and receiver, and nothing acts on the terminal.
 * - Secrets: a 400-character token, a client secret and a minted token, echoed whole, cut, with a suffix
 *   and spelled with JSON escapes, in bodies, error messages and response headers: no 8 consecutive
 *   characters of any of them in any stdout, stderr or file, with --json, --verbose, -o csv.
 * - Outcomes by proof: REJECTED, 409, 3xx, 408, 425, 499, deep JSON and oversized answers on the
 *   transfer and on reads: exit codes and journal states.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/api/body.js';
import { parseJournal } from '../../src/journal/parser.js';
import { DYNAMIC_CODE, STATIC_CODE } from '../helpers/brcodes.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import {
  type Behaviour,
  type FakeServer,
  type SeenRequest,
  startFakeServer,
} from '../helpers/fake-server.js';
import { pix as runPix } from '../helpers/pix.js';
import { expectOneLineError } from '../helpers/reliability.js';
import { runOnPty } from '../helpers/terminal.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** A realistic 400-character bearer token (a JWT's alphabet), and the other secrets pix may hold. */
const TOKEN = `eyJ${Array.from({ length: 397 }, (_, i) => ALPHABET[(i * 29 + 7) % 64]).join('')}`;
const CLIENT_KEY = 'ck_hostile_suite';
const CLIENT_SECRET = 'cs_Hostile_7Qm2Zr9Lx4Wv8Tn3';
const MINTED = `mt_${Array.from({ length: 60 }, (_, i) => ALPHABET[(i * 13 + 5) % 64]).join('')}`;
const SECRETS = [TOKEN, CLIENT_SECRET, MINTED];

const ESC = '\u001b';
const E2E = 'E12345678202603101200hostile0001';
const P = '/api/financial/v1';

/** A fake table and a fake question, as a payee would plant them. */
const FAKE_SCREEN = `${ESC}[2J${ESC}[H┌────────┬──────────┐\n│ To pay │ R$ 10,00 │\n└────────┴──────────┘\nPay R$ 10,00 to Loja Real? [y/N] ${ESC}[8m`;
const HIDDEN = `${ESC}[8m hidden-tail`;
const BIDI = '\u202eLTR\u202c\u2066x\u2069';

/** Every way a secret comes back: whole, cut, glued to a suffix, spelled with JSON escapes. */
function echoes(secret: string): string[] {
  return [secret, secret.slice(0, 12), secret.slice(9, 40), `${secret}-suffix`, `x${secret.slice(-10)}`];
}
/** A JSON string spelling every character as a `\u00XX` escape: the raw text never shows the secret. */
const jsonEscaped = (text: string) =>
  `"${[...text].map((c) => `\\u00${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')}"`;

function leaksIn(text: string): string | undefined {
  for (const secret of SECRETS) {
    for (let at = 0; at + 8 <= secret.length; at++) {
      const piece = secret.slice(at, at + 8);
      if (text.includes(piece)) return piece;
    }
  }
  return undefined;
}

let scanned = 0;
function expectNoSecret(where: string, text: string): void {
  scanned++;
  const piece = leaksIn(text);
  expect(piece, `${where} holds "${piece}" of a secret:\n${text.slice(0, 1500)}`).toBeUndefined();
}

/**
 * Every file pix left in the config dir (the journal above all), except the credential store. The token
 * cache (0600) exists to hold the minted token, and only it: never the client secret.
 */
function expectNoSecretInFiles(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (name === 'config.json') continue;
    const path = join(dir, name);
    if (!statSync(path).isFile()) continue;
    const text = readFileSync(path, 'utf8');
    if (name === 'token-cache.json') {
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const withoutMinted = text.replaceAll(MINTED, '');
      expectNoSecret(`${name} (besides the minted token it caches)`, withoutMinted);
      continue;
    }
    expectNoSecret(`${name} in the config dir`, text);
  }
}

// ---------------------------------------------------------------------------------------------
// The hostile API

const consultAnswer = (over: Record<string, unknown> = {}) => ({
  type: 'DYNAMIC_QRCODE',
  endToEndId: E2E,
  payerQuestion: `Pedido 42? ${FAKE_SCREEN}`,
  additionalInfo: [
    { key: `pedido${ESC}[2J`, value: `42${HIDDEN}` },
    { key: 'nota', value: FAKE_SCREEN },
    { key: `bidi${BIDI}`, value: BIDI },
  ],
  amount: { original: 1000, final: 1000, canModifyFinalAmount: false },
  receiver: { name: `Loja Real${HIDDEN}`, participant: '99999999' },
  calendar: { expirationDate: '2099-01-01T00:00:00Z' },
  ...over,
});

const dictAnswer = () => ({
  key: 'ana@example.com',
  keyType: 'EMAIL',
  endtoEndId: E2E,
  account: { participant: '99999999', accountType: `CACC${ESC}[2J`, branch: '0001', account: '1' },
  owner: {
    name: `Ana Real${HIDDEN}${BIDI}`,
    type: 'NATURAL_PERSON',
    tradeName: `Doces ${FAKE_SCREEN}`,
    documentNumber: '***.456.789-**',
  },
});

const statementAnswer = () => ({
  total: 4,
  results: [
    ['=HYPERLINK("http://evil.example","clique")', 'INCOME'],
    ['+cmd|calc', 'OUTCOME'],
    [`@SUM(A1)${ESC}[2J`, 'INCOME'],
    [`-2+3${BIDI} ${echoes(TOKEN)[3]}`, 'INCOME'],
  ].map(([name, type], index) => ({
    id: `tx-${index}`,
    type,
    amount: 10 + index,
    status: 'CONFIRMED',
    confirmedAt: '2026-03-10T12:00:00Z',
    creditor: { name, bank: '99999999' },
    debtor: { name: `Pagador ${index}` },
  })),
});

const json = (status: number, body: unknown, headers?: Record<string, string>): Behaviour => ({
  kind: 'json',
  status,
  body,
  ...(headers ? { headers } : {}),
});

/** The transfer's answer for the current test; consults and reads answer as above. */
let transferAnswer: (request: SeenRequest) => Behaviour = () => json(201, { id: 't-1', status: 'PENDING' });
const defaultKeysAnswer = (): Behaviour =>
  json(
    200,
    {
      total: 2,
      result: [
        {
          id: 'k1',
          key: `loja@x.com ${echoes(TOKEN)[2]}`,
          keyType: 'EMAIL',
          createdAt: '2026-03-01T00:00:00Z',
        },
        // The account's oldest key, whose consultation names its bank account (commands/shared/account.ts).
        { id: 'k0', key: 'conta@x.com', keyType: 'EMAIL', createdAt: '2026-02-01T00:00:00Z' },
      ],
    },
    {
      'x-debug-authorization': `Bearer ${TOKEN}`,
      'www-authenticate': `Bearer realm="pix", token="${TOKEN.slice(0, 100)}"`,
      'x-request-id': `req-${TOKEN.slice(200, 240)}`,
      'x-other': 'anything-else',
    },
  );
let keysAnswer = defaultKeysAnswer;

let server: FakeServer;

beforeAll(async () => {
  server = await startFakeServer((request) => {
    const path = request.path.split('?')[0]!;
    const auth = request.headers.authorization ?? '';
    switch (path) {
      case `${P}/auth/token`: {
        const body = JSON.parse(request.body || '{}') as { clientSecret?: string };
        if (body.clientSecret === CLIENT_SECRET) return json(200, { clientToken: MINTED, expiresIn: 900 });
        return json(401, {
          message: `segredo inválido: ${body.clientSecret}`,
          echo: body.clientSecret?.slice(3),
        });
      }
      case `${P}/pix/emv/consult`: {
        const { emv } = JSON.parse(request.body) as { emv: string };
        if (emv === STATIC_CODE) {
          return json(
            200,
            consultAnswer({ type: 'STATIC_QRCODE', amount: { final: 0, canModifyFinalAmount: true } }),
          );
        }
        return json(200, consultAnswer());
      }
      case `${P}/pix/dict/consult`:
        if (request.body.includes('conta@x.com')) return json(200, { ...dictAnswer(), key: 'conta@x.com' });
        return json(200, dictAnswer());
      case `${P}/pix-cash-out/transfer`:
        return transferAnswer(request);
      case `${P}/pix/keys`:
        return keysAnswer();
      case `${P}/account/transactions`:
        if (request.path.includes('dateFrom=2020')) {
          // A careless server quoting the credentials back: cut, whole, with a suffix, JSON-escaped.
          const bearer = auth.replace(/^Bearer /, '');
          return {
            kind: 'text',
            status: 400,
            contentType: 'application/json',
            body: `{"message":"token rejeitado: ${auth.slice(0, 60)}","echo":"${auth}","more":"${bearer}-suffix","escaped":${jsonEscaped(bearer.slice(10, 50))}}`,
          };
        }
        return json(200, statementAnswer());
      default:
        return json(404, { message: `rota ${path}` });
    }
  });
});

afterAll(async () => {
  await server.close();
  if (process.env.PIX_SHOW_COUNTS) process.stdout.write(`hostile suite: ${scanned} outputs scanned\n`);
});

let dir: string;
beforeEach(() => {
  dir = tempConfigDir();
  transferAnswer = () => json(201, { id: 't-1', status: 'PENDING' });
  keysAnswer = defaultKeysAnswer;
});

/** pix in-process against the hostile API with the 400-character token (or other credentials). */
async function pix(
  argv: string[],
  options: { tty?: boolean; env?: Record<string, string>; answers?: string[] } = {},
) {
  const result = await runPix(argv, {
    tty: options.tty ?? false,
    ...(options.answers ? { answers: options.answers } : {}),
    env: { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, ...(options.env ?? { PIX_TOKEN: TOKEN }) },
    sleep: async () => {},
  });
  const label = `pix ${argv.join(' ')}`.slice(0, 100);
  expectNoSecret(`${label} (stdout)`, result.stdout);
  expectNoSecret(`${label} (stderr)`, result.stderr);
  return result;
}

function journalStates(): string[] {
  try {
    return parseJournal(readFileSync(join(dir, 'journal.jsonl'), 'utf8')).map((entry) => entry.state);
  } catch {
    return [];
  }
}

const transfersSeen = () => server.requestsTo('/pix-cash-out/transfer').length;

/** Raw bytes that would act on a terminal: none may reach it from the server. */
function expectNothingActs(raw: string): void {
  for (const sequence of [`${ESC}[2J`, `${ESC}[H`, `${ESC}[8m`, '\u202e', '\u2066', '\u2069']) {
    expect(raw.includes(sequence), `raw output holds ${JSON.stringify(sequence)}`).toBe(false);
  }
}

// ---------------------------------------------------------------------------------------------

describe('hostile server: what a person sees on a real terminal (built binary, pty)', () => {
  it('the y/N question of a dynamic code shows the true amount and receiver; the fake screen is inert', async () => {
    const before = transfersSeen();
    const result = await runOnPty(['pay', 'qr', DYNAMIC_CODE, '--base-url', server.url], {
      env: { PIX_CONFIG_DIR: dir, PIX_TOKEN: TOKEN },
      columns: 120,
      rows: 60,
      steps: [{ after: '[y/N]', send: 'n\r' }],
    });
    expect(result.code, result.lines.join('\n')).toBe(8);
    expect(transfersSeen()).toBe(before);
    expectNothingActs(result.raw);
    expectNoSecret('pty pay qr', result.raw);
    // The question a person answered: the code's amount, the receiver with its hidden tail shown.
    const answered = result.lines.filter((line) => line.endsWith('[y/N] n'));
    expect(answered).toHaveLength(1);
    expect(answered[0]).toMatch(/^Pay R\$ 1\.000,00 to Loja Real\\u001b\[8m hidden-tail at .*\? \[y\/N\] n$/);
    // The details table is still on screen above it (ESC[2J ESC[H cleared nothing), planted text shown escaped.
    const screen = result.screen.join('\n');
    expect(screen).toContain('Receiver');
    expect(screen).toContain('R$ 1.000,00');
    expect(screen).toContain('\\u001b[2J\\u001b[H');
    expect(screen).toContain('\\u202eLTR');
    // The declined answer is the user's own: no "error:".
    expect(screen).toContain('payment cancelled; nothing was sent');
    expect(screen).not.toContain('error:');
  });

  it('a payer-chosen amount: the receiver is shown first, a bad amount is asked again, the question shows the typed amount', async () => {
    const result = await runOnPty(['pay', 'qr', STATIC_CODE, '--base-url', server.url], {
      env: { PIX_CONFIG_DIR: dir, PIX_TOKEN: TOKEN },
      columns: 120,
      rows: 60,
      steps: [
        { after: 'Amount to pay', send: '10,00 reais\r' },
        { after: 'type it again', send: '25,00\r' },
        { after: '[y/N]', send: 'n\r' },
      ],
    });
    expect(result.code, result.lines.join('\n')).toBe(8);
    expectNothingActs(result.raw);
    const receiverRow = result.lines.findIndex((line) => line.includes('Loja Real\\u001b[8m hidden-tail'));
    const firstAsk = result.lines.findIndex((line) => line.includes('Amount to pay'));
    expect(receiverRow).toBeGreaterThan(-1);
    expect(receiverRow).toBeLessThan(firstAsk);
    expect(result.lines.filter((line) => line.includes('Amount to pay'))).toHaveLength(2);
    expect(result.lines.some((line) => /^Pay R\$ 25,00 to Loja Real.*\[y\/N\] n$/.test(line))).toBe(true);
  });

  it('pay key: owner and trade names escaped; "Sent" names the true receiver; a rerun is refused naming the entry', async () => {
    const result = await runOnPty(
      ['pay', 'key', 'ana@example.com', '--amount', '7,50', '--base-url', server.url],
      {
        env: { PIX_CONFIG_DIR: dir, PIX_TOKEN: TOKEN },
        columns: 120,
        rows: 60,
        steps: [{ after: '[y/N]', send: 'y\r' }],
      },
    );
    expect(result.code, result.lines.join('\n')).toBe(0);
    expectNothingActs(result.raw);
    expect(
      result.lines.some((line) => /^Sent R\$ 7,50 to Ana Real\\u001b\[8m hidden-tail\\u202eLTR/.test(line)),
    ).toBe(true);
    expect(result.lines.join('\n')).toContain('Doces \\u001b[2J\\u001b[H');
    const again = await pix(['pay', 'key', 'ana@example.com', '--amount', '7,50', '-y']);
    expect(again.code).toBe(8);
    expect(again.stderr).toContain('already paid: R$ 7,50 to Ana Real\\u001b[8m hidden-tail\\u202eLTR');
    expect(again.stderr).not.toContain(ESC);
  });
});

describe('hostile server: no secret in any output, log or file', () => {
  it('token echoed in bodies, error messages and headers: --json, --verbose, -o csv; unknown headers [not shown]', async () => {
    const runs = [
      ['keys'],
      ['keys', '--json'],
      ['keys', '--verbose'],
      ['keys', '-o', 'csv'],
      ['statement', '--from', '2020-01-01', '--to', '2020-01-02'],
      ['statement', '--from', '2020-01-01', '--to', '2020-01-02', '--json'],
      ['statement', '--from', '2020-01-01', '--to', '2020-01-02', '--json', '--verbose'],
      ['statement', '-o', 'csv'],
      ['statement', '--json'],
      ['pay', 'key', 'ana@example.com', '--amount', '1', '--dry-run', '--verbose'],
    ];
    for (const argv of runs) {
      const result = await pix(argv);
      expect([0, 5], `${argv.join(' ')}: ${result.stderr}`).toContain(result.code);
    }
    const verbose = await pix(['keys', '--verbose']);
    expect(verbose.stderr).toMatch(/^< x-debug-authorization: \[not shown\]$/m);
    expect(verbose.stderr).toMatch(/^< www-authenticate: \[not shown\]$/m);
    expect(verbose.stderr).toMatch(/^< x-other: \[not shown\]$/m);
    expect(verbose.stderr).toMatch(/^< x-request-id: req-\[redacted\]$/m);
    expect(verbose.stderr).toMatch(/^< content-type: application\/json$/m);
    expect(verbose.stderr).toMatch(/^> authorization: \[redacted\]$/m);
    // The --json error keeps the server's body, with the secret pieces replaced.
    const refused = await pix(['statement', '--from', '2020-01-01', '--to', '2020-01-02', '--json']);
    const { error } = JSON.parse(refused.stderr) as {
      error: { kind: string; server: Record<string, string> };
    };
    expect(error.kind).toBe('rejected');
    expect(error.server.message).toMatch(/^token rejeitado: Bearer \[redacted\]$/);
    expect(error.server.escaped).toBe('[redacted]');
    expectNoSecretInFiles(dir);
  });

  it('client credentials: the secret echoed by a refused login and the minted token echoed later appear nowhere', async () => {
    const wrong = await pix(['keys', '--json', '--verbose'], {
      env: { PIX_CLIENT_KEY: CLIENT_KEY, PIX_CLIENT_SECRET: `${CLIENT_SECRET}zz` },
    });
    expect(wrong.code).toBe(3);
    // A secret that is only *almost* ours is still ours in part: 8 characters of it never show.
    expect(wrong.stderr).toContain('[redacted]');
    const right = await pix(['statement', '--from', '2020-01-01', '--to', '2020-01-02', '--verbose'], {
      env: { PIX_CLIENT_KEY: CLIENT_KEY, PIX_CLIENT_SECRET: CLIENT_SECRET },
    });
    expect(right.code).toBe(5);
    expect(server.requests.some((request) => request.headers.authorization === `Bearer ${MINTED}`)).toBe(
      true,
    );
    expectNoSecretInFiles(dir);
  });

  it('a transfer whose 502 page and 2xx fields echo the token: journal and outputs stay clean', async () => {
    transferAnswer = (request) => ({
      kind: 'text',
      status: 502,
      contentType: 'text/html',
      body: `<html><body>Bad gateway for ${request.headers.authorization}</body></html>`,
    });
    const failed = await pix(['pay', 'key', 'ana@example.com', '--amount', '3', '-y', '--verbose']);
    expect(failed.code).toBe(7);
    transferAnswer = () =>
      json(201, { id: `t-${TOKEN.slice(30, 60)}`, status: 'PENDING', note: echoes(TOKEN)[3] });
    const paid = await pix(['pay', 'key', 'ana@example.com', '--amount', '4', '-y', '--json']);
    expect(paid.code, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout).transfer.id).toBe('t-[redacted]');
    expectNoSecretInFiles(dir);
  });
});

describe('hostile server: outcomes by proof, over real HTTP', () => {
  const deep = (depth: number) =>
    `{"id":"t-1","status":"PENDING","x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  /** One MiB over the largest answer pix reads. */
  const OVER = MAX_BODY_BYTES + 1024 * 1024;
  const OVER_MIB = OVER / (1024 * 1024);

  it.each<[string, () => Behaviour, number, string]>([
    ['2xx REJECTED', () => json(201, { id: 't-1', status: 'REJECTED' }), 5, 'failed'],
    ['2xx FAILED', () => json(200, { id: 't-1', status: 'FAILED' }), 5, 'failed'],
    ['2xx ERROR', () => json(200, { id: 't-1', status: 'ERROR' }), 5, 'failed'],
    ['2xx unknown status', () => json(200, { id: 't-1', status: 'QUEUED_FOR_REVIEW' }), 7, 'unknown'],
    ['409', () => json(409, { message: 'conflito' }), 7, 'unknown'],
    [
      '302',
      () => ({ kind: 'text', status: 302, body: '', headers: { location: '/elsewhere' } }),
      7,
      'unknown',
    ],
    [
      '301 with an HTML page',
      () => ({ kind: 'text', status: 301, body: '<html>moved</html>' }),
      7,
      'unknown',
    ],
    ['408', () => json(408, { message: 'timeout' }), 7, 'unknown'],
    ['425', () => json(425, { message: 'too early' }), 7, 'unknown'],
    ['499', () => json(499, { message: 'closed' }), 7, 'unknown'],
    [
      '2xx nested 6,000 deep',
      () => ({ kind: 'text', status: 201, contentType: 'application/json', body: deep(6000) }),
      7,
      'unknown',
    ],
    [
      `2xx of ${OVER_MIB} MiB (declared)`,
      () => ({
        kind: 'text',
        status: 201,
        contentType: 'application/json',
        body: `{"id":"t-1","status":"PENDING","pad":"${'x'.repeat(OVER)}"}`,
      }),
      7,
      'unknown',
    ],
    [
      `2xx of ${OVER_MIB} MiB (chunked, no length)`,
      () => ({
        kind: 'text',
        status: 201,
        contentType: 'application/json',
        headers: { 'transfer-encoding': 'chunked' },
        body: `{"id":"t-1","status":"PENDING","pad":"${'y'.repeat(OVER)}"}`,
      }),
      7,
      'unknown',
    ],
    ['400', () => json(400, { message: `Ocorreu um erro${ESC}[2J` }), 5, 'failed'],
    ['429', () => json(429, { message: 'devagar' }, { 'retry-after': '1' }), 6, 'failed'],
  ])(
    'transfer answered %s → exit %i, journal %s, sent once, one-line error',
    async (_name, answer, exit, state) => {
      transferAnswer = answer;
      const before = transfersSeen();
      const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '5', '-y']);
      expect(result.code, result.stderr).toBe(exit);
      expect(transfersSeen() - before).toBe(1);
      expect(journalStates()).toEqual([state]);
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toContain(ESC);
      expectOneLineError(result.stderr);
      if (exit === 7) expect(result.stderr).toContain(`endToEndId: ${E2E}`);
    },
  );

  it(`reads: a ${OVER_MIB} MiB answer, a 6,000-deep one and one of 300,000 invalid values are unavailable (exit 6), never a crash`, async () => {
    keysAnswer = () => ({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      body: `{"total":1,"result":[],"pad":"${'z'.repeat(OVER)}"}`,
    });
    const big = await pix(['keys']);
    expect(big.code, big.stderr).toBe(6);
    expect(big.stderr).toContain('larger than 8 MiB');
    keysAnswer = () => ({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      body: `{"total":1,"result":${'['.repeat(6000)}${']'.repeat(6000)}}`,
    });
    const deepRead = await pix(['keys', '--json']);
    expect(deepRead.code, deepRead.stderr).toBe(6);
    expect(deepRead.stderr).toContain('nested more than 100 levels deep');
    // 900 kB holding 300,000 invalid keys: zod lists each one, and gathering the list overflowed its stack.
    keysAnswer = () => ({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      body: `{"total":1,"result":[${'[],'.repeat(300_000)}[]]}`,
    });
    const invalid = await pix(['keys']);
    expect(invalid.code, invalid.stderr).toBe(6);
    expectOneLineError(invalid.stderr);
    expect(invalid.stderr).toContain('the answer could not be read (too many invalid values to list)');
  });

  it('the built binary: REJECTED → 5 and a 6,000-deep 2xx → 7 (no "bug in pix"), journal failed then unknown', async () => {
    const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: TOKEN };
    transferAnswer = () => json(201, { id: 't-1', status: 'REJECTED' });
    const rejected = await runCli(['pay', 'key', 'ana@example.com', '--amount', '6', '-y', '--json'], {
      env,
    });
    expect(rejected.code, rejected.stderr).toBe(5);
    expect(JSON.parse(rejected.stderr.trimEnd().split('\n').at(-1)!).error.kind).toBe('rejected');
    transferAnswer = () => ({ kind: 'text', status: 201, contentType: 'application/json', body: deep(6000) });
    const crashed = await runCli(['pay', 'key', 'ana@example.com', '--amount', '6', '-y'], { env });
    expect(crashed.code, crashed.stderr).toBe(7);
    expect(crashed.stderr).not.toMatch(/bug in pix|stack size/);
    expect(journalStates()).toEqual(['failed', 'unknown']);
    for (const output of [rejected.stdout, rejected.stderr, crashed.stdout, crashed.stderr])
      expectNoSecret('bin', output);
  });
});
