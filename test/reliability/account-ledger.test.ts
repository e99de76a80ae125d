/**
 * One account, however machines reach it (journal/accounts.ts, commands/shared/account.ts): on a real
 * PostgreSQL ledger shared by config directories (machines), against served sandboxes (one account each,
 * several behind one URL through a router that picks by credentials: test/helpers/router.ts). Each case pays
 * a batch, changes what the account looks like to pix — its keys, its credentials, where a key lives — and
 * pays again: every row is paid once per account, never twice, and never taken for another account's.
 * The statement guard is off (`--duplicate-window 0`) so the ledger alone answers.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ACCOUNTS_FILE, credentialFingerprint } from '../../src/journal/accounts.js';
import { openPool } from '../../src/journal/postgres/connect.js';
import { migrateSchema } from '../../src/journal/postgres/schema.js';
import { fileStore } from '../../src/journal/stores.js';
import type { SandboxState } from '../../src/sandbox/model.js';
import { accountNumber } from '../../src/sandbox/seed.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { readSandboxState, StateStore } from '../../src/sandbox/store.js';
import { SYSTEM } from '../../src/system.js';
import { deferEach } from '../helpers/cleanup.js';
import { pix as runPix } from '../helpers/pix.js';
import { clusterPerFile } from '../helpers/postgres.js';
import { startAccountsRouter } from '../helpers/router.js';

const deferred = deferEach();
const { suite, cluster } = clusterPerFile();
const DAY = 24 * 60 * 60 * 1000;

/** The test's clock, shared by pix and the sandboxes: `later(ms)` moves both on. */
let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };
const later = (ms: number) => {
  offset += ms;
};
afterEach(() => {
  offset = 0;
});

let databases = 0;
async function ledger(): Promise<string> {
  const url = cluster().createDatabase(`acct_${process.pid}_${++databases}`);
  const pool = openPool(url, {});
  await migrateSchema(pool.sql, 'test');
  await pool.sql.end();
  return url;
}

interface Served {
  server: SandboxServer;
  stateFile: string;
  url: string;
  /** Changes the account's state (its keys) as its bank would. */
  change(work: (state: SandboxState) => void): Promise<void>;
  /** Transfers the account sent. */
  transfers(): number;
  /** Its bank details as the DICT answers them. */
  bank(): { participant: string; branch: string; number: string };
}

async function serve(): Promise<Served> {
  const stateFile = join(deferred.dir(), 'state.json');
  const server = await startSandboxServer({ port: 0, stateFile, clock: () => clock.now() });
  deferred.defer(() => server.close());
  const store = new StateStore(stateFile, { host: SYSTEM, clock: () => clock.now() });
  await store.read();
  return {
    server,
    stateFile,
    url: server.url,
    change: async (work) => {
      await store.update((state) => {
        work(state);
      });
    },
    transfers: () => Object.keys(readSandboxState(stateFile)?.transfers ?? {}).length,
    bank() {
      const state = readSandboxState(stateFile)!;
      return {
        participant: state.account.participant,
        branch: state.account.branch,
        number: accountNumber(state),
      };
    },
  };
}

/** A key of the account's own, registered now (its id sorting before every other: `0…`). */
const newKey = (state: SandboxState, key = randomUUID(), id = `00000000-${randomUUID().slice(9)}`) => {
  state.keys.push({ id, key, keyType: 'EVP', createdAt: clock.now().toISOString() });
};

type Env = Record<string, string>;

/** A machine: a config directory of its own on the ledger, with credentials it can change. */
function machine(env: Env) {
  const dir = deferred.dir();
  const own: Env = { PIX_CONFIG_DIR: dir, HOME: dir, ...env };
  return {
    dir,
    env: own,
    set(changes: Env) {
      Object.assign(own, changes);
    },
    run: (args: string[]) => runPix(args, { env: { ...own }, clock }),
  };
}

/** `id,key,amount` rows: `prefix001` … to distinct keys, R$ 1,00 + the row's number (+ `extra`). */
function batch(dir: string, rows: number, prefix = 'r', extra = 0): string {
  const lines = ['id,key,amount'];
  for (let n = 1; n <= rows; n++) {
    const id = `${prefix}${String(n).padStart(3, '0')}`;
    lines.push(`${id},${id}@example.com,${n + 1 + extra}.00`);
  }
  const file = join(dir, `${prefix}-${extra}.csv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const PAY = ['--yes', '--duplicate-window', '0', '-o', 'ndjson'];
const states = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { state: string }).state);

async function payBatch(m: ReturnType<typeof machine>, file: string) {
  const result = await m.run(['pay', 'batch', file, ...PAY]);
  return { ...result, states: states(result.stdout) };
}

suite('the account is its bank account, on a shared ledger', { timeout: 120_000 }, () => {
  it('two machines joining an account before and after it gains a key (whose id sorts first) pay one batch once', async () => {
    const url = await ledger();
    const bank = await serve();
    const a = machine({ PIX_BASE_URL: bank.url, PIX_TOKEN: 'token-a', PIX_LEDGER_URL: url });
    const file = batch(a.dir, 3);
    const first = await payBatch(a, file);
    expect(first.code, first.stderr).toBe(0);
    expect(first.states).toEqual(['paid', 'paid', 'paid']);
    await bank.change((state) => newKey(state));
    // A fresh CI runner: its own config directory, its own token, the same ledger.
    const b = machine({ PIX_BASE_URL: bank.url, PIX_TOKEN: 'token-b', PIX_LEDGER_URL: url });
    const second = await payBatch(b, file);
    expect(second.code, second.stderr).toBe(0);
    expect(second.states).toEqual(['already_paid', 'already_paid', 'already_paid']);
    // And the first machine, a day later (the key list asked again), still pays nothing twice.
    later(DAY + 60_000);
    const third = await payBatch(a, file);
    expect(third.states, third.stderr).toEqual(['already_paid', 'already_paid', 'already_paid']);
    expect(bank.transfers()).toBe(3);
  });

  it('an account whose only key is replaced, then its token rotated, pays its batch once', async () => {
    const url = await ledger();
    const bank = await serve();
    await bank.change((state) => {
      state.keys = state.keys.filter((key) => key.keyType === 'EVP');
    });
    const a = machine({ PIX_BASE_URL: bank.url, PIX_TOKEN: 'token-1', PIX_LEDGER_URL: url });
    const file = batch(a.dir, 3);
    expect((await payBatch(a, file)).states).toEqual(['paid', 'paid', 'paid']);
    await bank.change((state) => {
      state.keys = [];
      newKey(state);
    });
    later(2 * DAY);
    a.set({ PIX_TOKEN: 'token-2' });
    const again = await payBatch(a, file);
    expect(again.code, again.stderr).toBe(0);
    expect(again.states).toEqual(['already_paid', 'already_paid', 'already_paid']);
    expect(bank.transfers()).toBe(3);
  });

  it('a key-less account is named once (pix account bind); its client key rotated, then its first key registered: its batch paid once', async () => {
    const url = await ledger();
    const bank = await serve();
    await bank.change((state) => {
      state.keys = [];
    });
    const router = await startAccountsRouter({ 'client:ck-1': bank.url, 'client:ck-2': bank.url });
    deferred.defer(() => router.close());
    const a = machine({
      PIX_BASE_URL: router.url,
      PIX_CLIENT_KEY: 'ck-1',
      PIX_CLIENT_SECRET: 'secret-1',
      PIX_LEDGER_URL: url,
    });
    const file = batch(a.dir, 3);
    const unnamed = await payBatch(a, file);
    expect(unnamed.code).toBe(8);
    expect(unnamed.stderr).toMatch(
      /lists no PIX key .* so pix cannot tell which bank account it is; nothing was sent/,
    );
    expect(unnamed.stderr).toMatch(/hint: name it once .*pix account bind --participant/);
    expect(bank.transfers()).toBe(0);
    const { participant, branch, number } = bank.bank();
    const bind = ['account', 'bind', '--participant', participant, '--branch', branch, '--number', number];
    const bound = await a.run(bind);
    expect(bound.code, bound.stderr).toBe(0);
    expect((await payBatch(a, file)).states).toEqual(['paid', 'paid', 'paid']);
    // Another machine with the same client key knows it from the ledger: nothing to bind there.
    const b = machine({
      PIX_BASE_URL: router.url,
      PIX_CLIENT_KEY: 'ck-1',
      PIX_CLIENT_SECRET: 'secret-1',
      PIX_LEDGER_URL: url,
    });
    expect((await payBatch(b, file)).states).toEqual(['already_paid', 'already_paid', 'already_paid']);
    // The client key rotated: new credentials are not known to be this account until named.
    a.set({ PIX_CLIENT_KEY: 'ck-2', PIX_CLIENT_SECRET: 'secret-2' });
    expect((await payBatch(a, file)).code).toBe(8);
    expect((await a.run(bind)).code).toBe(0);
    expect((await payBatch(a, file)).states).toEqual(['already_paid', 'already_paid', 'already_paid']);
    // Its first key registered, a day later: learned from the DICT, the same bank account.
    await bank.change((state) => newKey(state));
    later(DAY + 60_000);
    const keyed = await payBatch(a, file);
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(keyed.states).toEqual(['already_paid', 'already_paid', 'already_paid']);
    expect(bank.transfers()).toBe(3);
  });

  it('two key-less accounts on one URL with token logins are never one: each named, each pays its payroll', async () => {
    const url = await ledger();
    const [first, second] = [await serve(), await serve()];
    for (const bank of [first, second]) {
      await bank.change((state) => {
        state.keys = [];
      });
    }
    const router = await startAccountsRouter({ 'token-first': first.url, 'token-second': second.url });
    deferred.defer(() => router.close());
    const one = machine({ PIX_BASE_URL: router.url, PIX_TOKEN: 'token-first', PIX_LEDGER_URL: url });
    const two = machine({ PIX_BASE_URL: router.url, PIX_TOKEN: 'token-second', PIX_LEDGER_URL: url });
    const payroll = batch(one.dir, 3);
    for (const [m, bank] of [
      [one, first],
      [two, second],
    ] as const) {
      expect((await payBatch(m, payroll)).code).toBe(8);
      const { participant, branch, number } = bank.bank();
      const bound = await m.run([
        'account',
        'bind',
        '--participant',
        participant,
        '--branch',
        branch,
        '--number',
        number,
      ]);
      expect(bound.code, bound.stderr).toBe(0);
    }
    expect((await payBatch(one, payroll)).states).toEqual(['paid', 'paid', 'paid']);
    const theirs = await payBatch(two, payroll);
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(theirs.states).toEqual(['paid', 'paid', 'paid']);
    expect([first.transfers(), second.transfers()]).toEqual([3, 3]);
  });

  it('a key moved from account P to account Q: Q pays its payroll with P’s row ids, and never its own batch again', async () => {
    const url = await ledger();
    const [p, q] = [await serve(), await serve()];
    // One machine that pays for both companies: two profiles, one config directory, one ledger.
    const router = await startAccountsRouter({ 'token-p': p.url, 'token-q': q.url });
    deferred.defer(() => router.close());
    const ops = machine({ PIX_BASE_URL: router.url, PIX_LEDGER_URL: url });
    for (const [profile, token] of [
      ['p', 'token-p'],
      ['q', 'token-q'],
    ]) {
      const login = await runPix(['login', '--profile', profile!, '--with-token', '--base-url', router.url], {
        env: { ...ops.env },
        stdin: `${token}\n`,
        clock,
      });
      expect(login.code, login.stderr).toBe(0);
    }
    const qOwn = batch(ops.dir, 3, 'q');
    const payroll = batch(ops.dir, 3, 'r');
    const asQ = (file: string) => ops.run(['pay', 'batch', file, ...PAY, '--profile', 'q']);
    // P first (the account this machine knew first), then Q's own batch.
    expect(states((await ops.run(['pay', 'batch', payroll, ...PAY, '--profile', 'p'])).stdout)).toEqual([
      'paid',
      'paid',
      'paid',
    ]);
    expect(states((await asQ(qOwn)).stdout)).toEqual(['paid', 'paid', 'paid']);
    // P's phone key is ported to Q (which gave up its own phone key), with its record.
    await q.change((state) => {
      state.keys = state.keys.filter((key) => key.keyType !== 'PHONE');
    });
    const moved = await ops.run([
      'sandbox',
      'move-key',
      '+5511912345678',
      '--state',
      p.stateFile,
      '--to',
      q.stateFile,
    ]);
    expect(moved.code, moved.stderr).toBe(0);
    later(DAY + 60_000);
    // Q's payroll, with the row ids P used: Q's own, paid.
    const qPayroll = batch(ops.dir, 3, 'r', 10);
    const theirs = await asQ(qPayroll);
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(states(theirs.stdout)).toEqual(['paid', 'paid', 'paid']);
    // Q's own earlier batch: paid already.
    expect(states((await asQ(qOwn)).stdout)).toEqual(['already_paid', 'already_paid', 'already_paid']);
    expect([p.transfers(), q.transfers()]).toEqual([3, 6]);
  });

  it('the same credentials reaching another bank account: exit 8 on every machine until confirmed, then that account pays', async () => {
    const url = await ledger();
    const [before, after] = [await serve(), await serve()];
    const router = await startAccountsRouter({ 'token-x': before.url });
    deferred.defer(() => router.close());
    const a = machine({ PIX_BASE_URL: router.url, PIX_TOKEN: 'token-x', PIX_LEDGER_URL: url });
    const b = machine({ PIX_BASE_URL: router.url, PIX_TOKEN: 'token-x', PIX_LEDGER_URL: url });
    const file = batch(a.dir, 3);
    expect((await payBatch(a, file)).states).toEqual(['paid', 'paid', 'paid']);
    // Machine b learns the same credentials from the ledger: no consultation, nothing to pay.
    expect((await payBatch(b, file)).states).toEqual(['already_paid', 'already_paid', 'already_paid']);
    router.route('token-x', after.url);
    later(DAY + 60_000);
    const changed = await payBatch(a, file);
    expect(changed.code).toBe(8);
    expect(changed.stderr).toMatch(
      /the credentials of profile "[^"]+" reached bank account acct_\w+ .* and now reach bank account acct_\w+/,
    );
    expect(changed.stderr).toMatch(/hint: .*pix account confirm/);
    // The other machine, whose credentials' record is fresh, is held too (the ledger says another waits).
    expect((await payBatch(b, file)).code).toBe(8);
    expect(after.transfers()).toBe(0);
    const confirmed = await b.run(['account', 'confirm']);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    const paid = await payBatch(a, file);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.states).toEqual(['paid', 'paid', 'paid']);
    expect([before.transfers(), after.transfers()]).toEqual([3, 3]);
  });

  it('records written under the names earlier versions gave (one per machine) are attached on first read, counted and reported, and stay paid', async () => {
    const url = await ledger();
    const bank = await serve();
    const baseUrl = bank.url;
    /** A machine as an earlier pix left it: accounts.json naming the account by a key id, its journal under that name. */
    const earlier = (name: string, token: string, rows: number) => {
      const m = machine({ PIX_BASE_URL: baseUrl, PIX_TOKEN: token, PIX_LEDGER_URL: url });
      writeFileSync(
        join(m.dir, ACCOUNTS_FILE),
        JSON.stringify({
          version: 1,
          accounts: {
            [name]: { basis: 'keys', keyIds: ['an-old-key'], baseUrls: [baseUrl], legacy: [], learnedAt: '' },
          },
          credentials: {
            [credentialFingerprint(baseUrl, 'token', token)]: { account: name, at: '2026-01-01T00:00:00Z' },
          },
        }),
      );
      const journal = fileStore(m.dir, { ...SYSTEM, clock });
      return { m, journal, rows };
    };
    const a = earlier('acct_first_name', 'token-a', 3);
    const file = batch(a.m.dir, 3);
    for (let n = 1; n <= 3; n++) {
      const id = `r${String(n).padStart(3, '0')}`;
      const entry = await a.journal.begin({
        kind: 'payment',
        account: 'acct_first_name',
        profile: 'default',
        host: new URL(baseUrl).host,
        baseUrl,
        amountCentavos: (n + 1) * 100,
        receiver: 'someone',
        endToEndId: `E${n}`,
        payment: { method: 'key', key: `${id}@example.com`, batchRow: { batch: 'earlier', row: id } },
      });
      await a.journal.finish(entry.id, { state: 'done' });
    }
    const migrated = await a.m.run(['ledger', 'migrate', '--from', 'file']);
    expect(migrated.code, migrated.stderr).toBe(0);
    const first = await payBatch(a.m, file);
    expect(first.code, first.stderr).toBe(0);
    expect(first.states).toEqual(['already_paid', 'already_paid', 'already_paid']);
    expect(first.stderr).toMatch(
      /note: records written under the former name acct_first_name \(before pix knew accounts by their bank details\) are now bank account acct_\w+ .*'s: 3 payments, 0 other journal entries/,
    );
    // Once: the next command says nothing of it.
    expect((await payBatch(a.m, file)).stderr).not.toMatch(/former name/);
    // Another machine, whose earlier pix named the account otherwise, sees the same rows paid.
    const b = earlier('acct_second_name', 'token-b', 0);
    const second = await payBatch(b.m, file);
    expect(second.states, second.stderr).toEqual(['already_paid', 'already_paid', 'already_paid']);
    const shown = JSON.parse((await b.m.run(['account', '--json'])).stdout) as { formerIds: string[] };
    expect(shown.formerIds.sort()).toEqual(['acct_first_name', 'acct_second_name']);
    expect(bank.transfers()).toBe(0);
  });
});
