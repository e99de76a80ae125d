#!/usr/bin/env node
// `npm run build`: src/ → dist/ as ESM bundles with code splitting (esbuild). Type-checking is `tsc --noEmit`
// (npm run typecheck, part of npm test); this only transpiles and bundles.
//
// Why a bundle and not tsc's one-file-per-module output: start-up is a feature (docs/performance.md). One
// command loads a handful of chunks instead of ~150 files (zod alone is 95). The dependencies are bundled as
// they are: the build uses esbuild's documented options and plugin API on pix's own modules only, and never
// reads or rewrites a dependency's code, its file layout or the text esbuild emits (architecture rule 8):
// - pix's modules take node:fs from getBuiltinModule, so its ESM facade and file streams stay unloaded
//   (node-fs-without-stream-getters.mjs);
// - the small shared modules share one chunk (common-chunk.mjs, src/common-chunk.ts);
// - require() of a built-in comes from getBuiltinModule (require-banner.mjs, esbuild's `banner` option).
//
// - the command table's verbs (src/cli/verbs.ts) and docs/architecture.md's list of the commands are made
//   first from what each verb file says of itself (verbs.mjs), as package.json's `man` is made from the man
//   pages: never kept by hand.
//
//   node scripts/build.mjs            build dist/
//   node scripts/build.mjs --analyze  and print what each output file is made of
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { analyzeMetafile, build } from 'esbuild';
import { nodeFsWithoutStreamGetters } from './build/node-fs-without-stream-getters.mjs';
import { REQUIRE_BANNER } from './build/require-banner.mjs';
import { root } from './build/root.mjs';
import { writeVerbs } from './build/verbs.mjs';

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * The man pages (src/manpages.ts), made from the command tree by a throwaway bundle of it, so they are never
 * a hand-kept copy of `--help`: dist/man/pix.1 and one page per command (package.json's `man` lists them).
 */
async function writeManPages(into) {
  const scratch = join(root, `.man-${process.pid}`);
  try {
    await build({
      absWorkingDir: root,
      entryPoints: ['src/manpages.ts'],
      outfile: join(scratch, 'manpages.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      banner: { js: REQUIRE_BANNER },
      define: { __PIX_VERSION__: JSON.stringify(pkg.version) },
      logLevel: 'warning',
    });
    const { manPages } = await import(pathToFileURL(join(scratch, 'manpages.mjs')).href);
    mkdirSync(into, { recursive: true });
    const pages = await manPages(pkg.version, readFileSync(join(root, 'README.md'), 'utf8'));
    for (const [name, text] of pages) writeFileSync(join(into, name), text);
    return [...pages.keys()];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * package.json's `man`, what `npm install -g` installs, is the list of the pages the build made: written here
 * (only when it changed, keeping the file's layout), never by hand. A command added to the table gets its
 * page listed by the next build; test/e2e/install.test.ts checks the two agree.
 */
function listManPages(names) {
  const file = join(root, 'package.json');
  const text = readFileSync(file, 'utf8');
  const man = names.map((name) => `./dist/man/${name}`).sort();
  if (JSON.stringify(JSON.parse(text).man) === JSON.stringify(man)) return;
  // Only the `man` array is rewritten: the rest of the file stays as npm and people wrote it.
  const block = /\n {2}"man": \[[^\]]*\]/;
  if (!block.test(text)) throw new Error('package.json has no "man" list for the build to write');
  const list = man.map((page) => `    ${JSON.stringify(page)}`).join(',\n');
  writeFileSync(file, text.replace(block, `\n  "man": [\n${list}\n  ]`));
}

// Built beside dist/ and swapped in, so a pix started during a build (tests in another terminal) finds a whole
// dist/, never a half-written one.
// Before anything reads src/: the common chunk's plugin reads the table's `import()`s.
for (const file of await writeVerbs()) console.log(`${file}: made again from the verb files`);
const { commonChunk } = await import('./build/common-chunk.mjs');
const dist = join(root, 'dist');
const staging = join(root, `.dist-${process.pid}`);
let result;
try {
  result = await build({
    absWorkingDir: root,
    // version.ts is its own entry so bin/pix.js can answer --version without loading the CLI.
    entryPoints: ['src/main.ts', 'src/version.ts'],
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Chunks sit next to main.js, so a module's import.meta.url stays one level below the package root.
    chunkNames: '[name]-[hash]',
    banner: { js: REQUIRE_BANNER },
    define: { __PIX_VERSION__: JSON.stringify(pkg.version) },
    plugins: [commonChunk(), nodeFsWithoutStreamGetters()],
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  // jq compiled to WebAssembly (`--jq`, src/output/jq.ts reads it beside the chunks): an asset, not code.
  copyFileSync(
    createRequire(join(root, 'package.json')).resolve('jq-wasm/jq.wasm'),
    join(staging, 'jq.wasm'),
  );
  listManPages(await writeManPages(join(staging, 'man')));
} catch (error) {
  rmSync(staging, { recursive: true, force: true });
  throw error;
}
const retired = join(root, `.dist-old-${process.pid}`);
if (existsSync(dist)) renameSync(dist, retired);
renameSync(staging, dist);
rmSync(retired, { recursive: true, force: true });
if (process.argv.includes('--analyze')) console.log(await analyzeMetafile(result.metafile));
