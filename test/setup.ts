// Run before every test file (vitest.config.ts setupFiles): what a file's tests leave behind is cleared.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll } from 'vitest';
import { removeFileTempDirs } from './helpers/temp.js';

afterAll(removeFileTempDirs);

/**
 * The unit tier runs no program of the oracle and db tiers (vitest.config.ts): a file there that starts
 * LibreOffice, ssh-keygen, pdftotext or PostgreSQL — itself, through a helper, or through pix — fails saying
 * which, instead of making the tier's time depend on what the machine has installed.
 */
const OTHER_TIERS = /(^|[\s/])(soffice|libreoffice|ssh-keygen|pdftotext|initdb|pg_ctl|psql)(\s|$)/;
const GUARDED = Symbol.for('pix.test.unitTierGuard');
type Spawner = (command: string, ...rest: unknown[]) => unknown;
if (process.env.PIX_TEST_TIER === 'unit' && !(GUARDED in childProcess)) {
  const methods = ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync'] as const;
  for (const name of methods) {
    const original = childProcess[name] as unknown as Spawner;
    const guarded: Spawner = (command, ...rest) => {
      const args = Array.isArray(rest[0]) ? rest[0].map(String) : [];
      const line = [command, ...args].join(' ');
      const found = OTHER_TIERS.exec(line);
      if (found) {
        throw new Error(
          `the unit tier starts no external program, and this test started ${found[2]} (${line.slice(0, 80)}): ` +
            'it belongs to the oracle or db tier (vitest.config.ts says how a file is sorted)',
        );
      }
      return original(command, ...rest);
    };
    (childProcess as unknown as Record<string, Spawner>)[name] = guarded;
  }
  Object.defineProperty(childProcess, GUARDED, { value: true });
  syncBuiltinESMExports();
}
