#!/usr/bin/env node
// The table a person gets: `pix statement --all` of a 100,000-entry embedded sandbox account, with stdout a
// real terminal (a pty from util-linux `script`, 120 × 40) and the pager off (`PIX_PAGER=` and, in builds
// that have it, `--no-pager`). The pty's output is drained and counted here, never held. Reports the wall time
// and pix's own CPU and peak RSS (getrusage, lib.mjs USAGE_HOOK).
//
// A table that grows worse than linearly in its rows takes tens of minutes at this size, so the run is cut at
// `capMs` (default 60 s) and reported as stopped, not waited for.
//
//   node bench/statement-table.mjs [--entries N] [--cap-s S] [--node PATH]
//
// From another script: `import { measureStatementTable } from './statement-table.mjs'`.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { BIN, cleanEnv, flag, helpOf, USAGE_HOOK, usageIn } from './lib.mjs';

const run = promisify(execFile);
const COLUMNS = 120;
const ROWS = 40;

function quote(word) {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * Seeds `entries` into a fresh embedded sandbox and runs the table on a pty once, on `node`.
 * Resolves with { entries, ms, cpuMs, peakRssMb, lines, stopped } (stopped: cut at the cap).
 */
export async function measureStatementTable({
  entries = 100_000,
  capMs = 60_000,
  node = process.execPath,
  log = () => {},
} = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-table-'));
  const env = cleanEnv(scratch, {
    PIX_CONFIG_DIR: join(scratch, 'config'),
    TERM: 'xterm-256color',
    PIX_PAGER: '',
  });
  try {
    log(`seeding ${entries.toLocaleString('en')} entries…`);
    await run(process.execPath, [BIN, 'sandbox', 'seed', '--transactions', String(entries)], { env });
    const noPager = (await helpOf([], env)).includes('--no-pager') ? ['--no-pager'] : [];
    const argv = [node, ...USAGE_HOOK, BIN, 'statement', '--all', ...noPager];
    // `timeout` inside the pty: pix is in script's new session, out of reach of a signal sent to script.
    const command = `stty cols ${COLUMNS} rows ${ROWS}; exec timeout -s KILL ${Math.ceil(capMs / 1000)} ${argv.map(quote).join(' ')}`;
    log(
      `pix ${['statement', '--all', ...noPager].join(' ')} on a ${COLUMNS}×${ROWS} pty (cut at ${capMs / 1000} s)…`,
    );
    const started = process.hrtime.bigint();
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let lines = 0;
    let tail = '';
    child.stdout.on('data', (chunk) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      tail = (tail + chunk.toString('latin1')).slice(-4096);
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const stopped = code === 137;
    if (!stopped && code !== 0) {
      throw new Error(`pix statement --all on a pty exited ${code}: ${stderr.trim()} ${tail.slice(-400)}`);
    }
    if (!stopped && lines < entries)
      throw new Error(`the table showed ${lines} lines for ${entries} entries`);
    return { entries, ms, lines, stopped, capMs, ...usageIn(tail) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  try {
    const report = await measureStatementTable({
      entries: Number(flag(args, '--entries', 100_000)),
      capMs: Number(flag(args, '--cap-s', 60)) * 1000,
      node: flag(args, '--node', process.execPath),
      log: (text) => process.stderr.write(`${text}\n`),
    });
    const shown = report.stopped
      ? `stopped at the ${report.capMs / 1000} s cap (${report.lines} lines shown)`
      : `${(report.ms / 1000).toFixed(2)} s, CPU ${(report.cpuMs / 1000).toFixed(2)} s, peak RSS ${report.peakRssMb.toFixed(1)} MB`;
    process.stdout.write(
      `pix statement --all, ${report.entries.toLocaleString('en')} rows on a pty: ${shown}\n`,
    );
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
