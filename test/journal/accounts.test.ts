/**
 * Accounts by their bank details (journal/accounts.ts): the id, what earlier versions' names map to, and
 * the config directory's file. The rules are the shared ledger's too (postgres/accounts.ts uses mergeAccount;
 * test/reliability/account-ledger.test.ts runs machines on a real PostgreSQL).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ACCOUNTS_FILE,
  bankAccountId,
  formerNames,
  type Learning,
  mergeAccount,
  openAccounts,
} from '../../src/journal/accounts.js';
import { SYSTEM } from '../../src/system.js';
import { pix } from '../helpers/pix.js';
import { tempDir } from '../helpers/temp.js';

const bank = { participant: '99999999', branch: '0001', number: '12345-6' };
const learning = (over: Partial<Learning> = {}): Learning => ({
  account: { id: bankAccountId(bank), bank, basis: 'dict' },
  fingerprint: 'fp-1',
  credential: 'cred-1',
  keyIds: ['k1'],
  formerIds: [],
  legacy: [],
  baseUrl: { baseUrl: 'https://api.example.test', host: 'api.example.test' },
  now: new Date('2026-03-10T10:00:00Z'),
  ...over,
});

describe('an account is its bank account', () => {
  it('one id for one bank account however it is spelt; another account, another id', () => {
    const id = bankAccountId(bank);
    expect(id).toMatch(/^acct_[0-9a-f]{24}$/);
    expect(bankAccountId({ participant: '99999999', branch: '1', number: '123456' })).toBe(id);
    expect(bankAccountId({ participant: ' 99999999 ', branch: '0001', number: '12.345-6' })).toBe(id);
    expect(bankAccountId({ ...bank, number: '12345-7' })).not.toBe(id);
    expect(bankAccountId({ ...bank, branch: '0002' })).not.toBe(id);
    expect(bankAccountId({ ...bank, participant: '00000000' })).not.toBe(id);
  });

  it("earlier versions' names: the one these credentials reached, else the one that listed a key listed now", () => {
    const former = {
      accounts: {
        acct_old_a: { keyIds: ['k1', 'k2'], legacy: [{ baseUrl: 'https://a.test', host: 'a.test' }] },
        acct_old_b: { keyIds: ['k9'] },
      },
      credentials: { 'fp-a': { account: 'acct_old_a', at: '2026-01-01T00:00:00Z' } },
    };
    expect(formerNames(former, 'fp-a', [])).toEqual({
      ids: ['acct_old_a'],
      legacy: [{ baseUrl: 'https://a.test', host: 'a.test' }],
    });
    // Credentials never seen (rotated since): by a key both list.
    expect(formerNames(former, 'fp-new', ['k2', 'k7']).ids).toEqual(['acct_old_a']);
    expect(formerNames(former, 'fp-new', ['k7']).ids).toEqual([]);
    expect(formerNames(undefined, 'fp-a', ['k1'])).toEqual({ ids: [], legacy: [] });
  });

  it('a former name is attached once; the base URL of records before accounts goes to the first account only', () => {
    const first = mergeAccount(undefined, learning({ formerIds: ['acct_old'] }), false);
    expect(first.attached).toEqual(['acct_old']);
    expect(first.record.legacy).toEqual([{ baseUrl: 'https://api.example.test', host: 'api.example.test' }]);
    const again = mergeAccount(first.record, learning({ formerIds: ['acct_old', 'acct_other'] }), false);
    expect(again.attached).toEqual(['acct_other']);
    expect(again.record.formerIds).toEqual(['acct_old', 'acct_other']);
    const claimed = mergeAccount(undefined, learning(), true);
    expect(claimed.record.legacy).toEqual([]);
  });
});

describe("the config directory's accounts file", () => {
  it('keeps accounts and credentials; a rotated secret finds its credential id; an earlier file is kept as former', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, ACCOUNTS_FILE),
      JSON.stringify({
        version: 1,
        accounts: { acct_old: { basis: 'keys', keyIds: ['k1'], baseUrls: [], legacy: [], learnedAt: '' } },
        credentials: { 'fp-1': { account: 'acct_old', at: '2026-01-01T00:00:00Z' } },
      }),
    );
    const accounts = openAccounts(dir, SYSTEM);
    expect(formerNames(accounts.former(), 'fp-1', []).ids).toEqual(['acct_old']);
    const recorded = await accounts.record(learning({ formerIds: ['acct_old'] }));
    expect(recorded.attached).toEqual(['acct_old']);
    expect(await accounts.credential('fp-1', 'cred-1')).toMatchObject({ account: bankAccountId(bank) });
    // Another fingerprint (the secret rotated) of the same credential id: its latest record.
    expect(await accounts.credential('fp-2', 'cred-1')).toMatchObject({ fingerprint: 'fp-1' });
    expect(await accounts.credential('fp-2', 'cred-2')).toBeUndefined();
    // The earlier version's names stay readable after the file is rewritten.
    expect(openAccounts(dir, SYSTEM).former()?.credentials['fp-1']?.account).toBe('acct_old');
    expect((await accounts.record(learning({ formerIds: ['acct_old'] }))).attached).toEqual([]);
  });
});

describe('a damaged accounts file', () => {
  it("is the operator's to repair: exit 2 naming the file, and nothing is paid", async () => {
    for (const text of ['{not json', '[1, 2]']) {
      const dir = tempDir();
      writeFileSync(join(dir, ACCOUNTS_FILE), text);
      const paid = await pix(['pay', 'key', 'fulano@example.com', '--amount', '1', '--yes'], {
        env: { PIX_CONFIG_DIR: dir },
      });
      expect(paid.code, paid.stderr).toBe(2);
      expect(paid.stderr).toMatch(
        new RegExp(
          `^error: the accounts file ${dir}/accounts\\.json is (not JSON|not an accounts file)\\n`,
          'm',
        ),
      );
      expect(paid.stderr).toMatch(/^hint: repair it, or move it away/m);
      expect(paid.stderr).not.toMatch(/bug in pix/);
      const journal = await pix(['journal', '--json'], { env: { PIX_CONFIG_DIR: dir } });
      expect(JSON.parse(journal.stdout)).toMatchObject({ total: 0, results: [] });
    }
  });
});
