import { describe, expect, it } from 'vitest';
import { describeLedgerText, parseLedgerUrl } from '../../src/config/ledger.js';
import { reasonOf } from '../helpers/domain.js';

/**
 * A ledger's URL is read as libpq reads one, or not at all: a URL that does not read as exactly that is
 * refused with a reason that holds no part of it (any part may be, or hold, the password).
 */
describe('the ledger URL', () => {
  it('reads user, password, host, port, database and parameters; percent-escapes decoded', () => {
    expect(
      parseLedgerUrl('postgres://pix:p%40ss%2Fw%3Ard@db.example.com:6543/pix_ledger?sslmode=verify-full'),
    ).toMatchObject({
      user: 'pix',
      password: 'p@ss/w:rd',
      host: 'db.example.com',
      port: 6543,
      database: 'pix_ledger',
      sslmode: 'verify-full',
    });
    expect(parseLedgerUrl('postgresql://[::1]/x')).toMatchObject({ host: '::1', port: 5432, database: 'x' });
  });

  it('an unencoded @ / ? # in a password, an unknown parameter, a bad sslmode: refused, naming no part', () => {
    const secret = 'p@ss-S3cr3t';
    for (const text of [
      `postgres://pix:${secret}@db.example.com/pix_ledger`,
      'postgres://pix:12/ss-S3cr3t@db.example.com/pix_ledger',
      'postgres://pix:p?ss-S3cr3t@db.example.com/pix_ledger',
      'postgres://pix:p#ss-S3cr3t@db.example.com/pix_ledger',
      'postgres://pix:ss-S3cr3t@db.example.com/pix_ledger?ss-S3cr3t=1',
      'postgres://pix:ss-S3cr3t@db.example.com/pix_ledger?sslmode=ss-S3cr3t',
      'postgres://pix:ss-S3cr3t@db example.com/pix_ledger',
    ]) {
      const reason = reasonOf(() => parseLedgerUrl(text));
      expect(reason, text).toMatch(/\(the URL is not shown: it may hold a password\)$/);
      for (const part of ['S3cr3t', 'ss-', 'db.example', 'pix_ledger', 'p@ss'])
        expect(reason, text).not.toContain(part);
      expect(describeLedgerText(text)).toBe('postgres://(a URL pix cannot read)');
    }
    expect(reasonOf(() => parseLedgerUrl(`postgres://pix:${secret}@db.example.com/pix_ledger`))).toBe(
      "the ledger URL has an '@' besides the one before its host: write an @ : / ? # of its user or password as %40 %3A %2F %3F %23 (the URL is not shown: it may hold a password)",
    );
  });
});
