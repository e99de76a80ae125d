/**
 * Secret suite: a recognisable bearer token and client secret go through a broad set of
 * commands — logins, reads, a charge, payments, auth status, config, errors, --verbose, --json — and
 * must never appear in any stdout, stderr, the journal, or an error. The config file is 0600 in a 0700
 * dir, and a stored token is never sent to another base URL.
 *
 * The API is a loopback proxy in front of the sandbox that owns the token endpoint (it only knows our
 * client secret and mints a recognisable token) and, to be nasty, echoes the Authorization header it
 * received back in the error body of one request: the client must scrub it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEEDED_KEYS } from '../../src/sandbox/seed.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { DYNAMIC_CODE } from '../helpers/brcodes.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { type FakeServer, startFakeServer } from '../helpers/fake-server.js';
import { pix as runPix } from '../helpers/pix.js';
import { PAYEE } from '../helpers/reliability.js';

const TOKEN = 'tok_SECRET_4f9a1c7e2b8d6a03';
const CLIENT_KEY = 'ck_reliability_suite';
const CLIENT_SECRET = 'sec_SECRET_9d2e7b4a1c6f8e05';
const MINTED = 'tok_SECRET_minted_5b3c9e1f7a2d';
const SECRETS = [TOKEN, CLIENT_SECRET, MINTED];
/** Distinctive fragments too: a secret cut in half or partly masked still must not show. */
const FRAGMENTS = ['4f9a1c7e2b8d6a03', '9d2e7b4a1c6f8e05', '5b3c9e1f7a2d'];

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

let sandbox: SandboxServer;
let api: Server;
let apiUrl: string;
const apiSeen: Seen[] = [];
/** A second API, given as --base-url / PIX_BASE_URL: must never see our credentials. */
let other: FakeServer;

/** Every stdout, stderr and file scanned, with where it came from. */
const scanned: Array<{ where: string; text: string }> = [];

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

beforeAll(async () => {
  sandbox = await startSandboxServer({ stateFile: join(tempConfigDir(), 'state.json') });
  api = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = req.url ?? '/';
      apiSeen.push({ method: req.method ?? '', url, authorization: req.headers.authorization, body });
      const reply = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (url.endsWith('/auth/token')) {
        const input = JSON.parse(body || '{}') as { clientKey?: string; clientSecret?: string };
        if (input.clientKey === CLIENT_KEY && input.clientSecret === CLIENT_SECRET) {
          reply(200, { clientToken: MINTED, expiresIn: 900 });
        } else {
          // A careless server that quotes what it was given.
          reply(401, { message: `credenciais inválidas: ${input.clientKey}/${input.clientSecret}` });
        }
        return;
      }
      if (url.includes('dateFrom=2020-01-0')) {
        // A careless server that quotes the header back.
        reply(400, {
          message: `token rejeitado: ${req.headers.authorization}`,
          echo: req.headers.authorization,
        });
        return;
      }
      const upstream = await request(`${sandbox.url}${url}`, {
        method: req.method as 'GET' | 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sandbox' },
        body: req.method === 'POST' ? body : null,
      });
      const text = await upstream.body.text();
      res.writeHead(upstream.statusCode, { 'content-type': 'application/json' });
      res.end(text);
    })();
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  other = await startFakeServer(() => ({ kind: 'json', status: 401, body: { message: 'quem é você?' } }));
});

afterAll(async () => {
  api.closeAllConnections();
  await new Promise((resolve) => api.close(resolve));
  await sandbox.close();
  await other.close();
});

function expectNoSecret(where: string, text: string): void {
  scanned.push({ where, text });
  for (const secret of [...SECRETS, ...FRAGMENTS]) {
    expect(text.includes(secret), `${where} contains ${secret}:\n${text.slice(0, 2000)}`).toBe(false);
  }
}

async function pix(
  dir: string,
  argv: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
) {
  const result = await runPix(argv, {
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    env: { PIX_CONFIG_DIR: dir, ...options.env },
    sleep: async () => {},
  });
  const label = `pix ${argv.join(' ')}`.slice(0, 120);
  expectNoSecret(`${label} (stdout)`, result.stdout);
  expectNoSecret(`${label} (stderr)`, result.stderr);
  return result;
}

/** The files a run leaves in the config dir, except the credential store itself. */
function scanConfigDir(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (name === 'config.json') continue;
    const path = join(dir, name);
    if (statSync(path).isFile()) expectNoSecret(`${name} in the config dir`, readFileSync(path, 'utf8'));
  }
}

function expectPrivateStore(dir: string): void {
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
}

/** Everything a signed-in user does, plain, --json and --verbose. */
function everyday(): string[][] {
  const from = ['--from', 'today', '--to', 'today'];
  const charge = ['charge', 'immediate', '--amount', '10', '--key', SEEDED_KEYS.email.key, '--no-qr'];
  const base = [
    ['auth', 'status'],
    ['auth', 'status', '--json'],
    ['auth', 'status', '--offline'],
    ['config', 'list'],
    ['config', 'list', '--json'],
    ['profile', 'list'],
    ['keys'],
    ['keys', '--all', '-o', 'ndjson'],
    ['statement', ...from],
    ['statement', '-o', 'csv'],
    charge,
    ['pay', 'key', PAYEE, '--amount', '10', '--dry-run'],
    ['pay', 'qr', DYNAMIC_CODE, '--dry-run'],
    ['pay', 'key', PAYEE, '--amount', '12.34', '-y', '--allow-duplicate'],
    // Errors: the careless server quotes the Authorization header back in a 400.
    ['statement', '--from', '2020-01-01', '--to', '2020-01-02'],
    ['pay', 'key', 'naoexiste@sandbox.pix.local', '--amount', '10', '--dry-run'],
  ];
  // --json with another -o is a usage error: those keep their own format.
  const json = (argv: string[]) =>
    argv.includes('--json') || argv.includes('-o') ? argv : [...argv, '--json'];
  return base.flatMap((argv) => [argv, [...argv, '--verbose'], [...json(argv), '--verbose']]);
}

describe('secret suite', () => {
  it('a bearer token read by `login --with-token` appears nowhere, and is never sent elsewhere', async () => {
    const dir = tempConfigDir();
    const login = await pix(dir, ['login', '--with-token', '--base-url', apiUrl, '--profile', 'prod'], {
      stdin: `${TOKEN}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    expectPrivateStore(dir);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain(TOKEN);

    const before = apiSeen.length;
    const codes = [];
    for (const argv of everyday()) codes.push((await pix(dir, argv)).code);
    // Most succeed (0); the error cases are 4 (unknown code or key) and 5 (the echoing 400).
    expect(codes.filter((code) => code === 0).length).toBeGreaterThanOrEqual(36);
    expect(codes.every((code) => [0, 4, 5].includes(code))).toBe(true);
    // The token did go to its own API, on every request.
    const used = apiSeen.slice(before);
    expect(used.length).toBeGreaterThan(30);
    expect(used.every((seen) => seen.authorization === `Bearer ${TOKEN}`)).toBe(true);
    // The transfer was journalled (scanned below).
    expect(readdirSync(dir)).toContain('journal.jsonl');
    scanConfigDir(dir);
    expectPrivateStore(dir);

    // Another base URL, by flag and by environment: no credentials go there.
    const seenBefore = other.requests.length;
    const byFlag = await pix(dir, ['keys', '--base-url', other.url]);
    const byEnv = await pix(dir, ['keys', '--verbose'], { env: { PIX_BASE_URL: other.url } });
    const byEnvJson = await pix(dir, ['statement', '--json'], { env: { PIX_BASE_URL: other.url } });
    for (const result of [byFlag, byEnv, byEnvJson]) expect(result.code).toBe(3);
    for (const seen of other.requests.slice(seenBefore)) {
      expect(seen.headers.authorization ?? '').not.toContain(TOKEN);
      expect(seen.body).not.toContain(TOKEN);
    }
  });

  it('client credentials: the secret and the minted token appear nowhere, and neither goes elsewhere', async () => {
    const dir = tempConfigDir();
    const env = { PIX_CLIENT_SECRET: CLIENT_SECRET };
    const login = await pix(dir, ['login', '--client-key', CLIENT_KEY, '--base-url', apiUrl, '--verbose'], {
      env,
    });
    expect(login.code, login.stderr).toBe(0);
    expectPrivateStore(dir);
    const stdinLogin = await pix(
      dir,
      ['login', '--client-key', CLIENT_KEY, '--base-url', apiUrl, '-p', 'ci'],
      {
        stdin: CLIENT_SECRET,
      },
    );
    expect(stdinLogin.code, stdinLogin.stderr).toBe(0);

    for (const argv of everyday()) await pix(dir, argv);
    // With the secret only in the environment (nothing stored), too.
    const envOnly = tempConfigDir();
    const fromEnv = { PIX_BASE_URL: apiUrl, PIX_CLIENT_KEY: CLIENT_KEY, PIX_CLIENT_SECRET: CLIENT_SECRET };
    for (const argv of [
      ['keys', '--verbose'],
      ['auth', 'status', '--json', '--verbose'],
      ['config', 'list'],
    ]) {
      const result = await pix(envOnly, argv, { env: fromEnv });
      expect(result.code, result.stderr).toBe(0);
    }
    scanConfigDir(dir);

    // A wrong secret: the server quotes it back in its 401; nothing of it may be shown.
    const wrong = await pix(
      tempConfigDir(),
      ['login', '--client-key', CLIENT_KEY, '--base-url', apiUrl, '--json'],
      {
        env: { PIX_CLIENT_SECRET: `${CLIENT_SECRET}x` },
      },
    );
    expect(wrong.code).toBe(3);

    // The secret did go to its own API's token endpoint, and the minted token on the requests after.
    expect(
      apiSeen.some((seen) => seen.url.endsWith('/auth/token') && seen.body.includes(CLIENT_SECRET)),
    ).toBe(true);
    expect(apiSeen.some((seen) => seen.authorization === `Bearer ${MINTED}`)).toBe(true);

    const seenBefore = other.requests.length;
    const elsewhere = await pix(dir, ['keys', '--base-url', other.url, '--verbose']);
    expect(elsewhere.code).toBe(3);
    for (const seen of other.requests.slice(seenBefore)) {
      expect(seen.headers.authorization ?? '').not.toContain(MINTED);
      expect(seen.body).not.toContain(CLIENT_SECRET);
    }
  });

  it('the built binary with --verbose, a token in PIX_TOKEN and a server that echoes it back', async () => {
    const dir = tempConfigDir();
    const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: apiUrl, PIX_TOKEN: TOKEN };
    for (const argv of [
      ['keys', '--verbose'],
      ['statement', '--from', '2020-01-01', '--to', '2020-01-02', '--verbose'],
      ['statement', '--from', '2020-01-01', '--to', '2020-01-02', '--json', '--verbose'],
      ['auth', 'status', '--verbose'],
    ]) {
      const result = await runCli(argv, { env });
      expectNoSecret(`bin ${argv.join(' ')} (stdout)`, result.stdout);
      expectNoSecret(`bin ${argv.join(' ')} (stderr)`, result.stderr);
    }
  });

  afterAll(() => {
    if (process.env.PIX_SHOW_COUNTS)
      process.stdout.write(`secret suite: ${scanned.length} outputs scanned\n`);
  });
});
