import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../../../src/journal/entries.js';
import { run } from '../../../src/main.js';
import { DYNAMIC_CODE, STATIC_CODE } from '../../helpers/brcodes.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { rememberAccount } from '../../helpers/config.js';
import { createTestIO } from '../../helpers/io.js';
import { mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';
import { type PixOptions, pixWith } from '../../helpers/pix.js';

const PREFIX = '/api/financial/v1';
const EMV_PATH = `${PREFIX}/pix/emv/consult`;
const DICT_PATH = `${PREFIX}/pix/dict/consult`;
const TRANSFER_PATH = `${PREFIX}/pix-cash-out/transfer`;
const E2E = 'E1234567820260310120000abcdefghijk';
const NOW = new Date('2026-03-10T12:00:00Z');

const mock = mockAgentPerTest({ emptyStatement: true });
let env: Record<string, string>;
let configDir: string;

beforeEach(async () => {
  configDir = tempConfigDir();
  env = { PIX_CONFIG_DIR: configDir, PIX_BASE_URL: ORIGIN, PIX_TOKEN: 'test-token-pay' };
  await rememberAccount(env);
});

/** Intercepts one POST and records the JSON bodies it received. */
function post(path: string, status: number, body: unknown, times = 1): unknown[] {
  const seen: unknown[] = [];
  mock.agent
    .get(ORIGIN)
    .intercept({ path, method: 'POST' })
    .reply((options) => {
      seen.push(JSON.parse(String(options.body)));
      return {
        statusCode: status,
        data: JSON.stringify(body),
        responseOptions: { headers: { 'content-type': 'application/json' } },
      };
    })
    .times(times);
  return seen;
}

function emvConsult(over: Record<string, unknown> = {}) {
  return {
    type: 'DYNAMIC_QRCODE',
    endToEndId: E2E,
    payerQuestion: 'Pedido 42?',
    additionalInfo: [{ key: 'pedido', value: '42' }],
    amount: {
      original: 12.34,
      final: 12.34,
      abatement: 0,
      discount: 0,
      interest: 0,
      fine: 0,
      canModifyFinalAmount: false,
    },
    receiver: { name: 'Loja da Esquina Ltda', participant: '00000000', documentNumber: '**.222.333/0001-**' },
    calendar: { expirationDate: '2026-03-11T12:00:00Z' },
    ...over,
  };
}

const dictConsult = (over: Record<string, unknown> = {}) => ({
  key: 'ana@example.com',
  keyType: 'EMAIL',
  endtoEndId: E2E,
  account: { participant: '00000000', accountType: 'CACC', branch: '0001', account: '123456' },
  owner: { name: 'Ana Souza', type: 'NATURAL_PERSON', documentNumber: '12345678909' },
  ...over,
});

/**
 * A transfer's answer. It names no amount: one that did would have to be the amount each test pays, or
 * pix takes the answer for an anomaly (exit 7, test/commands/answers.test.ts); tests that show the
 * amount spread it in.
 */
const transferResult = { id: 't-1', endToEndId: E2E, fee: 0, status: 'PENDING' };

const onAgent = pixWith(() => ({ env, dispatcher: mock.agent }));
const pix = (argv: string[], io: PixOptions = {}, now = NOW) =>
  onAgent(argv, { ...io, clock: { now: () => now } });

function journal(): Array<Record<string, unknown>> {
  try {
    return readFileSync(join(configDir, JOURNAL_FILE), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  } catch {
    return [];
  }
}

describe('pix pay key', () => {
  it('--yes --json: consults the normalised key, transfers {endToEndId, amount}, journals before and after', async () => {
    const consults = post(DICT_PATH, 200, dictConsult());
    const transfers = post(TRANSFER_PATH, 201, { ...transferResult, amount: 10.5 });
    const result = await pix(['pay', 'key', 'Ana@Example.COM', '--amount', '10,50', '--yes', '--json']);
    expect(result.code).toBe(0);
    expect(consults).toEqual([{ key: 'ana@example.com' }]);
    expect(transfers).toEqual([{ endToEndId: E2E, amount: 10.5 }]);
    expect(JSON.parse(result.stdout)).toEqual({
      consult: dictConsult(),
      transfer: { ...transferResult, amount: 10.5 },
    });
    expect(result.stderr).toContain('paying from profile "sandbox" via api.example.test');
    const lines = journal();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      kind: 'payment',
      payment: { method: 'key', key: 'ana@example.com' },
      amountCentavos: 1050,
      endToEndId: E2E,
      host: 'api.example.test',
      state: 'sending',
    });
    expect(lines[1]).toMatchObject({ id: lines[0]!.id, state: 'done', transferId: 't-1', status: 'PENDING' });
    expect(JSON.stringify(lines)).not.toContain('test-token-pay');
  });

  it('accepts the endToEndId spelling too, and a phone typed with a mask is sent in E.164', async () => {
    const consults = post(
      DICT_PATH,
      200,
      dictConsult({ key: '+5511912345678', keyType: 'PHONE', endtoEndId: undefined, endToEndId: E2E }),
    );
    const transfers = post(TRANSFER_PATH, 201, transferResult);
    const result = await pix(['pay', 'key', '(11) 91234-5678', '--amount', '1', '-y']);
    expect(result.code).toBe(0);
    expect(consults).toEqual([{ key: '+5511912345678' }]);
    expect(transfers).toEqual([{ endToEndId: E2E, amount: 1 }]);
  });

  it('on a terminal: shows the owner and asks "Pay R$ X to NAME (DOC) at INSTITUTION?"', async () => {
    post(
      DICT_PATH,
      200,
      dictConsult({
        owner: {
          name: 'Ana Souza',
          type: 'NATURAL_PERSON',
          tradeName: 'Ana Doces',
          documentNumber: '12345678909',
        },
      }),
    );
    const transfers = post(TRANSFER_PATH, 201, transferResult);
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50'], {
      tty: true,
      answers: ['y'],
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      // At 80 columns the question wraps between words, before `[y/N]`.
      /Pay R\$ 10,50 to Ana Souza \(\*\*\*\.456\.789-\*\*\) at .*00000000.*\?\s\[y\/N\]/,
    );
    expect(result.stdout).toContain('Ana Doces');
    expect(result.stdout).toContain('0001');
    expect(result.stdout).toContain('CACC');
    expect(result.stdout).not.toContain('12345678909');
    expect(result.stdout).toContain('Sent');
    expect(transfers).toHaveLength(1);
  });

  it('declined at the prompt → exit 8, no transfer, nothing journalled', async () => {
    post(DICT_PATH, 200, dictConsult());
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50'], {
      tty: true,
      answers: ['n'],
    });
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('payment cancelled');
    // The user's own "no" is not an error.
    expect(result.stderr).not.toContain('error:');
    expect(journal()).toEqual([]);
  });

  it('Ctrl-C (or a closed terminal) at the prompt is a no: exit 8, nothing sent', async () => {
    post(DICT_PATH, 200, dictConsult());
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50'], {
      tty: true,
      answers: [],
    });
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('payment cancelled (no answer); nothing was sent');
    expect(journal()).toEqual([]);
  });

  it('no terminal and no --yes → exit 2 before any request', async () => {
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot ask for confirmation');
    expect(result.stderr).toContain('--yes');
  });

  it('an invalid key or amount → exit 2, naming it, nothing sent', async () => {
    const badKey = await pix(['pay', 'key', '123.456.789-00', '--amount', '1', '-y']);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toMatch(/KEY: .*CPF/);
    const badAmount = await pix(['pay', 'key', 'ana@example.com', '--amount', '1.234', '-y']);
    expect(badAmount.code).toBe(2);
    expect(badAmount.stderr).toContain('--amount');
    const missing = await pix(['pay', 'key', 'ana@example.com', '-y']);
    expect(missing.code).toBe(2);
  });

  it("above the profile's max-amount → exit 8 before consulting", async () => {
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ currentProfile: 'prod', profiles: { prod: { 'max-amount': '50' } } }),
    );
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '50.01', '-y']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('max-amount of profile "prod" (R$ 50,00)');
    post(DICT_PATH, 200, dictConsult());
    post(TRANSFER_PATH, 201, transferResult);
    expect((await pix(['pay', 'key', 'ana@example.com', '--amount', '50', '-y'])).code).toBe(0);
  });

  it('the same key and amount again within 10 minutes → exit 8 naming the earlier payment; --allow-duplicate pays', async () => {
    post(DICT_PATH, 200, dictConsult(), 2);
    const transfers = post(TRANSFER_PATH, 201, transferResult, 2);
    expect((await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50', '-y'])).code).toBe(0);
    const again = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50', '-y']);
    expect(again.code).toBe(8);
    expect(again.stderr).toContain(`already paid: R$ 10,50 to Ana Souza paid at`);
    expect(again.stderr).toContain(E2E);
    expect(transfers).toHaveLength(1);
    const forced = await pix([
      'pay',
      'key',
      'ana@example.com',
      '--amount',
      '10.50',
      '-y',
      '--allow-duplicate',
    ]);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain('warning: paying again');
    expect(transfers).toHaveLength(2);
  });

  it('a transfer with no readable answer (5xx) → exit 7, endToEndId and the statement command printed, journal unknown', async () => {
    post(DICT_PATH, 200, dictConsult());
    const transfers = post(TRANSFER_PATH, 500, { message: 'Erro interno' });
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50', '-y']);
    expect(result.code).toBe(7);
    expect(transfers).toHaveLength(1); // never retried
    expect(result.stderr).toContain(`endToEndId: ${E2E}`);
    // Statement entries carry no endToEndId: the hint names a window around the attempt, amount and document.
    expect(result.stderr).toMatch(
      /^hint: .*OUTCOME of R\$ 10,50 to "Ana Souza" \(document \*\*\*\.456\.789-\*\*\) with `pix statement -p sandbox --from 2026-03-10T\d\d:\d\d-03:00 --to 2026-03-10T\d\d:\d\d-03:00 --type outcome --counterparty 456789 --min 10\.50 --max 10\.50 --all`/m,
    );
    expect(journal().at(-1)).toMatchObject({ state: 'unknown' });
    // And an unknown outcome counts for the duplicate guard.
    expect((await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50', '-y'])).code).toBe(8);
  });

  it('a refused transfer (422) → exit 5, journal failed, and it does not block a retry', async () => {
    post(DICT_PATH, 200, dictConsult(), 2);
    post(TRANSFER_PATH, 422, { message: 'Valor do pagamento inválido' });
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50', '-y']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('Valor do pagamento inválido');
    expect(journal().at(-1)).toMatchObject({ state: 'failed' });
    post(TRANSFER_PATH, 201, transferResult);
    expect((await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50', '-y'])).code).toBe(0);
  });

  it('--dry-run: consults and shows, exit 0, no transfer, no journal', async () => {
    post(DICT_PATH, 200, dictConsult());
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50', '--dry-run', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ consult: dictConsult(), transfer: null });
    expect(journal()).toEqual([]);
  });

  it('piped without --json: tab-separated details and the transfer, plain decimals', async () => {
    post(DICT_PATH, 200, dictConsult());
    post(TRANSFER_PATH, 201, transferResult);
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50', '-y']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('owner\tAna Souza\n');
    expect(result.stdout).toContain('pay\t10.50\n');
    expect(result.stdout).toContain('transferId\tt-1\n');
    expect(result.stdout).toContain('status\tPENDING\n');
  });
});

describe('pix pay qr', () => {
  it('a dynamic code pays its final amount: the transfer carries only the consultation endToEndId', async () => {
    const consults = post(EMV_PATH, 200, emvConsult());
    const transfers = post(TRANSFER_PATH, 201, transferResult);
    const result = await pix(['pay', 'qr', DYNAMIC_CODE, '--yes', '--json']);
    expect(result.code).toBe(0);
    expect(consults).toEqual([{ emv: DYNAMIC_CODE }]);
    expect(transfers).toEqual([{ endToEndId: E2E }]);
    expect(JSON.parse(result.stdout)).toEqual({ consult: emvConsult(), transfer: transferResult });
    expect(journal()[0]).toMatchObject({
      kind: 'payment',
      payment: { method: 'qr', dynamic: true },
      amountCentavos: 1234,
    });
    expect(JSON.stringify(journal())).not.toContain(DYNAMIC_CODE);
  });

  it('the same dynamic code again → exit 8 before consulting, naming the earlier payment', async () => {
    post(EMV_PATH, 200, emvConsult());
    post(TRANSFER_PATH, 201, transferResult);
    expect((await pix(['pay', 'qr', DYNAMIC_CODE, '-y'])).code).toBe(0);
    const again = await pix(['pay', 'qr', DYNAMIC_CODE, '-y']);
    expect(again.code).toBe(8);
    expect(again.stderr).toContain('already paid: R$ 12,34 to Loja da Esquina Ltda');
    expect(again.stderr).toContain('--allow-duplicate');
  });

  it('reads the code from stdin with -', async () => {
    const consults = post(EMV_PATH, 200, emvConsult());
    post(TRANSFER_PATH, 201, transferResult);
    const result = await pix(['pay', 'qr', '-', '-y'], { stdin: `${DYNAMIC_CODE}\n` });
    expect(result.code).toBe(0);
    expect(consults).toEqual([{ emv: DYNAMIC_CODE }]);
  });

  it('code piped on stdin, a terminal there: the y/N answer is read from the terminal, not stdin', async () => {
    post(EMV_PATH, 200, emvConsult());
    const transfers = post(TRANSFER_PATH, 201, transferResult);
    const piped = { stdin: `${DYNAMIC_CODE}\n`, stdinTTY: false, stdoutTTY: true, stderrTTY: true };
    const result = await pix(['pay', 'qr', '-'], { ...piped, terminalAnswers: ['y'] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Pay R$ 12,34 to Loja da Esquina Ltda');
    expect(result.stderr).toContain('[y/N]');
    expect(result.readLines).toEqual([{ hidden: false, from: 'terminal' }]);
    expect(transfers).toEqual([{ endToEndId: E2E }]);
  });

  it('code piped on stdin and no terminal at all (CI): exit 2 without --yes, nothing sent', async () => {
    // No interceptor: any request would fail the command with another exit code.
    const result = await pix(['pay', 'qr', '-'], { stdin: `${DYNAMIC_CODE}\n`, stderrTTY: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--yes');
    expect(result.readLines).toEqual([]);
  });

  it('a bad CRC → exit 2 with the decoder message, and no request at all', async () => {
    const broken = `${DYNAMIC_CODE.slice(0, -4)}0000`;
    const result = await pix(['pay', 'qr', broken, '-y']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('CRC mismatch: code ends in 0000');
  });

  it('--amount on a code whose amount is fixed → exit 2, no transfer', async () => {
    post(EMV_PATH, 200, emvConsult());
    const result = await pix(['pay', 'qr', DYNAMIC_CODE, '--amount', '5', '-y']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--amount: this code's amount is fixed at R$ 12,34");
  });

  it('a modifiable static code: --amount is sent; without it and without a terminal → exit 2', async () => {
    const modifiable = emvConsult({
      type: 'STATIC_QRCODE',
      amount: { original: 0, final: 0, canModifyFinalAmount: true },
    });
    post(EMV_PATH, 200, modifiable, 2);
    const transfers = post(TRANSFER_PATH, 201, transferResult);
    const noAmount = await pix(['pay', 'qr', STATIC_CODE, '-y']);
    expect(noAmount.code).toBe(2);
    expect(noAmount.stderr).toContain('--amount: this code lets the payer choose the amount');
    const paid = await pix(['pay', 'qr', STATIC_CODE, '--amount', '7', '-y']);
    expect(paid.code).toBe(0);
    expect(transfers).toEqual([{ endToEndId: E2E, amount: 7 }]);
  });

  it('a modifiable static code on a terminal asks for the amount, then confirms', async () => {
    post(
      EMV_PATH,
      200,
      emvConsult({ type: 'STATIC_QRCODE', amount: { final: 0, canModifyFinalAmount: true } }),
    );
    const transfers = post(TRANSFER_PATH, 201, transferResult);
    const result = await pix(['pay', 'qr', STATIC_CODE], { tty: true, answers: ['15,00', 'yes'] });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Amount to pay');
    expect(result.stderr).toContain('Pay R$ 15,00 to Loja da Esquina Ltda');
    expect(transfers).toEqual([{ endToEndId: E2E, amount: 15 }]);
  });

  it('an expired code is refused (exit 5) before any transfer', async () => {
    post(EMV_PATH, 200, emvConsult({ calendar: { expirationDate: '2026-03-10T11:59:59Z' } }));
    const result = await pix(['pay', 'qr', DYNAMIC_CODE, '-y']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('the code expired at 2026-03-10 08:59');
    expect(journal()).toEqual([]);
  });

  it('on a terminal: shows receiver, masked document, institution, amounts, expiry, question and info', async () => {
    post(
      EMV_PATH,
      200,
      emvConsult({
        amount: {
          original: 100,
          discount: 5,
          interest: 1.5,
          fine: 2,
          final: 98.5,
          canModifyFinalAmount: false,
        },
      }),
    );
    const result = await pix(['pay', 'qr', DYNAMIC_CODE, '--dry-run'], { tty: true });
    expect(result.code).toBe(0);
    for (const text of [
      'Loja da Esquina Ltda',
      '**.222.333/0001-**',
      '00000000',
      'DYNAMIC_QRCODE',
      'R$ 100,00',
      'R$ 5,00',
      'R$ 1,50',
      'R$ 2,00',
      'R$ 98,50',
      '2026-03-11 09:00',
      'Pedido 42?',
      'pedido',
      E2E,
    ]) {
      expect(result.stdout).toContain(text);
    }
    expect(result.stderr).toContain('dry run: nothing was sent');
    expect(result.readLines).toEqual([]);
  });

  it('a transfer that resets after being sent → exit 7 after exactly one request, journal unknown', async () => {
    post(EMV_PATH, 200, emvConsult());
    mock.agent
      .get(ORIGIN)
      .intercept({ path: TRANSFER_PATH, method: 'POST' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const result = await pix(['pay', 'qr', DYNAMIC_CODE, '-y']);
    expect(result.code).toBe(7);
    expect(result.stderr).toContain(E2E);
    expect(journal().map((line) => line.state)).toEqual(['sending', 'unknown']);
  });
});

/** Intercepts one POST answered with a raw text body (any status, any bytes). */
function postText(path: string, status: number, text: string): void {
  mock.agent
    .get(ORIGIN)
    .intercept({ path, method: 'POST' })
    .reply(status, text, { headers: { 'content-type': 'application/json' } });
}

const DAY_LATER = new Date(NOW.getTime() + 24 * 3600_000);
const KEY_PAY = ['pay', 'key', 'ana@example.com', '--amount', '10.50', '-y'];

describe('transfer outcomes by proof (api/outcomes.ts)', () => {
  it.each(['REJECTED', 'FAILED', 'ERROR', 'CANCELED', 'denied'])(
    'a 2xx whose status is %s → exit 5, not "Sent", journal failed, and paying again is allowed',
    async (status) => {
      post(DICT_PATH, 200, dictConsult(), 2);
      post(TRANSFER_PATH, 201, { ...transferResult, status });
      const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50', '-y'], {
        stdoutTTY: true,
      });
      expect(result.code, result.stderr).toBe(5);
      expect(result.stdout).not.toContain('Sent');
      expect(result.stderr).toContain(`refused with status ${status}`);
      expect(journal().at(-1)).toMatchObject({ state: 'failed' });
      post(TRANSFER_PATH, 201, transferResult);
      expect((await pix(KEY_PAY)).code).toBe(0);
    },
  );

  it.each([
    [302, { message: 'moved' }],
    [307, { message: 'moved' }],
    [408, { message: 'timeout' }],
    [409, { message: 'conflito' }],
    [425, { message: 'too early' }],
    [499, { message: 'client closed' }],
    [500, { message: 'erro' }],
    [503, { message: 'indisponível' }],
    [201, { ...transferResult, status: 'ON_HOLD' }],
    [201, { id: 't-1', endToEndId: E2E }],
    [200, { ok: true }],
  ])(
    '%i %j → exit 7, sent once, journal unknown, endToEndId and what to do printed',
    async (status, body) => {
      post(DICT_PATH, 200, dictConsult());
      const transfers = post(TRANSFER_PATH, status, body);
      const result = await pix(KEY_PAY);
      expect(result.code, result.stderr).toBe(7);
      expect(transfers).toHaveLength(1);
      expect(journal().at(-1)).toMatchObject({ state: 'unknown' });
      expect(result.stderr).toContain(`endToEndId: ${E2E}`);
      expect(result.stderr).toMatch(
        /^hint: .*`pix journal resolve [0-9a-f]{8} --paid`.*`pix journal resolve [0-9a-f]{8} --not-paid`/m,
      );
      expect(result.stdout).toBe('');
    },
  );

  it('a 429 on the transfer: refused before anything was applied → exit 6, journal failed', async () => {
    post(DICT_PATH, 200, dictConsult());
    const transfers = post(TRANSFER_PATH, 429, { message: 'Muitas requisições' });
    const result = await pix(KEY_PAY);
    expect(result.code).toBe(6);
    expect(transfers).toHaveLength(1);
    expect(journal().at(-1)).toMatchObject({ state: 'failed' });
  });

  it('a 2xx nested 6,000 levels deep → exit 7 (never a crash), also with --json; journal unknown', async () => {
    const deep = `{"id":"t-1","status":"PENDING","x":${'['.repeat(6000)}${']'.repeat(6000)}}`;
    for (const json of [false, true]) {
      post(DICT_PATH, 200, dictConsult());
      postText(TRANSFER_PATH, 201, deep);
      const result = await pix([...KEY_PAY, '--allow-duplicate', ...(json ? ['--json'] : [])]);
      expect(result.code, result.stderr).toBe(7);
      expect(result.stderr).toContain('nested more than 100 levels deep');
      expect(result.stderr).not.toMatch(/internal error|bug in pix|call stack/);
      expect(journal().at(-1)).toMatchObject({ state: 'unknown' });
      // Resolve it, so the next round is not blocked.
      const id = String(journal().at(-1)!.id);
      expect((await pix(['journal', 'resolve', id, '--not-paid'])).code).toBe(0);
    }
  });
});

describe('an unknown outcome is never forgotten (journal rules)', () => {
  it('blocks the same key and amount a day later, --allow-duplicate included, naming the entry and the resolve command; --not-paid unblocks', async () => {
    // Two consultations: the blocked runs stop before consulting.
    post(DICT_PATH, 200, dictConsult(), 2);
    const transfers = post(TRANSFER_PATH, 500, { message: 'Erro interno' });
    expect((await pix(KEY_PAY)).code).toBe(7);
    const id = String(journal()[0]!.id);

    const dayLater = await pix(KEY_PAY, {}, DAY_LATER);
    expect(dayLater.code).toBe(8);
    expect(dayLater.stderr).toContain(
      'an earlier payment has no known outcome: R$ 10,50 to Ana Souza sent at',
    );
    expect(dayLater.stderr).toContain(`journal entry ${id.slice(0, 8)}`);
    expect(dayLater.stderr).toContain(`pix journal resolve ${id.slice(0, 8)} --not-paid`);
    expect(dayLater.stderr).toMatch(/--from 2026-03-10T\d\d:\d\d-03:00 --to 2026-03-10T/);
    const forced = await pix([...KEY_PAY, '--allow-duplicate'], {}, DAY_LATER);
    expect(forced.code).toBe(8);
    // A dry run says it would be refused.
    const dry = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.50', '--dry-run'], {}, DAY_LATER);
    expect(dry.code).toBe(8);
    expect(dry.stderr).toContain('would be refused');
    expect(transfers).toHaveLength(1);

    const resolved = await pix(['journal', 'resolve', id.slice(0, 8), '--not-paid'], {}, DAY_LATER);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stderr).toContain('no longer blocks paying again');
    post(TRANSFER_PATH, 201, transferResult);
    expect((await pix(KEY_PAY, {}, DAY_LATER)).code).toBe(0);
  });

  it('--paid makes it count as done: blocked for 10 minutes after it was sent, then free', async () => {
    post(DICT_PATH, 200, dictConsult(), 2);
    post(TRANSFER_PATH, 504, { message: 'gateway' });
    expect((await pix(KEY_PAY)).code).toBe(7);
    const id = String(journal()[0]!.id);
    expect((await pix(['journal', 'resolve', id, '--paid'])).code).toBe(0);
    const soon = await pix(KEY_PAY, {}, new Date(NOW.getTime() + 5 * 60_000));
    expect(soon.code).toBe(8);
    expect(soon.stderr).toContain('already paid: R$ 10,50 to Ana Souza paid at');
    post(TRANSFER_PATH, 201, transferResult);
    expect((await pix(KEY_PAY, {}, DAY_LATER)).code).toBe(0);
  });

  it('a dynamic code whose transfer was cut off is refused before consulting, a month later too', async () => {
    post(EMV_PATH, 200, emvConsult());
    mock.agent
      .get(ORIGIN)
      .intercept({ path: TRANSFER_PATH, method: 'POST' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    expect((await pix(['pay', 'qr', DYNAMIC_CODE, '-y'])).code).toBe(7);
    const again = await pix(
      ['pay', 'qr', DYNAMIC_CODE, '-y'],
      {},
      new Date(NOW.getTime() + 30 * 24 * 3600_000),
    );
    expect(again.code).toBe(8);
    expect(again.stderr).toContain('no known outcome');
  });
});

describe('the payer-chosen amount on a terminal', () => {
  const modifiable = () =>
    emvConsult({ type: 'STATIC_QRCODE', amount: { final: 0, canModifyFinalAmount: true } });

  it('shows who gets paid before asking, and asks again after an invalid amount', async () => {
    post(EMV_PATH, 200, modifiable());
    const transfers = post(TRANSFER_PATH, 201, transferResult);
    const test = createTestIO({ tty: true, answers: ['abc', '0', '1.2.3', '15,00', 'y'] });
    const seenAtPrompt: string[] = [];
    const readLine = test.io.stdin.readLine;
    test.io.stdin.readLine = (hidden) => {
      seenAtPrompt.push(test.stdout());
      return readLine(hidden);
    };
    const code = await run(['pay', 'qr', STATIC_CODE], {
      io: test.io,
      env,
      dispatcher: mock.agent,
      clock: { now: () => NOW },
    });
    expect(code, test.stderr()).toBe(0);
    // The receiver's table is on the screen when the amount is asked; it is not printed twice.
    expect(seenAtPrompt[0]).toContain('Loja da Esquina Ltda');
    expect(test.stdout().split('Loja da Esquina Ltda').length - 1).toBe(2); // the table and "Sent … to"
    expect(test.stderr().match(/type it again/g)).toHaveLength(3);
    expect(test.stderr()).toContain('Pay R$ 15,00 to Loja da Esquina Ltda');
    expect(transfers).toEqual([{ endToEndId: E2E, amount: 15 }]);
  });

  it('piped stdout: the receiver is named on stderr before the amount is asked', async () => {
    post(EMV_PATH, 200, modifiable());
    const result = await pix(['pay', 'qr', STATIC_CODE], {
      stdinTTY: true,
      stderrTTY: true,
      answers: ['7', 'n'],
    });
    expect(result.code).toBe(8);
    const stderr = result.stderr;
    expect(stderr.indexOf('receiver: Loja da Esquina Ltda')).toBeGreaterThan(-1);
    expect(stderr.indexOf('receiver: Loja da Esquina Ltda')).toBeLessThan(stderr.indexOf('Amount to pay'));
  });
});

describe('network hints', () => {
  it('a host name that does not resolve: the hint says so and does not suggest --timeout', async () => {
    mock.agent
      .get(ORIGIN)
      .intercept({ path: DICT_PATH, method: 'POST' })
      .replyWithError(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }))
      .times(3);
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '1', '--dry-run']);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^hint: the host name did not resolve/m);
    expect(result.stderr).not.toContain('--timeout');
  });
});
