/**
 * Issue 23, answers checked against requests, auth and recovery hints: against an independent fake of
 * the API (test/helpers/fake-pix-api.ts) on a loopback port.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE, type JournalEntry, parseJournal } from '../../src/journal/entries.js';
import { run } from '../../src/main.js';
import { SANDBOX_CLIENT_KEY, SANDBOX_CLIENT_SECRET } from '../../src/sandbox/answer.js';
import { sampleLines, sampleRows } from '../../src/sandbox/batchfile.js';
import { startSandboxServer } from '../../src/sandbox/server.js';
import { tempConfigDir } from '../helpers/cli.js';
import { type FakePixApi, STATIC_TOKEN, startFakePixApi } from '../helpers/fake-pix-api.js';
import { createTestIO } from '../helpers/io.js';

let api: FakePixApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

type Credentials = 'static' | 'client';

async function setup(credentials: Credentials) {
  api = await startFakePixApi();
  const dir = tempConfigDir();
  const env: Record<string, string> = {
    PIX_CONFIG_DIR: dir,
    PIX_BASE_URL: api.url,
    ...(credentials === 'static'
      ? { PIX_TOKEN: STATIC_TOKEN }
      : { PIX_CLIENT_KEY: 'ck_answers', PIX_CLIENT_SECRET: 'cs_answers_secret_1234' }),
  };
  const pix = async (args: string[]) => {
    const test = createTestIO();
    const code = await run(args, { io: test.io, env });
    return { code, stdout: test.stdout(), stderr: test.stderr() };
  };
  const journal = (): JournalEntry[] => {
    const file = join(dir, JOURNAL_FILE);
    return existsSync(file) ? parseJournal(readFileSync(file, 'utf8')) : [];
  };
  const batchFile = (rows: number) => {
    const file = join(dir, 'payouts.csv');
    const lines = ['id,key,amount'];
    for (let n = 1; n <= rows; n++) lines.push(`r${n},pessoa${n}@example.com,${n}.00`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };
  return { dir, pix, journal, batchFile, api };
}

const ndjson = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('a 401 on a transfer (finding 12)', () => {
  it('pay key, client credentials: a 401 on the transfer after one on the consultation mints again and sends it again', async () => {
    const { pix, journal, api } = await setup('client');
    // The token expires twice in one run: at the consultation, then at the transfer.
    api.revokeAt('/pix/dict/consult', 0);
    api.revokeAt('/pix-cash-out/transfer', 0);
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10', '-y']);
    expect(result.code, result.stderr).toBe(0);
    expect(api.mints()).toBe(3);
    const transfers = api.to('/pix-cash-out/transfer');
    expect(transfers).toHaveLength(2);
    // The same transfer, sent again with the new token: nothing else changed.
    expect(transfers[1]!.body).toBe(transfers[0]!.body);
    expect(transfers[1]!.headers.authorization).not.toBe(transfers[0]!.headers.authorization);
    const entries = journal();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ state: 'done' });
  });

  it('pay key, static token: a 401 on the transfer is exit 3, sent once, journaled failed', async () => {
    const { pix, journal, api } = await setup('static');
    api.revokeAt('/pix-cash-out/transfer', 0);
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10', '-y']);
    expect(result.code, result.stderr).toBe(3);
    expect(api.to('/pix-cash-out/transfer')).toHaveLength(1);
    expect(journal()[0]).toMatchObject({ state: 'failed' });
  });

  it('pay batch, client credentials: each 401 on a transfer mints once and sends that row again; every row paid', async () => {
    const { pix, journal, batchFile, api } = await setup('client');
    const file = batchFile(6);
    api.revokeAt('/pix-cash-out/transfer', 1);
    api.revokeAt('/pix-cash-out/transfer', 4);
    const result = await pix(['pay', 'batch', file, '--yes', '--concurrency', '1', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    const records = ndjson(result.stdout);
    expect(records.map((r) => r.state)).toEqual(Array(6).fill('paid'));
    expect(api.mints()).toBe(3);
    expect(api.to('/pix-cash-out/transfer')).toHaveLength(8);
    expect(journal().map((entry) => entry.state)).toEqual(Array(6).fill('done'));
  });

  it('pay batch, static token: a 401 on a transfer stops the batch with exit 3; the rest is not sent', async () => {
    const { pix, journal, batchFile, api } = await setup('static');
    const file = batchFile(5);
    api.revokeAt('/pix-cash-out/transfer', 2);
    const result = await pix(['pay', 'batch', file, '--yes', '--concurrency', '1', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(3);
    const records = ndjson(result.stdout);
    expect(records.map((r) => r.state)).toEqual(['paid', 'paid', 'not_sent', 'not_sent', 'not_sent']);
    expect(api.to('/pix-cash-out/transfer')).toHaveLength(3);
    expect(journal().map((entry) => entry.state)).toEqual(['done', 'done', 'failed']);
    expect(result.stderr).toMatch(/PIX_TOKEN|token|log in|login/i);
  });

  it('the sandbox fault transfer:401x1 rehearses it: client credentials pay every row, a static token exits 3', async () => {
    const dir = tempConfigDir();
    const sandbox = await startSandboxServer({
      port: 0,
      stateFile: join(dir, 'state.json'),
      faults: 'transfer:401x1',
    });
    try {
      const file = join(dir, 'payouts.csv');
      writeFileSync(file, sampleLines(sampleRows({ rows: 3, seed: 5 }), 'csv').join(''));
      const batch = async (env: Record<string, string>) => {
        const test = createTestIO();
        const code = await run(['pay', 'batch', file, '--yes', '--concurrency', '1'], {
          io: test.io,
          env: { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: sandbox.url, ...env },
        });
        return { code, stderr: test.stderr() };
      };
      const client = await batch({
        PIX_CLIENT_KEY: SANDBOX_CLIENT_KEY,
        PIX_CLIENT_SECRET: SANDBOX_CLIENT_SECRET,
      });
      expect(client.code, client.stderr).toBe(0);
      expect(client.stderr).toMatch(/batch: 3 paid/);
    } finally {
      await sandbox.close();
    }
    const again = await startSandboxServer({
      port: 0,
      stateFile: join(dir, 'state2.json'),
      faults: 'transfer:401x1',
    });
    try {
      const file = join(dir, 'payouts2.csv');
      writeFileSync(file, sampleLines(sampleRows({ rows: 3, seed: 5 }), 'csv').join(''));
      const test = createTestIO();
      const code = await run(['pay', 'batch', file, '--yes', '--concurrency', '1'], {
        io: test.io,
        env: { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: again.url, PIX_TOKEN: 'any-static-token' },
      });
      expect(code, test.stderr()).toBe(3);
      expect(test.stderr()).toMatch(/batch: 3 not sent/);
    } finally {
      await again.close();
    }
  });
});
