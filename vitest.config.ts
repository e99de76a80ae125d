import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Two tiers (`vitest run --project 'unit*'|e2e`; plain `vitest run` runs both):
 * - unit: in-process — modules, commands with undici's MockAgent, the sandbox and the journal, loopback
 *   servers; a few spawn Node with tsx to race a lock, none needs dist/. Its files share their workers'
 *   module cache (isolate: false: each worker loads src/ once, not once per file, half the tier's CPU);
 *   the few that replace a module (vi.mock) run isolated, as `unit-isolated`;
 * - e2e: every file that runs the built binary (bin/pix.js → dist/, so `npm run build` first): test/e2e, and
 *   any other test file that imports BIN or runCli (test/helpers/cli.ts) or runOnPty (test/helpers/terminal.ts).
 *   Read from the files themselves, so a test that starts spawning the binary
 *   moves to the e2e tier without anyone editing a list here.
 */
const spawnsTheBinary = /\b(BIN|runCli|runOnPty)\b[^;]*from '(\.\.\/)+helpers\/(cli|terminal)\.js'/;
const root = fileURLToPath(new URL('.', import.meta.url));
const e2e = readdirSync(`${root}test`, { recursive: true })
  .map((entry) => `test/${String(entry).replaceAll('\\', '/')}`)
  .filter((file) => file.endsWith('.test.ts'))
  .filter((file) => file.startsWith('test/e2e/') || spawnsTheBinary.test(readFileSync(root + file, 'utf8')));
/** Unit files that replace a module for their own tests: a shared module cache would hand it to others. */
const mocking = readdirSync(`${root}test`, { recursive: true })
  .map((entry) => `test/${String(entry).replaceAll('\\', '/')}`)
  .filter((file) => file.endsWith('.test.ts') && !e2e.includes(file))
  .filter((file) => /\bvi\.(do)?[mM]ock\(/.test(readFileSync(root + file, 'utf8')));

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most of the suite waits (on the processes it spawns, loopback servers, 20 ms of simulated latency), so
    // at least two files run at a time: vitest's default on a 2-core machine is one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    setupFiles: ['test/setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...e2e, ...mocking], isolate: false },
      },
      { extends: true, test: { name: 'unit-isolated', include: mocking } },
      // Each end-to-end test starts several Node processes (pix, servers, receivers): 60 s each, so a busy
      // 2-core machine (two files at a time beside other work) stays far from the limit; the unit tier's is 20 s.
      { extends: true, test: { name: 'e2e', include: e2e, testTimeout: 60_000 } },
    ],
  },
});
