import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The guards of scripts/build/ (plain .mjs, loaded by URL): what makes `npm run build` fail, and on what. */
const root = fileURLToPath(new URL('../..', import.meta.url));
const load = (name: string) => import(pathToFileURL(join(root, 'scripts', 'build', name)).href);

interface Source {
  file: string;
  text: string;
}
const { namesImportedFromNodeFs } = (await load('node-fs-without-stream-getters.mjs')) as {
  namesImportedFromNodeFs: (files: Source[]) => string[];
};
const file = (text: string): Source => ({ file: join(root, 'src', 'probe.ts'), text });

describe('the node:fs part of the build (pix modules take node:fs from getBuiltinModule)', () => {
  it('serves named imports, and skips type-only ones', () => {
    const names = namesImportedFromNodeFs([
      file("import { readFileSync, statSync as stat, type Stats } from 'node:fs';\n"),
      file(
        'import type { Dirent } from \'node:fs\';\nimport {\n  openSync,\n  closeSync,\n} from "node:fs";\n',
      ),
      file("const fsp = await import('node:fs/promises');\nimport { join } from 'node:path';\n"),
    ]);
    expect(names).toEqual(['closeSync', 'openSync', 'readFileSync', 'statSync']);
  });

  it.each([
    ["import * as fsx from 'node:fs';", 'import * as fsx'],
    ["import fs from 'node:fs';", 'import fs'],
    ["import fs, { readFileSync } from 'node:fs';", 'import fs, { readFileSync }'],
    ["export { opendirSync } from 'node:fs';", 'export { opendirSync }'],
    ["export * from 'node:fs';", 'export *'],
  ])('fails the build on %j, naming the file and line', (statement, shown) => {
    expect(() => namesImportedFromNodeFs([file(`// probe\n${statement}\n`)])).toThrow(
      `src/probe.ts:2: ${shown} from 'node:fs'`,
    );
  });
});

/** Every source of the build and of src/, with its text. */
function texts(dir: string): Array<{ file: string; text: string }> {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|mjs|js|cjs)$/.test(name) && !name.endsWith('.d.ts'))
    .map((name) => ({ file: `${dir}/${name}`, text: readFileSync(join(root, dir, name), 'utf8') }));
}
const code = [
  ...texts('src'),
  ...texts('scripts'),
  { file: 'bin/pix.js', text: readFileSync(join(root, 'bin/pix.js'), 'utf8') },
];
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The subpaths a package documents (its `exports`), or none but the package itself when it has no map. */
function exported(name: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
    exports?: Record<string, unknown> | string;
  };
  if (manifest.exports === undefined || typeof manifest.exports === 'string') return ['.'];
  return Object.keys(manifest.exports);
}

describe('dependencies as they are: only what they document (architecture rule 8)', () => {
  const hits = (pattern: RegExp) => code.filter(({ text }) => pattern.test(text)).map(({ file }) => file);

  it('no import of a file a package does not export (no deep import into its private files)', () => {
    const deep: string[] = [];
    for (const { file, text } of code) {
      for (const match of text.matchAll(
        /(?:from\s+|import\(\s*|require\(\s*)['"]((?:@[\w.-]+\/)?[\w.-]+)(\/[^'"]+)?['"]/g,
      )) {
        const [, name, subpath] = match;
        if (!name || name.startsWith('node') || !(name in pkg.dependencies || name in pkg.devDependencies))
          continue;
        if (subpath === undefined) continue;
        const allowed = exported(name);
        if (
          !allowed.includes(`.${subpath}`) &&
          !allowed.some((key) => key.endsWith('/*') && `.${subpath}`.startsWith(key.slice(0, -1)))
        ) {
          deep.push(`${file}: ${name}${subpath}`);
        }
      }
    }
    expect(deep).toEqual([]);
  });

  it("no prototype patched, no zod internals, no engine flag, no rewrite of esbuild's output", () => {
    expect(hits(/\.prototype(?:\.[\w$]+|\[[^\]]+\])*\s*=(?![=>])|Object\.assign\([\w.]+\.prototype/)).toEqual(
      [],
    );
    // zod's internals (its compiled object type, its constructor, the _zod slot); its documented types, such as
    // z.core.$ZodError (what zod/mini's safeParse gives), are no internal.
    expect(hits(/\$ZodObjectJIT|\$constructor|\._zod\b|zod\/v4\/core/)).toEqual([]);
    expect(hits(/setFlagsFromString/)).toEqual([]);
    // The build writes what esbuild made and never reads it back: no output file is read as text.
    expect(hits(/__commonJS|rewriteOutputs|outputFiles\b/)).toEqual([]);
  });

  it('undici and zod on caret ranges, so a patch reaches users (CI runs the suite on the newest: .ci/run)', () => {
    expect(pkg.devDependencies.undici).toMatch(/^\^\d+\.\d+\.\d+$/);
    expect(pkg.devDependencies.zod).toMatch(/^\^\d+\.\d+\.\d+$/);
    expect(readFileSync(join(root, '.ci', 'run'), 'utf8')).toContain('scripts/test-newest-deps.mjs');
  });
});
