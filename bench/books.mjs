#!/usr/bin/env node
// The books (`pix reconcile`, `pix receipt`) at size, against the embedded sandbox:
// - `pix reconcile` of an ERP export of 10,000 invoices (pt-BR CSV through --map: 8,000 the payer's document
//   and amount prove, 1,000 without a document, 1,000 nothing pays) against 100,000 entries, written as
//   ndjson: ≤ 10 s and ≤ 300 MB;
// - `pix receipt --batch` of a 1,000-row batch paid on the sandbox (PDFs, one per row): ≤ 30 s.
// Each measured run is one process with bench/usage-hook.cjs preloaded (its own CPU time and peak RSS).
//
//   node bench/books.mjs [--entries N] [--expectations N] [--receipts N] [--node PATH]
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { BIN, cleanEnv, flag, helpOf, USAGE_HOOK, usageIn } from './lib.mjs';

const exec = promisify(execFile);

/** Runs pix with the usage hook; resolves with { ms, cpuMs, peakRssMb, stdout } or throws on a non-zero exit. */
function measured(node, argv, env, stdout = 'ignore') {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(node, [...USAGE_HOOK, BIN, ...argv], { env, stdio: ['ignore', stdout, 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0)
        reject(new Error(`pix ${argv.slice(0, 2).join(' ')} exited ${code}: ${err.trim().slice(-600)}`));
      else resolve({ ms, ...usageIn(err) });
    });
  });
}

async function pix(argv, env) {
  const { stdout } = await exec(process.execPath, [BIN, ...argv], { env, maxBuffer: 512 * 1024 * 1024 });
  return stdout;
}

const reais = (centavos) => `${Math.trunc(centavos / 100)},${String(centavos % 100).padStart(2, '0')}`;

/** Resolves with { reconcile: {ms, cpuMs, peakRssMb}, receipts: {...}, counts } or { na }. */
export async function measureBooks({
  entries = 100_000,
  expectations = 10_000,
  receipts = 1_000,
  node = process.execPath,
  log = () => {},
} = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-books-'));
  const env = cleanEnv(scratch, { PIX_CONFIG_DIR: join(scratch, 'config') });
  try {
    for (const words of [['reconcile'], ['receipt']]) {
      if (!(await helpOf(words, env)).startsWith(`Usage: pix ${words.join(' ')} `)) {
        return { na: `not available: \`pix ${words.join(' ')} --help\` finds no such command in this build` };
      }
    }
    log(
      `books: seeding ${entries.toLocaleString('en')} entries and writing ${expectations.toLocaleString('en')} invoices…`,
    );
    await pix(['sandbox', 'seed', '--transactions', String(entries)], env);
    const statement = await pix(
      ['statement', '--all', '--from', '2000-01-01', '--to', 'now', '-o', 'ndjson'],
      env,
    );
    const incomes = statement
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.type === 'INCOME');
    const rows = ['Documento;Cliente;CNPJ;Vencimento;Valor'];
    for (let i = 0; i < expectations; i++) {
      const entry = incomes[(i * 5) % incomes.length];
      const cents = Math.round(entry.amount * 100);
      const due = entry.confirmedAt.slice(0, 10).split('-').reverse().join('/');
      if (i % 10 === 8) rows.push(`NF-${i};;;${due};R$ ${reais(cents)}`);
      else if (i % 10 === 9) rows.push(`NF-${i};;;${due};R$ ${reais(300_000 + i)}`);
      else
        rows.push(
          `NF-${i};${entry.creditor.name};${entry.creditor.documentNumber};${due};R$ ${reais(cents)}`,
        );
    }
    const file = join(scratch, 'receber.csv');
    writeFileSync(file, `${rows.join('\r\n')}\r\n`);
    log('books: pix reconcile…');
    const reconcile = await measured(
      node,
      [
        'reconcile',
        '--expected',
        file,
        '--map',
        'id=Documento,amount=Valor,document=CNPJ,due=Vencimento,name=Cliente',
        '--from',
        '2000-01-01',
        '--to',
        'now',
        '-o',
        'ndjson',
      ],
      env,
    );

    log(`books: paying a ${receipts.toLocaleString('en')}-row batch, then its receipts…`);
    const batch = join(scratch, 'batch.csv');
    writeFileSync(batch, await pix(['sandbox', 'batch-file', '--rows', String(receipts)], env));
    await pix(['pay', 'batch', batch, '--yes', '-o', 'ndjson'], env);
    const out = join(scratch, 'receipts');
    const receipt = await measured(node, ['receipt', '--batch', batch, '--dir', out], env);
    const written = readdirSync(out).length;
    if (written !== receipts) throw new Error(`pix receipt --batch wrote ${written} of ${receipts} receipts`);
    return { reconcile, receipts: { ...receipt, count: written }, entries, expectations };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  try {
    const report = await measureBooks({
      entries: Number(flag(args, '--entries', 100_000)),
      expectations: Number(flag(args, '--expectations', 10_000)),
      receipts: Number(flag(args, '--receipts', 1_000)),
      node: flag(args, '--node', process.execPath),
      log: (text) => process.stderr.write(`${text}\n`),
    });
    if (report.na) process.stdout.write(`books: n/a (${report.na})\n`);
    else {
      const line = (what, r) =>
        `${what}: ${(r.ms / 1000).toFixed(2)} s, CPU ${(r.cpuMs / 1000).toFixed(2)} s, peak RSS ${r.peakRssMb.toFixed(1)} MB\n`;
      process.stdout.write(
        line(`pix reconcile, ${report.expectations} × ${report.entries}`, report.reconcile),
      );
      process.stdout.write(line(`pix receipt --batch, ${report.receipts.count} PDFs`, report.receipts));
    }
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
