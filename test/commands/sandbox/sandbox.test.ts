import { join } from 'node:path';
import { request } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/main.js';
import { startSandboxServer } from '../../../src/sandbox/server.js';
import { readSandboxState } from '../../../src/sandbox/store.js';
import { createTestIO } from '../../helpers/io.js';
import { pixWith } from '../../helpers/pix.js';
import { sandboxKeyIds } from '../../helpers/served.js';
import { tempDir } from '../../helpers/temp.js';
import { until } from '../../helpers/wait.js';

let dir: string;
let now: Date;

beforeEach(() => {
  dir = tempDir('pix-sandbox-cmd-');
  now = new Date('2025-03-10T15:00:00.000Z');
});

const pix = pixWith(() => ({ env: { PIX_CONFIG_DIR: dir, HOME: dir }, clock: { now: () => now } }));

const stateFile = () => join(dir, 'sandbox-state.json');

async function createCharge(): Promise<string> {
  const server = await startSandboxServer({ stateFile: stateFile(), clock: () => now });
  try {
    const { evp } = await sandboxKeyIds(server.url);
    const res = await request(`${server.url}/api/financial/v1/pix-cash-in/immediate`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({
        pixKeyId: evp,
        amount: 42,
        expiration: { value: 1, unit: 'hours' },
      }),
    });
    return ((await res.body.json()) as { id: string }).id;
  } finally {
    await server.close();
  }
}

describe('pix sandbox clock', () => {
  it('shows, advances, sets and resets sandbox time, stored in the state file', async () => {
    expect(await pix(['sandbox', 'clock'])).toMatchObject({ code: 0, stdout: '2025-03-10T15:00:00.000Z\n' });
    expect((await pix(['sandbox', 'clock', '--advance', '2d'])).stdout).toBe('2025-03-12T15:00:00.000Z\n');
    expect(readSandboxState(stateFile())!.clockOffsetMs).toBe(2 * 86_400_000);
    expect((await pix(['sandbox', 'clock', '--set', '2025-04-01T12:00:00Z'])).stdout).toBe(
      '2025-04-01T12:00:00.000Z\n',
    );
    expect((await pix(['sandbox', 'clock', '--set', '2025-04-02'])).stdout).toBe(
      '2025-04-02T03:00:00.000Z\n',
    );
    expect((await pix(['--json', 'sandbox', 'clock', '--reset'])).stdout).toBe(
      '{"now":"2025-03-10T15:00:00.000Z","offsetMs":0}\n',
    );
  });

  it.each([
    [['--advance', '0s'], '--advance'],
    [['--advance', 'soon'], '--advance'],
    [['--set', '2025-02-30'], '--set'],
    [['--set', 'tomorrow'], '--set'],
    [['--advance', '1d', '--reset'], '--reset'],
  ])('refuses %j with exit 2', async (flags, flag) => {
    const result = await pix(['sandbox', 'clock', ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^error: ${flag}: `));
  });
});

describe('pix sandbox pay', () => {
  it('has a third party pay a charge, which then completes and cannot be paid again', async () => {
    const id = await createCharge();
    const paid = await pix(['sandbox', 'pay', id]);
    expect(paid.code).toBe(0);
    expect(paid.stdout).toMatch(new RegExp(`^${id}\\tCOMPLETED\\t42.00\\t.+\\n$`));
    const state = readSandboxState(stateFile())!;
    expect(state.charges[id]?.status).toBe('COMPLETED');
    expect(state.activity[0]).toMatchObject({
      type: 'INCOME',
      amount: 42_00,
      confirmedAt: now.toISOString(),
    });
    const again = await pix(['sandbox', 'pay', id]);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('Cobrança já paga');
  });

  it("--payer names who pays; --amount must be the charge's (nothing paid otherwise)", async () => {
    const id = await createCharge();
    const wrong = await pix(['sandbox', 'pay', id, '--amount', '41,99']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(
      /^error: --amount: the charge asks R\$ 42,00, and its code fixes the amount; nothing was paid\n/,
    );
    expect(readSandboxState(stateFile())!.charges[id]?.status).not.toBe('COMPLETED');
    const paid = await pix([
      'sandbox',
      'pay',
      id,
      '--amount',
      '42',
      '--payer',
      'Padaria São João',
      '--payer-document',
      '11.222.333/0001-81',
    ]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toBe(`${id}\tCOMPLETED\t42.00\tPadaria São João\n`);
    expect(readSandboxState(stateFile())!.activity[0]!.creditor).toMatchObject({
      name: 'Padaria São João',
      documentNumber: '11222333000181',
    });
  });

  it("--key pays one of the account's own keys any amount; another key is 4, a key without --amount 2", async () => {
    const keys = await pix(['keys', '--jq', '.result[].key']);
    const [key] = keys.stdout.trim().split('\n');
    const paid = await pix([
      'sandbox',
      'pay',
      '--key',
      key!,
      '--amount',
      '99,90',
      '--payer',
      'Mercado Bom Preço',
    ]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toBe(`${key}\tCONFIRMED\t99.90\tMercado Bom Preço\n`);
    expect(readSandboxState(stateFile())!.activity[0]).toMatchObject({ type: 'INCOME', amount: 99_90 });
    const other = await pix(['sandbox', 'pay', '--key', 'someone@example.com', '--amount', '1']);
    expect(other.code).toBe(4);
    expect(other.stderr).toMatch(/^error: not a key of this account \(404\)/);
    expect((await pix(['sandbox', 'pay', '--key', key!])).code).toBe(2);
    expect((await pix(['sandbox', 'pay'])).code).toBe(2);
  });

  it('refuses an expired charge (5), an unknown one (4) and a malformed id (2)', async () => {
    const id = await createCharge();
    now = new Date(now.getTime() + 3_600_000);
    expect((await pix(['sandbox', 'pay', id])).code).toBe(5);
    expect((await pix(['sandbox', 'pay', '00000000-0000-4000-8000-000000000000'])).code).toBe(4);
    const bad = await pix(['sandbox', 'pay', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: <charge-id>: /);
  });
});

describe('pix sandbox seed and reset', () => {
  it('replaces the generated statement with N entries and reset brings the account back', async () => {
    const seeded = await pix(['--json', 'sandbox', 'seed', '--transactions', '100000']);
    expect(seeded.code).toBe(0);
    expect(JSON.parse(seeded.stdout)).toMatchObject({ transactions: 100_000 });
    const server = await startSandboxServer({ stateFile: stateFile(), clock: () => now });
    try {
      const res = await request(
        `${server.url}/api/financial/v1/account/transactions?limit=1000&offset=99500`,
        {
          headers: { authorization: 'Bearer t' },
        },
      );
      const body = (await res.body.json()) as { total: number; results: unknown[] };
      expect(body.total).toBe(100_000);
      expect(body.results).toHaveLength(500);
    } finally {
      await server.close();
    }
    expect((await pix(['sandbox', 'reset'])).code).toBe(0);
    expect(readSandboxState(stateFile())!.generated.count).toBe(36);
    expect((await pix(['sandbox', 'seed', '--transactions', 'many'])).code).toBe(2);
  });
});

describe('pix sandbox serve', () => {
  it('prints the URL, serves until shutdown, and refuses a bad --faults spec', async () => {
    let stop: (signal: string) => void = () => {};
    const test = createTestIO();
    const running = run(['sandbox', 'serve', '--port', '0', '--faults', 'keys:503x1'], {
      io: test.io,
      env: { PIX_CONFIG_DIR: dir, HOME: dir },
      waitForShutdown: () =>
        new Promise<string>((resolve) => {
          stop = resolve;
        }),
    });
    await until(() => test.stdout().includes('\n'), 'the URL on stdout');
    const url = test.stdout().trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const first = await request(`${url}/api/financial/v1/pix/keys`, {
      headers: { authorization: 'Bearer t' },
    });
    expect(first.statusCode).toBe(503);
    await first.body.dump();
    const second = await request(`${url}/api/financial/v1/pix/keys`, {
      headers: { authorization: 'Bearer t' },
    });
    expect(second.statusCode).toBe(200);
    await second.body.dump();
    stop('SIGTERM');
    expect(await running).toBe(0);

    const bad = await pix(['sandbox', 'serve', '--faults', 'keys:teapot']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --faults: .*unknown fault/);
  });
});
