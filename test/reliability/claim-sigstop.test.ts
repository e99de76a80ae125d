/**
 * The paused claimant, end to end (docs/team.md, "A pause"): the built pix on two machines (config
 * directories) sharing a real PostgreSQL ledger, against a served sandbox. Machine A claims a payment and
 * is stopped right after its claim commits (PIX_TEST_STOP_AT=claimed: the process sends itself SIGSTOP,
 * as a suspended laptop or a frozen container would be, at the one moment a test cannot otherwise hit).
 * Machine B sees the claim lapse into unknown, is refused `--not-paid` until the claim's send deadline,
 * then resolves it and pays; A, continued (SIGCONT), sends nothing: one transfer in all. The waits are on
 * conditions of the database's clock (the lease's 30 s are real here), never fixed sleeps.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openPool } from '../../src/journal/postgres/connect.js';
import { migrateSchema } from '../../src/journal/postgres/schema.js';
import { startSandboxServer } from '../../src/sandbox/server.js';
import { readSandboxState } from '../../src/sandbox/store.js';
import { deferEach } from '../helpers/cleanup.js';
import { BIN, NODE, runProcess } from '../helpers/cli.js';
import { clusterPerFile } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';

const deferred = deferEach();
const { suite, cluster } = clusterPerFile();

/** Whether process `pid` is stopped (Linux: its state letter in /proc). */
function stopped(pid: number): boolean {
  try {
    return /^\d+ \(.*\) T /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

suite('a pix stopped (SIGSTOP) right after its claim', () => {
  it('the other machine resolves and pays it after the send deadline; the stopped pix, continued, sends nothing', async () => {
    const name = `sigstop_${process.pid}`;
    const url = cluster().createDatabase(name);
    // The test's own connection: it looks at the ledger every few milliseconds while it waits on the
    // database's clock (a psql started for each look cost more CPU than the test's pix processes).
    const pool = openPool(url, {}, 1);
    deferred.defer(() => pool.sql.end());
    await migrateSchema(pool.sql, 'test');
    const stateFile = join(deferred.dir(), 'state.json');
    const server = await startSandboxServer({ port: 0, stateFile });
    deferred.defer(() => server.close());
    const envOf = (dir: string) => ({
      PATH: process.env.PATH ?? '',
      HOME: dir,
      PIX_CONFIG_DIR: dir,
      PIX_BASE_URL: server.url,
      PIX_TOKEN: 'sigstop',
      PIX_LEDGER_URL: url,
    });
    const [a, b] = [deferred.dir(), deferred.dir()];
    const pay = [
      'pay',
      'key',
      'ana@example.com',
      '--amount',
      '10',
      '--yes',
      '--duplicate-window',
      '0',
      '--timeout',
      '2s',
    ];
    const onB = (args: string[]) => runProcess(NODE, [BIN, ...args], { env: envOf(b), timeoutMs: 60_000 });
    /** The first column of the query's first row, as text. */
    const sql = async (query: string) => {
      const [row] = await pool.sql.unsafe(query);
      return row === undefined ? '' : String(Object.values(row)[0]);
    };
    const transfers = () => Object.keys(readSandboxState(stateFile)?.transfers ?? {}).length;

    const child: ChildProcess = spawn(NODE, [BIN, ...pay], {
      env: { ...envOf(a), PIX_TEST_STOP_AT: 'claimed' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    deferred.defer(() => {
      if (child.exitCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
    });
    await until(() => stopped(child.pid!), 'pix A to stop after its claim', 30_000);
    const id = await sql(`SELECT id FROM pix_journal WHERE state = 'sending'`);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const short = id.slice(0, 8);

    // While its lease lives, B sees it in progress; once it lapses (no heartbeat: A is stopped), unknown.
    const busy = await onB(pay);
    expect(busy.code, busy.stderr).toBe(8);
    expect(busy.stderr).toMatch(/in progress (elsewhere|on \S+): pix process \d+ is sending/);
    await until(
      async () =>
        (await sql(`SELECT now() - lease_beat > interval '30 s' FROM pix_journal WHERE id = '${id}'`)) ===
        'true',
      'the stopped claim to lapse',
      60_000,
    );
    const held = await onB(pay);
    expect(held.code, held.stderr).toBe(8);
    expect(held.stderr).toMatch(/an earlier payment has no known outcome/);
    expect(transfers()).toBe(0);
    // The statement shows nothing, but the claim may still be sent until its deadline.
    const early = await onB(['journal', 'resolve', short, '--not-paid']);
    expect(early.code, early.stderr).toBe(8);
    expect(early.stderr).toMatch(new RegExp(`journal entry ${short} may still be sent until `));
    await until(
      async () => (await sql(`SELECT send_deadline < now() FROM pix_journal WHERE id = '${id}'`)) === 'true',
      'the send deadline to pass',
      60_000,
    );
    const resolved = await onB(['journal', 'resolve', short, '--not-paid']);
    expect(resolved.code, resolved.stderr).toBe(0);
    const paid = await onB(pay);
    expect(paid.code, paid.stderr).toBe(0);
    expect(transfers()).toBe(1);

    // A continues where it stopped: its claim could have lapsed, so nothing is sent.
    child.kill('SIGCONT');
    expect(await exited, stderr).toBe(8);
    expect(stderr).toMatch(
      /was not sent: \d+ s passed since its claim on the shared ledger was last confirmed/,
    );
    expect(transfers()).toBe(1);
    expect(
      await sql(`SELECT state || ' ' || coalesce(resolution, '-') FROM pix_journal WHERE id = '${id}'`),
    ).toBe('unknown not-paid');
    expect(await sql(`SELECT count(*) FROM pix_journal WHERE state = 'done'`)).toBe('1');
  }, 180_000);
});
