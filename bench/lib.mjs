// What the bench scripts share: where the binary is, medians, and a served sandbox.
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
 * Starts `pix sandbox serve --port 0` over `stateFile` (with `extraArgs`, e.g. a simulated latency) and
 * resolves with its URL, read from the first line it prints, and a stop function.
 */
export function serveSandbox(env, stateFile, extraArgs = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, 'sandbox', 'serve', '--port', '0', '--state', stateFile, ...extraArgs],
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
