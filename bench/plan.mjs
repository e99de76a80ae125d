#!/usr/bin/env node
// Payment approvals (README, Payment approvals), two measures:
//
// - `pix pay batch FILE --plan` then `pix plan execute` of N rows (1,000) against `pix sandbox serve
//   --latency-ms L` (20), with three approvals (ed25519, ecdsa, rsa keys made by ssh-keygen) under a
//   policy asking 3 of finance, against the plain `pix pay batch FILE --yes` of the same rows on the same
//   server, run alternately (plain, plan, plain, plan…) and compared by medians;
// - verifying a plan's approvals in-process (src/ bundled by esbuild): the policy read, three signatures checked
//   and the quorums counted, as `pix plan execute` does before anything is sent; the median of many runs
//   and the first (cold) one.
//
//   node bench/plan.mjs [--rows N] [--latency-ms L] [--runs R] [--node PATH]
import { execFile, spawnSync } from 'node:child_process';
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
  helpOf,
  median,
  root,
  serveSandbox,
  timed,
  USAGE_HOOK,
  usageIn,
} from './lib.mjs';

const run = promisify(execFile);

/** Runs `pix ARGS` to its end; resolves with its wall time, CPU and output, or throws on a non-zero exit. */
async function timedPix(node, args, env) {
  const { ms, code, stdout, stderr } = await timed(node, [...USAGE_HOOK, BIN, ...args], env);
  if (code !== 0)
    throw new Error(`pix ${args.slice(0, 3).join(' ')} exited ${code}: ${stderr.trim().slice(-800)}`);
  return { ms, stdout, ...usageIn(stderr) };
}

/** Three approvers' keys (ssh-keygen), and a policy asking 3 of finance, with its admin. */
function makeKeys(dir) {
  const kinds = {
    ana: ['ed25519'],
    bruno: ['ecdsa', '-b', '256'],
    carla: ['rsa', '-b', '3072'],
    dora: ['ed25519'],
  };
  const keys = {};
  for (const [name, [type, ...bits]] of Object.entries(kinds)) {
    const path = join(dir, name);
    const made = spawnSync('ssh-keygen', [
      '-q',
      '-t',
      type,
      ...bits,
      '-N',
      '',
      '-C',
      `${name}@example.com`,
      '-f',
      path,
    ]);
    if (made.status !== 0) throw new Error(`ssh-keygen: ${made.stderr}`);
    keys[name] = { path, line: readFileSync(`${path}.pub`, 'utf8').trim() };
  }
  const policy = {
    'pix-policy': 1,
    approvers: {
      ana: { groups: ['finance'], keys: [keys.ana.line] },
      bruno: { groups: ['finance'], keys: [keys.bruno.line] },
      carla: { groups: ['finance'], keys: [keys.carla.line] },
      dora: { groups: ['admins'], keys: [keys.dora.line] },
    },
    rules: [{ name: 'every plan', require: '3 of finance' }],
    'policy-change': '1 of admins',
  };
  const file = join(dir, 'pix-policy.json');
  writeFileSync(file, JSON.stringify(policy, null, 2));
  return { keys, policy: file };
}

/** Resolves with the medians { batchMs, planMs, executeMs, … } or { na }. */
export async function measurePlan({
  rows = 1000,
  latencyMs = 20,
  runs = 3,
  node = process.execPath,
  log = () => {},
} = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-plan-'));
  let server;
  try {
    const base = cleanEnv(scratch, { PIX_CONFIG_DIR: join(scratch, 'served') });
    const help = await helpOf(['plan', 'execute'], base);
    if (!help.startsWith('Usage: pix plan execute '))
      return { rows, na: 'no `pix plan execute` in this build' };
    const { keys, policy } = makeKeys(scratch);
    const generated = await run(process.execPath, [BIN, 'sandbox', 'batch-file', '--rows', String(rows)], {
      env: base,
      maxBuffer: 64 * 1024 * 1024,
    });
    server = await serveSandbox(base, join(scratch, 'served', 'state.json'), [
      '--latency-ms',
      String(latencyMs),
    ]);
    const clientEnv = (name) => {
      const dir = join(scratch, name);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return cleanEnv(scratch, { PIX_CONFIG_DIR: dir, PIX_PROFILE: 'bench', PIX_TOKEN: benchToken() });
    };
    // The admin's approval of the policy is a file beside it: made once.
    await timedPix(node, ['policy', 'approve', policy, '--key', keys.dora.path], clientEnv('admin'));
    const times = { batch: [], plan: [], execute: [], batchCpu: [], planCpu: [], executeCpu: [] };
    for (let round = 0; round < runs; round++) {
      // Fresh row ids each round: a journal never pays a row id twice, and each round is a new payout.
      const file = join(scratch, `batch-${round}.csv`);
      writeFileSync(
        file,
        generated.stdout.replace(/^([^,\n]+),/gm, (whole, id) => (id === 'id' ? whole : `${id}-${round},`)),
      );
      const setup = async (env) => {
        await timedPix(node, ['config', 'set', 'base-url', server.url], env);
        await timedPix(node, ['config', 'set', 'policy', policy], env);
      };
      log(`plain pay batch, ${rows} rows at ${latencyMs} ms (round ${round + 1} of ${runs})…`);
      const plainEnv = clientEnv(`plain-${round}`);
      await setup(plainEnv);
      const plain = await timedPix(node, ['pay', 'batch', file, '--yes', '-o', 'ndjson'], plainEnv);
      times.batch.push(plain.ms);
      times.batchCpu.push(plain.cpuMs);

      log(`pay batch --plan, 3 approvals, plan execute (round ${round + 1} of ${runs})…`);
      const env = clientEnv(`plan-${round}`);
      await setup(env);
      const planFile = join(scratch, `payouts-${round}.plan.json`);
      const planned = await timedPix(node, ['pay', 'batch', file, '--plan', planFile, '--by', 'bench'], env);
      times.plan.push(planned.ms);
      times.planCpu.push(planned.cpuMs);
      for (const name of ['ana', 'bruno', 'carla'])
        await timedPix(node, ['plan', 'approve', planFile, '--key', keys[name].path], env);
      const executed = await timedPix(node, ['plan', 'execute', planFile, '--yes', '-o', 'ndjson'], env);
      const paid = executed.stdout.split('\n').filter((line) => line.includes('"state":"paid"')).length;
      if (paid !== rows) throw new Error(`pix plan execute paid ${paid} rows of ${rows}`);
      times.execute.push(executed.ms);
      times.executeCpu.push(executed.cpuMs);
    }
    const batchMs = median(times.batch);
    const planMs = median(times.plan);
    const executeMs = median(times.execute);
    return {
      rows,
      batchMs,
      planMs,
      executeMs,
      batchCpuMs: median(times.batchCpu),
      planCpuMs: median(times.planCpu),
      executeCpuMs: median(times.executeCpu),
    };
  } finally {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The in-process cost of checking a plan's approvals (src/ bundled): resolves with { medianMs, firstMs }
 * over `runs` checks, each from the files (policy read, three signatures verified, quorums counted).
 */
export async function measureVerification({ runs = 200, rows = 1, log = () => {} } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-bench-verify-'));
  try {
    log('verifying three approvals of a plan in-process…');
    // Bundled by esbuild as dist/ is (no loader hooks in the way of the cold run), then run by plain node.
    const { build } = await import('esbuild');
    const script = join(scratch, 'plan-verify.mjs');
    await build({
      entryPoints: [join(root, 'bench', 'plan-verify.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: script,
      logLevel: 'error',
    });
    const { stdout } = await run(process.execPath, [script, scratch, String(runs), String(rows)], {
      env: cleanEnv(scratch),
      maxBuffer: 1024 * 1024,
    });
    return JSON.parse(stdout);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const log = (text) => process.stderr.write(`${text}\n`);
  try {
    const verify = await measureVerification({ log });
    process.stdout.write(
      `verifying 3 approvals: median ${verify.medianMs.toFixed(2)} ms, first ${verify.firstMs.toFixed(2)} ms\n`,
    );
    const report = await measurePlan({
      rows: Number(flag(args, '--rows', 1000)),
      latencyMs: Number(flag(args, '--latency-ms', 20)),
      runs: Number(flag(args, '--runs', 3)),
      node: flag(args, '--node', process.execPath),
      log,
    });
    if (report.na) process.stdout.write(`plan: n/a (${report.na})\n`);
    else {
      const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
      process.stdout.write(
        `${report.rows} rows: pay batch ${s(report.batchMs)}; --plan ${s(report.planMs)} + plan execute ${s(report.executeMs)} = ${s(report.planMs + report.executeMs)} (${((report.planMs + report.executeMs) / report.batchMs).toFixed(2)}×; execute alone ${(report.executeMs / report.batchMs).toFixed(2)}×)\n`,
      );
    }
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
