import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { REQUIRE_BANNER } from '../../scripts/build/require-banner.mjs';
import { tempDir } from './temp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A script that runs pix's modules in a child Node process (to race a lock across processes, to be killed
 * mid-write), bundled once with esbuild — the build's own bundler, with the build's `require` banner — into
 * a plain `.mjs` that `node FILE ARGS…` runs. Each child then starts in about a tenth of a second instead of
 * loading tsx and transpiling src/ again (half a second of CPU a child), which is most of what the unit
 * tier's multi-process tests cost. `source` is TypeScript; it imports src/ by path, relative to the
 * repository (`import { SYSTEM } from './src/system.ts'`) or absolute. Node's built-ins stay imports, so a
 * script may still patch one (`syncBuiltinESMExports`) before it imports the code that uses it.
 */
export function nodeScript(source: string, dir = tempDir('pix-child-')): string {
  const outfile = join(dir, 'child.mjs');
  const result = buildSync({
    stdin: { contents: source, resolveDir: root, loader: 'ts', sourcefile: 'child.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: REQUIRE_BANNER },
    write: false,
    logLevel: 'silent',
  });
  writeFileSync(outfile, result.outputFiles[0]!.contents);
  return outfile;
}
