import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp.js';

export const BIN = fileURLToPath(new URL('../../bin/pix.js', import.meta.url));

/**
 * The Node that runs the built binary in end-to-end tests: `PIX_TEST_NODE` when set (`npm run test:e2e:node24`
 * sets it to a Node 24 from scripts/node-line.mjs), else the Node running the tests.
 */
export const NODE = process.env.PIX_TEST_NODE || process.execPath;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh, empty PIX_CONFIG_DIR, removed after the test (or the file) that made it (helpers/temp.ts). */
export function tempConfigDir(): string {
  return tempDir('pix-test-');
}

export interface ProcessOptions {
  /** The whole environment of the child (nothing is inherited). */
  env: Record<string, string>;
  cwd?: string;
  stdin?: string;
  timeoutMs?: number;
}

/**
 * Runs a process to its end and collects its output; killed after `timeoutMs` (default 30 s: one pix run took
 * over 15 s at a load of 17 on 2 cores, and was read as an empty answer; the tests' own limit is 60 s).
 */
export function runProcess(command: string, args: string[], options: ProcessOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A child that exits before reading its stdin (most do: they never read it) closes the pipe first: that
    // EPIPE is the child's choice, not a failure of the test.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}

/**
 * Runs the built binary as CI would: no TTY, the given stdin (or none), and only the environment given
 * here plus PATH/HOME, so a developer's own PIX_* variables never leak into a test.
 */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return runProcess(NODE, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

/** Runs `work` over `items` with at most `limit` at a time. */
export async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

/**
 * A directory to put first on PATH when running documented examples: `pix` and `npx pix` run the built
 * binary, and, on a machine without jq, `jq` is jq 1.8 itself as WebAssembly (test/helpers/jq.mjs, what
 * --jq runs), so an example piping into jq runs everywhere.
 */
export function exampleBin(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const command = (name: string, script: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${script}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  command('pix', `exec "${NODE}" "${BIN}" "$@"`);
  command('npx', '[ "$1" = pix ] || { echo "npx: only pix here" >&2; exit 127; }\nshift\nexec pix "$@"');
  if (spawnSync('jq', ['--version']).status !== 0) {
    command('jq', `exec "${NODE}" "${fileURLToPath(new URL('./jq.mjs', import.meta.url))}" "$@"`);
  }
  return dir;
}
