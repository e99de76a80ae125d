#!/usr/bin/env node
// The 100,000-entry export benchmark of issue 4: `pix statement --all -o ndjson` against a plain sequential
// page loop (bench/statement-sequential.mjs) with the same page size, both against `pix sandbox serve` on a
// free port over a seeded statement, both writing ndjson to a pipe that this script counts. It prints the wall
// time and the peak RSS of each child and the ratio.
//
// Latency: a real API is latency-bound (tens of ms per page over the internet); the sandbox on loopback answers
// in well under a millisecond and shares this machine's cores with the client, which would measure CPU
// contention instead of what concurrency is for. So the sandbox is served with `--latency-ms` (default 20) for
// both runs alike, and the output says so. `--latency-ms 0` measures the raw loopback case.
//
//   node bench/statement-export.mjs                    100,000 entries, 20 ms latency, median of 3 runs of each
//   node bench/statement-export.mjs --quick            one run of each (still 100,000 entries: the target's size)
//   node bench/statement-export.mjs --entries N --latency-ms L --runs R --concurrency C
//   node bench/statement-export.mjs --json             the human block, then the report as the last line (JSON)
//
// From another script: `import { measureStatementExport } from './statement-export.mjs'` → the same report.
// Peak RSS is the child's own getrusage maxrss, read by a one-line --import hook in the child (works where
// /usr/bin/time is missing, and is the same measure for both runs).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, median, root, serveSandbox } from './lib.mjs';

const SEQUENTIAL = join(root, 'bench', 'statement-sequential.mjs');
/** The page size pix uses for --all (src/commands/shared/export.ts ALL_PAGE_SIZE); the loop uses the same. */
export const PAGE_SIZE = 100;
/** pix's dateFrom when --all pins the range (src/commands/statement.ts FAR_PAST). */
const FAR_PAST = '2000-01-01T00:00:00.000Z';
const RSS_HOOK =
  'data:text/javascript,import{writeSync}from"node:fs";process.on("exit",()=>writeSync(2,"\\npeak-rss-kb:"+process.resourceUsage().maxRSS+"\\n"))';

function run(argv, env) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${argv.join(' ')} failed: ${stderr || error.message}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** Runs a child to its end with its stdout piped here and counted (lines), never held. */
function measured(argv, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', RSS_HOOK, ...argv], {
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
      const rss = /peak-rss-kb:(\d+)/.exec(stderr);
      if (code !== 0) {
        reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr.trim()}`));
        return;
      }
      resolve({ ms, lines, bytes, peakRssMb: rss ? Number(rss[1]) / 1024 : Number.NaN });
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
  log = () => {},
} = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-export-'));
  const stateFile = join(scratch, 'sandbox-state.json');
  const base = { PATH: process.env.PATH ?? '', HOME: scratch, LANG: 'C.UTF-8', PIX_CONFIG_DIR: scratch };
  let server;
  try {
    log(`seeding ${entries.toLocaleString('en')} entries…`);
    await run([BIN, 'sandbox', 'seed', '--transactions', String(entries), '--state', stateFile], base);
    server = await serveSandbox(base, stateFile, ['--latency-ms', String(latencyMs)]);
    const client = {
      ...base,
      PIX_CONFIG_DIR: join(scratch, 'client'),
      PIX_BASE_URL: server.url,
      PIX_TOKEN: 'bench',
    };
    // The sandbox builds its entries on the first statement request: keep that out of both measurements.
    const head = await run([BIN, 'statement', '--limit', '1', '--json'], client);
    const total = JSON.parse(head.stdout).total;

    const pixRuns = [];
    const loopRuns = [];
    for (let i = 0; i < runs; i++) {
      log(`run ${i + 1}/${runs}: pix statement --all -o ndjson…`);
      const pix = await measured(
        [BIN, 'statement', '--all', '-o', 'ndjson', '--concurrency', String(concurrency)],
        client,
      );
      if (pix.lines !== total) throw new Error(`pix wrote ${pix.lines} lines, the statement has ${total}`);
      pixRuns.push(pix);
      log(`run ${i + 1}/${runs}: sequential page loop…`);
      const loop = await measured(
        [SEQUENTIAL, server.url, 'bench', String(PAGE_SIZE), FAR_PAST, new Date().toISOString()],
        client,
      );
      if (loop.lines !== total)
        throw new Error(`the loop wrote ${loop.lines} lines, the statement has ${total}`);
      loopRuns.push(loop);
    }
    const summarise = (list) => ({
      ms: median(list.map((r) => r.ms)),
      peakRssMb: Math.max(...list.map((r) => r.peakRssMb)),
      lines: list[0].lines,
      bytes: list[0].bytes,
    });
    const pix = summarise(pixRuns);
    const sequential = summarise(loopRuns);
    return {
      entries: total,
      pageSize: PAGE_SIZE,
      concurrency,
      latencyMs,
      runs,
      description: `statement --all -o ndjson, pages of ${PAGE_SIZE}, concurrency ${concurrency}, sandbox latency ${latencyMs} ms per request`,
      pix,
      sequential,
      ratio: sequential.ms / pix.ms,
    };
  } finally {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The human block: figures, ratio, and the two targets of issue 4. */
export function formatReport(report) {
  const ms = (value) => `${(value / 1000).toFixed(2)} s`;
  const mb = (value) => `${value.toFixed(1)} MB`;
  const speed = report.ratio >= 3 ? 'PASS' : 'FAIL';
  const memory = report.pix.peakRssMb <= 150 ? 'PASS' : 'FAIL';
  return [
    `statement export: ${report.entries.toLocaleString('en')} entries, pages of ${report.pageSize}, sandbox latency ${report.latencyMs} ms per request (both runs), median of ${report.runs}`,
    `  pix statement --all -o ndjson (concurrency ${report.concurrency})  ${ms(report.pix.ms).padStart(9)}  peak RSS ${mb(report.pix.peakRssMb)}`,
    `  sequential page loop (node:http)                  ${ms(report.sequential.ms).padStart(9)}  peak RSS ${mb(report.sequential.peakRssMb)}`,
    `  ratio ${report.ratio.toFixed(2)}× (target ≥ 3×: ${speed}); pix peak RSS ${mb(report.pix.peakRssMb)} (target ≤ 150 MB: ${memory})`,
  ].join('\n');
}

function flag(args, name, fallback) {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  try {
    const report = await measureStatementExport({
      entries: flag(args, '--entries', 100_000),
      latencyMs: flag(args, '--latency-ms', 20),
      runs: flag(args, '--runs', quick ? 1 : 3),
      concurrency: flag(args, '--concurrency', 4),
      log: (text) => process.stderr.write(`${text}\n`),
    });
    process.stdout.write(`${formatReport(report)}\n`);
    if (args.includes('--json')) process.stdout.write(`${JSON.stringify(report)}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
