import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { type Behaviour, type FakeServer, startFakeServer } from '../helpers/fake-server.js';

const KEYS = '/api/financial/v1/pix/keys';
const page = {
  total: 1,
  result: [{ id: 'k1', key: 'loja@example.com', keyType: 'EMAIL', createdAt: '2026-11-01T10:00:00Z' }],
};

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function keysAgainst(respond: (count: number) => Behaviour, extra: string[] = []) {
  server = await startFakeServer((_request, count) => respond(count));
  const env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: server.url, PIX_TOKEN: 't' };
  const result = await runCli(['keys', '--json', ...extra], { env });
  return { ...result, seen: server.requestsTo(KEYS).length };
}

/** The contract's error form: one `error:` line (a hint line may follow), never a stack trace. */
function expectOneLineError(stderr: string) {
  const lines = stderr.trimEnd().split('\n');
  expect(lines.length).toBeLessThanOrEqual(2);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('pix keys, built binary against a loopback server', () => {
  it('prints {"total":…,"result":[…]}', async () => {
    const result = await keysAgainst(() => ({ kind: 'json', status: 200, body: page }));
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${JSON.stringify(page)}\n`);
    expect(result.seen).toBe(1);
  });

  it.each([
    [401, 3],
    [404, 4],
    [422, 5],
  ])('%i → exit %i, asked once', async (status, exit) => {
    const result = await keysAgainst(() => ({ kind: 'json', status, body: { message: 'recusado' } }));
    expect(result.code).toBe(exit);
    expect(result.seen).toBe(1);
  });

  it('503 is retried twice (honouring Retry-After), then exit 6', async () => {
    const result = await keysAgainst(() => ({
      kind: 'json',
      status: 503,
      body: { message: 'indisponível' },
      headers: { 'retry-after': '1' },
    }));
    expect(result.code).toBe(6);
    expect(result.seen).toBe(3);
    expect(JSON.parse(result.stderr).error).toMatchObject({ kind: 'unavailable', status: 503 });
  });

  it('a connection reset on a GET is retried and then succeeds', async () => {
    const result = await keysAgainst((count) =>
      count === 0 ? { kind: 'reset' } : { kind: 'json', status: 200, body: page },
    );
    expect(result.code).toBe(0);
    expect(result.seen).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual(page);
  });

  it('a server that never answers ends at --timeout with exit 6', async () => {
    const result = await keysAgainst(() => ({ kind: 'hang' }), ['--timeout', '1s']);
    expect(result.code).toBe(6);
    expect(result.seen).toBe(3);
    expect(JSON.parse(result.stderr).error.message).toContain('no answer within 1s');
  });

  it.each([
    [
      'an HTML 502 page',
      { kind: 'text', status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' },
      3,
    ],
    [
      'truncated JSON',
      { kind: 'text', status: 200, body: '{"total":1,"result":[{"id":', contentType: 'application/json' },
      1,
    ],
    ['JSON of the wrong shape', { kind: 'json', status: 200, body: { total: 'many', items: [] } }, 1],
  ] as const)('%s → one-line error, exit 6, no crash', async (_name, behaviour, asked) => {
    server = await startFakeServer(() => behaviour as Behaviour);
    const env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: server.url, PIX_TOKEN: 't' };
    const result = await runCli(['keys'], { env });
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^error: listing PIX keys/);
    expect(result.stderr).not.toContain('<html>');
    expectOneLineError(result.stderr);
    expect(server.requestsTo(KEYS)).toHaveLength(asked);
  });

  it('a plain-http base URL to a non-loopback host is refused with exit 2', async () => {
    const result = await runCli(['keys'], {
      env: { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: 'http://api.example.test', PIX_TOKEN: 't' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/http/);
    expectOneLineError(result.stderr);
  });
});
