import { beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../../helpers/cli.js';
import { intercept, mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';
import { pixWith } from '../../helpers/pix.js';

const KEYS_PATH = '/api/financial/v1/pix/keys';
const CPF = {
  id: 'c0ffee00-0000-4000-8000-000000000003',
  key: '12345678909',
  keyType: 'CPF',
  createdAt: '2026-11-20T15:04:05Z',
};
const EMAIL = {
  id: 'c0ffee00-0000-4000-8000-000000000001',
  key: 'loja@example.com',
  keyType: 'EMAIL',
  createdAt: '2026-11-19T10:00:00Z',
};

const mock = mockAgentPerTest();
let env: Record<string, string>;
beforeEach(() => {
  env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: ORIGIN, PIX_TOKEN: 'test-token-keys-show' };
});
const pix = pixWith(() => ({ env, dispatcher: mock.agent }));

/** The account's keys, as one page of the list endpoint answers them. */
function keysPage(...keys: object[]) {
  intercept(mock, KEYS_PATH, { limit: '100', offset: '0' }, { total: keys.length, result: keys });
}

describe('pix keys show KEY', () => {
  it('finds a key as a person types it (a CPF with punctuation) and shows its fields', async () => {
    keysPage(EMAIL, CPF);
    const result = await pix(['keys', 'show', '123.456.789-09']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `key\t12345678909\nkeyType\tCPF\ncreatedAt\t2026-11-20T15:04:05Z\nid\t${CPF.id}\n`,
    );
  });

  it('--json is the key as the API gives it; its id finds it too', async () => {
    keysPage(EMAIL, CPF);
    const result = await pix(['keys', 'show', EMAIL.id.toUpperCase(), '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(EMAIL);
  });

  it('--fields picks from it (with --json)', async () => {
    keysPage(EMAIL);
    const result = await pix(['keys', 'show', 'LOJA@example.com', '--fields', 'keyType,id', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ keyType: 'EMAIL', id: EMAIL.id });
  });

  it('a key the account does not have: exit 4 and where to look', async () => {
    keysPage(EMAIL);
    const result = await pix(['keys', 'show', 'ana@example.com']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: no PIX key ana@example.com on this account\nhint: list them with `pix keys`\n',
    );
  });

  it.each([
    [['keys', 'show', 'not a key'], /^error: KEY: /],
    [
      ['keys', 'show', 'K', '--limit', '5'],
      /^error: unknown option '--limit'\nhint: --limit is a flag of `pix keys list`/,
    ],
    [['keys', 'show'], /^error: missing required argument 'KEY'/],
  ])('%j is exit 2 with one line naming what is wrong, nothing sent', async (argv, stderr) => {
    const result = await pix(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(stderr);
  });
});
