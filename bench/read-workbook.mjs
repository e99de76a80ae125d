#!/usr/bin/env node
// Reading a 100,000-row payout workbook: `pix pay batch FILE.xlsx` on a workbook written by exceljs (an
// implementation that is not pix's: shared strings, a `#,##0.00` amount column, a second sheet), whose last
// row has a key no parser accepts, so pix reads and checks every row, refuses the file (exit 2, one problem)
// and sends nothing: what is measured is the read, not the payments. Wall time, CPU and peak RSS, medians.
//
//   node bench/read-workbook.mjs [--rows N] [--runs R] [--node PATH] [--bin PATH ...]
//
// Several --bin (bin/pix.js of other builds) alternate run by run on the same workbook, so their figures
// compare within one run of the machine's load.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ExcelJS from 'exceljs';
import { BIN, cleanEnv, flag, median, USAGE_HOOK, usageIn } from './lib.mjs';

/** A payout workbook of `rows` rows as a spreadsheet application saves one; the last row's key is bad. */
export async function writePayoutWorkbook(file, rows) {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Pagamentos');
  sheet.addRow(['id', 'key', 'amount', 'description']);
  for (let n = 1; n <= rows; n++) {
    const key = n === rows ? 'not a key' : `fornecedor${n}@example.com`;
    sheet.addRow([`pg-${String(n).padStart(6, '0')}`, key, 10 + (n % 997) + (n % 100) / 100, `nota ${n}`]);
  }
  sheet.getColumn(3).numFmt = '#,##0.00';
  // As wide as a person makes them to read each key and amount whole: pix refuses a cell its column cuts.
  sheet.getColumn(2).width = 34;
  sheet.getColumn(3).width = 14;
  book.addWorksheet('Notas').addRow(['conferido por', 'ana']);
  await book.xlsx.writeFile(file);
}

function runOnce(node, file, env, bin = BIN) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(node, [...USAGE_HOOK, bin, 'pay', 'batch', file, '--yes'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 2 || !/1 problem; nothing was sent/.test(err)) {
        reject(
          new Error(`pix pay batch exited ${code}, expected 2 with one problem: ${err.trim().slice(-600)}`),
        );
        return;
      }
      resolve({ ms, ...usageIn(err) });
    });
  });
}

/** Resolves with { rows, bytes, ms, cpuMs, peakRssMb }: medians of `runs` reads. */
export async function measureWorkbookRead({
  rows = 100_000,
  runs = 3,
  node = process.execPath,
  bins = [BIN],
  log = () => {},
} = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-xlsx-'));
  try {
    const file = join(scratch, 'payouts.xlsx');
    log(`writing a ${rows}-row workbook (exceljs)…`);
    await writePayoutWorkbook(file, rows);
    const env = cleanEnv(scratch, { PIX_CONFIG_DIR: join(scratch, 'config') });
    const results = bins.map(() => []);
    for (let i = 0; i < runs; i++) {
      for (const [b, bin] of bins.entries()) {
        log(`run ${i + 1}/${runs}: ${bin} pay batch payouts.xlsx (${rows} rows)…`);
        results[b].push(await runOnce(node, file, env, bin));
      }
    }
    const reports = results.map((each, b) => ({
      bin: bins[b],
      rows,
      bytes: statSync(file).size,
      ms: median(each.map((r) => r.ms)),
      cpuMs: median(each.map((r) => r.cpuMs)),
      peakRssMb: median(each.map((r) => r.peakRssMb)),
    }));
    return bins.length === 1 ? reports[0] : reports;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  try {
    const bins = args.flatMap((arg, i) => (arg === '--bin' ? [args[i + 1]] : []));
    const reports = await measureWorkbookRead({
      rows: Number(flag(args, '--rows', 100_000)),
      runs: Number(flag(args, '--runs', 3)),
      node: flag(args, '--node', process.execPath),
      bins: bins.length > 0 ? bins : [BIN],
      log: (text) => process.stderr.write(`${text}\n`),
    });
    for (const report of [reports].flat()) {
      process.stdout.write(
        `${report.bin}: pix pay batch FILE.xlsx, ${report.rows} rows (${(report.bytes / 1e6).toFixed(1)} MB): ${(report.ms / 1000).toFixed(2)} s, CPU ${(report.cpuMs / 1000).toFixed(2)} s, peak RSS ${report.peakRssMb.toFixed(1)} MB\n`,
      );
    }
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
