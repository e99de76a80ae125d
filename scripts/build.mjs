#!/usr/bin/env node
// `npm run build`: src/ → dist/ as ESM bundles with code splitting (esbuild). Type-checking is `tsc --noEmit`
// (npm run typecheck, part of npm test); this only transpiles and bundles.
//
// Why a bundle and not tsc's one-file-per-module output: start-up is a feature (docs/performance.md). One
// command loads a handful of chunks instead of ~150 files (zod alone is 95). What pix never runs stays out:
// - undici's HTTP/2 client (which requires node:http2, pulling tls and crypto: ~25 ms on this machine), its
//   non-SIMD llhttp and fetch's body extractor stay in node_modules, required only if ever used
//   (undiciHttp2Lazy, undiciRareModules);
// - commander requires node:child_process for executable subcommands, which pix does not have: loaded on use;
// - zod's 50 locales are left out (see zodLocalesShim);
// - built-ins a bare node:http script never loads: undici's node:assert and commander's node:process get
//   stand-ins, and pix's modules take node:fs from getBuiltinModule (fsWithoutStreams).
// And the layout and the output are shaped for Node's loader and V8: the small shared modules share one chunk
// (src/hub.ts, hubInjection), and zod's, undici's and every CommonJS module's code is compiled with its file,
// so that Node 22+'s compile cache keeps it (rewriteOutputs).
//
//   node scripts/build.mjs            build dist/
//   node scripts/build.mjs --analyze  and print what each output file is made of
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeMetafile, build } from 'esbuild';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Replaces `node:<name>` for the importers matched, with a module whose contents are given. */
function shim(name, importer, contents) {
  return {
    name: `shim-${name}`,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^(node:)?${name}$`) }, (args) =>
        importer.test(args.importer.replaceAll('\\', '/'))
          ? { path: name, namespace: 'pix-shim' }
          : undefined,
      );
      b.onLoad({ filter: new RegExp(`^${name}$`), namespace: 'pix-shim' }, () => ({
        contents,
        loader: 'js',
      }));
    },
  };
}

const childProcessShim = shim(
  'child_process',
  /node_modules\/commander\/lib\/command\.js$/,
  `'use strict';
module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });
`,
);

/**
 * zod's `z.locales` namespace bundles its error messages in ~50 languages (≈400 kB), which V8 would parse
 * whenever a command loads zod. pix uses English only (registered by src/zod.ts), never `z.locales.*`, so the
 * namespace is English only here.
 */
const zodLocalesShim = {
  name: 'zod-locales-english-only',
  setup(b) {
    b.onLoad({ filter: /node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};

/**
 * undici's core/util.js and dispatcher/client.js require node:http at load (≈ 8 ms here: the HTTP server and
 * client modules) for two values, neither of which pix needs from it:
 * - `IncomingMessage`, to recognise a Node HTTP response passed as a request body (util.destroy); pix's
 *   bodies are strings, so here it is a class nothing is an instance of;
 * - `maxHeaderSize`, the default of the option of that name; pix gives the option itself (api/transport.ts,
 *   Node's default of 16 KiB), so this value is never used as a default.
 */
const undiciHttpShim = shim(
  'http',
  /node_modules\/undici\/lib\/(core\/util|dispatcher\/client)\.js$/,
  `'use strict';
module.exports = { IncomingMessage: class NotUsedByPix {}, maxHeaderSize: 16384 };
`,
);

/** Every TypeScript file of src/ with its text, read once for the plugins below that look at imports. */
const sources = readdirSync(join(root, 'src'), { recursive: true })
  .map(String)
  .filter((entry) => entry.endsWith('.ts'))
  .map((entry) => {
    const file = join(root, 'src', entry);
    return { file, text: readFileSync(file, 'utf8') };
  });

/**
 * `import { readFileSync } from 'node:fs'` in an ES module makes Node build node:fs's ESM facade, which
 * reads every export, the lazy ReadStream and WriteStream getters among them: every command loaded Node's
 * file-stream modules whether it streams a file or not (≈ 3% of `pix keys --json` on Node 24). pix's own
 * modules get node:fs from process.getBuiltinModule instead (the same object), re-exporting the names src/
 * imports from it (read from the import statements; a name missed fails the build, never the run).
 */
function namesImportedFrom(specifier) {
  const names = new Set();
  const pattern = new RegExp(`import\\s*\\{([^}]*)\\}\\s*from\\s*'${specifier}'`, 'g');
  for (const { text } of sources) {
    for (const match of text.matchAll(pattern)) {
      for (const part of match[1].split(',')) {
        const name = part.trim().split(/\s+as\s+/)[0];
        if (name !== '' && !name.startsWith('type ')) names.add(name);
      }
    }
  }
  return [...names].sort();
}
const fsValues = namesImportedFrom('node:fs');
const fsWithoutStreams = {
  name: 'node-fs-without-its-stream-getters',
  setup(b) {
    b.onResolve({ filter: /^node:fs$/ }, (args) =>
      /\/src\//.test(args.importer.replaceAll('\\', '/')) ? { path: 'fs', namespace: 'pix-fs' } : undefined,
    );
    b.onLoad({ filter: /^fs$/, namespace: 'pix-fs' }, () => ({
      contents: `export const { ${fsValues.join(', ')} } = process.getBuiltinModule('node:fs');\n`,
      loader: 'js',
    }));
  },
};

/**
 * Every module that some `import()` in src/ loads (an entry point of the split bundle) imports src/hub.ts
 * first, except program.ts, which `pix --help` loads: see hub.ts for why. The targets are read from src/'s
 * `import('./…')` calls.
 */
const hubPath = join(root, 'src', 'hub.ts');
function dynamicTargets() {
  const targets = new Set();
  for (const { file, text } of sources) {
    for (const match of text.matchAll(/import\((['"])(\.{1,2}\/[^'"]+)\1\)/g)) {
      targets.add(join(dirname(file), match[2].replace(/\.js$/, '.ts')));
    }
  }
  targets.delete(join(root, 'src', 'program.ts'));
  // A module of the hub importing the hub would be a cycle.
  for (const match of readFileSync(hubPath, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
    targets.delete(join(root, 'src', match[1].replace(/\.js$/, '.ts')));
  }
  return targets;
}
const hubTargets = dynamicTargets();
const hubInjection = {
  name: 'hub',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) =>
      hubTargets.has(args.path)
        ? { contents: `import ${JSON.stringify(hubPath)};\n${readFileSync(args.path, 'utf8')}`, loader: 'ts' }
        : undefined,
    );
  },
};

/** commander requires node:process, a module that loads on require (≈ 2 ms), for the `process` global. */
const processShim = shim(
  'process',
  /node_modules\/commander\//,
  "'use strict';\nmodule.exports = process;\n",
);

/**
 * undici requires node:assert (≈ 3 ms to load, with its diff and call-tracker modules) only to call
 * `assert(condition)` on its own invariants: here a function that throws the same kind of error.
 */
const undiciAssertShim = shim(
  'assert',
  /node_modules\/undici\//,
  `'use strict';
class AssertionError extends Error {
  constructor(message) {
    super(message ?? 'The expression evaluated to a falsy value');
    this.name = 'AssertionError';
    this.code = 'ERR_ASSERTION';
  }
}
function assert(value, message) {
  if (!value) throw message instanceof Error ? message : new AssertionError(message);
}
assert.ok = assert;
assert.AssertionError = AssertionError;
module.exports = assert;
`,
);

/**
 * undici's HTTP/2 client (client-h2.js, ~26 kB, which also requires node:http2 and so tls and crypto: ~25 ms
 * on this machine) is required at the top of client.js but runs only when ALPN selects h2, which pix never
 * offers (undici's allowH2 is off by default). In the bundle it is a function that requires the real module
 * from node_modules (undici is a dependency) on its first call, if there ever is one.
 */
const undiciHttp2Lazy = {
  name: 'undici-http2-client-lazy',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /node_modules\/undici\/lib\/dispatcher\/client\.js$/.test(args.importer.replaceAll('\\', '/'))
        ? { path: 'client-h2', namespace: 'pix-shim' }
        : undefined,
    );
    b.onResolve({ filter: /^undici\/lib\/dispatcher\/client-h2\.js$/, namespace: 'pix-shim' }, (args) => ({
      path: args.path,
      external: true,
    }));
    b.onLoad({ filter: /^client-h2$/, namespace: 'pix-shim' }, () => ({
      contents: `'use strict';
module.exports = (...args) => require('undici/lib/dispatcher/client-h2.js')(...args);
`,
      loader: 'js',
    }));
  },
};

/**
 * Two undici modules that only run in cases pix never meets stay in node_modules, required at run time if
 * ever (undici is a dependency): llhttp's non-SIMD WebAssembly (used only where SIMD is unavailable) and
 * fetch's body extractor (used only for FormData request bodies; it pulls in fetch, webidl and a multipart
 * parser). In the bundle they are ~165 kB that every API command would parse for nothing.
 */
const undiciRareModules = {
  name: 'undici-rare-modules-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/(llhttp\/llhttp-wasm|web\/fetch\/body)\.js$/ }, (args) =>
      /node_modules\/undici\/lib\/dispatcher\/client-h[12]\.js$/.test(args.importer.replaceAll('\\', '/'))
        ? { path: `undici/lib/${args.path.slice(3)}`, external: true }
        : undefined,
    );
  },
};

/**
 * CommonJS dependencies (commander, cli-table3, undici) call require(), nearly always for a Node built-in, so
 * a chunk that names `require` gets one (see dropUnusedBanner). A built-in comes from
 * process.getBuiltinModule (Node 20.16+); anything else (the few undici modules left in node_modules, see
 * undiciRareModules) from createRequire, made on first use. Not importing node:module here keeps it out of
 * every start-up on Node 20, where nothing else needs it (≈ 3 ms).
 */
const REQUIRE_BANNER =
  "const require = (id) => process.getBuiltinModule(id) ?? process.getBuiltinModule('node:module').createRequire(import.meta.url)(id);";

/**
 * Applies `rewrite` to the text of each .js file of the build, in order; a file is written again only when
 * its text changed.
 */
function rewriteOutputs(dir, ...rewrites) {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.js')) continue;
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');
    const rewritten = rewrites.reduce((current, rewrite) => rewrite(current, name), text);
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}

/**
 * Removes the banner from an output file whose code never names `require` (a word match: a string or
 * comment saying "require" keeps the banner, which is harmless; a use can never lose it).
 */
function dropUnusedBanner(text) {
  if (!text.startsWith(REQUIRE_BANNER)) return text;
  const code = text.slice(REQUIRE_BANNER.length);
  return /\brequire\b/.test(code) ? text : code.replace(/^\n/, '');
}

/**
 * esbuild wraps each CommonJS module it bundles (commander, undici, cli-table3, qrcode) as an object method,
 * `__commonJS({ "node_modules/…/x.js"(exports, module) { … } })`, which V8 compiles lazily: it pre-parses the
 * body with the file, then parses it again in full when the module is required. Every such module pix bundles
 * is required whenever its file loads, so here each wrapper becomes a parenthesized function expression, which
 * V8 compiles with the file: one parse instead of two, and on Node 22+ the module bodies land in the compile
 * cache, which holds only what was compiled with the file (`pix keys --json`: ≈ 2% fewer instructions on
 * Node 20, ≈ 3% on Node 24). Every wrapper of the file must be rewritten, or the build fails.
 */
function compileCommonJsWrappersEagerly(text, name) {
  const wrappers = text.split('= __commonJS({').length - 1;
  if (wrappers === 0) return text;
  let count = 0;
  const rewritten = text.replace(
    /= __commonJS\(\{\n {2}("[^"\n]+")\(([^)\n]*)\) \{\n([\s\S]*?)\n {2}\}\n\}\);\n/g,
    (_, key, params, body) => {
      count++;
      return `= __commonJS({\n  ${key}: (function (${params}) {\n${body}\n  })\n});\n`;
    },
  );
  if (count !== wrappers) throw new Error(`${name}: ${count} of ${wrappers} CommonJS wrappers rewritten`);
  return rewritten;
}

/**
 * Node 22+'s compile cache keeps only what V8 compiled with the file; every function compiled later, on its
 * first call, is compiled again on every run. zod's and undici's functions run on every API command (zod
 * builds and checks the schemas, undici makes the request), so in the files that hold them each function
 * expression and arrow function is put in parentheses, which V8 takes as "compile with the file". On Node 24
 * that is ≈ 2% fewer instructions for `pix keys --json` (medians of 5); on Node 20, which has no cache, it is
 * the same work moved earlier (no measurable change). pix's own code and commander are left lazy: most of
 * their functions do not run in a given command, and compiling them eagerly measured slower on both lines.
 * Parentheses around an expression never change what it means.
 */
function compileEagerly(packages) {
  return (text, name) => {
    if (!packages.some((pkg) => text.includes(`\n// node_modules/${pkg}/`))) return text;
    const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    const marks = [];
    const visit = (node) => {
      if (
        (ts.isFunctionExpression(node) || ts.isArrowFunction(node)) &&
        !ts.isParenthesizedExpression(node.parent)
      ) {
        marks.push([node.getStart(source), '('], [node.end, ')']);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    // By offset; the sort is stable, so marks at one offset keep the order they were found in.
    marks.sort((a, b) => a[0] - b[0]);
    let out = '';
    let from = 0;
    for (const [offset, paren] of marks) {
      out += text.slice(from, offset) + paren;
      from = offset;
    }
    return out + text.slice(from);
  };
}

// Built beside dist/ and swapped in, so a pix started during a build (tests in another terminal) finds a whole
// dist/, never a half-written one.
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
    // CommonJS dependencies (commander, cli-table3, undici) call require() for Node built-ins.
    banner: { js: REQUIRE_BANNER },
    define: { __PIX_VERSION__: JSON.stringify(pkg.version) },
    plugins: [
      childProcessShim,
      hubInjection,
      fsWithoutStreams,
      processShim,
      undiciAssertShim,
      undiciHttpShim,
      zodLocalesShim,
      undiciHttp2Lazy,
      undiciRareModules,
    ],
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  rewriteOutputs(
    staging,
    dropUnusedBanner,
    compileCommonJsWrappersEagerly,
    compileEagerly(['zod', 'undici']),
  );
} catch (error) {
  rmSync(staging, { recursive: true, force: true });
  throw error;
}
const retired = join(root, `.dist-old-${process.pid}`);
if (existsSync(dist)) renameSync(dist, retired);
renameSync(staging, dist);
rmSync(retired, { recursive: true, force: true });
if (process.argv.includes('--analyze')) console.log(await analyzeMetafile(result.metafile));
