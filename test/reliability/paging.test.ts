/**
 * A server whose total is a lie: it announces a million records and then hands out empty pages, or the
 * same page whatever the offset. Every pager of pix stops at the first page that brings nothing new
 * (exit 6, "received N of M"), so the lie costs a handful of requests — counted here on a real loopback
 * server — instead of one per page up to the total (some 58,000 requests in 15 s before).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { deferEach } from '../helpers/cleanup.js';
import { BIN, NODE, runCli } from '../helpers/cli.js';
import {
  accountReads,
  type Behaviour,
  type FakeServer,
  type SeenRequest,
  startFakeServer,
} from '../helpers/fake-server.js';
import { until } from '../helpers/wait.js';

const TOTAL = 1_000_000;
/** Far above what stopping at the first page with nothing new takes (a page, the pages in flight). */
const FEW = 30;

const entry = (n: number) => ({
  id: `e-${n}`,
  type: 'INCOME',
  amount: 1,
  fee: 0,
  status: 'CONFIRMED',
  method: 'PIX',
  confirmedAt: new Date(Date.UTC(2026, 2, 10, 12) - n * 60_000).toISOString(),
  creditor: { name: `Cliente ${n}`, bank: '00000000', documentNumber: '***' },
});
const key = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  key: `k${n}@example.com`,
  keyType: 'EMAIL',
  createdAt: '2026-03-01T00:00:00Z',
});

type Lie = 'empty' | 'repeated';

/** The records of a page, as the liar hands them out: the real first page, then nothing or the same. */
function lyingPage<T>(request: SeenRequest, lie: Lie, make: (n: number) => T): T[] {
  const query = new URL(request.path, 'http://x').searchParams;
  const limit = Math.min(Number(query.get('limit') ?? 10), 100);
  const offset = lie === 'repeated' ? 0 : Number(query.get('offset') ?? 0);
  return offset === 0 ? Array.from({ length: limit }, (_, n) => make(n)) : [];
}

const { defer, dir: tempDir } = deferEach();

async function liar(lie: Lie, extra?: (request: SeenRequest) => Behaviour | undefined) {
  const server: FakeServer = await startFakeServer((request) => {
    const answer = extra?.(request);
    if (answer) return answer;
    if (request.path.includes('/account/transactions')) {
      return { kind: 'json', status: 200, body: { total: TOTAL, results: lyingPage(request, lie, entry) } };
    }
    if (request.path.includes('/pix/keys')) {
      return { kind: 'json', status: 200, body: { total: TOTAL, result: lyingPage(request, lie, key) } };
    }
    return { kind: 'json', status: 404, body: { message: 'no' } };
  });
  defer(() => server.close());
  const dir = tempDir();
  const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'paging-token' };
  const pix = (args: string[]) => runCli(args, { env, timeoutMs: 30_000 });
  return { server, env, pix };
}

describe.each(['empty', 'repeated'] as const)('a total that lies, then %s pages', (lie) => {
  it('statement --all: exit 6 "received 100 of 1000000", a handful of requests', async () => {
    const { server, pix } = await liar(lie);
    const result = await pix([
      'statement',
      '--from',
      '2026-01-01',
      '--to',
      '2026-03-31',
      '--all',
      '-o',
      'ndjson',
    ]);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain(
      'error: the statement export is incomplete: received 100 of 1000000 records the server announced',
    );
    expect(result.stdout.trim().split('\n')).toHaveLength(100);
    expect(server.requests.length).toBeLessThan(FEW);
  });

  it('keys --all: the same', async () => {
    const { server, pix } = await liar(lie);
    const result = await pix(['keys', '--all', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('received 100 of 1000000 records the server announced');
    expect(server.requests.length).toBeLessThan(FEW);
  });

  it('statement summary: the same', async () => {
    const { server, pix } = await liar(lie);
    const result = await pix(['statement', 'summary', '--from', '2026-01-01', '--to', '2026-03-31']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('received 100 of 1000000 records the server announced');
    expect(server.requests.length).toBeLessThan(FEW);
  });

  it('pix api --paginate: the same, after printing the pages received', async () => {
    const { server, pix } = await liar(lie);
    const result = await pix(['api', '/pix/keys', '--paginate']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain(
      'error: --paginate: /pix/keys is incomplete: received 100 of 1000000 records the server announced',
    );
    expect(server.requests.length).toBeLessThan(FEW);
  });

  it('charge immediate --key (the key list): exit 6, no charge created', async () => {
    const { server, pix } = await liar(lie);
    const result = await pix(['charge', 'immediate', '--amount', '5', '--key', 'k1@example.com', '--no-qr']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('error: the key list is incomplete: received 100 of 1000000 records');
    expect(server.requestsTo('/pix-cash-in/immediate')).toHaveLength(0);
    expect(server.requests.length).toBeLessThan(FEW);
  });
});

describe('the look at the statement of charge show (the ledger)', () => {
  it('repeated pages: one look stops at the second page; the ledger is shown as recorded, with the reason', async () => {
    const charge = {
      id: 'c0000000-0000-4000-8000-000000000001',
      amount: 5,
      status: 'PENDING',
      pixKey: 'loja@example.com',
      pixKeyId: key(1).id,
      type: 'IMMEDIATE_QRCODE',
      emvqrcps:
        '00020101021226850014br.gov.bcb.pix2563qr.example.com/v2/abc5204000053039865802BR5909Loja Fake6009Sao Paulo62070503***6304ABCD',
      transactionIdentification: 'txid0000000000000000000001',
      createdAt: '2026-03-10T11:00:00.000Z',
      expiresAt: '2099-03-10T13:00:00.000Z',
    };
    // The key list and its key's consultation are told honestly (which account: journal/accounts.ts); the
    // statement repeats its pages.
    const { server, pix } = await liar('repeated', (request) =>
      request.path.endsWith('/pix-cash-in/immediate')
        ? { kind: 'json', status: 201, body: charge }
        : request.path.includes('/pix/keys') || request.path.includes('/pix/dict/consult')
          ? accountReads(request)
          : undefined,
    );
    const created = await pix(['charge', 'immediate', '--amount', '5', '--key-id', key(1).id, '--no-qr']);
    expect(created.code, created.stderr).toBe(0);
    const shown = await pix(['charge', 'show', charge.id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toContain(
      'warning: the statement could not be read (the statement is incomplete: received 100 of 1000000 records the server announced)',
    );
    expect(server.requestsTo('/account/transactions').length).toBeLessThan(FEW);
  });
});

describe('statement --follow stops each poll at the first page with nothing new', () => {
  it('against a lying total it asks one page a poll, and Ctrl-C ends it with 130', async () => {
    const { server, env } = await liar('repeated');
    const child: ChildProcess = spawn(
      NODE,
      [BIN, 'statement', '--follow', '--interval', '1s', '-o', 'ndjson'],
      {
        env: { PATH: process.env.PATH ?? '', HOME: env.PIX_CONFIG_DIR!, ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    defer(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The first read and two polls.
    await until(
      () => server.requests.length >= 3 || child.exitCode !== null,
      'the first read and two polls',
      20_000,
    );
    const polled = server.requests.length;
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(polled).toBeGreaterThanOrEqual(3);
    // One request a poll: two polls a second apart cannot have made more than a few.
    expect(polled).toBeLessThan(6);
  });
});
