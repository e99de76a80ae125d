/**
 * A server's answer headers are bounded (16 KiB, Node's own default, which pix gives undici itself since
 * the build keeps node:http out of undici's load): below the bound an answer is read, above it the request
 * fails like any unreadable answer. Built binary against a real loopback server.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { type FakeServer, startFakeServer } from '../helpers/fake-server.js';
import { expectOneLineError } from '../helpers/reliability.js';

const KEYS = {
  total: 1,
  result: [{ id: 'k1', key: 'loja@example.com', keyType: 'EMAIL', createdAt: '2026-01-01T00:00:00Z' }],
};

describe('answer headers are bounded at 16 KiB', () => {
  const servers: FakeServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  async function keysWithHeader(bytes: number, argv = ['keys', '--json']) {
    const server = await startFakeServer(() => ({
      kind: 'json',
      status: 200,
      body: KEYS,
      headers: { 'x-padding': 'a'.repeat(bytes) },
    }));
    servers.push(server);
    return runCli([...argv, '--timeout', '5s'], {
      env: { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: server.url, PIX_TOKEN: 'headers-test-token' },
    });
  }

  it('an answer with 12 KiB of headers is read', async () => {
    const result = await keysWithHeader(12 * 1024);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(KEYS);
  });

  it('an answer with 20 KiB of headers is refused in one line, exit 6, nothing printed on stdout', async () => {
    const result = await keysWithHeader(20 * 1024, ['keys']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stdout).toBe('');
    expectOneLineError(result.stderr);
    // Node's HTTP parser refuses it (the transport, api/transport.ts, is Node's own client).
    expect(result.stderr).toContain('HPE_HEADER_OVERFLOW');
  });
});
