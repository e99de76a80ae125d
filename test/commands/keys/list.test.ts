import { beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/main.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { createTestIO } from '../../helpers/io.js';
import { intercept, mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';

const KEYS_PATH = '/api/financial/v1/pix/keys';

const key = (index: number) => ({
  id: `id-${index}`,
  key: `k${index}@example.com`,
  keyType: 'EMAIL',
  createdAt: '2026-11-20T15:04:05Z',
});

const mock = mockAgentPerTest();
let env: Record<string, string>;

beforeEach(() => {
  env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: ORIGIN, PIX_TOKEN: 'test-token-keys' };
});

/** The keys endpoint answers `reply` to one GET with `query`. */
function interceptKeys(query: Record<string, string>, reply: { status: number; body: unknown }) {
  intercept(mock, KEYS_PATH, query, reply.body, reply.status);
}

describe('pix keys (in-process, MockAgent)', () => {
  it('--json prints the API page as is and sends the bearer token', async () => {
    const page = { total: 2, result: [key(1), key(2)] };
    let authorization: unknown;
    mock.agent
      .get(ORIGIN)
      .intercept({ path: KEYS_PATH, method: 'GET', query: { limit: '10', offset: '0' } })
      .reply((options) => {
        authorization = (options.headers as Record<string, string>).authorization;
        return {
          statusCode: 200,
          data: JSON.stringify(page),
          responseOptions: { headers: { 'content-type': 'application/json' } },
        };
      });
    const test = createTestIO();
    const code = await run(['keys', '--json'], { io: test.io, env, dispatcher: mock.agent });
    expect(code).toBe(0);
    expect(JSON.parse(test.stdout())).toEqual(page);
    expect(authorization).toBe('Bearer test-token-keys');
  });

  it('piped: header-less TSV with ISO times, and a next-page hint on stderr', async () => {
    interceptKeys({ limit: '2', offset: '0' }, { status: 200, body: { total: 5, result: [key(1), key(2)] } });
    const test = createTestIO();
    const code = await run(['keys', '--limit', '2'], { io: test.io, env, dispatcher: mock.agent });
    expect(code).toBe(0);
    expect(test.stdout()).toBe(
      'k1@example.com\tEMAIL\t2026-11-20T15:04:05Z\tid-1\nk2@example.com\tEMAIL\t2026-11-20T15:04:05Z\tid-2\n',
    );
    expect(test.stderr()).toContain('next page: pix keys --limit 2 --offset 2');
  });

  it('on a terminal: a table with a header and times in the profile time zone', async () => {
    interceptKeys({ limit: '10', offset: '0' }, { status: 200, body: { total: 1, result: [key(1)] } });
    const test = createTestIO({ tty: true });
    const code = await run(['keys'], { io: test.io, env, dispatcher: mock.agent });
    expect(code).toBe(0);
    expect(test.stdout()).toContain('Key');
    // 15:04 UTC is 12:04 in São Paulo.
    expect(test.stdout()).toContain('2026-11-20 12:04');
  });

  it('--all -o ndjson fetches every page and writes one key per line', async () => {
    interceptKeys(
      { limit: '3', offset: '0' },
      { status: 200, body: { total: 7, result: [key(1), key(2), key(3)] } },
    );
    interceptKeys(
      { limit: '3', offset: '3' },
      { status: 200, body: { total: 7, result: [key(4), key(5), key(6)] } },
    );
    interceptKeys({ limit: '1', offset: '6' }, { status: 200, body: { total: 7, result: [key(7)] } });
    const test = createTestIO();
    const code = await run(['keys', '--all', '--limit', '3', '-o', 'ndjson'], {
      io: test.io,
      env,
      dispatcher: mock.agent,
    });
    expect(code).toBe(0);
    const ids = test
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).id);
    expect(ids).toEqual(['id-1', 'id-2', 'id-3', 'id-4', 'id-5', 'id-6', 'id-7']);
  });

  it('an empty list is exit 0 with an empty result', async () => {
    interceptKeys({ limit: '10', offset: '0' }, { status: 200, body: { total: 0, result: [] } });
    const test = createTestIO();
    expect(await run(['keys', '--json'], { io: test.io, env, dispatcher: mock.agent })).toBe(0);
    expect(JSON.parse(test.stdout())).toEqual({ total: 0, result: [] });
  });

  it.each([
    [401, 3],
    [403, 3],
    [404, 4],
    [400, 5],
    [422, 5],
  ])('HTTP %i → exit %i with the server message on one line', async (status, exit) => {
    interceptKeys({ limit: '10', offset: '0' }, { status, body: { message: 'Mensagem do servidor' } });
    // A refusal may be of the page's size (api/pager.ts): one record, refused too, says it is not.
    if (status === 400) interceptKeys({ limit: '1', offset: '0' }, { status, body: { message: 'outra' } });
    const test = createTestIO();
    expect(await run(['keys'], { io: test.io, env, dispatcher: mock.agent })).toBe(exit);
    const [line] = test.stderr().split('\n');
    expect(line).toMatch(
      new RegExp(`^error: listing PIX keys: [A-Za-z ()]+ \\(${status}\\): Mensagem do servidor$`),
    );
    expect(test.stdout()).toBe('');
  });

  it('--json errors are one JSON object on stderr with kind, status and the raw server body', async () => {
    interceptKeys(
      { limit: '10', offset: '0' },
      { status: 404, body: { message: 'Conta não encontrada', code: 'X' } },
    );
    const test = createTestIO();
    expect(await run(['keys', '--json'], { io: test.io, env, dispatcher: mock.agent })).toBe(4);
    const error = JSON.parse(test.stderr()).error;
    expect(error).toMatchObject({
      kind: 'not_found',
      status: 404,
      server: { message: 'Conta não encontrada', code: 'X' },
    });
    expect(error.message).toContain('Conta não encontrada');
  });

  it('bad flags exit 2 before any request', async () => {
    for (const argv of [
      ['keys', '--limit', '0'],
      ['keys', '--offset', '-1'],
      ['keys', '--limit', 'ten'],
      ['keys', '--bogus'],
    ]) {
      const test = createTestIO();
      expect(await run(argv, { io: test.io, env, dispatcher: mock.agent })).toBe(2);
      expect(test.stderr().trimEnd().split('\n')[0]).toMatch(/^error: /);
    }
    // No interceptor was registered: a request would have failed with a MockNotMatchedError instead of exit 2.
  });
});
