/**
 * Once per account, the account as the API identifies it (journal/accounts.ts), and the statement as the
 * last guard before a payment (domain/statementguard.ts): across profiles, spellings of a URL, re-created
 * profiles, config directories (machines) and the codes that name one receiver. In-process, against the
 * real sandbox server on loopback ports (its clock the test's), and a loopback server with two accounts
 * behind one URL where the sandbox has one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../src/config/store.js';
import { encodeBrCode } from '../../src/domain/brcodeencode.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { readSandboxState } from '../../src/sandbox/store.js';
import { SYSTEM } from '../../src/system.js';
import { tempConfigDir } from '../helpers/cli.js';
import { type FakeServer, startFakeServer } from '../helpers/fake-server.js';
import { pix as runPix } from '../helpers/pix.js';

const servers: Array<{ close(): Promise<void> }> = [];
/** How far the test moved time on: the sandbox's clock and pix's both (`later`). */
let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };
afterEach(async () => {
  offset = 0;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

type Env = Record<string, string>;

/**
 * The served sandbox, its clock the test's: `later(ms)` moves it and pix's on (a transfer settles 2 s
 * after it is sent; the journal's window is 10 minutes).
 */
async function serve(dir: string, name = 'api') {
  const server = await startSandboxServer({
    port: 0,
    stateFile: join(dir, `${name}-state.json`),
    clock: () => clock.now(),
  });
  servers.push(server);
  return {
    server,
    stateFile: join(dir, `${name}-state.json`),
    later: (ms: number) => {
      offset += ms;
    },
  };
}

const pix = (args: string[], env: Env) => runPix(args, { env: env as Record<string, string>, clock });

const transfers = (server: SandboxServer | FakeServer) =>
  'requestsTo' in server
    ? server.requestsTo('/pix-cash-out/transfer').length
    : server.requests.filter((r) => r.endpoint === 'transfer').length;

/** `id,key,amount` rows to distinct keys: r001 → r001@example.com, R$ 1,00 + the row's number. */
function batchFile(dir: string, rows: number): string {
  const lines = ['id,key,amount'];
  for (let n = 1; n <= rows; n++) {
    const id = `r${String(n).padStart(3, '0')}`;
    lines.push(`${id},${id}@example.com,${n + 1}.00`);
  }
  const file = join(dir, 'payouts.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const states = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { state: string }).state);

/** A profile of the config dir `dir` on `url` with a stored token. */
const profile = (dir: string, name: string, url: string, token = 't') =>
  openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM).setProfile(name, {
    'base-url': url,
    token,
    tokenBaseUrl: url,
  });

describe('the account is what the API says it is', () => {
  it('a batch paid from one profile is not paid again from a second profile of the same account', async () => {
    const dir = tempConfigDir();
    const file = batchFile(dir, 3);
    const { server } = await serve(dir);
    await profile(dir, 'ops', server.url);
    await profile(dir, 'ci', server.url);
    const env = { PIX_CONFIG_DIR: dir };
    expect((await pix(['pay', 'batch', file, '--yes', '-p', 'ops'], env)).code).toBe(0);
    const again = await pix(['pay', 'batch', file, '--yes', '-p', 'ci', '-o', 'ndjson'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(states(again.stdout)).toEqual(['already_paid', 'already_paid', 'already_paid']);
    expect(transfers(server)).toBe(3);
  });

  it('127.0.0.1, localhost and localhost. are one host: the file is paid once', async () => {
    const dir = tempConfigDir();
    const file = batchFile(dir, 3);
    const { server } = await serve(dir);
    const port = new URL(server.url).port;
    const spellings = [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://localhost.:${port}`];
    for (const [index, url] of spellings.entries()) {
      const result = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], {
        PIX_CONFIG_DIR: dir,
        PIX_BASE_URL: url,
        PIX_TOKEN: 't',
      });
      expect(result.code, result.stderr).toBe(0);
      expect(states(result.stdout)).toEqual(Array(3).fill(index === 0 ? 'paid' : 'already_paid'));
    }
    expect(transfers(server)).toBe(3);
  });

  it('a profile made again with another account’s credentials on the same URL pays that account’s rows', async () => {
    // One URL, two accounts: each token lists its own key (the sandbox has one account per state).
    const api = await startFakeServer((request) => {
      const token = String(request.headers.authorization).replace('Bearer ', '');
      const path = request.path.split('?')[0]!;
      const json = (body: unknown) => ({ kind: 'json' as const, status: 200, body });
      if (path.endsWith('/pix/keys')) {
        // Not the token's text: pix redacts a credential wherever an answer echoes it.
        const id = token === 'token-a' ? 'key-of-the-first' : 'key-of-the-second';
        const key = {
          id,
          key: `${id}@example.test`,
          keyType: 'EMAIL',
          createdAt: '2026-01-01T00:00:00Z',
        };
        return json({ total: 1, result: [key] });
      }
      if (path.endsWith('/account/transactions')) return json({ total: 0, results: [] });
      if (path.endsWith('/pix/dict/consult')) {
        const { key } = JSON.parse(request.body) as { key: string };
        // The account's own key answers its bank account (each token's its own); a payee's, a person.
        const own = key.startsWith('key-of-the-');
        return json({
          key,
          keyType: 'EMAIL',
          endtoEndId: `E99999999202611231200${String(api.requests.length).padStart(11, '0')}`,
          ...(own
            ? {
                account: {
                  participant: '99999999',
                  branch: '0001',
                  account: key.startsWith('key-of-the-first') ? '1001' : '1002',
                },
              }
            : {}),
          owner: { name: `Owner of ${key}`, documentNumber: '52998224725' },
        });
      }
      const { endToEndId, amount } = JSON.parse(request.body) as { endToEndId: string; amount: number };
      return json({ id: `t-${api.requests.length}`, endToEndId, amount, status: 'PENDING' });
    });
    servers.push(api);
    const dir = tempConfigDir();
    const file = batchFile(dir, 3);
    const env = { PIX_CONFIG_DIR: dir };
    await profile(dir, 'prod', api.url, 'token-a');
    expect((await pix(['pay', 'batch', file, '--yes', '-p', 'prod'], env)).code).toBe(0);
    expect((await pix(['profile', 'delete', 'prod', '--yes'], env)).code).toBe(0);
    await profile(dir, 'prod', api.url, 'token-b');
    const other = await pix(['pay', 'batch', file, '--yes', '-p', 'prod', '-o', 'ndjson'], env);
    expect(other.code, other.stderr).toBe(0);
    expect(states(other.stdout)).toEqual(['paid', 'paid', 'paid']);
    expect(transfers(api)).toBe(6);
  });

  it('two profiles of one account share its charges: one payment is never claimed by both', async () => {
    const dir = tempConfigDir();
    const { server, stateFile, later } = await serve(dir);
    await profile(dir, 'shop', server.url);
    await profile(dir, 'till', server.url);
    const env = { PIX_CONFIG_DIR: dir };
    const charge = async (as: string) => {
      const made = await pix(
        [
          'charge',
          'immediate',
          '--amount',
          '50',
          '--key',
          'loja@sandbox.pix.local',
          '--no-qr',
          '--json',
          '-p',
          as,
        ],
        env,
      );
      expect(made.code, made.stderr).toBe(0);
      return JSON.parse(made.stdout) as { id: string };
    };
    const first = await charge('shop');
    const second = await charge('till');
    expect((await pix(['sandbox', 'pay', first.id, '--state', stateFile], env)).code).toBe(0);
    later(5_000);
    const listed = await pix(['charge', 'list', '--json', '-p', 'till'], env);
    expect(listed.code, listed.stderr).toBe(0);
    const records = (JSON.parse(listed.stdout) as { results: Array<{ id: string; status: string }> }).results;
    // Both profiles' charges are the account's, on one ledger …
    expect(records.map((record) => record.id).sort()).toEqual([first.id, second.id].sort());
    // … and the one R$ 50 payment is not both charges' payment.
    const claimed = records.filter((record) => record.status === 'paid' || record.status === 'probable');
    expect(claimed.length).toBeLessThanOrEqual(1);
    const wait = await pix(['charge', 'wait', second.id, '--timeout', '1s', '-p', 'till'], env);
    expect(wait.code).not.toBe(0);
  });
});

describe('the statement is the last guard before a payment', () => {
  it('the same file from a fresh config directory (another machine) is held: no transfer, exit 8 naming the entries', async () => {
    const first = tempConfigDir();
    const file = batchFile(first, 3);
    const { server, later } = await serve(first);
    const env = (dir: string) => ({ PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 't' });
    expect((await pix(['pay', 'batch', file, '--yes'], env(first))).code).toBe(0);
    later(5_000); // the transfers settle: the statement shows them
    const second = tempConfigDir();
    const result = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env(second));
    expect(result.code, result.stderr).toBe(8);
    expect(states(result.stdout)).toEqual(['duplicate', 'duplicate', 'duplicate']);
    expect(result.stdout).toMatch(/the statement shows R\$ 2,00 to .* \(statement entry [0-9a-f-]+\)/);
    expect(transfers(server)).toBe(3);
    // --allow-duplicate is the operator's word that it is a new payment.
    const allowed = await pix(
      ['pay', 'batch', file, '--yes', '--allow-duplicate', '-o', 'ndjson'],
      env(second),
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(transfers(server)).toBe(6);
  });

  it('pay key: a debit no journal explains holds it (exit 8); --duplicate-window 0 does not look', async () => {
    const dir = tempConfigDir();
    const { server, later } = await serve(dir);
    const env = (config: string) => ({ PIX_CONFIG_DIR: config, PIX_BASE_URL: server.url, PIX_TOKEN: 't' });
    const pay = ['pay', 'key', 'ana@example.com', '--amount', '12,34', '--yes'];
    expect((await pix(pay, env(dir))).code).toBe(0);
    later(11 * 60_000); // past the journal's 10 minutes: this machine's journal lets it go again …
    const here = await pix(pay, env(dir));
    expect(here.code, here.stderr).toBe(0);
    expect(transfers(server)).toBe(2);
    later(5_000);
    // … and another machine, whose journal is empty, is held by the two debits it cannot explain.
    const elsewhere = tempConfigDir();
    const held = await pix(pay, env(elsewhere));
    expect(held.code, held.stderr).toBe(8);
    expect(held.stderr).toMatch(
      /error: the statement shows R\$ 12,34 to .* which no payment in this journal explains/,
    );
    expect(held.stderr).toMatch(
      /hint: look at `pix statement .*--min 12\.34 --max 12\.34`; pass --allow-duplicate/,
    );
    expect(transfers(server)).toBe(2);
    const unchecked = await pix([...pay, '--duplicate-window', '0'], env(elsewhere));
    expect(unchecked.code, unchecked.stderr).toBe(0);
    expect(transfers(server)).toBe(3);
    // A window that ends before the debits: nothing to hold.
    later(3 * 3_600_000);
    const narrow = await pix([...pay, '--duplicate-window', '1h'], env(tempConfigDir()));
    expect(narrow.code, narrow.stderr).toBe(0);
  });
});

describe('what the guards cost', () => {
  it('one statement read per command; the key list and one consultation of an own key only when the credentials are new', async () => {
    const dir = tempConfigDir();
    const { server, stateFile } = await serve(dir);
    const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 't' };
    // The DICT consultations of the account's own keys (how pix learns which bank account it is), as the
    // sandbox recorded them.
    let ownSoFar = 0;
    const reads = () => {
      const counts = { keys: 0, statement: 0, ownKey: 0 };
      for (const request of server.requests.splice(0)) {
        if (request.endpoint === 'keys' || request.endpoint === 'statement') counts[request.endpoint]++;
      }
      const consultations = Object.values(readSandboxState(stateFile)!.consultations);
      const own = consultations.filter((consultation) => consultation.flow === 'dict' && consultation.own);
      counts.ownKey = own.length - ownSoFar;
      ownSoFar = own.length;
      return counts;
    };
    expect((await pix(['pay', 'batch', batchFile(dir, 20), '--yes'], env)).code).toBe(0);
    expect(reads()).toEqual({ keys: 1, statement: 1, ownKey: 1 });
    expect((await pix(['pay', 'key', 'ana@example.com', '--amount', '3', '--yes'], env)).code).toBe(0);
    expect(reads()).toEqual({ keys: 0, statement: 1, ownKey: 0 });
  });
});

describe('a payment is known by its receiver and amount, not by the text of its code', () => {
  it('by key, by its static code, by that code with another txid or merchant name: one payment', async () => {
    const dir = tempConfigDir();
    const { server } = await serve(dir);
    const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 't' };
    const key = 'maria@example.com';
    expect((await pix(['pay', 'key', key, '--amount', '25', '--yes'], env)).code).toBe(0);
    const code = (over: { txid?: string; merchantName?: string }) =>
      encodeBrCode({
        pixKey: key,
        amount: 2500,
        merchantName: 'MARIA SILVA',
        merchantCity: 'SAO PAULO',
        ...over,
      });
    for (const variant of [
      code({}),
      code({ txid: 'OUTROTXID123' }),
      code({ merchantName: 'M SILVA LTDA' }),
    ]) {
      const result = await pix(['pay', 'qr', variant, '--yes'], env);
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr).toMatch(/already paid: R\$ 25,00 to /);
    }
    expect(transfers(server)).toBe(1);
  });
});
