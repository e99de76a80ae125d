#!/usr/bin/env node
// `pix pay batch` of N rows against `pix sandbox serve --latency-ms L` (1,000 rows at 20 ms,
// ≤ 15 s and ≤ 150 MB; the same with a journal of 100,000 lines already present, and 20,000
// rows at no latency and --concurrency 16 in at most 10× the time of 2,000). It generates the file with
// `pix sandbox batch-file`, pays it with `--yes -o ndjson` and counts one record per row. `--journal-lines`
// fills the journal first with paid rows of other ids on the same account (what a year of batches leaves).
//
//   node bench/pay-batch.mjs [--rows N] [--latency-ms L] [--concurrency C] [--journal-lines J] [--node PATH]
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * A journal of `lines` lines (half start lines, half outcomes) of paid batch rows on the account at
 * `baseUrl`, with ids and keys no row of the bench's file has: what earlier batches leave behind. Chained
 * as pix chains them (src/journal/chain.ts: each line's `prev` is the first 96 bits of SHA-256 of the line
 * before, in base64url; the checkpoint names the last line), so every line is hashed when it is read.
 */
export function writeHistory(dir, lines, baseUrl, { account, spanDays } = {}) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const host = new URL(baseUrl).host;
  const now = Date.now();
  const count = lines / 2;
  // All a day old, or (spanDays) spread evenly over that many days up to now: a year of payments.
  const atOf = (n) =>
    new Date(spanDays === undefined ? now - 86_400_000 : now - ((count - n) / count) * spanDays * 86_400_000);
  const out = [];
  for (let n = 0; n < count; n++) {
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const at = atOf(n).toISOString();
    out.push(
      JSON.stringify({
        id,
        at,
        kind: 'payment',
        state: 'sending',
        ...(account === undefined ? {} : { account }),
        profile: 'sandbox',
        host,
        baseUrl,
        amountCentavos: 100 + (n % 5000),
        receiver: 'Histórico Ltda',
        endToEndId: `E99999999${String(n).padStart(23, '0')}`,
        payment: {
          method: 'key',
          key: `hist-${n}@example.com`,
          batchRow: { batch: 'history', row: `h-${n}` },
        },
      }),
      JSON.stringify({ id, at, state: 'done', transferId: `t-${n}`, status: 'PENDING' }),
    );
  }
  const digest = (text) => createHash('sha256').update(text).digest('base64url').slice(0, 16);
  let prev = digest('');
  const chained = out.map((line) => {
    const text = `${line.slice(0, -1)},"prev":"${prev}"}`;
    prev = digest(text);
    return text;
  });
  const text = `${chained.join('\n')}\n`;
  writeFileSync(join(dir, 'journal.jsonl'), text, { mode: 0o600 });
  const checkpoint = JSON.stringify({ lines: chained.length, bytes: Buffer.byteLength(text), last: prev });
  writeFileSync(join(dir, 'journal.jsonl.checkpoint'), `${checkpoint.padEnd(127)}\n`, { mode: 0o600 });
}

/** Resolves with { rows, ms, cpuMs, peakRssMb } or { na: reason }. */
export async function measurePayBatch({
  rows = 1000,
  latencyMs = 20,
  concurrency,
  journalLines = 0,
  node = process.execPath,
  /** A PostgreSQL ledger (its schema made) for the payer, instead of its config directory's journal. */
  ledgerUrl,
  /** The build to run, sandbox and file included (another checkout's bin/pix.js: --against, a change's before and after). */
  bin = BIN,
  log = () => {},
} = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-batch-'));
  const base = cleanEnv(scratch, { PIX_CONFIG_DIR: join(scratch, 'served') });
  let server;
  try {
    const na = await missing(base);
    if (na) return { rows, na };
    const file = join(scratch, 'batch.csv');
    const generated = await run(process.execPath, [bin, 'sandbox', 'batch-file', '--rows', String(rows)], {
      env: base,
      maxBuffer: 64 * 1024 * 1024,
    });
    writeFileSync(file, generated.stdout);
    server = await serveSandbox(
      base,
      join(scratch, 'served', 'state.json'),
      ['--latency-ms', String(latencyMs)],
      bin,
    );
    const client = cleanEnv(scratch, {
      PIX_CONFIG_DIR: join(scratch, 'client'),
      PIX_BASE_URL: server.url,
      PIX_TOKEN: benchToken(),
      ...(ledgerUrl === undefined ? {} : { PIX_LEDGER_URL: ledgerUrl }),
    });
    if (journalLines > 0) writeHistory(join(scratch, 'client'), journalLines, server.url);
    log(
      `pix pay batch: ${rows} rows, sandbox latency ${latencyMs} ms${concurrency ? `, concurrency ${concurrency}` : ''}${journalLines ? `, ${journalLines} journal lines before` : ''}…`,
    );
    const extra = concurrency === undefined ? [] : ['--concurrency', String(concurrency)];
    const started = process.hrtime.bigint();
    const { code, stdout, stderr } = await new Promise((resolve, reject) => {
      const child = spawn(
        node,
        [...USAGE_HOOK, bin, 'pay', 'batch', file, '--yes', '-o', 'ndjson', ...extra],
        {
          env: client,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
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
      ...(flag(args, '--concurrency', undefined) === undefined
        ? {}
        : { concurrency: Number(flag(args, '--concurrency', undefined)) }),
      journalLines: Number(flag(args, '--journal-lines', 0)),
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
