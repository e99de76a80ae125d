/**
 * Books the ledger vouches for (commands/shared/books/verify.ts): every closed day is checked when it is
 * read — its arithmetic, its pack's digests, its signature by the key that signed it — by `pix close
 * --list` and by every close, loudly (exit 8 naming the day). A signed day closed again keeps its signature
 * or is refused; closing out of order says what can be done. On a shared ledger (a real PostgreSQL) the
 * closed days are the ledger's: another machine sees them, and one edited there is loud there too.
 */

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openPool } from '../../../src/journal/postgres/connect.js';
import { migrateSchema } from '../../../src/journal/postgres/schema.js';
import { run } from '../../../src/main.js';
import { startSandboxServer } from '../../../src/sandbox/server.js';
import { deferEach } from '../../helpers/cleanup.js';
import { createTestIO } from '../../helpers/io.js';
import { clusterPerFile } from '../../helpers/postgres.js';
import { keyDir, makeKey, opensshVerifies } from '../../helpers/ssh.js';

const deferred = deferEach();
const { suite, cluster } = clusterPerFile();
let now: Date;

beforeEach(() => {
  now = new Date('2026-03-10T15:00:00.000Z');
});

async function served() {
  const dir = deferred.dir();
  const server = await startSandboxServer({
    port: 0,
    stateFile: join(dir, 'sandbox.json'),
    clock: () => now,
  });
  deferred.defer(() => server.close());
  return server.url;
}

/** A machine: pix in-process with a config directory of its own, on `url`'s sandbox (and a ledger). */
function machine(url: string, ledger?: string) {
  const dir = deferred.dir();
  return async (args: string[]) => {
    const test = createTestIO({ columns: 80 });
    const code = await run(args, {
      io: test.io,
      env: {
        PIX_CONFIG_DIR: dir,
        HOME: dir,
        PIX_BASE_URL: url,
        PIX_TOKEN: 'books',
        ...(ledger === undefined ? {} : { PIX_LEDGER_URL: ledger }),
      },
      clock: { now: () => now },
    });
    return { code, stdout: test.stdout(), stderr: test.stderr(), dir };
  };
}

interface Close {
  day: string;
  opening: number;
  closing: number;
  digest: string;
  dir: string;
  totals: { income: number };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The closes file of machine dir `dir`: its one books directory's. */
function closesFile(dir: string): string {
  const books = join(dir, 'books');
  return join(books, readdirSync(books)[0]!, 'closes.jsonl');
}

/**
 * The edit of a closed day a hostile insider makes (closing 1140 → 6140 as it were): its closing and income
 * raised by R$ 50,00, the OFX's BALAMT and SHA256SUMS rewritten to match, and the close's digest with them.
 */
function forge(line: string): string {
  const close = JSON.parse(line) as Close & { sums?: string };
  const raise = 5000;
  const ofxPath = join(close.dir, `${close.day}.ofx`);
  const balance = (cents: number) => (cents / 100).toFixed(2);
  const ofx = readFileSync(ofxPath, 'utf8').replace(
    `<BALAMT>${balance(close.closing)}`,
    `<BALAMT>${balance(close.closing + raise)}`,
  );
  writeFileSync(ofxPath, ofx);
  const sums = readFileSync(join(close.dir, 'SHA256SUMS'), 'utf8').replace(
    /^[0-9a-f]{64}( {2}\S+\.ofx)$/m,
    `${sha256(ofx)}$1`,
  );
  writeFileSync(join(close.dir, 'SHA256SUMS'), sums);
  return JSON.stringify({
    ...close,
    closing: close.closing + raise,
    totals: { ...close.totals, income: close.totals.income + raise },
    sums,
    digest: sha256(sums),
  });
}

describe('closed days checked on read (the config directory)', { timeout: 60_000 }, () => {
  it('a signed day edited by hand (closing, OFX BALAMT, SHA256SUMS, digest rewritten) is loud: --list and the next close exit 8 naming it', async () => {
    const pix = machine(await served());
    const keys = keyDir();
    deferred.defer(keys.cleanup);
    const key = makeKey(keys.dir, 'ed25519', 'contador@empresa');
    const closed = await pix([
      'close',
      '--day',
      '2026-03-08',
      '--opening-balance',
      '1.000,00',
      '--key',
      key.privatePath!,
    ]);
    expect(closed.code, closed.stderr).toBe(0);
    const listed = await pix(['close', '--list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const file = closesFile(closed.dir);
    const pack = (JSON.parse(readFileSync(file, 'utf8')) as Close).dir;
    const signature = readFileSync(join(pack, 'SHA256SUMS.sig'), 'utf8');
    const signer = [`contador@empresa ${key.publicLine}`];
    const opensshSays = () =>
      opensshVerifies(
        keys.dir,
        signer,
        'contador@empresa',
        'pix-close',
        readFileSync(join(pack, 'SHA256SUMS')),
        signature,
      );
    expect(opensshSays()).toBe(true);
    writeFileSync(file, `${forge(readFileSync(file, 'utf8').trim())}\n`);
    // What ssh-keygen -Y verify says of the rewritten SHA256SUMS, pix says too.
    expect(opensshSays()).toBe(false);
    const list = await pix(['close', '--list']);
    expect(list.code).toBe(8);
    expect(list.stderr).toMatch(
      /error: closed day 2026-03-08 does not verify: its signature does not verify with the key that signed it \(SHA256:\S+\): the signature does not verify/,
    );
    const next = await pix(['close', '--day', '2026-03-09']);
    expect(next.code).toBe(8);
    expect(next.stderr).toMatch(/closed day 2026-03-08 does not verify: .*; nothing was closed/);
  });

  it('unsigned: a closing that is not its opening plus its entries, a pack file edited, an opening that is not the day before’s closing: each loud', async () => {
    const pix = machine(await served());
    expect((await pix(['close', '--day', '2026-03-07', '--opening-balance', '0'])).code).toBe(0);
    const second = await pix(['close', '--day', '2026-03-08', '--json']);
    expect(second.code, second.stderr).toBe(0);
    const file = closesFile(second.dir);
    const text = readFileSync(file, 'utf8');
    const [first, last] = text.trim().split('\n') as [string, string];
    const edit = (line: string, change: (close: Close) => object) =>
      JSON.stringify(change(JSON.parse(line) as Close));
    const reasonOf = async (lines: string[]) => {
      writeFileSync(file, `${lines.join('\n')}\n`);
      const list = await pix(['close', '--list', '--json']);
      writeFileSync(file, text);
      expect(list.code).toBe(8);
      return list.stderr;
    };
    expect(await reasonOf([first, edit(last, (c) => ({ ...c, closing: c.closing + 500_000 }))])).toMatch(
      /closed day 2026-03-08 does not verify: its closing \d+ is not its opening -?\d+ plus its entries/,
    );
    expect(
      await reasonOf([
        edit(first, (c) => ({
          ...c,
          closing: c.closing + 1,
          totals: { ...c.totals, income: c.totals.income + 1 },
        })),
        last,
      ]),
    ).toMatch(/closed day 2026-03-08 does not verify: its opening -?\d+ is not the closing of 2026-03-07/);
    const pack = (JSON.parse(last) as Close).dir;
    const xlsx = join(pack, '2026-03-08.xlsx');
    const bytes = readFileSync(xlsx);
    writeFileSync(xlsx, Buffer.concat([bytes, Buffer.from('x')]));
    expect(await reasonOf([first, last])).toMatch(
      /closed day 2026-03-08 does not verify: its pack's 2026-03-08\.xlsx is not the one SHA256SUMS names/,
    );
    writeFileSync(xlsx, bytes);
    writeFileSync(file, `not a close\n${text}`);
    const list = await pix(['close', '--list']);
    expect(list.code).toBe(8);
    expect(list.stderr).toMatch(/closes\.jsonl line 1 cannot be read \(edited or damaged\)/);
  });

  it('a signed day closed again without --key is refused (its signature is never dropped); with --key it is signed again', async () => {
    const pix = machine(await served());
    const keys = keyDir();
    deferred.defer(keys.cleanup);
    const key = makeKey(keys.dir, 'ed25519', 'contador@empresa');
    expect(
      (await pix(['close', '--day', 'today', '--opening-balance', '0', '--key', key.privatePath!])).code,
    ).toBe(0);
    now = new Date(now.getTime() + 3_600_000);
    const unsigned = await pix(['close', '--day', 'today']);
    expect(unsigned.code).toBe(2);
    expect(unsigned.stderr).toMatch(
      /--key: 2026-03-10 was closed signed \(by SHA256:\S+\): closing it again without --key would drop its signature/,
    );
    const signed = await pix(['close', '--day', 'today', '--key', key.privatePath!]);
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toContain('(signed)');
    expect((await pix(['close', '--list'])).code).toBe(0);
  });

  it('closing a day before a closed one is explained: why not, the next day to close, and who could reopen', async () => {
    const pix = machine(await served());
    expect((await pix(['close', '--day', '2026-03-08', '--opening-balance', '0'])).code).toBe(0);
    const early = await pix(['close', '--day', '2026-03-05']);
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(
      /--day: 2026-03-05 is before 2026-03-08, which is closed: days are closed in order/,
    );
    expect(early.stderr).toMatch(
      /hint: the next day to close is 2026-03-09 \(pix close --day 2026-03-09\); .*Reopening means removing the closes from 2026-03-05 on .*for whoever keeps the books and signed them, never pix/,
    );
  });
});

suite('closed days on a shared ledger', { timeout: 60_000 }, () => {
  it('a day one machine closed is the other’s; edited on the ledger, it is loud on both', async () => {
    const name = `books_${process.pid}`;
    const ledger = cluster().createDatabase(name);
    const pool = openPool(ledger, {});
    await migrateSchema(pool.sql, 'test');
    await pool.sql.end();
    const url = await served();
    const [a, b] = [machine(url, ledger), machine(url, ledger)];
    const empty = await b(['close', '--list']);
    expect(empty.stderr).toMatch(/no closed days/);
    const closed = await a(['close', '--day', '2026-03-08', '--opening-balance', '1.000,00']);
    expect(closed.code, closed.stderr).toBe(0);
    const seen = await b(['close', '--list', '--json']);
    expect(seen.code, seen.stderr).toBe(0);
    expect((JSON.parse(seen.stdout) as { results: Close[] }).results.map((c) => c.day)).toEqual([
      '2026-03-08',
    ]);
    // B closes the next day from A's close.
    const next = await b(['close', '--day', '2026-03-09', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect((JSON.parse(next.stdout) as Close).opening).toBe(
      (JSON.parse(seen.stdout) as { results: Close[] }).results[0]!.closing,
    );
    cluster().psql(
      `UPDATE pix_closes SET line = jsonb_set(line::jsonb, '{closing}', to_jsonb((line::jsonb->>'closing')::int + 500000))::text WHERE day = '2026-03-08'`,
      name,
    );
    for (const m of [a, b]) {
      const list = await m(['close', '--list']);
      expect(list.code).toBe(8);
      expect(list.stderr).toMatch(
        /closed day 2026-03-08 does not verify: its closing \d+ is not its opening/,
      );
    }
  });
});
