import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../../src/journal/entries.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { accountReads, startFakeServer } from '../helpers/fake-server.js';
import { until } from '../helpers/wait.js';

/**
 * The built binary against the real sandbox server over loopback. The server runs in this process so
 * the test can read the log of every request it received: that is how "nothing was sent" is proved.
 */
let server: SandboxServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function sandbox(faults?: string) {
  const dir = tempConfigDir();
  server = await startSandboxServer({
    port: 0,
    stateFile: join(dir, 'sandbox-state.json'),
    ...(faults ? { faults } : {}),
  });
  const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'e2e-token' };
  const pix = (args: string[], stdin?: string) =>
    runCli(args, { env, ...(stdin === undefined ? {} : { stdin }) });
  const count = (endpoint: string) => server!.requests.filter((r) => r.endpoint === endpoint).length;
  const journal = () =>
    readFileSync(join(dir, JOURNAL_FILE), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { pix, count, journal, server: server! };
}

async function newCharge(pix: (args: string[]) => ReturnType<typeof runCli>, amount: string) {
  const created = await pix([
    'charge',
    'immediate',
    '--amount',
    amount,
    '--key',
    'loja@sandbox.pix.local',
    '--json',
    '--no-qr',
  ]);
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout) as { emvqrcps: string };
}

describe('pix pay, built binary against the sandbox server', () => {
  it('pays a charge by its code and a key with --yes; the statement shows both; the same code again → exit 8, no second transfer', async () => {
    const { pix, count, journal } = await sandbox();
    const charge = await newCharge(pix, '12.34');

    const byCode = await pix(['pay', 'qr', charge.emvqrcps, '--yes', '--json']);
    expect(byCode.code, byCode.stderr).toBe(0);
    const paidCode = JSON.parse(byCode.stdout);
    expect(paidCode.consult.type).toBe('DYNAMIC_QRCODE');
    expect(paidCode.transfer).toMatchObject({ amount: 12.34, status: 'PENDING' });
    expect(paidCode.transfer.endToEndId).toBe(paidCode.consult.endToEndId);
    expect(byCode.stderr).toMatch(/paying from profile "sandbox" via 127\.0\.0\.1:\d+/);

    const byKey = await pix(['pay', 'key', 'ana@example.com', '--amount', '7,50', '-y', '--json']);
    expect(byKey.code, byKey.stderr).toBe(0);
    const paidKey = JSON.parse(byKey.stdout);
    expect(paidKey.transfer).toMatchObject({ amount: 7.5, status: 'PENDING' });
    expect(count('transfer')).toBe(2);

    // The sandbox settles a transfer about 2 s after it is accepted; the statement lists it from then.
    const ids = [paidCode.transfer.id, paidKey.transfer.id];
    let entries: Array<{ id: string; amount: number; type: string }> = [];
    await until(async () => {
      const statement = await pix(['statement', '--limit', '20', '--json']);
      expect(statement.code, statement.stderr).toBe(0);
      entries = JSON.parse(statement.stdout).results;
      return ids.every((id) => entries.some((entry) => entry.id === id));
    }, 'both transfers in the statement');
    expect(entries).toContainEqual(
      expect.objectContaining({ id: paidCode.transfer.id, type: 'OUTCOME', amount: -12.34 }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ id: paidKey.transfer.id, type: 'OUTCOME', amount: -7.5 }),
    );

    const again = await pix(['pay', 'qr', charge.emvqrcps, '--yes']);
    expect(again.code).toBe(8);
    expect(again.stderr).toContain(`endToEndId ${paidCode.consult.endToEndId}`);
    expect(count('transfer')).toBe(2);
    // The charge paid by code is journaled too (kind "charge"); the payments are what this checks.
    const lines = journal();
    const payments = new Set(lines.filter((line) => line.kind === 'payment').map((line) => line.id));
    expect(payments.size).toBe(2);
    expect(lines.filter((line) => payments.has(line.id)).map((line) => line.state)).toEqual([
      'sending',
      'done',
      'sending',
      'done',
    ]);
  });

  it('a bad CRC → exit 2 and no request at all', async () => {
    const { pix, server } = await sandbox();
    const charge = await newCharge(pix, '10');
    const before = server.requests.length;
    const code = charge.emvqrcps;
    const broken = `${code.slice(0, -4)}${code.endsWith('0000') ? '1111' : '0000'}`;
    const result = await pix(['pay', 'qr', broken, '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('CRC mismatch');
    expect(server.requests.length).toBe(before);
  });

  it('no terminal and no --yes → exit 2 and no request (not even the consultation)', async () => {
    const { pix, server } = await sandbox();
    const charge = await newCharge(pix, '10');
    const before = server.requests.length;
    const byCode = await pix(['pay', 'qr', '-'], charge.emvqrcps);
    expect(byCode.code).toBe(2);
    expect(byCode.stderr).toContain('--yes');
    const byKey = await pix(['pay', 'key', 'ana@example.com', '--amount', '5']);
    expect(byKey.code).toBe(2);
    expect(server.requests.length).toBe(before);
  });

  it('--dry-run consults and shows, exit 0, no transfer', async () => {
    const { pix, count } = await sandbox();
    const charge = await newCharge(pix, '10');
    const result = await pix(['pay', 'qr', charge.emvqrcps, '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('final\t10.00');
    expect(count('emv')).toBe(1);
    expect(count('transfer')).toBe(0);
  });

  it('a transfer that never answers → exit 7 after exactly one transfer request, endToEndId printed, journal unknown', async () => {
    const { pix, count, journal } = await sandbox('transfer:timeout');
    const result = await pix(['--timeout', '1s', 'pay', 'key', 'ana@example.com', '--amount', '3', '-y']);
    expect(result.code).toBe(7);
    expect(count('transfer')).toBe(1);
    const lines = journal();
    expect(lines.map((line) => line.state)).toEqual(['sending', 'unknown']);
    expect(result.stderr).toContain(`endToEndId: ${lines[0]!.endToEndId}`);
    expect(result.stderr).toContain('pix statement');
  });
});

describe('pix pay, built binary against a misbehaving loopback server', () => {
  it('a connection reset after the transfer was sent → exit 7 after exactly one transfer request', async () => {
    const fake = await startFakeServer(
      (request) =>
        accountReads(request) ??
        (request.path.endsWith('/pix/dict/consult')
          ? {
              kind: 'json',
              status: 200,
              body: {
                key: 'ana@example.com',
                keyType: 'EMAIL',
                endtoEndId: 'E12345678202603101200abcdefghijk',
                owner: { name: 'Ana Souza', documentNumber: '12345678909' },
              },
            }
          : { kind: 'reset' }),
    );
    try {
      const dir = tempConfigDir();
      const result = await runCli(['pay', 'key', 'ana@example.com', '--amount', '3', '-y'], {
        env: { PIX_CONFIG_DIR: dir, PIX_BASE_URL: fake.url, PIX_TOKEN: 't' },
      });
      expect(result.code).toBe(7);
      expect(fake.requestsTo('/pix-cash-out/transfer')).toHaveLength(1);
      expect(JSON.parse(fake.requestsTo('/pix-cash-out/transfer')[0]!.body)).toEqual({
        endToEndId: 'E12345678202603101200abcdefghijk',
        amount: 3,
      });
      expect(result.stderr).toContain('endToEndId: E12345678202603101200abcdefghijk');
      const states = readFileSync(join(dir, JOURNAL_FILE), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).state);
      expect(states).toEqual(['sending', 'unknown']);
    } finally {
      await fake.close();
    }
  });

  it('the embedded sandbox (nothing configured) pays a key and says it is simulated', async () => {
    const result = await runCli(['pay', 'key', 'ana@example.com', '--amount', '2', '-y'], {
      env: { PIX_CONFIG_DIR: tempConfigDir() },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('sandbox: simulated account');
    expect(result.stderr).toContain('paying from profile "sandbox"');
    expect(result.stdout).toContain('status\tPENDING');
  });
});
