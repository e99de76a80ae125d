/**
 * The ledger suite, run against both stores (docs/team.md): the file store of a config directory and the
 * PostgreSQL store of a real server this file starts (test/helpers/postgres.ts). The same commands, the
 * same rules: what is paid, what holds a payment (unknown, in flight), duplicates within the window, rows
 * of a file, the charge ledger, resolutions — and what only a shared store can say (a lease on another
 * machine, a lease that stopped beating).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/journal/entries.js';
import { openPool } from '../../src/journal/postgres/connect.js';
import { migrateSchema } from '../../src/journal/postgres/schema.js';
import { openPostgresJournal } from '../../src/journal/postgres/store.js';
import type { Account } from '../../src/journal/rules.js';
import { fileStore, type JournalStore } from '../../src/journal/stores.js';
import { run } from '../../src/main.js';
import { startSandboxServer } from '../../src/sandbox/server.js';
import { SYSTEM } from '../../src/system.js';
import { deferEach } from '../helpers/cleanup.js';
import { createTestIO } from '../helpers/io.js';
import { clusterPerFile } from '../helpers/postgres.js';

const deferred = deferEach();
const { missing, cluster } = clusterPerFile();
let databases = 0;

type Backend = 'file' | 'postgres';

/** A fresh database with pix's schema, for one test. */
async function freshLedger(): Promise<string> {
  const url = cluster().createDatabase(`ledger_${process.pid}_${++databases}`);
  const pool = openPool(url, {});
  try {
    await migrateSchema(pool.sql, 'test');
  } finally {
    await pool.sql.end();
  }
  return url;
}

/** A served sandbox, a config directory, and pix in-process on the given store. */
async function setup(backend: Backend) {
  const dir = deferred.dir();
  const server = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox-state.json') });
  deferred.defer(() => server.close());
  const ledger = backend === 'postgres' ? await freshLedger() : undefined;
  const env: Record<string, string> = {
    PIX_CONFIG_DIR: dir,
    PIX_BASE_URL: server.url,
    PIX_TOKEN: 'ledger-token',
    ...(ledger === undefined ? {} : { PIX_LEDGER_URL: ledger }),
  };
  const pix = async (args: string[]) => {
    const test = createTestIO();
    const code = await run(args, { io: test.io, env });
    return { code, stdout: test.stdout(), stderr: test.stderr() };
  };
  // The account as pix learns it (its bank details, from the DICT: commands/shared/account.ts).
  const shown = await pix(['account', '--json']);
  const account: Account = {
    id: (JSON.parse(shown.stdout) as { id: string }).id,
    profile: 'sandbox',
    baseUrl: server.url,
    host: new URL(server.url).host,
    legacy: [],
    formerIds: [],
  };
  /** The store as another pix process (`pid`, on `host`) opens it. */
  const storeAs = (pid: number, host = hostname()): JournalStore => {
    const processes = {
      pid,
      alive: (other: number) => {
        try {
          process.kill(other, 0);
          return true;
        } catch {
          return false;
        }
      },
    };
    const clock = { now: () => new Date() };
    const store =
      ledger === undefined
        ? fileStore(dir, { clock, random: SYSTEM.random, processes })
        : openPostgresJournal({ url: ledger, dir, clock, processes, host, system: SYSTEM });
    deferred.defer(() => store.close());
    return store;
  };
  const transfers = () => server.requests.filter((r) => r.endpoint === 'transfer').length;
  return { dir, env, pix, account, storeAs, transfers, ledger };
}

/** A claim of `pay key KEY --amount` as another process makes it, left `sending` (killed before its outcome). */
async function claimKey(store: JournalStore, account: Account, key: string, amountCentavos: number) {
  const query = { method: 'key' as const, key, amountCentavos };
  const claim = await store.claim(
    {
      kind: 'payment',
      account: account.id,
      profile: 'sandbox',
      host: account.host,
      baseUrl: account.baseUrl,
      amountCentavos,
      payment: { method: 'key', key },
    },
    { account, query },
  );
  expect(claim.entry, 'the claim stands').toBeDefined();
  return claim.entry as JournalEntry;
}

/** A child that stays alive until the test ends: a live process that is not this one. */
function liveProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  deferred.defer(() => child.kill('SIGKILL'));
  return child.pid!;
}

const backends: Backend[] = ['file', 'postgres'];

describe.each(backends)('the ledger on the %s store', (backend) => {
  const skip = backend === 'postgres' && missing !== undefined;
  if (skip) it.skip(`SKIPPED: ${missing}`, () => {});
  const test = skip ? it.skip : it;

  test('a payment is paid once: the same within 10 minutes is refused (exit 8), --allow-duplicate pays', async () => {
    const s = await setup(backend);
    const pay = ['pay', 'key', 'ana@example.com', '--amount', '12,34', '--yes', '--duplicate-window', '0'];
    const first = await s.pix(pay);
    expect(first.code, first.stderr).toBe(0);
    const again = await s.pix(pay);
    expect(again.code, again.stderr).toBe(8);
    expect(again.stderr).toMatch(/already paid: R\$ 12,34/);
    const allowed = await s.pix([...pay, '--allow-duplicate']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(s.transfers()).toBe(2);
    const listed = await s.pix(['journal', '--json']);
    expect(JSON.parse(listed.stdout).results.map((e: JournalEntry) => e.state)).toEqual(['done', 'done']);
  });

  test('rows of a file: each paid once; a rerun pays none; a paid row edited to another amount is exit 2', async () => {
    const s = await setup(backend);
    const file = join(s.dir, 'rows.csv');
    writeFileSync(
      file,
      'id,key,amount\nr1,ana@example.com,10.00\nr2,bruno@example.com,11.00\nr3,carla@example.com,12.00\n',
    );
    const first = await s.pix(['pay', 'batch', file, '--yes', '-o', 'ndjson']);
    expect(first.code, first.stderr).toBe(0);
    expect(s.transfers()).toBe(3);
    const again = await s.pix(['pay', 'batch', file, '--yes', '-o', 'ndjson']);
    expect(again.code, again.stderr).toBe(0);
    const states = again.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).state);
    expect(states).toEqual(['already_paid', 'already_paid', 'already_paid']);
    writeFileSync(file, 'id,key,amount\nr1,ana@example.com,99.00\n');
    const edited = await s.pix(['pay', 'batch', file, '--yes']);
    expect(edited.code, edited.stderr).toBe(2);
    expect(edited.stderr).toMatch(/row id was paid before/);
    expect(s.transfers()).toBe(3);
  });

  test('a payment whose process died sending is unknown: it holds the same payment until resolved, from any pix', async () => {
    const s = await setup(backend);
    // A pid no process has: the claim's process is gone.
    const dead = await claimKey(s.storeAs(2 ** 22 + 17), s.account, 'dora@example.com', 2500);
    const payDora = () =>
      s.pix(['pay', 'key', 'dora@example.com', '--amount', '25', '--yes', '--duplicate-window', '0']);
    const held = await payDora();
    expect(held.code, held.stderr).toBe(8);
    expect(held.stderr).toMatch(/an earlier payment has no known outcome/);
    expect(s.transfers()).toBe(0);
    const resolved = await s.pix(['journal', 'resolve', dead.id.slice(0, 8), '--not-paid']);
    expect(resolved.code, resolved.stderr).toBe(0);
    const paid = await payDora();
    expect(paid.code, paid.stderr).toBe(0);
    expect(s.transfers()).toBe(1);
  });

  test('a payment another live pix is sending is "in progress" (exit 8), nothing sent', async () => {
    const s = await setup(backend);
    await claimKey(s.storeAs(liveProcess()), s.account, 'eva@example.com', 3000);
    const busy = await s.pix([
      'pay',
      'key',
      'eva@example.com',
      '--amount',
      '30',
      '--yes',
      '--duplicate-window',
      '0',
    ]);
    expect(busy.code, busy.stderr).toBe(8);
    expect(busy.stderr).toMatch(/in progress elsewhere: pix process \d+ is sending/);
    expect(s.transfers()).toBe(0);
  });

  test('charges are kept in the same ledger: created, listed, shown again with the same code', async () => {
    const s = await setup(backend);
    const created = await s.pix([
      'charge',
      'immediate',
      '--amount',
      '15',
      '--key',
      'loja@sandbox.pix.local',
      '--no-qr',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const { id, emvqrcps } = JSON.parse(created.stdout);
    const shown = await s.pix(['charge', 'show', id, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).emv ?? JSON.parse(shown.stdout).emvqrcps).toBe(emvqrcps);
    const listed = await s.pix(['charge', 'list', '--json']);
    expect(JSON.parse(listed.stdout).results.map((c: { id: string }) => c.id)).toEqual([id]);
  });
});

/** A claim of batch row r1 paying R$ 1,00 to `key` on `account`: its fields and its question. */
function rowClaim(account: Account, key: string) {
  const fields = {
    kind: 'payment' as const,
    account: account.id,
    profile: 'sandbox',
    host: account.host,
    amountCentavos: 100,
    payment: { method: 'key' as const, key, batchRow: { batch: 'b', row: 'r1' } },
  };
  const question = { account, query: { method: 'key' as const, key, amountCentavos: 100 }, row: 'r1' };
  return { fields, question };
}

describe('the PostgreSQL store alone', () => {
  const test = missing === undefined ? it : it.skip;

  test('a claim on another machine is "in progress on HOST" while its lease beats; stopped, it becomes unknown', async () => {
    const s = await setup('postgres');
    const entry = await claimKey(s.storeAs(4242, 'ci-runner-7'), s.account, 'fabio@example.com', 4000);
    const pay = ['pay', 'key', 'fabio@example.com', '--amount', '40', '--yes', '--duplicate-window', '0'];
    const busy = await s.pix(pay);
    expect(busy.code, busy.stderr).toBe(8);
    expect(busy.stderr).toMatch(/in progress on ci-runner-7: pix process 4242 on ci-runner-7 is sending/);
    // The other machine stops beating (its heartbeat is a minute old): held as unknown, never in progress.
    cluster().psql(
      `UPDATE pix_journal SET lease_beat = now() - interval '1 minute' WHERE id = '${entry.id}'`,
      new URL(s.ledger!).pathname.slice(1),
    );
    const held = await s.pix(pay);
    expect(held.code, held.stderr).toBe(8);
    expect(held.stderr).toMatch(/an earlier payment has no known outcome/);
    const shown = await s.pix(['journal', 'show', entry.id.slice(0, 8), '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ state: 'unknown', reason: 'lease expired' });
    expect(s.transfers()).toBe(0);
  });

  test('two claims of one row at once: one stands, the other sees it (one transaction and lock per account)', async () => {
    const s = await setup('postgres');
    const stores = [s.storeAs(liveProcess()), s.storeAs(liveProcess(), 'other-machine')];
    const { fields, question } = rowClaim(s.account, 'gil@example.com');
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => stores[i % 2]!.claim(fields, question)),
    );
    expect(claims.filter((claim) => claim.entry !== undefined)).toHaveLength(1);
    expect(claims.filter((claim) => claim.blocked?.byRow === true)).toHaveLength(7);
  });

  test('a claim another machine finished after it was found: asking who sends it brings the entry up to date', async () => {
    const s = await setup('postgres');
    const [a, b] = [s.storeAs(liveProcess(), 'machine-a'), s.storeAs(liveProcess(), 'machine-b')];
    const { fields, question } = rowClaim(s.account, 'hana@example.com');
    const claimed = await a.claim(fields, question);
    const found = await b.claim(fields, question);
    expect(found.blocked?.blocker.entry.state).toBe('sending');
    await a.finish(claimed.entry!.id, { state: 'done' });
    // Nobody sends it now, and it is judged as it is: paid once (a batch reports already_paid, not unknown).
    expect(await b.holder(found.blocked!.blocker.entry)).toBeUndefined();
    expect(found.blocked!.blocker.entry.state).toBe('done');
    await Promise.all([a.close(), b.close()]);
  });
});
