import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { mockAgentPerTest, ORIGIN } from '../helpers/mock-agent.js';
import { pixWith } from '../helpers/pix.js';

const BASE = '/api/financial/v1';
const TOKEN = 'test-token-api-0123456789abcdef';
const JSON_HEADERS = { headers: { 'content-type': 'application/json', 'x-request-id': 'req-1' } };

const mock = mockAgentPerTest();
let env: Record<string, string>;
beforeEach(() => {
  env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: ORIGIN, PIX_TOKEN: TOKEN };
});

const pix = pixWith(() => ({ env, dispatcher: mock.agent }));

describe('pix api', () => {
  it('GET a path under the base with its query, the bearer token sent, the JSON printed', async () => {
    let authorization: unknown;
    mock.agent
      .get(ORIGIN)
      .intercept({ path: `${BASE}/account/transactions`, method: 'GET', query: { limit: '5' } })
      .reply((options) => {
        authorization = (options.headers as Record<string, string>).authorization;
        return {
          statusCode: 200,
          data: JSON.stringify({ total: 0, results: [] }),
          responseOptions: JSON_HEADERS,
        };
      });
    const result = await pix(['api', '/account/transactions?limit=5']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ total: 0, results: [] });
    expect(authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('POST of a consultation: -f strings and -F typed values make the JSON body', async () => {
    let body: unknown;
    mock.agent
      .get(ORIGIN)
      .intercept({ path: `${BASE}/pix/dict/consult`, method: 'POST' })
      .reply((options) => {
        body = JSON.parse(String(options.body));
        return {
          statusCode: 200,
          data: JSON.stringify({ owner: { name: 'Ana' } }),
          responseOptions: JSON_HEADERS,
        };
      });
    const result = await pix([
      'api',
      '/pix/dict/consult',
      '-f',
      'key=ana@example.com',
      '-F',
      'n=2',
      '-F',
      'ok=true',
      '--jq',
      '.owner.name',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Ana\n');
    expect(body).toEqual({ key: 'ana@example.com', n: 2, ok: true });
  });

  it('a field named query is a field of the body like any other; on a GET, -f fields are the query', async () => {
    let body: unknown;
    mock.agent
      .get(ORIGIN)
      .intercept({ path: `${BASE}/pix/dict/consult`, method: 'POST' })
      .reply((options) => {
        body = JSON.parse(String(options.body));
        return { statusCode: 200, data: '{}', responseOptions: JSON_HEADERS };
      });
    expect((await pix(['api', '/pix/dict/consult', '-f', 'query=x'])).code).toBe(0);
    expect(body).toEqual({ query: 'x' });
    mock.agent
      .get(ORIGIN)
      .intercept({ path: `${BASE}/account/transactions`, method: 'GET', query: { limit: '3', offset: '6' } })
      .reply(200, { total: 0, results: [] }, JSON_HEADERS);
    const get = await pix(['api', '/account/transactions?limit=3', '-X', 'GET', '-F', 'offset=6']);
    expect(get.code, get.stderr).toBe(0);
  });

  it('--input sends a JSON body as given (from stdin); -F @file reads a value from a file', async () => {
    const bodies: unknown[] = [];
    mock.agent
      .get(ORIGIN)
      .intercept({ path: `${BASE}/pix/emv/consult`, method: 'POST' })
      .reply((options) => {
        bodies.push(JSON.parse(String(options.body)));
        return { statusCode: 200, data: '{"ok":true}', responseOptions: JSON_HEADERS };
      })
      .times(2);
    const fromStdin = await pix(['api', '/pix/emv/consult', '--input', '-'], {
      stdin: '{"emv": "000201…", "n": 1}',
    });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    const file = join(env.PIX_CONFIG_DIR!, 'code.txt');
    writeFileSync(file, '00020126580014br.gov.bcb.pix\n');
    const fromFile = await pix(['api', '/pix/emv/consult', '-F', `emv=@${file}`]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(bodies).toEqual([{ emv: '000201…', n: 1 }, { emv: '00020126580014br.gov.bcb.pix' }]);
    const notJson = await pix(['api', '/pix/emv/consult', '--input', '-'], { stdin: 'not json' });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--input: stdin is not JSON');
    // Read as every file or `-` of pix is (commands/shared/files.ts): named by the flag, nothing sent.
    const empty = await pix(['api', '/pix/emv/consult', '--input', '-'], { stdin: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^error: --input: nothing on stdin: pipe the JSON body, or give its path/);
    const missing = await pix(['api', '/pix/emv/consult', '-F', `emv=@${file}.gone`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: -F: cannot open .*code\.txt\.gone: no such file or directory/);
  });

  it('--paginate follows limit/offset to total; --slurp makes one array; both with --jq', async () => {
    const reply = (offset: string, result: unknown[]) =>
      mock.agent
        .get(ORIGIN)
        .intercept({ path: `${BASE}/pix/keys`, method: 'GET', query: { limit: '2', offset } })
        .reply(200, { total: 3, result }, JSON_HEADERS);
    reply('0', [{ id: 'a' }, { id: 'b' }]);
    reply('2', [{ id: 'c' }]);
    const pages = await pix(['api', '/pix/keys?limit=2', '--paginate', '--jq', '.result[].id']);
    expect(pages.code, pages.stderr).toBe(0);
    expect(pages.stdout).toBe('a\nb\nc\n');
    reply('0', [{ id: 'a' }, { id: 'b' }]);
    reply('2', [{ id: 'c' }]);
    const slurped = await pix([
      'api',
      '/pix/keys?limit=2',
      '--paginate',
      '--slurp',
      '--jq',
      'map(.result | length) | add',
    ]);
    expect(slurped.stdout).toBe('3\n');
    reply('0', [{ id: 'a' }, { id: 'b' }]);
    reply('2', [{ id: 'c' }]);
    const plain = await pix(['api', '/pix/keys?limit=2', '--paginate']);
    expect(
      plain.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).result.length),
    ).toEqual([2, 1]);
  });

  it('a page loop that does not advance stops with exit 6', async () => {
    mock.agent
      .get(ORIGIN)
      .intercept({ path: `${BASE}/pix/keys`, method: 'GET', query: { limit: '100', offset: '0' } })
      .reply(200, { total: 5, result: [] }, JSON_HEADERS);
    const result = await pix(['api', '/pix/keys', '--paginate']);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      'error: --paginate: /pix/keys is incomplete: received 0 of 5 records the server announced',
    );
  });

  it.each([
    [['api', '/pix-cash-out/transfer', '-f', 'amount=10'], 'pix pay key|qr|batch'],
    [['api', '/pix-cash-in/immediate', '--input', '-'], 'pix charge immediate'],
    [['api', '/pix-cash-in/duedate', '-X', 'POST'], 'pix charge duedate'],
    [['api', '/pix/keys/..%2F..%2Fpix-cash-out/transfer', '-X', 'post'], 'the segment ".." is not plain'],
    [['api', '/auth/token'], 'pix login'],
    [['api', '/pix/keys', '-H', 'Authorization: Bearer other'], '--header: Authorization cannot be set'],
    [
      ['api', '/pix/keys', '-H', 'X-HTTP-Method-Override: POST'],
      '--header: X-HTTP-Method-Override cannot be set',
    ],
    [['api', 'https://evil.example/pix/keys'], 'is a URL'],
  ])('%j is refused with exit 2 and nothing is sent', async (argv, message) => {
    const result = await pix(argv, { stdin: '{"amount": 10}' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('404: exit 4, the error body on stderr, nothing on stdout', async () => {
    mock.agent
      .get(ORIGIN)
      .intercept({ path: `${BASE}/nope`, method: 'GET' })
      .reply(404, { message: 'Rota não encontrada', code: 'ROUTE_NOT_FOUND' }, JSON_HEADERS);
    const result = await pix(['api', '/nope']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('{"message":"Rota não encontrada","code":"ROUTE_NOT_FOUND"}');
  });

  it.each([
    [401, 3],
    [422, 5],
    [503, 6],
  ])('status %i → exit %i', async (status, exit) => {
    const times = status === 503 ? 3 : 1; // a read is retried twice
    mock.agent
      .get(ORIGIN)
      .intercept({ path: `${BASE}/pix/keys`, method: 'GET' })
      .reply(status, { message: 'no' }, JSON_HEADERS)
      .times(times);
    const result = await pix(['api', '/pix/keys']);
    expect(result.code).toBe(exit);
    expect(result.stdout).toBe('');
  });

  it('-i and --verbose show status and allowlisted headers; the token never appears', async () => {
    mock.agent
      .get(ORIGIN)
      .intercept({ path: `${BASE}/pix/keys`, method: 'GET' })
      .reply(
        200,
        { total: 0, result: [], echo: TOKEN },
        {
          headers: {
            'content-type': 'application/json',
            'x-request-id': 'req-1',
            'x-debug-authorization': `Bearer ${TOKEN}`,
          },
        },
      );
    const result = await pix(['api', '/pix/keys', '-i', '--verbose']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^HTTP 200\ncontent-type: application\/json\nx-request-id: req-1\nx-debug-authorization: \[not shown\]\n\n/,
    );
    expect(result.stderr).toContain('> authorization: [redacted]');
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });
});
