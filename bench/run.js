#!/usr/bin/env node
// `npm run bench`: start-up and request latency of the built CLI, as medians over repeated runs and as ratios
// against two floors measured in the same run (`node -e 0` and a bare node:http one-request script), plus the
// 100,000-entry export of bench/statement-export.mjs. Public tools only: Node spawning processes.
//
//   npm run bench               15 measured runs after 2 warm-ups
//   npm run bench -- --quick    5 runs after 1 warm-up (a smoke check)
//   npm run bench -- --runs 30  as many runs as you like
//
// Commands are run round-robin (one run of each, then the next round), so a burst of load on the machine hits
// every row alike and the ratios stay meaningful on a busy box.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, median, root, serveSandbox } from './lib.mjs';

const FLOOR_HTTP = join(root, 'bench', 'floor-http.mjs');
const EXPORT = join(root, 'bench', 'statement-export.mjs');

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runsIndex = args.indexOf('--runs');
const RUNS = runsIndex === -1 ? (quick ? 5 : 15) : Number(args[runsIndex + 1]);
const WARMUPS = quick ? 1 : 2;
const skipExport = args.includes('--no-export');

const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-'));
/** Only what the run needs: a developer's own PIX_* variables or NODE_OPTIONS must not change the figures. */
const baseEnv = { PATH: process.env.PATH ?? '', HOME: scratch, LANG: 'C.UTF-8' };

/** Runs one process to its end; resolves with the wall time in ms (spawn to exit) and its output. */
function timed(argv, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, argv, {
      env: { ...baseEnv, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      resolve({ ms, code, stdout, stderr });
    });
  });
}

function fmt(ms) {
  return `${ms.toFixed(1)} ms`;
}

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

/** The export benchmark of bench/statement-export.mjs (written with the statement command), run in-process. */
async function runExport() {
  if (skipExport) return undefined;
  if (!existsSync(EXPORT)) {
    console.log(`\n(export row skipped: ${EXPORT} is not there)`);
    return undefined;
  }
  const { measureStatementExport } = await import(pathToFileURL(EXPORT).href);
  return measureStatementExport({
    ...(quick ? { entries: 20_000 } : {}),
    log: (text) => process.stderr.write(`${text}\n`),
  });
}

async function main() {
  if (!existsSync(join(root, 'dist', 'main.js'))) {
    console.error('dist/ is missing: run `npm run build` first');
    process.exitCode = 2;
    return;
  }
  const sandbox = await serveSandbox(
    { ...baseEnv, PIX_CONFIG_DIR: join(scratch, 'served') },
    join(scratch, 'served', 'state.json'),
  );
  try {
    const keysUrl = `${sandbox.url}/api/financial/v1/pix/keys?limit=10&offset=0`;
    const statementUrl = `${sandbox.url}/api/financial/v1/account/transactions?limit=10&offset=0`;
    const served = {
      PIX_CONFIG_DIR: join(scratch, 'client'),
      PIX_BASE_URL: sandbox.url,
      PIX_TOKEN: 'bench-token',
    };
    // One fresh config dir for the whole bench: the warm-ups create the embedded sandbox's state file, the
    // measured runs see what an operator sees from the second run on.
    const embedded = { PIX_CONFIG_DIR: join(scratch, 'embedded') };
    const rows = [
      { id: 'node', label: 'node -e 0', argv: ['-e', '0'], env: {} },
      {
        id: 'http',
        label: 'node:http GET keys (floor)',
        argv: [FLOOR_HTTP, keysUrl, 'bench-token'],
        env: {},
      },
      {
        id: 'httpStatement',
        label: 'node:http GET statement (floor)',
        argv: [FLOOR_HTTP, statementUrl, 'x'],
        env: {},
      },
      { id: 'version', label: 'pix --version', argv: [BIN, '--version'], env: {} },
      { id: 'help', label: 'pix --help', argv: [BIN, '--help'], env: {} },
      { id: 'keys', label: 'pix keys --json (served)', argv: [BIN, 'keys', '--json'], env: served },
      { id: 'statement', label: 'pix statement (embedded)', argv: [BIN, 'statement'], env: embedded },
    ];
    const times = new Map(rows.map((row) => [row.id, []]));
    const total = WARMUPS + RUNS;
    for (let round = 0; round < total; round++) {
      process.stderr.write(`\rround ${round + 1}/${total}${round < WARMUPS ? ' (warm-up)' : '         '}`);
      for (const row of rows) {
        const result = await timed(row.argv, row.env);
        if (result.code !== 0) {
          throw new Error(`${row.label} exited with ${result.code}:\n${result.stderr}${result.stdout}`);
        }
        if (round >= WARMUPS) times.get(row.id).push(result.ms);
      }
    }
    process.stderr.write('\n');
    const med = Object.fromEntries([...times].map(([id, values]) => [id, median(values)]));
    const floorOf = { version: 'node', help: 'node', keys: 'http', statement: 'httpStatement' };

    const cpu = cpus()[0]?.model ?? 'unknown CPU';
    console.log(
      `pix bench — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} × ${cpu}`,
    );
    console.log(`${RUNS} runs after ${WARMUPS} warm-up(s), round-robin; medians (min … max)\n`);
    printTable(
      ['command', 'median', 'min', 'max', 'vs floor'],
      rows.map((row) => {
        const values = times.get(row.id);
        const floor = floorOf[row.id];
        return [
          row.label,
          fmt(med[row.id]),
          fmt(Math.min(...values)),
          fmt(Math.max(...values)),
          floor
            ? `${(med[row.id] / med[floor]).toFixed(2)}× ${floor === 'node' ? 'node -e 0' : 'node:http'}`
            : 'floor',
        ];
      }),
      [1, 2, 3],
    );

    const targets = [
      { what: 'pix --version ≤ 1.5× node -e 0', value: med.version / med.node, limit: 1.5, unit: '×' },
      { what: 'pix --help ≤ 2× node -e 0', value: med.help / med.node, limit: 2, unit: '×' },
      { what: 'pix keys --json ≤ 2× node:http', value: med.keys / med.http, limit: 2, unit: '×' },
      {
        what: 'pix statement (embedded) ≤ 2.5× node:http',
        value: med.statement / med.httpStatement,
        limit: 2.5,
        unit: '×',
      },
    ];

    // Issue 3: seeding 100,000 statement entries must take under 10 s (a figure, never a timed test).
    const seedRuns = [];
    for (let run = 0; run < 3; run++) {
      const seeded = await timed([BIN, 'sandbox', 'seed', '--transactions', '100000'], {
        PIX_CONFIG_DIR: join(scratch, `seed-${run}`),
      });
      if (seeded.code !== 0)
        throw new Error(`pix sandbox seed exited with ${seeded.code}:\n${seeded.stderr}`);
      seedRuns.push(seeded.ms);
    }
    const seedMs = median(seedRuns);
    console.log(`\npix sandbox seed --transactions 100000: ${fmt(seedMs)} (median of 3, fresh state each)`);
    targets.push({
      what: 'sandbox seed of 100,000 entries < 10 s',
      value: seedMs / 1000,
      limit: 10,
      unit: ' s',
    });

    const report = await runExport();
    if (report) {
      console.log(`\nexport of ${report.entries.toLocaleString('en')} entries: ${report.description}\n`);
      printTable(
        ['run', 'time', 'peak RSS'],
        [
          ['pix statement --all -o ndjson', fmt(report.pix.ms), `${report.pix.peakRssMb.toFixed(1)} MB`],
          ['sequential page loop', fmt(report.sequential.ms), `${report.sequential.peakRssMb.toFixed(1)} MB`],
        ],
        [1, 2],
      );
      targets.push(
        {
          what: 'export ≥ 3× faster than the sequential loop',
          value: report.sequential.ms / report.pix.ms,
          limit: 3,
          unit: '×',
          atLeast: true,
        },
        { what: 'export peak RSS ≤ 150 MB', value: report.pix.peakRssMb, limit: 150, unit: ' MB' },
      );
    }

    console.log('\ntargets\n');
    let failed = 0;
    printTable(
      ['target', 'measured', 'result'],
      targets.map((target) => {
        const pass = target.atLeast ? target.value >= target.limit : target.value <= target.limit;
        if (!pass) failed++;
        const shown =
          target.unit === '×' ? `${target.value.toFixed(2)}×` : `${target.value.toFixed(1)}${target.unit}`;
        return [target.what, shown, pass ? 'PASS' : 'FAIL'];
      }),
      [1],
    );
    console.log(`\n${targets.length - failed}/${targets.length} targets met`);
  } finally {
    await sandbox.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
