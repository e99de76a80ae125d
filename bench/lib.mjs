// What the bench scripts share: where the binary is, medians, a clean environment, a realistic token, a hook
// that reports a child's own CPU and peak memory, and a served sandbox.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const BIN = join(root, 'bin', 'pix.js');

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Only what a run needs: a developer's own PIX_* variables, NODE_OPTIONS or NODE_EXTRA_CA_CERTS (which makes
 * every `node` start parse a CA bundle, ≈ 50 ms here) must not change the figures.
 */
export function cleanEnv(home, extra = {}) {
  return { PATH: process.env.PATH ?? '', HOME: home, LANG: 'C.UTF-8', ...extra };
}

const base64url = (value) => Buffer.from(value).toString('base64url');

/**
 * A token shaped like a real provider's: an RS256 JWT of ~880 characters (header, claims, a 256-byte
 * signature). The secret scrubber searches for it in what the server sends, so its length matters.
 */
export function benchToken() {
  const header = { alg: 'RS256', typ: 'JWT', kid: 'pix-bench-2026-key-1' };
  const claims = {
    iss: 'https://auth.sandbox.example.com.br/realms/pix',
    sub: 'c0ffee00-1234-4abc-8def-0123456789ab',
    aud: ['financial-api', 'pix-cash-out', 'pix-cash-in'],
    iat: 1_790_000_000,
    exp: 1_790_003_600,
    scope: 'statement.read pix.keys.read pix.cash-in.write pix.cash-out.write pix.dict.read',
    client_id: 'erp-integration-production',
    account: '0001-123456789-0',
  };
  const signature = Buffer.alloc(256, 0).map((_, index) => (index * 131 + 17) % 256);
  return `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}.${signature.toString('base64url')}`;
}

/**
 * Node flags that preload bench/usage-hook.cjs into a child: it writes its own peak RSS and CPU time (user +
 * system, from getrusage) to fd 2 as it exits — the same measure for pix and for what it is compared with.
 */
export const USAGE_HOOK = ['-r', join(root, 'bench', 'usage-hook.cjs')];

/**
 * Reads what USAGE_HOOK wrote: { peakRssMb, cpuMs, exitRssMb }, NaN when it is not there (the child was
 * killed).
 */
export function usageIn(text) {
  const match = /pix-bench-usage:(\d+):(\d+)(?::(\d+))?/.exec(text);
  return match
    ? {
        peakRssMb: Number(match[1]) / 1024,
        cpuMs: Number(match[2]) / 1000,
        exitRssMb: match[3] === undefined ? Number.NaN : Number(match[3]) / 1024,
      }
    : { peakRssMb: Number.NaN, cpuMs: Number.NaN, exitRssMb: Number.NaN };
}

/** Runs one process to its end; resolves with the wall time in ms (spawn to exit), its exit code and output. */
export function timed(node, argv, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(node, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The value after `name` in a script's arguments (a string), or `fallback` when the flag is not given. */
export function flag(args, name, fallback) {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
}

/** `pix …` help text, to find out which commands and flags this build has. */
export function helpOf(args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args, '--help'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
    });
    child.on('close', () => resolve(out));
  });
}

/**
 * Starts `pix sandbox serve --port 0` over `stateFile` (with `extraArgs`, e.g. a simulated latency) and
 * resolves with its URL, read from the first line it prints, and a stop function.
 */
export function serveSandbox(env, stateFile, extraArgs = [], bin = BIN) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [bin, 'sandbox', 'serve', '--port', '0', '--state', stateFile, ...extraArgs],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      err += chunk;
    });
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) {
        resolve({
          url: out.split('\n')[0].trim(),
          stop: () =>
            new Promise((done) => {
              child.once('close', done);
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.on('close', (code) => reject(new Error(`pix sandbox serve exited (${code}): ${err}`)));
  });
}
