import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../src/main.js';
import { answerRequest } from '../src/sandbox/answer.js';
import { inProcessTransport } from '../src/sandbox/embedded.js';
import { StateStore } from '../src/sandbox/store.js';
import { SYSTEM } from '../src/system.js';
import { tempConfigDir } from './helpers/cli.js';
import { accountReads, type FakeServer, startFakeServer } from './helpers/fake-server.js';
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
    // A payment reads its account's keys and statement first: answered, so the signal meets the transfer.
    const read = args[0] === 'pay' ? accountReads(request) : undefined;
    if (read) return read;
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

/**
 * The embedded sandbox's in-process transport (no socket) under the same signals: the API client must
 * classify its rejections as it does undici's. The sandbox answers for real; the signal is sent while the
 * answer to `path` is being made, and that answer is then completed, as a server would go on.
 */
async function interruptedInProcess(args: string[], path: string, signal: 'SIGINT' | 'SIGTERM') {
  const dir = tempConfigDir();
  const controller = new AbortController();
  const store = new StateStore(join(dir, 'sandbox-state.json'), { host: SYSTEM });
  const answered: string[] = [];
  const transport = inProcessTransport(async (request) => {
    if (request.url.includes(path)) {
      controller.abort(signal);
      // The answer is made in a later turn, as a server's would come after the signal.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const answer = await answerRequest(store, request);
    answered.push(`${request.url} ${answer.status}`);
    return answer;
  });
  const test = createTestIO();
  const code = await run(args, {
    io: test.io,
    env: { PIX_CONFIG_DIR: dir },
    signal: controller.signal,
    dispatcher: transport,
  });
  await transport.settle();
  return { code, stderr: test.stderr(), dir, answered };
}

describe('a signal stops a command on the in-process sandbox', () => {
  it('Ctrl-C during a read exits 130, interrupted, no retry', async () => {
    const result = await interruptedInProcess(['keys'], '/pix/keys', 'SIGINT');
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted');
    expect(result.stderr).not.toContain('error:');
    expect(result.answered).toHaveLength(1);
  });

  it('Ctrl-C while the transfer is being answered: unknown outcome (it was applied), journaled unknown, exit 130', async () => {
    const result = await interruptedInProcess(
      ['pay', 'key', 'ana@example.com', '--amount', '10', '--yes'],
      '/pix-cash-out/transfer',
      'SIGINT',
    );
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted after it was sent');
    expect(result.answered.filter((line) => line.includes('/pix-cash-out/transfer 201'))).toHaveLength(1);
    const lines = readFileSync(join(result.dir, 'journal.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1)!).state).toBe('unknown');
  });
});

describe('the in-process sandbox leaves the event loop its turn', () => {
  it('Ctrl-C during a long export stops it (exit 130, partial count), though every answer is ready at once', async () => {
    const dir = tempConfigDir();
    const store = new StateStore(join(dir, 'sandbox-state.json'), { host: SYSTEM });
    await store.update((state, now) => {
      state.generated = { ...state.generated, count: 20_000, anchor: now.toISOString() };
    });
    const controller = new AbortController();
    let pages = 0;
    const transport = inProcessTransport(async (request) => {
      // A timer, as a signal's handler, runs only when the event loop gets a turn between answers.
      if (request.url.includes('/account/transactions') && ++pages === 2) {
        setTimeout(() => controller.abort('SIGINT'), 1);
      }
      return answerRequest(store, request);
    });
    const test = createTestIO();
    const code = await run(['statement', '--all', '-o', 'ndjson'], {
      io: test.io,
      env: { PIX_CONFIG_DIR: dir },
      signal: controller.signal,
      dispatcher: transport,
    });
    await transport.settle();
    expect(code).toBe(130);
    const written = test.stdout().split('\n').filter(Boolean).length;
    expect(written).toBeLessThan(20_000);
    // The count on stderr is the records written.
    expect(test.stderr()).toContain(`wrote ${written.toLocaleString('en-US')} of 20,000 records`);
  });
});
