#!/usr/bin/env node
// Scheduled payments on the shared ledger (docs/schedules.md; docs/performance.md, "Scheduled payments"), on
// PostgreSQL on loopback (a throwaway cluster, as bench/ledger.mjs starts it), the embedded sandbox's clock
// standing in for the day:
//
// - a runner (`pix schedule run`, its default 2 s interval) holding 10,000 schedules whose next occurrences
//   are days away: its CPU over an idle stretch (utime + stime from /proc), as a share of one core;
// - an occurrence due at 10:00 (the sandbox's clock set to 09:59:40): how long after 10:00 its payment
//   started (its journal claim);
// - `pix schedule run-due` with nothing due: what it reads of the ledger (the scans of pix_journal and of
//   pix_schedules its run added, from pg_stat_user_tables once its connections closed).
//
// - judging one occurrence of a standing plan of 120 occurrences (docs/schedules.md "Under a policy"), in
//   pix itself (bench/plan-verify.ts with 120 rows): its three approvals verified twice and every rule's
//   quorum counted over its rows. The judging reads no journal (the caps at the moment count the day's
//   payments, as for any payment under a policy).
//
//   node bench/schedule.mjs [--schedules 10000] [--idle 30] [--node PATH]
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ledgerDatabase, withBenchCluster } from './ledger.mjs';
import { BIN, cleanEnv, flag } from './lib.mjs';
import { measureVerification } from './plan.mjs';

/** Occurrences of the standing plan judged: ten years of a monthly payment. */
export const STANDING_OCCURRENCES = 120;

/** Judging one occurrence of a standing plan, in-process: { medianMs, firstMs, runs }. */
export function measureStandingJudgement({ runs = 200, log = () => {} } = {}) {
  return measureVerification({ runs, rows: STANDING_OCCURRENCES, log });
}

const run = promisify(execFile);
const CLOCK_TICKS = 100;

async function until(condition, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

function tomorrowIn(zone) {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date());
  const next = new Date(`${today}T12:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  const tomorrow = next.toISOString().slice(0, 10);
  next.setUTCDate(next.getUTCDate() + 39);
  return { today, tomorrow, later: next.toISOString().slice(0, 10) };
}

export async function measureSchedules({
  node = process.execPath,
  cluster,
  schedules = 10_000,
  idleSeconds = 30,
  log = () => {},
}) {
  const home = mkdtempSync(join(tmpdir(), 'pix-bench-schedule-'));
  let runner;
  try {
    const env = cleanEnv(home, { PIX_CONFIG_DIR: join(home, 'config') });
    const url = await ledgerDatabase(cluster, env);
    const database = new URL(url).pathname.slice(1);
    const withLedger = { ...env, PIX_LEDGER_URL: url };
    const pix = (args) => run(node, [BIN, ...args], { env: withLedger, maxBuffer: 64 << 20 });
    const { tomorrow, later } = tomorrowIn('America/Sao_Paulo');
    await pix([
      'schedule',
      'create',
      '--key',
      'bench@example.com',
      '--amount',
      '1',
      '--every',
      '10',
      '--start',
      later,
      '--yes',
    ]);
    // The rest as the first, each a day of the month of its own, all starting in 40 days: none due meanwhile.
    cluster.psql(
      `INSERT INTO pix_schedules (id, account, created_at, body, state)
       SELECT 's-' || lpad(to_hex(n), 12, '0'), account, created_at,
         jsonb_set(jsonb_set(body, '{id}', to_jsonb('s-' || lpad(to_hex(n), 12, '0'))),
           '{recurrence,rule}', jsonb_build_object('kind', 'day-of-month', 'day', 1 + n % 28)),
         'active'
       FROM pix_schedules, generate_series(1, ${schedules - 1}) AS n;
       ANALYZE pix_schedules;`,
      database,
    );
    log(`  ${schedules.toLocaleString('en')} schedules; a runner starts`);
    runner = spawn(node, [BIN, 'schedule', 'run'], { env: withLedger, stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    runner.stderr.setEncoding('utf8').on('data', (chunk) => (said += chunk));
    await until(() => /schedule run: [\d,]+ schedules/.test(said), 'the runner', 60_000);
    // Its first ticks compute each schedule's next opening once; the idle stretch is measured after them.
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const before = cpuSeconds(runner.pid);
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const idleShare = (cpuSeconds(runner.pid) - before) / ((Date.now() - started) / 1000);
    log(`  idle: ${(idleShare * 100).toFixed(2)} % of a core over ${idleSeconds} s`);

    // An occurrence due at 10:00 on the sandbox's clock, which is set 20 s before.
    const day = tomorrow;
    const setAt = Date.now();
    await pix(['sandbox', 'clock', '--set', `${day}T09:59:40-03:00`]);
    await pix([
      'schedule',
      'create',
      '--key',
      'due@example.com',
      '--amount',
      '2',
      '--at',
      day,
      '--time',
      '10:00',
      '--yes',
    ]);
    const paid = async () => {
      const listed = JSON.parse((await pix(['journal', '--all', '--json'])).stdout).results;
      return listed.find((entry) => entry.key === 'due@example.com' && entry.state === 'done');
    };
    await until(async () => (await paid()) !== undefined, 'the due occurrence paid', 120_000);
    const entry = await paid();
    // Its start: the journal's claim (this machine's clock), against the instant the sandbox's clock read 10:00
    // — 20 s after the instant just before it was set (so any delay of the setting counts as lateness).
    const lateSeconds = (Date.parse(entry.at) - (setAt + 20_000)) / 1000;
    log(`  the 10:00 occurrence started ${lateSeconds.toFixed(1)} s after its time`);
    runner.kill('SIGTERM');
    await new Promise((resolve) => runner.on('exit', resolve));
    runner = undefined;

    // run-due with nothing due: what it reads of the ledger.
    const scans = () =>
      Object.fromEntries(
        cluster
          .psql(
            `SELECT relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE relname IN ('pix_journal', 'pix_schedules')`,
            database,
          )
          .trim()
          .split('\n')
          .map((line) => line.split('|'))
          .map(([name, count]) => [name, Number(count)]),
      );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const first = scans();
    await pix(['schedule', 'run-due']);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = scans();
    const reads = {
      journal: after.pix_journal - first.pix_journal,
      schedules: after.pix_schedules - first.pix_schedules,
    };
    log(`  run-due, nothing due: ${reads.schedules} read of pix_schedules, ${reads.journal} of pix_journal`);
    return { idleShare, lateSeconds, reads, schedules };
  } finally {
    runner?.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const log = (text) => process.stderr.write(`${text}\n`);
  await withBenchCluster(async (cluster) => {
    const result = await measureSchedules({
      node: flag(args, '--node', process.execPath),
      cluster,
      schedules: Number(flag(args, '--schedules', 10_000)),
      idleSeconds: Number(flag(args, '--idle', 30)),
      log,
    });
    const judging = await measureStandingJudgement({ log });
    process.stdout.write(`${JSON.stringify({ ...result, standingJudgement: judging })}\n`);
  });
}
