import { beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { intercept, mockAgentPerTest, ORIGIN } from '../helpers/mock-agent.js';
import { pixWith } from '../helpers/pix.js';

const KEYS = '/api/financial/v1/pix/keys';
const STATEMENT = '/api/financial/v1/account/transactions';
const NOW = new Date('2025-03-10T15:00:00.000Z');
const PINNED = { dateFrom: '2000-01-01T00:00:00.000Z', dateTo: NOW.toISOString() };

const key = (index: number, value = `k${index}@example.com`) => ({
  id: `id-${index}`,
  key: value,
  keyType: 'EMAIL',
  createdAt: '2026-11-20T15:04:05Z',
});
const entry = (index: number, amount: number) => ({
  id: `e-${index}`,
  type: amount < 0 ? 'OUTCOME' : 'INCOME',
  amount,
  fee: 0,
  status: 'CONFIRMED',
  confirmedAt: '2025-03-09T13:04:05.000Z',
});

const mock = mockAgentPerTest();
let env: Record<string, string>;
beforeEach(() => {
  // No jq anywhere: pix brings its own.
  env = {
    PIX_CONFIG_DIR: tempConfigDir(),
    PIX_BASE_URL: ORIGIN,
    PIX_TOKEN: 'test-token-jq',
    PATH: '/nonexistent',
  };
});

const pix = pixWith(() => ({ env, dispatcher: mock.agent, clock: { now: () => NOW } }));

describe('--jq: jq built in', () => {
  it('strings print raw, one per line; numbers and objects as compact JSON', async () => {
    intercept(mock, KEYS, { limit: '10', offset: '0' }, { total: 2, result: [key(1), key(2)] });
    const ids = await pix(['keys', '--jq', '.result[].id']);
    expect(ids.code, ids.stderr).toBe(0);
    expect(ids.stdout).toBe('id-1\nid-2\n');
    intercept(mock, KEYS, { limit: '10', offset: '0' }, { total: 2, result: [key(1), key(2)] });
    const shaped = await pix(['keys', '--jq', '.total, {first: .result[0].key}']);
    expect(shaped.stdout).toBe('2\n{"first":"k1@example.com"}\n');
  });

  it('--all: the expression sees the whole {total, results} document', async () => {
    intercept(
      mock,
      STATEMENT,
      { ...PINNED, limit: '2', offset: '0' },
      { total: 3, results: [entry(1, 10), entry(2, -5)] },
    );
    intercept(
      mock,
      STATEMENT,
      { ...PINNED, limit: '1', offset: '2' },
      { total: 3, results: [entry(3, 2.5)] },
    );
    const result = await pix([
      'statement',
      '--all',
      '--limit',
      '2',
      '--jq',
      '([.results[] | select(.type == "INCOME") | .amount] | add), (.results | length)',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('12.5\n3\n');
  });

  it('a syntax error is exit 2 in one line, before anything is sent', async () => {
    const result = await pix(['keys', '--jq', '.result[', '--no-color']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(result.stderr).error.message).toMatch(/^--jq: syntax error/);
    expect(mock.agent.pendingInterceptors()).toEqual([]);
    const unknown = await pix(['keys', '--jq', 'nosuchfunction(1)']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error.message).toBe('--jq: nosuchfunction/1 is not defined');
  });

  it('an error of the expression on the data is exit 2, and the document is not printed', async () => {
    intercept(mock, KEYS, { limit: '10', offset: '0' }, { total: 1, result: [key(1)] });
    const result = await pix(['keys', '--jq', '.result[0].key.nope']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr).error.message).toBe('--jq: Cannot index string with string ("nope")');
  });

  it('on a terminal, a raw string from the server has its controls shown escaped', async () => {
    intercept(
      mock,
      KEYS,
      { limit: '10', offset: '0' },
      { total: 1, result: [key(1, 'evil\u001b[2J@example.com')] },
    );
    const result = await pix(['keys', '--jq', '.result[0].key'], { tty: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('evil\\u001b[2J@example.com\n');
  });

  it('refused with another format; the next-page hint keeps it', async () => {
    const csv = await pix(['keys', '--jq', '.total', '-o', 'csv']);
    expect(csv.code).toBe(2);
    expect(csv.stderr).toContain('--jq: cannot be combined with -o csv');
    intercept(mock, KEYS, { limit: '1', offset: '0' }, { total: 2, result: [key(1)] });
    const page = await pix(['keys', '--limit', '1', '--jq', '.result[].id'], { tty: true });
    expect(page.stderr).toContain("next page: pix keys --jq '.result[].id' --limit 1 --offset 1");
  });
});

describe('--fields: only those fields, in that order', () => {
  const party = (id: string, name: string) => ({
    ...entry(1, 10),
    id,
    creditor: { name, bank: '001', documentNumber: '52998224725' },
  });

  it('a list as --json, -o ndjson and -o csv, nested fields by dotted path', async () => {
    const page = { total: 2, results: [party('a', 'Ana'), party('b', 'Bia, "B"')] };
    intercept(mock, STATEMENT, { limit: '10', offset: '0' }, page);
    const json = await pix(['statement', '--json', '--fields', 'id,creditor.name']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      total: 2,
      results: [
        { id: 'a', creditor: { name: 'Ana' } },
        { id: 'b', creditor: { name: 'Bia, "B"' } },
      ],
    });
    intercept(mock, STATEMENT, { limit: '10', offset: '0' }, page);
    const ndjson = await pix(['statement', '-o', 'ndjson', '--fields', 'creditor.name,amount']);
    expect(ndjson.stdout).toBe(
      '{"creditor":{"name":"Ana"},"amount":10}\n{"creditor":{"name":"Bia, \\"B\\""},"amount":10}\n',
    );
    intercept(mock, STATEMENT, { limit: '10', offset: '0' }, page);
    const csv = await pix(['statement', '-o', 'csv', '--fields', 'id,creditor.name']);
    expect(csv.stdout).toBe('id,creditor.name\r\na,Ana\r\nb,"Bia, ""B"""\r\n');
  });

  it("a field is the record shape's, not the data's: a page of outgoing entries has creditor.name, empty", async () => {
    const page = { total: 2, results: [entry(1, -18.9), entry(2, -120)] };
    intercept(mock, STATEMENT, { limit: '10', offset: '0' }, page);
    const csv = await pix(['statement', '-o', 'csv', '--fields', 'id,amount,creditor.name']);
    expect(csv.code, csv.stderr).toBe(0);
    // Money keeps its two decimals, as plain -o csv writes it.
    expect(csv.stdout).toBe('id,amount,creditor.name\r\ne-1,-18.90,\r\ne-2,-120.00,\r\n');
    expect(csv.stderr).not.toContain('-o json');
  });

  it('--all with --fields streams: each page is cut and written as it arrives, money with two decimals', async () => {
    const results = Array.from({ length: 150 }, (_, index) => entry(index, index % 2 === 0 ? -1.5 : 2));
    intercept(
      mock,
      STATEMENT,
      { ...PINNED, limit: '100', offset: '0' },
      { total: 150, results: results.slice(0, 100) },
    );
    intercept(
      mock,
      STATEMENT,
      { ...PINNED, limit: '50', offset: '100' },
      { total: 150, results: results.slice(100) },
    );
    const csv = await pix(['statement', '--all', '-o', 'csv', '--fields', 'amount']);
    expect(csv.code, csv.stderr).toBe(0);
    const lines = csv.stdout.split('\r\n');
    expect(lines.slice(0, 3)).toEqual(['amount', '-1.50', '2.00']);
    expect(lines).toHaveLength(152);
  });

  it('a detail (pix api), and with --jq after the cut', async () => {
    mock.agent
      .get(ORIGIN)
      .intercept({ path: '/api/financial/v1/pix/dict/consult', method: 'POST' })
      .reply(
        200,
        { key: 'ana@example.com', owner: { name: 'Ana', documentNumber: '***' }, endtoEndId: 'E1' },
        {
          headers: { 'content-type': 'application/json' },
        },
      );
    const result = await pix([
      'api',
      '/pix/dict/consult',
      '-f',
      'key=ana@example.com',
      '--fields',
      'owner.name,endtoEndId',
      '--jq',
      'keys',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('["endtoEndId","owner"]\n');
  });

  it('an unknown field is exit 2 listing the valid ones, before anything is sent; --fields alone, or on a payment, is refused', async () => {
    const unknown = await pix(['keys', '--json', '--fields', 'key,nope']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error.message).toBe(
      '--fields: pix keys has no field nope (fields: id, key, keyType, createdAt, Key, Type, Created, Id)',
    );
    // Two letters of four changed is another word, not a typo: no "did you mean type?".
    const stranger = await pix(['statement', '--json', '--fields', 'nope']);
    expect(stranger.code).toBe(2);
    expect(stranger.stderr).not.toContain('did you mean');
    const typo = await pix(['statement', '-o', 'csv', '--fields', 'id,creditor.nmae']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('hint: did you mean creditor.name?');
    const alone = await pix(['keys', '--fields', 'key']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--fields: goes with --json, --jq, -o ndjson or -o csv');
    const payment = await pix(['pay', 'key', 'ana@example.com', '--amount', '1', '--json', '--fields', 'id']);
    expect(payment.code).toBe(2);
    expect(JSON.parse(payment.stderr).error.message).toBe(
      '--fields: pix pay key has no records to pick from',
    );
    const malformed = await pix(['keys', '--json', '--fields', 'a,,b']);
    expect(malformed.code).toBe(2);
  });
});
