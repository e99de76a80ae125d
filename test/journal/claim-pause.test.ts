/**
 * A claim that cannot be outlived (journal/postgres/leases.ts), on a real PostgreSQL: a claimant paused at
 * each step of claim → send → record by the store's seam (storeSeams.pause), while the time its pause
 * lasts passes for everyone — the claimant's monotonic clock (storeSeams.monotonic) and the database's
 * leases and deadlines (rewound by as much) — never by sleeping. Another machine then does what an
 * operator would: sees the row unknown, looks at the statement, resolves it and pays it there. Whatever
 * the step, the row is paid exactly once, and never both done and resolved not paid.
 */

import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openPool } from '../../src/journal/postgres/connect.js';
import { createLeases } from '../../src/journal/postgres/leases.js';
import { migrateSchema } from '../../src/journal/postgres/schema.js';
import { type ClaimStep, storeSeams } from '../../src/journal/postgres/store.js';
import { startSandboxServer } from '../../src/sandbox/server.js';
import { readSandboxState } from '../../src/sandbox/store.js';
import { deferEach } from '../helpers/cleanup.js';
import { pix as runPix } from '../helpers/pix.js';
import { clusterPerFile } from '../helpers/postgres.js';

const deferred = deferEach();
const { suite, cluster } = clusterPerFile();
let databases = 0;

afterEach(() => {
  storeSeams.pause = undefined;
  storeSeams.monotonic = undefined;
});

async function setup() {
  const name = `pause_${process.pid}_${++databases}`;
  const url = cluster().createDatabase(name);
  const pool = openPool(url, {});
  await migrateSchema(pool.sql, 'test');
  await pool.sql.end();
  const stateFile = join(deferred.dir(), 'state.json');
  const server = await startSandboxServer({ port: 0, stateFile });
  deferred.defer(() => server.close());
  /** How long the test made pauses last: the claimants' monotonic clock runs that far ahead. */
  let skew = 0;
  storeSeams.monotonic = () => performance.now() + skew;
  /**
   * `ms` pass for everyone: the database's leases and deadlines are that much older (rewound first, so no
   * heartbeat between the two can renew what has lapsed), then the monotonic clock moves on.
   */
  const passes = (ms: number) => {
    cluster().psql(
      `UPDATE pix_journal SET lease_beat = lease_beat - interval '${ms} milliseconds',
         send_deadline = send_deadline - interval '${ms} milliseconds'`,
      name,
    );
    skew += ms;
  };
  const machine = () => {
    const dir = deferred.dir();
    const env = {
      PIX_CONFIG_DIR: dir,
      HOME: dir,
      PIX_BASE_URL: server.url,
      PIX_TOKEN: 'pause',
      PIX_LEDGER_URL: url,
    };
    return (args: string[]) => runPix(args, { env });
  };
  const transfers = () => Object.values(readSandboxState(stateFile)?.transfers ?? {});
  const rows = () =>
    cluster()
      .psql(`SELECT id, state, coalesce(resolution, '-') FROM pix_journal ORDER BY seq`, name)
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('|'));
  return { machine, passes, transfers, rows, url, name };
}

/** Pauses the first claim that reaches `step`: resolves `reached` with its entry id, waits for `go`. */
function pauseAt(step: ClaimStep) {
  let reached!: (id: string) => void;
  let go!: () => void;
  const at = new Promise<string>((resolve) => {
    reached = resolve;
  });
  const released = new Promise<void>((resolve) => {
    go = resolve;
  });
  let paused = false;
  storeSeams.pause = async (now, id) => {
    if (now !== step || paused) return;
    paused = true;
    reached(id);
    await released;
  };
  return { at, go };
}

const PAY = ['pay', 'key', 'ana@example.com', '--amount', '10', '--yes', '--duplicate-window', '0'];

suite('a claimant paused at each step of claim → send → record', { timeout: 120_000 }, () => {
  for (const step of ['claimed', 'sending'] as const) {
    it(`paused at "${step}" past its lease: the other machine may resolve it only after its send deadline, pays it; the claimant sends nothing`, async () => {
      const s = await setup();
      const [a, b] = [s.machine(), s.machine()];
      const pause = pauseAt(step);
      const claimant = a(PAY);
      const id = await pause.at;
      s.passes(40_000);
      // The other machine: the row is unknown (its lease lapsed), held.
      const held = await b(PAY);
      expect(held.code, held.stderr).toBe(8);
      expect(held.stderr).toMatch(/an earlier payment has no known outcome/);
      // The statement shows nothing (nothing was sent), but it may still be sent: not yet.
      expect(s.transfers()).toHaveLength(0);
      const early = await b(['journal', 'resolve', id.slice(0, 8), '--not-paid']);
      expect(early.code, early.stderr).toBe(8);
      expect(early.stderr).toMatch(
        new RegExp(
          `journal entry ${id.slice(0, 8)} may still be sent until .* \\(in \\d+ s: its claim's lease, the request's timeout and a margin\\)`,
        ),
      );
      s.passes(30_000);
      const resolved = await b(['journal', 'resolve', id.slice(0, 8), '--not-paid']);
      expect(resolved.code, resolved.stderr).toBe(0);
      const paid = await b(PAY);
      expect(paid.code, paid.stderr).toBe(0);
      expect(s.transfers()).toHaveLength(1);
      // The claimant wakes: its claim could have lapsed, so it sends nothing.
      pause.go();
      const woke = await claimant;
      expect(woke.code, woke.stderr).toBe(8);
      expect(woke.stderr).toMatch(
        /was not sent: \d+ s passed since its claim on the shared ledger was last confirmed .*; nothing was sent/,
      );
      expect(s.transfers()).toHaveLength(1);
      // The claimant's entry stays as the ledger had it (sending: both machines are this one process here),
      // resolved not paid, never done; the one done entry is the other machine's.
      const states = s.rows();
      expect(states.find(([entry]) => entry === id)).toEqual([id, 'sending', 'not-paid']);
      expect(states.filter(([entry, state]) => state === 'done' && entry !== id)).toHaveLength(1);
    });
  }

  it('paused at "sent" (the transfer left, its outcome not recorded): not-paid is refused until its deadline, the statement shows it, it is resolved paid; nothing is sent twice', async () => {
    const s = await setup();
    const [a, b] = [s.machine(), s.machine()];
    const pause = pauseAt('sent');
    const claimant = a(PAY);
    const id = await pause.at;
    s.passes(40_000);
    expect((await b(PAY)).code).toBe(8);
    expect((await b(['journal', 'resolve', id.slice(0, 8), '--not-paid'])).code).toBe(8);
    // The statement shows the transfer: the operator resolves it paid (allowed at any time).
    expect(s.transfers()).toHaveLength(1);
    const resolved = await b(['journal', 'resolve', id.slice(0, 8), '--paid']);
    expect(resolved.code, resolved.stderr).toBe(0);
    const again = await b(PAY);
    expect(again.code).toBe(8);
    expect(again.stderr).toMatch(/already paid/);
    pause.go();
    const woke = await claimant;
    expect(woke.code, woke.stderr).toBe(0);
    expect(s.transfers()).toHaveLength(1);
    expect(s.rows()).toEqual([[id, 'done', 'paid']]);
  });

  it('paused at "recorded": done, and the other machine pays nothing', async () => {
    const s = await setup();
    const [a, b] = [s.machine(), s.machine()];
    const pause = pauseAt('recorded');
    const claimant = a(PAY);
    const id = await pause.at;
    s.passes(40_000);
    const other = await b(PAY);
    expect(other.code).toBe(8);
    expect(other.stderr).toMatch(/already paid/);
    pause.go();
    expect((await claimant).code).toBe(0);
    expect(s.transfers()).toHaveLength(1);
    expect(s.rows()).toEqual([[id, 'done', '-']]);
  });

  it('a batch row paused after its claim: the row is reported unknown (exit 7), nothing sent; a claim that did not lapse sends as before', async () => {
    const s = await setup();
    const a = s.machine();
    const file = join(deferred.dir(), 'rows.csv');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, 'id,key,amount\nr1,ana@example.com,10.00\n');
    const pause = pauseAt('claimed');
    const run = a(['pay', 'batch', file, '--yes', '--duplicate-window', '0', '-o', 'ndjson']);
    await pause.at;
    s.passes(26_000); // past the lease less its margin: the claimant cannot be sure any more
    pause.go();
    const ended = await run;
    expect(ended.code, ended.stderr).toBe(7);
    expect(JSON.parse(ended.stdout.trim()).state).toBe('unknown');
    expect(s.transfers()).toHaveLength(0);
    // Paused a little (within its lease less the margin): it sends.
    const short = pauseAt('claimed');
    const next = a(['pay', 'key', 'bruno@example.com', '--amount', '11', '--yes', '--duplicate-window', '0']);
    await short.at;
    s.passes(10_000);
    short.go();
    expect((await next).code).toBe(0);
    expect(s.transfers()).toHaveLength(1);
  });

  it('a heartbeat renews a live lease, never one that lapsed on the database’s clock (a claimant waking up does not revive it)', async () => {
    const s = await setup();
    const a = s.machine();
    const pause = pauseAt('claimed');
    const claimant = a(PAY);
    const id = await pause.at;
    const pool = openPool(s.url, {});
    deferred.defer(() => pool.sql.end());
    let now = 0;
    const leases = createLeases(pool.sql, { host: hostname(), pid: process.pid }, () => now);
    deferred.defer(() => leases.close());
    leases.take(id, now);
    const beatOf = () =>
      cluster().psql(`SELECT lease_beat FROM pix_journal WHERE id = '${id}'`, s.name).trim();
    const first = beatOf();
    now = 20_000;
    await leases.beat();
    const renewed = beatOf();
    expect(renewed).not.toBe(first);
    leases.checkSend(id); // confirmed at 20 s: its own
    s.passes(40_000);
    now = 60_000;
    await leases.beat();
    const lapsed = cluster().psql(
      `SELECT now() - lease_beat > interval '30 s' FROM pix_journal WHERE id = '${id}'`,
      s.name,
    );
    expect(lapsed.trim()).toBe('t');
    expect(() => leases.checkSend(id)).toThrow(/was not sent: 40 s passed since its claim/);
    pause.go();
    await claimant;
  });
});
