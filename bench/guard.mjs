#!/usr/bin/env node
// The statement guard of payments at 100 records a page: `pix pay key` against `pix sandbox serve --max-page
// 100` whose window holds N entries (`pix sandbox seed`; a --duplicate-window of 61 days takes in the seeded
// 60 days), counting the statement requests in its --verbose log. The guard reads its whole window once per
// command, through the pager (src/api/pager.ts): ⌈N/100⌉ requests, 1 per 100 recent entries (the statement
// answers debits and credits alike; the guard keeps the debits).
//
//   node bench/guard.mjs [--entries N] [--node PATH]
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { BIN, benchToken, cleanEnv, flag, serveSandbox } from './lib.mjs';

const run = promisify(execFile);
/** The entries a fresh sandbox holds before any seed (docs/sandbox.md). */
const FRESH_ENTRIES = 36;

/** Resolves with { entries, requests, perHundred, ms } or { na: reason }. */
export async function measureGuard({ entries = 1000, node = process.execPath, log = () => {} } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-guard-'));
  const base = cleanEnv(scratch, { PIX_CONFIG_DIR: join(scratch, 'served') });
  const stateFile = join(scratch, 'served', 'state.json');
  let server;
  try {
    server = await serveSandbox(base, stateFile, ['--max-page', '100']).catch((error) => ({
      na: String(error),
    }));
    if (server.na) return { entries, na: 'not available: this build has no `pix sandbox serve --max-page`' };
    const seeded = Math.max(0, entries - FRESH_ENTRIES);
    await run(
      process.execPath,
      [BIN, 'sandbox', 'seed', '--transactions', String(seeded), '--state', stateFile],
      {
        env: base,
      },
    );
    const client = cleanEnv(scratch, {
      PIX_CONFIG_DIR: join(scratch, 'client'),
      PIX_BASE_URL: server.url,
      PIX_TOKEN: benchToken(),
    });
    log(`pix pay key with a window of ${entries} entries, sandbox --max-page 100…`);
    const argv = [
      BIN,
      'pay',
      'key',
      'ana@example.com',
      '--amount',
      '1,23',
      '--yes',
      '--duplicate-window',
      '61d',
      '-v',
    ];
    const started = process.hrtime.bigint();
    const { code, stderr } = await new Promise((resolve, reject) => {
      const child = spawn(node, argv, { env: client, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (chunk) => {
        err += chunk;
      });
      child.on('error', reject);
      child.on('close', (exit) => resolve({ code: exit, stderr: err }));
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (code !== 0) throw new Error(`pix pay key exited ${code}: ${stderr.trim().slice(-800)}`);
    const requests = stderr
      .split('\n')
      .filter((line) => /^> GET \S*\/account\/transactions\?/.test(line)).length;
    return {
      entries: seeded + FRESH_ENTRIES,
      requests,
      perHundred: requests / ((seeded + FRESH_ENTRIES) / 100),
      ms,
    };
  } finally {
    await server?.stop?.();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const report = await measureGuard({
    entries: Number(flag(args, '--entries', '1000')),
    node: flag(args, '--node', process.execPath),
    log: (line) => console.error(line),
  });
  console.log(JSON.stringify(report));
}
