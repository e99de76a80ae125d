#!/usr/bin/env node
// SLOT FOR ISSUE 15 (next phase): `pix pay batch` of 1,000 rows against `pix sandbox serve --latency-ms 20`,
// target ≤ 15 s and peak RSS ≤ 150 MB. Until the command exists this reports "n/a (not available: …)";
// once `pix pay batch` and `pix sandbox batch-file` are in the build, it generates the file with the latter,
// pays it with `--yes -o ndjson` and counts one record per row. Check the invocation below against the command
// as built (its flags were not final when this was written).
//
//   node bench/pay-batch.mjs [--rows N] [--latency-ms L] [--node PATH]
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { BIN, benchToken, cleanEnv, flag, helpOf, serveSandbox, USAGE_HOOK, usageIn } from './lib.mjs';

const run = promisify(execFile);

/** Which part is missing from this build, or undefined when the batch can run. */
async function missing(env) {
  // A command that exists answers --help with its own usage line; otherwise its parent's help comes back.
  const built = async (words) => (await helpOf(words, env)).startsWith(`Usage: pix ${words.join(' ')} `);
  for (const words of [
    ['pay', 'batch'],
    ['sandbox', 'batch-file'],
  ]) {
    if (!(await built(words)))
      return `not available: \`pix ${words.join(' ')} --help\` finds no such command in this build`;
  }
  return undefined;
}

/** Resolves with { rows, ms, cpuMs, peakRssMb } or { na: reason }. */
export async function measurePayBatch({
  rows = 1000,
  latencyMs = 20,
  node = process.execPath,
  log = () => {},
} = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-batch-'));
  const base = cleanEnv(scratch, { PIX_CONFIG_DIR: join(scratch, 'served') });
  let server;
  try {
    const na = await missing(base);
    if (na) return { rows, na };
    const file = join(scratch, 'batch.csv');
    const generated = await run(process.execPath, [BIN, 'sandbox', 'batch-file', '--rows', String(rows)], {
      env: base,
      maxBuffer: 64 * 1024 * 1024,
    });
    writeFileSync(file, generated.stdout);
    server = await serveSandbox(base, join(scratch, 'served', 'state.json'), [
      '--latency-ms',
      String(latencyMs),
    ]);
    const client = cleanEnv(scratch, {
      PIX_CONFIG_DIR: join(scratch, 'client'),
      PIX_BASE_URL: server.url,
      PIX_TOKEN: benchToken(),
    });
    log(`pix pay batch: ${rows} rows, sandbox latency ${latencyMs} ms…`);
    const started = process.hrtime.bigint();
    const { code, stdout, stderr } = await new Promise((resolve, reject) => {
      const child = spawn(node, [...USAGE_HOOK, BIN, 'pay', 'batch', file, '--yes', '-o', 'ndjson'], {
        env: client,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        out += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk) => {
        err += chunk;
      });
      child.on('error', reject);
      child.on('close', (exit) => resolve({ code: exit, stdout: out, stderr: err }));
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (code !== 0) throw new Error(`pix pay batch exited ${code}: ${stderr.trim().slice(-800)}`);
    const records = stdout.split('\n').filter((line) => line !== '').length;
    if (records !== rows) throw new Error(`pix pay batch reported ${records} rows of ${rows}`);
    return { rows, ms, ...usageIn(stderr) };
  } finally {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  try {
    const report = await measurePayBatch({
      rows: Number(flag(args, '--rows', 1000)),
      latencyMs: Number(flag(args, '--latency-ms', 20)),
      node: flag(args, '--node', process.execPath),
      log: (text) => process.stderr.write(`${text}\n`),
    });
    process.stdout.write(
      report.na
        ? `pix pay batch, ${report.rows} rows: n/a (${report.na})\n`
        : `pix pay batch, ${report.rows} rows: ${(report.ms / 1000).toFixed(2)} s, CPU ${(report.cpuMs / 1000).toFixed(2)} s, peak RSS ${report.peakRssMb.toFixed(1)} MB\n`,
    );
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
