// `import { readFileSync } from 'node:fs'` in an ES module makes Node build node:fs's ESM facade, which reads
// every export, the lazy ReadStream and WriteStream getters among them: every command loaded Node's
// file-stream modules whether it streams a file or not (≈ 3% of `pix keys --json` on Node 24). pix's own
// modules' static imports of node:fs get it from process.getBuiltinModule instead (the same object; Node
// 20.16+), re-exporting the names src/ imports from it, read from the import statements.
//
// Only `import { a, b as c } from 'node:fs'` (and `import type`, which the build erases) can be served that
// way: the build fails on any other static form — a namespace (`import * as fs`), a default import, an
// `export … from` — naming the file and line, and esbuild itself fails on a named import the list lacks. A
// dynamic `import('node:fs')` is left alone: it loads Node's real module, whole, when it runs.
//
// This touches pix's modules only, never a dependency's, so it names no dependency version.
import { relative } from 'node:path';
import { root } from './root.mjs';
import { sources } from './sources.mjs';

/** The value names src/ imports from node:fs; throws on every static import of another form. */
export function namesImportedFromNodeFs(files = sources) {
  const names = new Set();
  const refused = [];
  for (const { file, text } of files) {
    const statement = /\b(import|export)\b([^;]*?)\bfrom\s*(['"])node:fs\3/g;
    for (const match of text.matchAll(statement)) {
      const [, keyword, clause] = match;
      const named = /^\s*\{([^}]*)\}\s*$/.exec(clause);
      if (keyword === 'import' && /^\s*type\b/.test(clause) && !/^\s*type\s*,/.test(clause)) continue;
      if (keyword === 'import' && named) {
        for (const part of named[1].split(',')) {
          const name = part.trim().split(/\s+as\s+/)[0];
          if (name !== '' && !name.startsWith('type ')) names.add(name);
        }
        continue;
      }
      const line = text.slice(0, match.index).split('\n').length;
      refused.push(`${relative(root, file)}:${line}: ${match[0].replace(/\s+/g, ' ')}`);
    }
  }
  if (refused.length > 0) {
    throw new Error(
      `node:fs may only be imported by name in src/ (scripts/build/node-fs-without-stream-getters.mjs):\n  ${refused.join('\n  ')}`,
    );
  }
  return [...names].sort();
}

export function nodeFsWithoutStreamGetters() {
  const names = namesImportedFromNodeFs();
  return {
    name: 'node-fs-without-its-stream-getters',
    setup(b) {
      b.onResolve({ filter: /^node:fs$/ }, (args) =>
        args.kind === 'import-statement' && /\/src\//.test(args.importer.replaceAll('\\', '/'))
          ? { path: 'fs', namespace: 'pix-fs' }
          : undefined,
      );
      b.onLoad({ filter: /^fs$/, namespace: 'pix-fs' }, () => ({
        contents: `export const { ${names.join(', ')} } = process.getBuiltinModule('node:fs');\n`,
        loader: 'js',
      }));
    },
  };
}
