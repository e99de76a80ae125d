/**
 * What pix hands to others: the environment of the processes it starts (the pager, `listen --exec`),
 * `-o csv` on a real terminal, and where `--forward-to` may send events. The built binary, against
 * `pix sandbox serve` or a loopback server that plants escape sequences in its names.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { deferEach } from '../helpers/cleanup.js';
import { BIN, NODE, runCli } from '../helpers/cli.js';
import { dictAnswer } from '../helpers/fake-pix-api.js';
import { accountReads, type FakeServer, startFakeServer } from '../helpers/fake-server.js';
import { postgresMissing, startPostgres } from '../helpers/postgres.js';
import { runOnPty } from '../helpers/terminal.js';
import { until } from '../helpers/wait.js';

const TOKEN = 'tok_children_5Xq9RtLm2Vw8';
const LEDGER_PASSWORD = 'pw_children_8Hn3';
const SECRETS: Record<string, string> = {
  PIX_TOKEN: TOKEN,
  PIX_CLIENT_SECRET: 'cs_children_J7k2Pq9Zx4',
  PIX_LEDGER_URL: 'postgres://pix:pw_children_8Hn3@db.example/ledger',
  PIX_WEBHOOK_SECRET: 'whsec_children_3Fg8',
  // libpq's variables: a handler is never handed a database's credentials or address.
  PGPASSWORD: 'pgpw_children_Qz5Lm1',
  PGPASSFILE: '/tmp/pgpass_children_V4tr',
  PGUSER: 'pguser_children_N8kd',
  PGHOST: 'pghost-children-example',
};

const { defer, dir: tempDir } = deferEach();

async function served(): Promise<{ dir: string; server: SandboxServer; env: Record<string, string> }> {
  const dir = tempDir();
  const server = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox-state.json') });
  defer(() => server.close());
  return {
    dir,
    server,
    env: { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, ...SECRETS, KEPT_VAR: 'kept' },
  };
}

/** The `NAME=value` lines of an `env` dump, as a record. */
function envOf(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

function expectNoSecrets(dump: string): void {
  const seen = envOf(dump);
  for (const name of Object.keys(SECRETS)) expect(seen, name).not.toHaveProperty(name);
  expect(Object.keys(seen).filter((name) => name.startsWith('PG'))).toEqual([]);
  for (const value of Object.values(SECRETS)) expect(dump).not.toContain(value);
  // The rest of the user's environment, pix's own settings included, is still there.
  expect(seen.KEPT_VAR).toBe('kept');
  expect(seen.PIX_CONFIG_DIR).toBeTruthy();
  expect(seen.PIX_BASE_URL).toBeTruthy();
}

describe("the processes pix starts get the user's environment without pix's secrets", () => {
  // listen reads the ledger, so its PIX_LEDGER_URL names a real database (a password trust auth ignores).
  it.skipIf(postgresMissing() !== undefined)(
    'listen --exec: no PIX_TOKEN, PIX_CLIENT_SECRET, PIX_LEDGER_URL or any other PIX_ credential, and no PG* variable',
    async () => {
      const { env } = await served();
      const cluster = await startPostgres();
      defer(() => cluster.remove());
      cluster.createDatabase('ledger');
      env.PIX_LEDGER_URL = cluster
        .url('ledger')
        .replace('postgres://pix@', `postgres://pix:${LEDGER_PASSWORD}@`);
      const init = await runCli(['ledger', 'init'], { env });
      expect(init.code, init.stderr).toBe(0);
      const dump = join(tempDir(), 'env.txt');
      const exec = `env > '${dump}.part' && mv '${dump}.part' '${dump}'`;
      const child = spawn(NODE, [BIN, 'listen', '--interval', '1s', '--backfill', '90d', '--exec', exec], {
        env: { PATH: process.env.PATH ?? '', HOME: tempDir(), ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      defer(() => child.kill('SIGKILL'));
      await until(() => existsSync(dump) || child.exitCode !== null, 'the --exec command to run');
      child.kill('SIGTERM');
      expect(await exited, stderr).toBe(0);
      expectNoSecrets(readFileSync(dump, 'utf8'));
      expect(readFileSync(dump, 'utf8')).not.toContain(LEDGER_PASSWORD);
    },
  );

  it('the pager (on a pty): the same environment', async () => {
    const { env } = await served();
    const dump = join(tempDir(), 'env.txt');
    const result = await runOnPty(['statement', '--limit', '5'], {
      env: { ...env, PIX_PAGER: `env > '${dump}'; cat > /dev/null` },
    });
    expect(result.code, result.raw).toBe(0);
    expectNoSecrets(readFileSync(dump, 'utf8'));
  });
});

/** What a payee plants in a name: clear screen, a window title, a right-to-left override. */
const CLEAR = '\u001b[2J\u001b[H';
const TITLE = '\u001b]0;PWNED\u0007';
const RLO = '\u202e';
const HOSTILE = `Loja${CLEAR}${TITLE}${RLO}Real`;

async function hostileApi(): Promise<{ server: FakeServer; env: Record<string, string> }> {
  const server = await startFakeServer((request) => {
    // The account's own reads: its key list and its key's consultation (which account: accounts.ts).
    const own = request.path.includes('/account/transactions') ? undefined : accountReads(request);
    if (own !== undefined) return own;
    if (request.path.includes('/account/transactions')) {
      return {
        kind: 'json',
        status: 200,
        body: {
          total: 1,
          results: [
            {
              id: 'e-hostile-1',
              type: 'INCOME',
              amount: 10,
              fee: 0,
              status: 'CONFIRMED',
              method: 'PIX',
              confirmedAt: '2026-03-10T12:00:00Z',
              creditor: { name: HOSTILE, bank: '00000000', documentNumber: '***' },
            },
          ],
        },
      };
    }
    if (request.path.endsWith('/pix/dict/consult')) {
      const { key } = JSON.parse(request.body) as { key: string };
      return dictAnswer(key, HOSTILE, 'E12345678202603101200children01');
    }
    return { kind: 'json', status: 404, body: { message: 'no' } };
  });
  defer(() => server.close());
  return { server, env: { PIX_CONFIG_DIR: tempDir(), PIX_BASE_URL: server.url, PIX_TOKEN: TOKEN } };
}

function expectNothingActs(raw: string): void {
  for (const planted of [CLEAR, TITLE, RLO]) expect(raw).not.toContain(planted);
  expect(raw).toContain('Loja\\u001b[2J\\u001b[H\\u001b]0;PWNED\\u0007\\u202eReal');
}

describe('-o csv on a terminal escapes control and bidi characters; piped, it stays exact', () => {
  it('statement -o csv', async () => {
    const { env } = await hostileApi();
    const shown = await runOnPty(['statement', '--from', '2026-03-01', '--to', '2026-03-31', '-o', 'csv'], {
      env,
    });
    expect(shown.code, shown.raw).toBe(0);
    expectNothingActs(shown.raw);
    const piped = await runCli(['statement', '--from', '2026-03-01', '--to', '2026-03-31', '-o', 'csv'], {
      env,
    });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain(HOSTILE);
  });

  it('the receiver names of pay batch --dry-run -o csv', async () => {
    const { env } = await hostileApi();
    const file = join(tempDir(), 'payouts.csv');
    writeFileSync(file, 'id,key,amount\nr1,ana@example.com,5\n');
    const shown = await runOnPty(['pay', 'batch', file, '--dry-run', '-o', 'csv'], { env });
    expect(shown.code, shown.raw).toBe(0);
    expectNothingActs(shown.raw);
    const piped = await runCli(['pay', 'batch', file, '--dry-run', '-o', 'csv'], { env });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain(HOSTILE);
  });

  it('--fields with -o csv', async () => {
    const { env } = await hostileApi();
    const args = [
      'statement',
      '--from',
      '2026-03-01',
      '--to',
      '2026-03-31',
      '--fields',
      'creditor.name',
      '-o',
      'csv',
    ];
    const shown = await runOnPty(args, { env });
    expect(shown.code, shown.raw).toBe(0);
    expectNothingActs(shown.raw);
  });
});

describe('--forward-to: https://, or plain http:// to loopback only (the base URL rule)', () => {
  it('listen and events resend refuse plain http:// to another host, exit 2, before anything runs', async () => {
    const env = { PIX_CONFIG_DIR: tempDir() };
    for (const args of [
      ['listen', '--forward-to', 'http://203.0.113.7/hook'],
      ['listen', '--forward-to', 'http://receiver.example.com:3000/pix'],
      ['events', 'resend', '--all-failed', '--forward-to', 'http://receiver.example.com/pix'],
    ]) {
      const result = await runCli(args, { env });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(
        /^error: --forward-to: plain http:\/\/ is only allowed to loopback addresses \(127\.0\.0\.1, localhost, \[::1\]\); use https:\/\//m,
      );
    }
    const ftp = await runCli(['listen', '--forward-to', 'ftp://x'], { env });
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toContain('--forward-to: "ftp:" is not supported; use https://');
  });
});
