/**
 * Two machines, one account (docs/team.md): two config directories paying the same 500-row batch at once
 * against one sandbox, each SIGKILLed at random moments and run again until both exit 0, the unknown rows
 * resolved from the sandbox's own record. With the shared PostgreSQL ledger: exactly 500 transfers, each
 * of its row's amount. With the file store (two directories, nothing shared, and `--duplicate-window 0`
 * so the statement guard does not stand in for the ledger): rows are paid twice. And the database stopped
 * mid-batch and started again: no row paid twice, none lost, the spill file drained by the next run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openPool } from '../../src/journal/postgres/connect.js';
import { migrateSchema } from '../../src/journal/postgres/schema.js';
import { SPILL_FILE } from '../../src/journal/postgres/spill.js';
import { sampleLines, sampleRows } from '../../src/sandbox/batchfile.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { readSandboxState } from '../../src/sandbox/store.js';
import { deferEach } from '../helpers/cleanup.js';
import { BIN } from '../helpers/cli.js';
import { pix as runPix } from '../helpers/pix.js';
import { clusterPerFile } from '../helpers/postgres.js';

const deferred = deferEach();
const { suite, cluster } = clusterPerFile();

const ROWS = 500;

/** A small seeded generator: the kill moments are random, and the same on every run of the test. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Machine {
  name: string;
  dir: string;
  env: Record<string, string>;
}

async function setup(shared: boolean) {
  const sandboxDir = deferred.dir();
  const stateFile = join(sandboxDir, 'sandbox-state.json');
  const server: SandboxServer = await startSandboxServer({ port: 0, stateFile, latencyMs: 2 });
  deferred.defer(() => server.close());
  let ledger: string | undefined;
  if (shared) {
    ledger = cluster().createDatabase(`two_${process.pid}_${Date.now() % 100000}`);
    const pool = openPool(ledger, {});
    await migrateSchema(pool.sql, 'test');
    await pool.sql.end();
  }
  const rows = sampleRows({ rows: ROWS, seed: 11 });
  const text = sampleLines(rows, 'csv').join('');
  const machines: Machine[] = ['a', 'b'].map((name) => {
    const dir = deferred.dir();
    writeFileSync(join(dir, 'payouts.csv'), text);
    return {
      name,
      dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        PIX_CONFIG_DIR: dir,
        PIX_BASE_URL: server.url,
        PIX_TOKEN: 'two-machines',
        ...(ledger === undefined ? {} : { PIX_LEDGER_URL: ledger }),
      },
    };
  });
  const transfers = () => Object.values(readSandboxState(stateFile)?.transfers ?? {});
  return { machines, rows, transfers, ledger, server };
}

const batchArgs = ['pay', 'batch', 'payouts.csv', '--yes', '--duplicate-window', '0', '-o', 'ndjson'];

/** Runs the batch on `machine`, SIGKILLing it `killAfterMs` into its payments if given; resolves with its exit. */
function runBatch(
  machine: Machine,
  killAfterMs?: number,
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [BIN, ...batchArgs], {
      env: machine.env,
      cwd: machine.dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The kill lands while rows are being paid: `killAfterMs` after the run says it is paying.
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (killAfterMs !== undefined && timer === undefined && stderr.includes('paying from'))
        timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    });
    const limit = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(limit);
      resolve({ code, signal, stderr });
    });
  });
}

/** The operator's commands, in-process (the same code as the binary); the batches under test are processes. */
function pix(machine: Machine, args: string[]) {
  return runPix(args, { env: machine.env });
}

/**
 * What the operator does after an unknown outcome: each unknown entry looked up in the sandbox's own
 * record (its transfers, by endToEndId) and resolved paid or not paid. Entries still `sending` belong to a
 * live run (or become unknown when the next run meets them) and are left alone.
 */
async function resolveUnknown(
  machine: Machine,
  applied: () => Array<{ endToEndId: string }>,
): Promise<number> {
  const listed = await pix(machine, ['journal', '--unresolved', '--all', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  const unknown = (
    JSON.parse(listed.stdout).results as Array<{ id: string; state: string; endToEndId: string }>
  ).filter((entry) => entry.state === 'unknown');
  const sent = new Set(applied().map((transfer) => transfer.endToEndId));
  for (const entry of unknown) {
    const verdict = sent.has(entry.endToEndId) ? '--paid' : '--not-paid';
    const resolved = await pix(machine, ['journal', 'resolve', entry.id, verdict]);
    expect(resolved.code, resolved.stderr).toBe(0);
  }
  return unknown.length;
}

/** Runs a machine to completion: killed at random moments first, then rerun (resolving) until exit 0. */
async function untilDone(
  machine: Machine,
  random: () => number,
  kills: number,
  applied: () => Array<{ endToEndId: string }>,
) {
  const tally = { kills: 0, reruns: 0, resolved: 0, codes: [] as Array<number | null> };
  for (let kill = 0; kill < kills; kill++) {
    const ended = await runBatch(machine, Math.floor(random() * 1500));
    tally.codes.push(ended.code);
    if (ended.signal === 'SIGKILL') tally.kills++;
  }
  for (let attempt = 0; attempt < 40; attempt++) {
    const ended = await runBatch(machine);
    tally.codes.push(ended.code);
    if (ended.code === 0) return tally;
    tally.reruns++;
    // 7: rows with an unknown outcome (a killed run's); 8: rows the other machine is sending right now.
    expect([7, 8], ended.stderr).toContain(ended.code);
    tally.resolved += await resolveUnknown(machine, applied);
  }
  throw new Error(`machine ${machine.name} never finished: ${JSON.stringify(tally)}`);
}

suite('two machines, one account, one 500-row batch', () => {
  it("on the shared PostgreSQL ledger: killed and rerun on both at once, exactly 500 transfers, each its row's amount", async () => {
    const s = await setup(true);
    const random = seeded(20261127);
    const [a, b] = s.machines as [Machine, Machine];
    const [ta, tb] = await Promise.all([
      untilDone(a, random, 3, s.transfers),
      untilDone(b, random, 3, s.transfers),
    ]);
    expect(ta.kills + tb.kills, JSON.stringify({ ta, tb })).toBeGreaterThan(0);
    const applied = s.transfers();
    expect(applied).toHaveLength(ROWS);
    // Each transfer is its row's: endToEndId → the journal entry → its batch row → the row's amount.
    const listed = await pix(a, ['journal', '--all', '--json']);
    const entries = JSON.parse(listed.stdout).results as Array<{
      endToEndId: string;
      amountCentavos: number;
      batchRow?: { row: string };
      state: string;
      resolution?: string;
    }>;
    const byE2e = new Map(entries.map((entry) => [entry.endToEndId, entry]));
    const amountOf = new Map(s.rows.map((row) => [row.id, row.pays]));
    const paidRows = new Set<string>();
    for (const transfer of applied) {
      const entry = byE2e.get(transfer.endToEndId);
      expect(entry, transfer.endToEndId).toBeDefined();
      const row = entry!.batchRow!.row;
      expect(paidRows.has(row), `row ${row} paid twice`).toBe(false);
      paidRows.add(row);
      expect(transfer.amount, row).toBe(amountOf.get(row));
    }
    expect(paidRows.size).toBe(ROWS);
    if (process.env.PIX_SHOW_COUNTS) process.stdout.write(`two machines: ${JSON.stringify({ ta, tb })}\n`);
  }, 600_000);

  it('on the file store (nothing shared, --duplicate-window 0): the same batch on both pays rows twice', async () => {
    const s = await setup(false);
    const [a, b] = s.machines as [Machine, Machine];
    const [ra, rb] = await Promise.all([runBatch(a), runBatch(b)]);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    // Each machine's journal paid every row once: the account paid each row twice.
    expect(s.transfers()).toHaveLength(2 * ROWS);
  }, 300_000);

  it('PostgreSQL stopped mid-batch and started again: no row paid twice, none lost, the spill file drained', async () => {
    const s = await setup(true);
    const [a] = s.machines as [Machine, Machine];
    const child = spawn(process.execPath, [BIN, ...batchArgs], {
      env: a.env,
      cwd: a.dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Stop the database once some rows are paid (a condition, not a time).
    const deadline = Date.now() + 60_000;
    while (s.transfers().length < 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    cluster().stop('immediate');
    const code = await ended;
    // Rows in flight when it went: transfers that left, their outcome kept in the spill file (exit 7).
    expect(code, stderr).toBe(7);
    const spillFile = join(a.dir, SPILL_FILE);
    const spilled = readFileSync(spillFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; line: { state: string } });
    expect(spilled.length).toBeGreaterThan(0);
    expect(stderr).toMatch(
      /the shared ledger could not record the outcome of \d+ row\(s\): it is kept in \S*ledger-spill\.jsonl/,
    );
    const paidBefore = s.transfers().length;
    expect(paidBefore).toBeLessThan(ROWS);
    // While it is down: payments refuse (exit 6, nothing sent); the statement still reads.
    const down = await runBatch(a);
    expect(down.code, down.stderr).toBe(6);
    expect(down.stderr).toMatch(/the shared ledger postgres:\/\/127\.0\.0\.1:\d+\/\S+ could not be reached/);
    expect((await pix(a, ['statement', '--from', '-1d', '--json'])).code).toBe(0);
    expect(s.transfers()).toHaveLength(paidBefore);
    cluster().start();
    // The next run writes the spilled outcomes first, then pays the rest; unknown rows resolved as before.
    await untilDone(a, seeded(7), 0, s.transfers);
    expect(existsSync(spillFile) ? readFileSync(spillFile, 'utf8') : '').toBe('');
    // Each spilled outcome is the database's now, as it was known here (not unknown, not resolved by hand).
    const database = new URL(s.ledger!).pathname.slice(1);
    for (const { id, line } of spilled) {
      expect(cluster().psql(`SELECT state FROM pix_journal WHERE id = '${id}'`, database).trim(), id).toBe(
        line.state,
      );
    }
    const applied = s.transfers();
    expect(new Set(applied.map((t) => t.endToEndId)).size).toBe(applied.length);
    expect(applied).toHaveLength(ROWS);
  }, 600_000);
});
