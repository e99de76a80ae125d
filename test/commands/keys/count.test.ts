import { beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../../helpers/cli.js';
import { intercept, mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';
import { pixWith } from '../../helpers/pix.js';

const KEYS_PATH = '/api/financial/v1/pix/keys';
const KEY = {
  id: 'c0ffee00-0000-4000-8000-000000000001',
  key: 'loja@example.com',
  keyType: 'EMAIL',
  createdAt: '2026-11-19T10:00:00Z',
};

const mock = mockAgentPerTest();
let env: Record<string, string>;
beforeEach(() => {
  env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: ORIGIN, PIX_TOKEN: 'test-token-keys-count' };
});
const pix = pixWith(() => ({ env, dispatcher: mock.agent }));

/** One key of the list, and the total the API announces. */
function onePage(total: number) {
  intercept(mock, KEYS_PATH, { limit: '1', offset: '0' }, { total, result: total > 0 ? [KEY] : [] });
}

describe('pix keys count', () => {
  it('prints the number of keys the list announces, from a one-key page', async () => {
    onePage(5);
    const result = await pix(['keys', 'count']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('5\n');
  });

  it('--json: {"total": N}', async () => {
    onePage(0);
    const result = await pix(['keys', 'count', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ total: 0 });
  });

  it('an argument or a flag it does not take is exit 2, nothing sent', async () => {
    const extra = await pix(['keys', 'count', 'abc']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^error: too many arguments for 'count'/);
    const csv = await pix(['keys', 'count', '-o', 'csv']);
    expect(csv.code).toBe(2);
    expect(csv.stderr).toContain('pix keys count has no csv output');
  });

  it('credentials the API refuses: exit 3', async () => {
    intercept(mock, KEYS_PATH, { limit: '1', offset: '0' }, { message: 'invalid token' }, 401);
    const result = await pix(['keys', 'count']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
  });
});
