/**
 * Answers checked against requests, auth and recovery hints: against an independent fake of
 * the API (test/helpers/fake-pix-api.ts) on a loopback port.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseWhen } from '../../src/domain/when.js';
import { JOURNAL_FILE, type JournalEntry } from '../../src/journal/entries.js';
import { parseJournal } from '../../src/journal/parser.js';
import { run } from '../../src/main.js';
import { SANDBOX_CLIENT_KEY, SANDBOX_CLIENT_SECRET } from '../../src/sandbox/answer.js';
import { sampleLines, sampleRows } from '../../src/sandbox/batchfile.js';
import { startSandboxServer } from '../../src/sandbox/server.js';
import { tempConfigDir } from '../helpers/cli.js';
import { type FakePixApi, KEY_ID, STATIC_TOKEN, startFakePixApi } from '../helpers/fake-pix-api.js';
import { createTestIO } from '../helpers/io.js';
import { pix as runPix } from '../helpers/pix.js';

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
  const pix = (args: string[]) => runPix(args, { env });
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
    /** A 3-row batch against a fresh sandbox whose first transfer answers 401, with these credentials. */
    const batch = async (name: string, credentials: Record<string, string>) => {
      const sandbox = await startSandboxServer({
        port: 0,
        stateFile: join(dir, `${name}.json`),
        faults: 'transfer:401x1',
      });
      try {
        const file = join(dir, `${name}.csv`);
        writeFileSync(file, sampleLines(sampleRows({ rows: 3, seed: 5 }), 'csv').join(''));
        const test = createTestIO();
        const code = await run(['pay', 'batch', file, '--yes', '--concurrency', '1'], {
          io: test.io,
          env: { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: sandbox.url, ...credentials },
        });
        return { code, stderr: test.stderr() };
      } finally {
        await sandbox.close();
      }
    };
    const client = await batch('client', {
      PIX_CLIENT_KEY: SANDBOX_CLIENT_KEY,
      PIX_CLIENT_SECRET: SANDBOX_CLIENT_SECRET,
    });
    expect(client.code, client.stderr).toBe(0);
    expect(client.stderr).toMatch(/batch: 3 paid/);
    const token = await batch('token', { PIX_TOKEN: 'any-static-token' });
    expect(token.code, token.stderr).toBe(3);
    expect(token.stderr).toMatch(/batch: 3 not sent/);
  });
});

/** The outcome line the journal file holds for entry `id` (the parser keeps only what it knows). */
function outcomeLine(dir: string, id: string): Record<string, unknown> | undefined {
  return readFileSync(join(dir, JOURNAL_FILE), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => line.id === id && line.state !== 'sending');
}

/** 529.982.247-25 as pix shows documents (domain/documents.ts maskDocument), and so does the statement. */
const MASKED_DOCUMENT = '***.982.247-**';

describe('answers checked against requests (finding 7)', () => {
  it('pay key answered with 100 × the amount (and a fee): exit 7, both amounts named, journaled unknown/anomaly, the next pay key held', async () => {
    const { dir, pix, journal, api } = await setup('static');
    api.transferAnswer = (_request, body) => ({
      kind: 'json',
      status: 201,
      body: { id: 't-100x', endToEndId: body.endToEndId, amount: 1000, fee: 7.5, status: 'PENDING' },
    });
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.00', '-y']);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: .*amount.*R\$ 10,00.*R\$ 1\.000,00/m);
    expect(result.stderr).toMatch(/fee of R\$ 7,50/);
    const [entry] = journal();
    expect(entry).toMatchObject({ state: 'unknown', reason: 'anomaly', transferId: 't-100x' });
    expect(outcomeLine(dir, entry!.id)).toMatchObject({
      anomalies: [{ field: 'amount', sent: 10, got: 1000 }],
    });
    // Read back: pix journal show names both values.
    expect(entry).toMatchObject({ anomalies: [{ field: 'amount', sent: 10, got: 1000 }] });
    const shown = await pix(['journal', 'show', String(entry!.id)]);
    expect(shown.stdout).toMatch(/amount: sent 10, answered 1000/);
    // The duplicate guard holds the payment until the operator resolves it.
    const again = await pix(['pay', 'key', 'ana@example.com', '--amount', '10.00', '-y']);
    expect(again.code, again.stderr).toBe(8);
    expect(api.to('/pix-cash-out/transfer')).toHaveLength(1);
  });

  it('pay key answered with another endToEndId, or without an id: exit 7, both values named', async () => {
    const { pix, journal, api } = await setup('static');
    api.transferAnswer = () => ({
      kind: 'json',
      status: 201,
      body: { id: 't-x', endToEndId: 'E99999999202603101200OTHERPAYEE01', amount: 10, status: 'PENDING' },
    });
    const other = await pix(['pay', 'key', 'ana@example.com', '--amount', '10', '-y']);
    expect(other.code, other.stderr).toBe(7);
    expect(other.stderr).toMatch(
      /endToEndId.*E00416968202603101200\d{11}.*E99999999202603101200OTHERPAYEE01/,
    );
    api.transferAnswer = (_request, body) => ({
      kind: 'json',
      status: 201,
      body: { endToEndId: body.endToEndId, amount: 11, status: 'PENDING' },
    });
    const noId = await pix(['pay', 'key', 'bia@example.com', '--amount', '11', '-y']);
    expect(noId.code, noId.stderr).toBe(7);
    expect(noId.stderr).toMatch(/no transfer id/);
    expect(journal().map((entry) => [entry.state, entry.reason])).toEqual([
      ['unknown', 'anomaly'],
      ['unknown', 'anomaly'],
    ]);
  });

  it('pay batch: a row answered with another amount is unknown in the report, the batch stops and exits 7', async () => {
    const { pix, journal, batchFile, api } = await setup('static');
    const file = batchFile(4);
    api.transferAnswer = (_request, body, count) => ({
      kind: 'json',
      status: 201,
      body: {
        id: `t-${count}`,
        endToEndId: body.endToEndId,
        amount: count === 1 ? Number(body.amount) * 100 : body.amount,
        status: 'PENDING',
      },
    });
    const result = await pix(['pay', 'batch', file, '--yes', '--concurrency', '1', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(7);
    const records = ndjson(result.stdout);
    expect(records.map((r) => r.state)).toEqual(['paid', 'unknown', 'not_sent', 'not_sent']);
    expect(String(records[1]!.error)).toMatch(/R\$ 2,00.*R\$ 200,00/);
    expect(journal().map((entry) => entry.state)).toEqual(['done', 'unknown']);
    expect(journal()[1]).toMatchObject({ reason: 'anomaly' });
  });

  it('charge immediate answered with another amount or another key: exit 7, both named, no code handed out', async () => {
    const { dir, pix, journal, api } = await setup('static');
    api.chargeAnswer = (_request, body) => ({
      kind: 'json',
      status: 201,
      body: {
        id: 'c-1',
        amount: Number(body.amount) + 90,
        status: 'PENDING',
        pixKeyId: 'ffffffff-ffff-4fff-8fff-ffffffffffff',
        type: 'IMMEDIATE_QRCODE',
        emvqrcps: '000201-not-to-be-handed-out',
      },
    });
    const result = await pix(['charge', 'immediate', '--amount', '10', '--key-id', KEY_ID, '--no-qr']);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).not.toContain('not-to-be-handed-out');
    expect(result.stderr).toMatch(/R\$ 10,00.*R\$ 100,00/);
    expect(result.stderr).toMatch(new RegExp(`${KEY_ID}.*ffffffff-ffff-4fff-8fff-ffffffffffff`));
    const [entry] = journal();
    expect(entry).toMatchObject({ kind: 'charge', state: 'unknown', reason: 'anomaly', chargeId: 'c-1' });
    expect(outcomeLine(dir, entry!.id)).toMatchObject({
      anomalies: [
        { field: 'amount', sent: 10, got: 100 },
        { field: 'pixKeyId', sent: KEY_ID, got: 'ffffffff-ffff-4fff-8fff-ffffffffffff' },
      ],
    });
  });

  it('answers that match (amount as sent, or no amount at all) pass: exit 0', async () => {
    const { pix, journal, api } = await setup('static');
    expect((await pix(['pay', 'key', 'ana@example.com', '--amount', '10,50', '-y'])).code).toBe(0);
    api.transferAnswer = () => ({ kind: 'json', status: 201, body: { id: 't-2', status: 'PENDING' } });
    expect((await pix(['pay', 'key', 'bia@example.com', '--amount', '3', '-y'])).code).toBe(0);
    const charge = await pix(['charge', 'immediate', '--amount', '10', '--key-id', KEY_ID, '--no-qr']);
    expect(charge.code, charge.stderr).toBe(0);
    expect(journal().map((entry) => entry.state)).toEqual(['done', 'done', 'done']);
  });
});

/** The `pix statement …` command a hint names, and its --from/--to read as the statement reads them. */
function statementWindow(text: string): { command: string; from: number; to: number } {
  // The window, then the filters that find the payment in it (--type, --counterparty, --min/--max, --all).
  const match = /`(pix statement [^`]*--from (\S+) --to (\S+)[^`]*)`/.exec(text);
  expect(match, text).not.toBeNull();
  const now = new Date();
  return {
    command: match![1]!,
    from: Date.parse(parseWhen(match![2]!, 'from', 'America/Sao_Paulo', now)),
    to: Date.parse(parseWhen(match![3]!, 'to', 'America/Sao_Paulo', now)),
  };
}

describe('recovery hints you can follow (finding 19)', () => {
  it('pay key with no answer (500): the hint is a statement window around the attempt, the amount, the masked document and both resolve commands', async () => {
    const { pix, journal, api } = await setup('static');
    api.transferAnswer = () => ({ kind: 'json', status: 500, body: { message: 'boom' } });
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '12,34', '-y']);
    expect(result.code, result.stderr).toBe(7);
    const [entry] = journal();
    const id = entry!.id.slice(0, 8);
    const hint = result.stderr.split('\n').find((line) => line.startsWith('hint: '))!;
    expect(hint).not.toMatch(/look for endToEndId/);
    const window = statementWindow(hint);
    const at = Date.parse(entry!.at);
    expect(window.from).toBeLessThan(at);
    expect(window.to).toBeGreaterThan(at);
    expect(window.to - window.from).toBeLessThanOrEqual(30 * 60_000);
    expect(hint).toContain('R$ 12,34');
    expect(hint).toContain(MASKED_DOCUMENT);
    expect(hint).toContain(`pix journal resolve ${id} --paid`);
    expect(hint).toContain(`pix journal resolve ${id} --not-paid`);
    // The next attempt is held with the same instructions.
    const again = await pix(['pay', 'key', 'ana@example.com', '--amount', '12,34', '-y']);
    expect(again.code).toBe(8);
    expect(again.stderr).toContain(`pix journal resolve ${id} --not-paid`);
    statementWindow(again.stderr);
    // And `pix journal show` repeats them for as long as it is unresolved.
    const shown = await pix(['journal', 'show', id]);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toContain(`pix journal resolve ${id} --paid`);
    statementWindow(shown.stderr);
  });

  it('pay batch: an unknown row says where to look and how to resolve it, in the report and on stderr', async () => {
    const { pix, journal, batchFile, api } = await setup('static');
    const file = batchFile(2);
    api.transferAnswer = () => ({ kind: 'reset' });
    const result = await pix(['pay', 'batch', file, '--yes', '--concurrency', '1', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(7);
    const [entry] = journal();
    const id = entry!.id.slice(0, 8);
    const records = ndjson(result.stdout);
    expect(records[0]).toMatchObject({ id: 'r1', state: 'unknown' });
    for (const text of [String(records[0]!.error), result.stderr]) {
      statementWindow(text);
      expect(text).toContain('R$ 1,00');
      expect(text).toContain(MASKED_DOCUMENT);
      expect(text).toContain(`pix journal resolve ${id} --paid`);
      expect(text).toContain(`pix journal resolve ${id} --not-paid`);
    }
    // Run again: the held row repeats the instructions (no consultation, so no document).
    const again = await pix(['pay', 'batch', file, '--yes', '--concurrency', '1', '-o', 'ndjson']);
    expect(again.code).toBe(7);
    const held = ndjson(again.stdout)[0]!;
    statementWindow(String(held.error));
    expect(String(held.error)).toContain(`pix journal resolve ${id} --not-paid`);
  });
});
