import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * Four tiers by what a file needs, read from the files themselves (a test that starts needing a program moves
 * to its tier without anyone editing a list here), never by what the machine has installed:
 * - unit: in-process, no external program — modules, commands with undici's MockAgent, the sandbox and the
 *   journal, loopback servers; a few spawn Node with tsx to race a lock. Its files share their workers'
 *   module cache (isolate: false: each worker loads src/ once, not once per file, half the tier's CPU); the
 *   few that replace a module (vi.mock) run isolated, as `unit-isolated`. test/setup.ts refuses, in this
 *   tier, to start any program of the two tiers below, so a file that needs one cannot hide here;
 * - oracle: the programs pix is compared with — LibreOffice (test/helpers/libreoffice.ts), ssh-keygen
 *   (test/helpers/ssh.ts makeKey…, test/helpers/approvals.ts's people), poppler's pdftotext;
 * - db: a real PostgreSQL server started by the file (test/helpers/postgres.ts);
 * - e2e: every file that runs the built binary (bin/pix.js → dist/, so `npm run build` first): test/e2e, and
 *   any other test file that imports BIN or runCli (test/helpers/cli.ts) or runOnPty (test/helpers/terminal.ts),
 *   whatever else it needs.
 * Which tiers run is chosen by PIX_TEST_TIER (a comma list: `unit`, `oracle`, `db`, `e2e`; all when unset),
 * or by vitest's `--project` (npm run test:unit|test:oracle|test:db|test:e2e). CONTRIBUTING says which to run
 * when.
 */
const spawnsTheBinary = /\b(BIN|runCli|runOnPty)\b[^;]*from '(\.\.\/)+helpers\/(cli|terminal)\.js'/;
const startsPostgres = /from '(\.\.\/)+helpers\/postgres\.js'/;
/** What starts an oracle: the helpers that run LibreOffice or ssh-keygen, or pdftotext by name. */
const startsAnOracle =
  /\b(soffice|openInLibreOffice|sshKeygen|makeKey|opensshVerifies|approvalsWorld|peopleKeys|pdftotext)\b/;
const mocks = /\bvi\.(do)?[mM]ock\(/;

const root = fileURLToPath(new URL('.', import.meta.url));
const files = readdirSync(`${root}test`, { recursive: true })
  .map((entry) => `test/${String(entry).replaceAll('\\', '/')}`)
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => ({ file, text: readFileSync(root + file, 'utf8') }));

type Tier = 'unit' | 'oracle' | 'db' | 'e2e';
function tierOf({ file, text }: { file: string; text: string }): Tier {
  if (file.startsWith('test/e2e/') || spawnsTheBinary.test(text)) return 'e2e';
  if (startsPostgres.test(text)) return 'db';
  if (startsAnOracle.test(text)) return 'oracle';
  return 'unit';
}
const of = (tier: Tier) => files.filter((entry) => tierOf(entry) === tier);
const unit = of('unit');

const TIERS: Record<Tier, TestProjectInlineConfiguration[]> = {
  unit: [
    {
      extends: true,
      test: {
        name: 'unit',
        include: unit.filter(({ text }) => !mocks.test(text)).map(({ file }) => file),
        isolate: false,
        env: { PIX_TEST_TIER: 'unit' },
      },
    },
    // Files that replace a module for their own tests: a shared module cache would hand it to others.
    {
      extends: true,
      test: {
        name: 'unit-isolated',
        include: unit.filter(({ text }) => mocks.test(text)).map(({ file }) => file),
        env: { PIX_TEST_TIER: 'unit' },
      },
    },
  ],
  oracle: [{ extends: true, test: { name: 'oracle', include: of('oracle').map(({ file }) => file) } }],
  db: [{ extends: true, test: { name: 'db', include: of('db').map(({ file }) => file) } }],
  // Each end-to-end test starts several Node processes (pix, servers, receivers): 60 s each, so a busy
  // 2-core machine (two files at a time beside other work) stays far from the limit; the unit tier's is 20 s.
  // Concurrent tests of a file (docs.test.ts's examples) two at a time, as the files themselves run.
  e2e: [
    {
      extends: true,
      test: {
        name: 'e2e',
        include: of('e2e').map(({ file }) => file),
        testTimeout: 60_000,
        maxConcurrency: 2,
      },
    },
  ],
};

const chosen = (process.env.PIX_TEST_TIER ?? 'unit,oracle,db,e2e').split(',').map((tier) => tier.trim());
for (const tier of chosen) {
  if (!(tier in TIERS)) throw new Error(`PIX_TEST_TIER: "${tier}" is not a tier (unit, oracle, db, e2e)`);
}

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most of the suite waits (on the processes it spawns, loopback servers, 20 ms of simulated latency), so
    // at least two files run at a time: vitest's default on a 2-core machine is one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    setupFiles: ['test/setup.ts'],
    // Modules transformed once are kept on disk (node_modules/.experimental-vitest-cache, keyed by their
    // content) for the next run: on 2 idle cores a unit run after the first spends about 5 s less, its
    // transforms 7-9 s summed instead of 41-50 (docs/performance.md). An experimental option of vitest's,
    // documented; `npx vitest --clearCache` empties it.
    experimental: { fsModuleCache: true },
    projects: chosen.flatMap((tier) => TIERS[tier as Tier]),
  },
});
