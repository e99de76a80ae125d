/**
 * Every consultation must answer for what was asked, or nothing is sent: a loopback API (the sandbox
 * never lies this way) whose EMV consultation asks another amount than the code's own, and whose key
 * consultation answers for another key. The built binary runs against it; the server's request log proves
 * that no transfer left.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBrCode } from '../../src/domain/brcodeencode.js';
import { deferEach } from '../helpers/cleanup.js';
import { runCli } from '../helpers/cli.js';
import { dictAnswer } from '../helpers/fake-pix-api.js';
import { accountReads, type Behaviour, startFakeServer } from '../helpers/fake-server.js';

const E2E = 'E12345678202603101200consults001';
/** A static code that fixes its own amount: R$ 10,00. */
const CODE_OF_10 = encodeBrCode({
  pixKey: 'loja@example.com',
  amount: 10_00,
  merchantName: 'Loja da Esquina',
  merchantCity: 'SAO PAULO',
});

const { defer, dir: tempDir } = deferEach();

const json = (body: unknown): Behaviour => ({ kind: 'json', status: 200, body });

/** `dictKey(asked)`: the key the key consultation answers for. */
async function lyingApi(options: { final?: number; dictKey?: (asked: string) => string | undefined }) {
  const server = await startFakeServer((request) => {
    const read = accountReads(request);
    if (read) return read;
    const body = request.body ? (JSON.parse(request.body) as Record<string, string>) : {};
    if (request.path.endsWith('/pix/emv/consult')) {
      return json({
        type: 'STATIC_QRCODE',
        endToEndId: E2E,
        amount: { original: options.final, final: options.final, canModifyFinalAmount: false },
        receiver: { name: 'Loja da Esquina', participant: '00000000', documentNumber: '***' },
      });
    }
    if (request.path.endsWith('/pix/dict/consult')) {
      return dictAnswer(options.dictKey ? options.dictKey(body.key!) : body.key, 'Ana Souza', E2E);
    }
    return json({ id: 't-1', endToEndId: body.endToEndId, status: 'PENDING' });
  });
  defer(() => server.close());
  const dir = tempDir();
  const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'consults-token' };
  const pix = (args: string[]) => runCli(args, { env });
  const transfers = () => server.requestsTo('/pix-cash-out/transfer').length;
  return { server, pix, transfers, dir };
}

describe("pay qr and pay batch: a consultation asking another amount than the code's own", () => {
  it('pay qr: exit 8 naming both amounts, with --yes and with --dry-run; no transfer', async () => {
    const { server, pix, transfers } = await lyingApi({ final: 1000 });
    for (const flag of ['--yes', '--dry-run']) {
      const result = await pix(['pay', 'qr', CODE_OF_10, flag]);
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr).toContain(
        'error: the consultation asks R$ 1.000,00, the code says R$ 10,00; nothing was sent',
      );
    }
    expect(server.requestsTo('/pix/emv/consult')).toHaveLength(2);
    expect(transfers()).toBe(0);
  });

  it('pay batch: the same row is not_payable with the same words (one rule); no transfer', async () => {
    const { pix, transfers, dir } = await lyingApi({ final: 1000 });
    const file = join(dir, 'codes.csv');
    writeFileSync(file, `id,emv\nc1,${CODE_OF_10}\n`);
    const result = await pix(['pay', 'batch', file, '--yes', '-o', 'json']);
    expect(result.code, result.stderr).toBe(5);
    expect(JSON.parse(result.stdout).results[0]).toMatchObject({
      state: 'not_payable',
      error: 'the consultation asks R$ 1.000,00, the code says R$ 10,00',
    });
    expect(transfers()).toBe(0);
  });

  it('pay qr pays when the consultation agrees with the code', async () => {
    const { pix, transfers } = await lyingApi({ final: 10 });
    const result = await pix(['pay', 'qr', CODE_OF_10, '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(transfers()).toBe(1);
  });
});

describe('pay key and pay batch: a key consultation answering for another key', () => {
  it('pay key: exit 8 naming both keys, or saying it names none; no transfer', async () => {
    const other = await lyingApi({ dictKey: () => 'outra@example.com' });
    const result = await other.pix(['pay', 'key', 'ana@example.com', '--amount', '5', '--yes']);
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toContain(
      'error: the consultation answers for the key outra@example.com, not ana@example.com, the key asked; nothing was sent',
    );
    expect(other.transfers()).toBe(0);

    const none = await lyingApi({ dictKey: () => undefined });
    const silent = await none.pix(['pay', 'key', 'ana@example.com', '--amount', '5', '--yes']);
    expect(silent.code, silent.stderr).toBe(8);
    expect(silent.stderr).toContain(
      'the consultation does not say which key it answers for (asked ana@example.com)',
    );
    expect(none.transfers()).toBe(0);
  });

  it("pay key: the same key in the DICT's own spelling (a masked CPF, capitals) is the key asked", async () => {
    const { pix, transfers } = await lyingApi({
      dictKey: (asked) => (asked === '52998224725' ? '529.982.247-25' : asked.toUpperCase()),
    });
    const cpf = await pix(['pay', 'key', '52998224725', '--amount', '5', '--yes']);
    expect(cpf.code, cpf.stderr).toBe(0);
    const email = await pix(['pay', 'key', 'bruno@example.com', '--amount', '6', '--yes']);
    expect(email.code, email.stderr).toBe(0);
    expect(transfers()).toBe(2);
  });

  it('pay batch: a row whose consultation answers for another key is not_payable; the others are paid', async () => {
    const { server, pix, transfers, dir } = await lyingApi({
      dictKey: (asked) => (asked === 'ana@example.com' ? 'outra@example.com' : asked),
    });
    const file = join(dir, 'keys.csv');
    writeFileSync(file, 'id,key,amount\nk1,ana@example.com,5\nk2,bruno@example.com,6\n');
    const result = await pix(['pay', 'batch', file, '--yes', '-o', 'json']);
    expect(result.code, result.stderr).toBe(5);
    const rows = JSON.parse(result.stdout).results as Array<{ id: string; state: string; error?: string }>;
    expect(rows.map((row) => [row.id, row.state])).toEqual([
      ['k1', 'not_payable'],
      ['k2', 'paid'],
    ]);
    expect(rows[0]!.error).toBe(
      'the consultation answers for the key outra@example.com, not ana@example.com, the key asked',
    );
    expect(transfers()).toBe(1);
    expect(JSON.parse(server.requestsTo('/pix-cash-out/transfer')[0]!.body)).toMatchObject({ amount: 6 });
  });
});
