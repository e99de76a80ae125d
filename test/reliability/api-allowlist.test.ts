/**
 * `pix api` sends what its allowlist allows and nothing else (domain/apipath.ts): every spelling that a
 * server might route to the transfer endpoint is exit 2, and a real loopback server proves it received
 * nothing — not the request, not a token request before it.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { type FakeServer, startFakeServer } from '../helpers/fake-server.js';

const TRANSFER = JSON.stringify({ endToEndId: 'E12345678202603101200allowlist1', amount: 10 });

let server: FakeServer;
let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startFakeServer(() => ({ kind: 'json', status: 200, body: { ok: true } }));
  dir = tempConfigDir();
  env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'allowlist-token' };
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.requests.length = 0;
});

/** Runs `pix api ARGS` with a transfer body on stdin: exit 2, one error line naming why, nothing received. */
async function refused(args: string[], why: string | RegExp): Promise<void> {
  const result = await runCli(['api', ...args], { env, stdin: TRANSFER });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')[0]).toMatch(why);
  expect(server.requests).toEqual([]);
}

describe('pix api: what the allowlist does not allow is never sent', () => {
  it('the harness sees what is sent: a consultation POST and a read reach the server', async () => {
    const consult = await runCli(['api', '/pix/dict/consult', '-f', 'key=ana@example.com'], { env });
    expect(consult.code, consult.stderr).toBe(0);
    const read = await runCli(['api', '/pix/keys'], { env });
    expect(read.code, read.stderr).toBe(0);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /api/financial/v1/pix/dict/consult',
      'GET /api/financial/v1/pix/keys',
    ]);
  });

  it('pix-cash-out;x/transfer', async () => {
    await refused(['/pix-cash-out;x/transfer', '--input', '-'], /the segment "pix-cash-out;x" is not plain/);
  });

  it('pix-cash-out./transfer', async () => {
    await refused(['/pix-cash-out./transfer', '--input', '-'], /the segment "pix-cash-out\." is not plain/);
  });

  it('pix-cash-out%20/transfer', async () => {
    await refused(['/pix-cash-out%20/transfer', '--input', '-'], /the segment "pix-cash-out " is not plain/);
  });

  it('pıx-cash-out/transfer (a dotless i)', async () => {
    await refused(
      ['/p\u0131x-cash-out/transfer', '--input', '-'],
      /the segment "p\u0131x-cash-out" is not plain/,
    );
  });

  it('a doubled base path', async () => {
    await refused(
      ['/api/financial/v1/api/financial/v1/pix-cash-out/transfer', '--input', '-'],
      /gives the API's base \(\/api\/financial\/v1\) twice/,
    );
  });

  it('GET /pix-cash-out/transfer with a body', async () => {
    await refused(['/pix-cash-out/transfer', '-X', 'GET', '--input', '-'], /a GET carries no body/);
  });

  it('HEAD /pix-cash-out/transfer with a body', async () => {
    await refused(['/pix-cash-out/transfer', '-X', 'HEAD', '--input', '-'], /a HEAD carries no body/);
  });

  it('a POST carrying X-Original-URL: …/pix-cash-out/transfer', async () => {
    await refused(
      ['/pix/dict/consult', '--input', '-', '-H', 'X-Original-URL: /api/financial/v1/pix-cash-out/transfer'],
      /--header: X-Original-URL cannot be set/,
    );
  });

  it('X-Rewrite-URL, X-HTTP-Method*, X-Forwarded-* headers', async () => {
    for (const header of [
      'X-Rewrite-URL: /api/financial/v1/pix-cash-out/transfer',
      'X-HTTP-Method: POST',
      'X-HTTP-Method-Override: POST',
      'X-Forwarded-Prefix: /api/financial/v1/pix-cash-out',
      'X-Forwarded-Host: evil.example',
    ]) {
      await refused(
        ['/pix/dict/consult', '--input', '-', '-H', header],
        /^error: --header: .* cannot be set/,
      );
    }
  });

  it('any write but POST to the consultations: the transfer, a charge, another method, another path', async () => {
    await refused(['/pix-cash-out/transfer', '--input', '-'], /pix pay key\|qr\|batch/);
    await refused(['/pix-cash-in/immediate', '--input', '-'], /pix charge immediate/);
    await refused(['/pix/dict/consult', '-X', 'PUT', '--input', '-'], /its only write is POST to/);
    await refused(['/pix/keys', '--input', '-'], /its only write is POST to/);
  });
});
