import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../src/main.js';
import { tempConfigDir } from './helpers/cli.js';
import { type FakeServer, startFakeServer } from './helpers/fake-server.js';
import { createTestIO } from './helpers/io.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs pix against a server that never answers, and sends `signal` once the request has arrived. */
async function interruptedRun(args: string[], signal: 'SIGINT' | 'SIGTERM', dir = tempConfigDir()) {
  const controller = new AbortController();
  server = await startFakeServer((request) => {
    if (request.path.endsWith('/pix/dict/consult')) {
      return {
        kind: 'json',
        status: 200,
        body: {
          key: 'ana@example.com',
          keyType: 'EMAIL',
          endtoEndId: 'E99999999202611231200abcdefghijk',
          account: { participant: '00416968', accountType: 'CACC', branch: '0001', account: '1' },
          owner: { name: 'Ana Souza', type: 'NATURAL_PERSON', documentNumber: '***.456.789-**' },
        },
      };
    }
    setTimeout(() => controller.abort(signal), 20);
    return { kind: 'hang' };
  });
  const test = createTestIO();
  const code = await run(args, {
    io: test.io,
    env: { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'interrupt-test-token' },
    signal: controller.signal,
  });
  return { code, stderr: test.stderr(), dir };
}

describe('a signal stops a command', () => {
  it('Ctrl-C during a read exits 130, without "error:" and without a retry', async () => {
    const result = await interruptedRun(['keys'], 'SIGINT');
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted');
    expect(result.stderr).not.toContain('error:');
    expect(server!.requestsTo('/pix/keys')).toHaveLength(1);
  });

  it('SIGTERM during a read exits 143', async () => {
    expect((await interruptedRun(['statement'], 'SIGTERM')).code).toBe(143);
  });

  it('Ctrl-C while a transfer is in flight: unknown outcome, journaled unknown, exit 130', async () => {
    const result = await interruptedRun(
      ['pay', 'key', 'ana@example.com', '--amount', '10', '--yes'],
      'SIGINT',
    );
    expect(result.code).toBe(130);
    expect(server!.requestsTo('/pix-cash-out/transfer')).toHaveLength(1);
    expect(result.stderr).toContain('E99999999202611231200abcdefghijk');
    const lines = readFileSync(join(result.dir, 'journal.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1)!).state).toBe('unknown');
  });
});
