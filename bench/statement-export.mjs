#!/usr/bin/env node
// The 100,000-entry export benchmark: `pix statement --all -o ndjson` against a plain sequential page loop
// (bench/statement-sequential.mjs) with the same page size, both against `pix sandbox serve` on a free port
// over a seeded statement, both with the same realistic token (lib.mjs benchToken: an ~880-character JWT, which
// the client's secret scrubber has to look for), both writing ndjson to a pipe that this script counts. It
// reports the wall time, the CPU time (user + system) and the peak RSS of each child, from its own getrusage.
// It also times `-o csv` and `-o xlsx` of the same export: a workbook may take at most 3× the CSV's time.
//
// Latency: a real API is latency-bound (tens of ms per page over the internet); the sandbox on loopback answers
// in well under a millisecond and shares this machine's cores with the client, which would measure CPU
// contention instead of what concurrency is for. So the sandbox is served with `--latency-ms` (default 20) for
// both runs alike, and the output says so. `--latency-ms 0` measures the raw loopback case.
//
//   node bench/statement-export.mjs                    100,000 entries, 20 ms latency, median of 3 runs of each
//   node bench/statement-export.mjs --quick            one run of each (still 100,000 entries: the target's size)
//   node bench/statement-export.mjs --entries N --latency-ms L --runs R --concurrency C --node PATH
//   node bench/statement-export.mjs --json             the human block, then the report as the last line (JSON)
//
// From another script: `import { measureStatementExport } from './statement-export.mjs'` → the same report.
// The child under test (pix and the loop) runs on `node` (default: this one); the sandbox always on this one.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, benchToken, cleanEnv, flag, median, root, serveSandbox, USAGE_HOOK, usageIn } from './lib.mjs';

const SEQUENTIAL = join(root, 'bench', 'statement-sequential.mjs');
/** The page size pix uses for --all (src/commands/shared/export.ts ALL_PAGE_SIZE); the loop uses the same. */
export const PAGE_SIZE = 100;
/** pix's dateFrom when --all pins the range (src/commands/statement.ts FAR_PAST). */
const FAR_PAST = '2000-01-01T00:00:00.000Z';

function run(argv, env) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${argv.join(' ')} failed: ${stderr || error.message}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** Runs a child on `node` to its end with its stdout piped here and counted (lines), never held. */
function measured(node, argv, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(node, [...USAGE_HOOK, ...argv], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lines = 0;
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) {
        reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr.trim()}`));
        return;
      }
      resolve({ ms, lines, bytes, ...usageIn(stderr) });
    });
  });
}

/**
 * Seeds `entries` in a temporary PIX_CONFIG_DIR, serves it, and measures both exports `runs` times
 * (alternating, so load on the machine hits both alike). Resolves with the medians.
 */
export async function measureStatementExport({
  entries = 100_000,
  latencyMs = 20,
  runs = 1,
  concurrency = 4,
  node = process.execPath,
  token = benchToken(),
  log = () => {},
} = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-export-'));
  const stateFile = join(scratch, 'sandbox-state.json');
  const base = cleanEnv(scratch, { PIX_CONFIG_DIR: scratch });
  let server;
  try {
    log(`seeding ${entries.toLocaleString('en')} entries…`);
    await run([BIN, 'sandbox', 'seed', '--transactions', String(entries), '--state', stateFile], base);
    server = await serveSandbox(base, stateFile, ['--latency-ms', String(latencyMs)]);
    const client = {
      ...base,
      PIX_CONFIG_DIR: join(scratch, 'client'),
      PIX_BASE_URL: server.url,
      PIX_TOKEN: token,
    };
    // The sandbox builds its entries on the first statement request: keep that out of both measurements.
    const head = await run([BIN, 'statement', '--limit', '1', '--json'], client);
    const total = JSON.parse(head.stdout).total;

    const pixRuns = [];
    const loopRuns = [];
    const csvRuns = [];
    const xlsxRuns = [];
    const jqRuns = [];
    for (let i = 0; i < runs; i++) {
      log(`run ${i + 1}/${runs}: pix statement --all -o ndjson…`);
      const pix = await measured(
        node,
        [BIN, 'statement', '--all', '-o', 'ndjson', '--concurrency', String(concurrency)],
        client,
      );
      if (pix.lines !== total) throw new Error(`pix wrote ${pix.lines} lines, the statement has ${total}`);
      pixRuns.push(pix);
      log(`run ${i + 1}/${runs}: sequential page loop…`);
      const loop = await measured(
        node,
        [SEQUENTIAL, server.url, token, String(PAGE_SIZE), FAR_PAST, new Date().toISOString()],
        client,
      );
      if (loop.lines !== total)
        throw new Error(`the loop wrote ${loop.lines} lines, the statement has ${total}`);
      loopRuns.push(loop);
      // The spreadsheet formats, written to the same pipe: a workbook may cost at most 3× the CSV's time.
      log(`run ${i + 1}/${runs}: pix statement --all -o csv, then -o xlsx…`);
      const all = ['statement', '--all', '--concurrency', String(concurrency)];
      const csv = await measured(node, [BIN, ...all, '-o', 'csv'], client);
      if (csv.lines !== total + 1) throw new Error(`pix wrote ${csv.lines} CSV lines for ${total} entries`);
      csvRuns.push(csv);
      const xlsx = await measured(node, [BIN, ...all, '-o', 'xlsx'], client);
      if (xlsx.bytes < total) throw new Error(`pix wrote a ${xlsx.bytes}-byte workbook for ${total} entries`);
      xlsxRuns.push(xlsx);
      // --jq over the whole {total, results} document, held in memory for jq.
      log(`run ${i + 1}/${runs}: pix statement --all --jq '.results|length'…`);
      const jq = await measured(node, [BIN, ...all, '--jq', '.results|length'], client);
      if (jq.lines !== 1) throw new Error(`--jq printed ${jq.lines} lines, not 1`);
      jqRuns.push(jq);
    }
    const summarise = (list) => ({
      ms: median(list.map((r) => r.ms)),
      cpuMs: median(list.map((r) => r.cpuMs)),
      peakRssMb: Math.max(...list.map((r) => r.peakRssMb)),
      lines: list[0].lines,
      bytes: list[0].bytes,
    });
    const pix = summarise(pixRuns);
    const sequential = summarise(loopRuns);
    const csv = summarise(csvRuns);
    const xlsx = summarise(xlsxRuns);
    const jq = summarise(jqRuns);
    return {
      entries: total,
      pageSize: PAGE_SIZE,
      concurrency,
      latencyMs,
      runs,
      tokenLength: token.length,
      description: `statement --all -o ndjson, pages of ${PAGE_SIZE}, concurrency ${concurrency}, sandbox latency ${latencyMs} ms per request, ${token.length}-character token`,
      pix,
      sequential,
      ratio: sequential.ms / pix.ms,
      cpuRatio: pix.cpuMs / sequential.cpuMs,
      csv,
      xlsx,
      xlsxRatio: xlsx.ms / csv.ms,
      jq,
    };
  } finally {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The human block: figures, ratios, and the three targets (time, CPU, memory). */
export function formatReport(report) {
  const s = (value) => `${(value / 1000).toFixed(2)} s`;
  const mb = (value) => `${value.toFixed(1)} MB`;
  const verdict = (pass) => (pass ? 'PASS' : 'FAIL');
  const row = (label, run) =>
    `  ${label.padEnd(48)} ${s(run.ms).padStart(8)}  CPU ${s(run.cpuMs).padStart(7)}  peak RSS ${mb(run.peakRssMb)}`;
  return [
    `statement export: ${report.description} (both runs), median of ${report.runs}`,
    row(`pix statement --all -o ndjson (concurrency ${report.concurrency})`, report.pix),
    row('sequential page loop (node:http)', report.sequential),
    `  ${report.ratio.toFixed(2)}× faster (target ≥ 3×: ${verdict(report.ratio >= 3)}); ` +
      `CPU ${report.cpuRatio.toFixed(2)}× the loop's (target ≤ 1.5×: ${verdict(report.cpuRatio <= 1.5)}); ` +
      `peak RSS ${mb(report.pix.peakRssMb)} (target ≤ 150 MB: ${verdict(report.pix.peakRssMb <= 150)})`,
    row('pix statement --all -o csv', report.csv),
    row('pix statement --all -o xlsx', report.xlsx),
    `  xlsx ${report.xlsxRatio.toFixed(2)}× the CSV's time (target ≤ 3×: ${verdict(report.xlsxRatio <= 3)}); ` +
      `peak RSS ${mb(report.xlsx.peakRssMb)} (target ≤ 150 MB: ${verdict(report.xlsx.peakRssMb <= 150)})`,
    row("pix statement --all --jq '.results|length'", report.jq),
    `  --jq peak RSS ${mb(report.jq.peakRssMb)} (target ≤ 300 MB: ${verdict(report.jq.peakRssMb <= 300)})`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  try {
    const report = await measureStatementExport({
      entries: Number(flag(args, '--entries', 100_000)),
      latencyMs: Number(flag(args, '--latency-ms', 20)),
      runs: Number(flag(args, '--runs', quick ? 1 : 3)),
      concurrency: Number(flag(args, '--concurrency', 4)),
      node: flag(args, '--node', process.execPath),
      log: (text) => process.stderr.write(`${text}\n`),
    });
    process.stdout.write(`${formatReport(report)}\n`);
    if (args.includes('--json')) process.stdout.write(`${JSON.stringify(report)}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
