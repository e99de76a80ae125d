#!/usr/bin/env node
// The shared ledger (docs/team.md; docs/performance.md, "The shared ledger"), on the file ledger and on
// PostgreSQL on loopback (a throwaway cluster started by test/helpers/postgres.ts, bundled by esbuild):
//
// - `pix pay key … --yes` against the embedded sandbox with an empty ledger and with ledgers of N rows (a
//   year of payments on the account: half a line per row on the file, one row per entry in the database),
//   every ledger one payment per round, round-robin, after one payment each that is not timed (the first
//   payment after a history appears reads it once: the file store's index is made then); medians of wall
//   time and of the child's own CPU (bench/usage-hook.cjs);
// - `pix pay batch` of 1,000 rows at 20 ms of latency with the PostgreSQL ledger against the file ledger,
//   alternating runs, each on a fresh ledger (bench/pay-batch.mjs).
//
// - learning the account (commands/shared/account.ts): DICT consultations of own keys per set of credentials,
//   over a dozen commands on three config directories sharing a PostgreSQL ledger (target: one per set a day);
// - with `--against DIR`: the 1,000-row batch on PostgreSQL, this build against DIR's (built), alternating.
//
//   node bench/ledger.mjs [--lines 0,100000,1000000] [--runs 7] [--batch-runs 3] [--rows 1000] [--no-batch]
//                         [--no-account] [--against DIR] [--no-postgres] [--node PATH]
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  BIN,
  benchToken,
  cleanEnv,
  flag,
  median,
  root,
  serveSandbox,
  timed,
  USAGE_HOOK,
  usageIn,
} from './lib.mjs';
import { measurePayBatch } from './pay-batch.mjs';

const run = promisify(execFile);

/** Why PostgreSQL cannot be had here, or the module that starts it (test/helpers/postgres.ts, bundled). */
export async function postgresHelper(scratch) {
  const { build } = await import('esbuild');
  const outfile = join(scratch, 'postgres-helper.mjs');
  await build({
    entryPoints: [join(root, 'test', 'helpers', 'postgres.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
  });
  const helper = await import(pathToFileURL(outfile).href);
  const missing = helper.postgresMissing();
  return missing === undefined ? { helper } : { na: missing };
}

let databases = 0;

/** A new database with pix's schema (`pix ledger init` of the build `bin`), and its URL. */
export async function ledgerDatabase(cluster, env, bin = BIN) {
  const url = cluster.createDatabase(`bench_${process.pid}_${++databases}`);
  await run(process.execPath, [bin, 'ledger', 'init'], { env: { ...env, PIX_LEDGER_URL: url } });
  return url;
}

/** `lines` journal lines' worth of paid payments (lines / 2 entries) on `account`, over the last year. */
export function databaseHistory(cluster, url, lines, account) {
  const count = Math.floor(lines / 2);
  if (count === 0) return;
  const database = new URL(url).pathname.slice(1);
  cluster.psql(
    `INSERT INTO pix_journal (id, account, kind, at, amount_centavos, row_id, pay_key, state, start, outcome)
     SELECT id, '${account}', 'payment', at, amount, 'h-' || n, 'hist-' || n || '@example.com', 'done',
       jsonb_build_object('id', id, 'at', stamp, 'kind', 'payment', 'state', 'sending', 'account', '${account}',
         'profile', 'sandbox', 'host', 'sandbox.localhost', 'baseUrl', 'http://sandbox.localhost',
         'amountCentavos', amount, 'receiver', 'Histórico Ltda',
         'payment', jsonb_build_object('method', 'key', 'key', 'hist-' || n || '@example.com',
           'batchRow', jsonb_build_object('batch', 'history', 'row', 'h-' || n))),
       jsonb_build_object('id', id, 'at', stamp, 'state', 'done', 'transferId', 't-' || n, 'status', 'PENDING')
     FROM (SELECT n, '00000000-0000-4000-8000-' || lpad(n::text, 12, '0') AS id, 100 + n % 5000 AS amount, at,
             to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS stamp
           FROM (SELECT n, now() - ((${count} - n)::float8 / ${count}) * interval '365 days' AS at
                 FROM generate_series(0, ${count - 1}) AS n) AS times) AS history;
     ANALYZE pix_journal;`,
    database,
  );
}

const payKey = (n) => [
  BIN,
  'pay',
  'key',
  `bench-${n}@example.com`,
  '--amount',
  `${(n % 900) + 1}.07`,
  '--yes',
];

/** The account the embedded sandbox of `env`'s config directory pays from (one payment made to learn it). */
async function accountOf(node, env, journalText) {
  const probe = await timed(node, [...USAGE_HOOK, ...payKey(0)], env);
  if (probe.code !== 0) throw new Error(`pix pay key exited ${probe.code}: ${probe.stderr.slice(-800)}`);
  return journalText();
}

/**
 * pay key on every ledger of `lines` sizes and `stores`, round-robin: resolves with
 * [{ store, lines, ms, cpuMs, peakRssMb }] (medians of `runs`).
 */
export async function measurePayKey({
  lines = [0, 100_000, 1_000_000],
  stores = ['file', 'postgres'],
  runs = 7,
  node = process.execPath,
  cluster,
  log = () => {},
} = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-ledger-'));
  try {
    const ledgers = [];
    for (const store of stores) {
      for (const size of lines) {
        const dir = join(scratch, `${store}-${size}`);
        mkdirSync(dir, { mode: 0o700 });
        const env = cleanEnv(scratch, { PIX_CONFIG_DIR: dir });
        log(`ledger ${store}, ${size.toLocaleString('en')} lines: writing the history…`);
        if (store === 'file') {
          const account = await accountOf(
            node,
            env,
            () => JSON.parse(readFileSync(join(dir, 'journal.jsonl'), 'utf8').split('\n')[0]).account,
          );
          // The probe's own lines are replaced by the history (a chained journal and its checkpoint), written
          // by a child: on Linux a child reports the RSS its parent had when it forked as its own peak, and
          // this process would hold the whole history for a moment.
          if (size > 0) {
            const options = JSON.stringify({ account, spanDays: 365 });
            const script = `import { writeHistory } from ${JSON.stringify(pathToFileURL(join(root, 'bench', 'pay-batch.mjs')).href)};
              writeHistory(${JSON.stringify(dir)}, ${size}, 'http://sandbox.localhost', ${options});`;
            await run(process.execPath, ['--input-type=module', '-e', script]);
          }
        } else {
          env.PIX_LEDGER_URL = await ledgerDatabase(cluster, env);
          const database = new URL(env.PIX_LEDGER_URL).pathname.slice(1);
          const account = await accountOf(node, env, () =>
            cluster.psql('SELECT account FROM pix_journal LIMIT 1', database).trim(),
          );
          databaseHistory(cluster, env.PIX_LEDGER_URL, size, account);
        }
        ledgers.push({ store, lines: size, env, ms: [], cpuMs: [], peakRssMb: [] });
      }
    }
    let n = 1;
    for (let round = -1; round < runs; round++) {
      log(
        round < 0
          ? 'pay key: one payment on each ledger, not timed…'
          : `pay key: round ${round + 1}/${runs}…`,
      );
      for (const ledger of ledgers) {
        const result = await timed(node, [...USAGE_HOOK, ...payKey(n++)], ledger.env);
        if (result.code !== 0) {
          throw new Error(
            `pix pay key (${ledger.store}, ${ledger.lines} lines) exited ${result.code}: ${result.stderr.slice(-800)}`,
          );
        }
        if (round < 0) continue;
        const usage = usageIn(result.stderr);
        ledger.ms.push(result.ms);
        ledger.cpuMs.push(usage.cpuMs);
        ledger.peakRssMb.push(usage.peakRssMb);
      }
    }
    return ledgers.map((ledger) => ({
      store: ledger.store,
      lines: ledger.lines,
      ms: median(ledger.ms),
      cpuMs: median(ledger.cpuMs),
      peakRssMb: median(ledger.peakRssMb),
    }));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Batches of `rows` at 20 ms, each on a fresh ledger, the sides alternating round by round (a machine whose
 * load moves weighs on each alike): resolves with { rows, [side]: medians of `runs` }. A side: its name, its
 * label for the log, the pix it runs (`bin`), and the ledger of each run (`ledgerUrl`; undefined: a file one).
 */
async function alternatingBatches({ rows, runs, node, prefix, sides, log }) {
  const runsOf = Object.fromEntries(sides.map((side) => [side.name, []]));
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  try {
    for (let round = 0; round < runs; round++) {
      for (const side of sides) {
        const ledgerUrl = await side.ledgerUrl(scratch, round);
        log(`pay batch, ${side.label}, run ${round + 1}/${runs}…`);
        runsOf[side.name].push(
          await measurePayBatch({
            rows,
            node,
            ledgerUrl,
            ...(side.bin === undefined ? {} : { bin: side.bin }),
          }),
        );
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const summary = (reports) => ({
    ms: median(reports.map((report) => report.ms)),
    cpuMs: median(reports.map((report) => report.cpuMs)),
    peakRssMb: median(reports.map((report) => report.peakRssMb)),
  });
  return { rows, ...Object.fromEntries(sides.map((side) => [side.name, summary(runsOf[side.name])])) };
}

/** The 1,000-row batch on each ledger, alternating: resolves with { file, postgres } medians of `runs`. */
export function measureLedgerBatch({
  rows = 1000,
  runs = 3,
  node = process.execPath,
  cluster,
  log = () => {},
}) {
  return alternatingBatches({
    rows,
    runs,
    node,
    log,
    prefix: 'pix-bench-ledger-batch-',
    sides: ['file', 'postgres'].map((store) => ({
      name: store,
      label: `${store} ledger`,
      ledgerUrl: (scratch) =>
        store === 'postgres'
          ? ledgerDatabase(cluster, cleanEnv(scratch, { PIX_CONFIG_DIR: scratch }))
          : undefined,
    })),
  });
}

/**
 * The 1,000-row batch on the PostgreSQL ledger with this build and with another checkout's (`against`: its
 * bin/pix.js, built), alternating, each on a fresh ledger its own `pix ledger init` made: resolves with
 * { rows, mine, theirs } medians of `runs` (a change's before and after, on a machine whose load moves).
 */
export function measureBatchAgainst({
  rows = 1000,
  runs = 3,
  node = process.execPath,
  cluster,
  against,
  log = () => {},
}) {
  const bins = { mine: BIN, theirs: join(against, 'bin', 'pix.js') };
  return alternatingBatches({
    rows,
    runs,
    node,
    log,
    prefix: 'pix-bench-ledger-against-',
    sides: ['theirs', 'mine'].map((build) => ({
      name: build,
      label: `PostgreSQL ledger, ${build === 'mine' ? 'this build' : against}`,
      bin: bins[build],
      ledgerUrl: (scratch, round) =>
        ledgerDatabase(
          cluster,
          cleanEnv(scratch, { PIX_CONFIG_DIR: join(scratch, `${build}-${round}`) }),
          bins[build],
        ),
    })),
  });
}

/** One line of a batch's figures: `NODE pay batch of N rows at 20 ms, WHAT: …`. */
function batchLine(version, rows, what, one) {
  return `${version} pay batch of ${rows} rows at 20 ms, ${what}: ${(one.ms / 1000).toFixed(2)} s, CPU ${(one.cpuMs / 1000).toFixed(2)} s, peak RSS ${one.peakRssMb.toFixed(1)} MB\n`;
}

/** The sandbox's own record of its state (src/sandbox/store.ts, bundled as the tests' helper is). */
async function sandboxReader(scratch) {
  const { build } = await import('esbuild');
  const outfile = join(scratch, 'sandbox-store.mjs');
  await build({
    entryPoints: [join(root, 'src', 'sandbox', 'store.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
  });
  return (await import(pathToFileURL(outfile).href)).readSandboxState;
}

/**
 * What learning the account costs (commands/shared/account.ts): one DICT consultation of an own key per
 * set of credentials a day, wherever the commands run. Two machines (config directories) on one PostgreSQL
 * ledger share one token and run a dozen commands between them — payments, a batch, the charge ledger, the
 * closed days — and a third set of credentials pays once; the sandbox's record of its consultations counts
 * those of its own keys. Resolves with { commands, credentials, consultations }.
 */
export async function measureAccountLearning({ node = process.execPath, cluster, log = () => {} }) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-account-'));
  let server;
  try {
    const readSandboxState = await sandboxReader(scratch);
    const base = cleanEnv(scratch, { PIX_CONFIG_DIR: join(scratch, 'served') });
    const stateFile = join(scratch, 'served', 'state.json');
    mkdirSync(join(scratch, 'served'), { recursive: true, mode: 0o700 });
    server = await serveSandbox(base, stateFile);
    const ledgerUrl = await ledgerDatabase(cluster, base);
    const machine = (name, token) =>
      cleanEnv(scratch, {
        PIX_CONFIG_DIR: join(scratch, name),
        PIX_BASE_URL: server.url,
        PIX_TOKEN: token,
        PIX_LEDGER_URL: ledgerUrl,
      });
    const batch = join(scratch, 'rows.csv');
    const generated = await run(process.execPath, [BIN, 'sandbox', 'batch-file', '--rows', '20'], {
      env: base,
    });
    writeFileSync(batch, generated.stdout);
    const token = benchToken();
    const commands = [
      ['a', token, ['pay', 'key', 'learn-1@example.com', '--amount', '1.11', '--yes']],
      ['a', token, ['pay', 'key', 'learn-2@example.com', '--amount', '1.12', '--yes']],
      ['a', token, ['pay', 'batch', batch, '--yes', '-o', 'ndjson']],
      ['a', token, ['charge', 'list']],
      ['a', token, ['journal', '--json']],
      ['b', token, ['pay', 'key', 'learn-3@example.com', '--amount', '1.13', '--yes']],
      ['b', token, ['pay', 'batch', batch, '--yes', '-o', 'ndjson']],
      ['b', token, ['close', '--list']],
      ['b', token, ['account', '--json']],
      ['b', token, ['pay', 'key', 'learn-4@example.com', '--amount', '1.14', '--yes']],
      ['c', `${token}-another`, ['pay', 'key', 'learn-5@example.com', '--amount', '1.15', '--yes']],
      ['c', `${token}-another`, ['pay', 'key', 'learn-6@example.com', '--amount', '1.16', '--yes']],
    ];
    log(`account learning: ${commands.length} commands on 3 config directories, 2 sets of credentials…`);
    for (const [name, credential, argv] of commands) {
      const result = await timed(node, [BIN, ...argv], machine(name, credential));
      if (result.code !== 0)
        throw new Error(`pix ${argv.join(' ')} exited ${result.code}: ${result.stderr.slice(-800)}`);
    }
    await server.stop();
    server = undefined;
    const consultations = Object.values(readSandboxState(stateFile).consultations).filter(
      (consultation) => consultation.flow === 'dict' && consultation.own,
    ).length;
    return { commands: commands.length, credentials: 2, consultations };
  } finally {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Starts the cluster for the bench, or says why it cannot: { cluster } or { na }. */
export async function benchCluster(scratch) {
  const found = await postgresHelper(scratch);
  if (found.na) return found;
  return { cluster: await found.helper.startPostgres() };
}

/**
 * Runs `work(cluster)` on a throwaway cluster started for it (a bench run on its own: no cluster is an error),
 * removed after, whatever happens; `postgres: false` runs `work(undefined)`.
 */
export async function withBenchCluster(work, { postgres = true } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-pg-'));
  let cluster;
  try {
    if (postgres) {
      const started = await benchCluster(scratch);
      if (started.na) throw new Error(started.na);
      cluster = started.cluster;
    }
    return await work(cluster);
  } finally {
    cluster?.remove();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const log = (text) => process.stderr.write(`${text}\n`);
  const node = flag(args, '--node', process.execPath);
  const postgres = !args.includes('--no-postgres');
  try {
    await withBenchCluster(
      async (cluster) => {
        const version = (await run(node, ['--version'])).stdout.trim();
        const results = await measurePayKey({
          lines: flag(args, '--lines', '0,100000,1000000').split(',').map(Number),
          stores: postgres ? ['file', 'postgres'] : ['file'],
          runs: Number(flag(args, '--runs', 7)),
          node,
          cluster,
          log,
        });
        for (const result of results) {
          process.stdout.write(
            `${version} pay key, ${result.store} ledger, ${result.lines.toLocaleString('en')} lines: ${result.ms.toFixed(1)} ms, CPU ${result.cpuMs.toFixed(1)} ms, peak RSS ${result.peakRssMb.toFixed(1)} MB\n`,
          );
        }
        if (postgres && !args.includes('--no-account')) {
          const learned = await measureAccountLearning({ node, cluster, log });
          process.stdout.write(
            `${version} learning the account: ${learned.consultations} DICT consultations of own keys for ${learned.credentials} sets of credentials over ${learned.commands} commands on 3 machines (target 1 per set)\n`,
          );
        }
        const batchOptions = {
          rows: Number(flag(args, '--rows', 1000)),
          runs: Number(flag(args, '--batch-runs', 3)),
          node,
          cluster,
          log,
        };
        const against = flag(args, '--against', undefined);
        if (postgres && against !== undefined) {
          const compared = await measureBatchAgainst({ ...batchOptions, against });
          for (const build of ['theirs', 'mine']) {
            const what = `PostgreSQL ledger, ${build === 'mine' ? 'this build' : against}`;
            process.stdout.write(batchLine(version, compared.rows, what, compared[build]));
          }
          process.stdout.write(
            `${version} this build / ${against}: wall ${(compared.mine.ms / compared.theirs.ms).toFixed(3)}×, CPU ${(compared.mine.cpuMs / compared.theirs.cpuMs).toFixed(3)}× (target ≤ 1.10×)\n`,
          );
        }
        if (postgres && !args.includes('--no-batch')) {
          const batch = await measureLedgerBatch(batchOptions);
          for (const store of ['file', 'postgres']) {
            process.stdout.write(batchLine(version, batch.rows, `${store} ledger`, batch[store]));
          }
        }
      },
      { postgres },
    );
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  }
}
