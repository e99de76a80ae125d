import { readFileSync } from 'node:fs';
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
const { writtenFor, installedVersion } = (await load('written-for.mjs')) as {
  writtenFor: (rewrite: string, pkg: string, version: string) => void;
  installedVersion: (pkg: string) => string;
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

describe('the version a part of the build was written for', () => {
  it('passes on the installed version and fails the build on any other, naming both', () => {
    const installed = installedVersion('undici');
    expect(() => writtenFor('scripts/build/x.mjs', 'undici', installed)).not.toThrow();
    expect(() => writtenFor('scripts/build/x.mjs', 'undici', '0.0.1')).toThrow(
      `scripts/build/x.mjs was written for undici 0.0.1, and undici ${installed} is installed`,
    );
  });

  it.each([
    ['commander-child-process-lazy.mjs', 'commander'],
    ['undici-lazy-modules.mjs', 'undici'],
    ['zod-locales-english-only.mjs', 'zod'],
    ['commonjs-wrappers-eager.mjs', 'esbuild'],
  ])('%s is written for the %s that package.json pins exactly', (part, pkg) => {
    const text = readFileSync(join(root, 'scripts', 'build', part), 'utf8');
    const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    } satisfies object;
    const spec = pinned.dependencies[pkg] ?? pinned.devDependencies[pkg];
    expect(spec).toMatch(/^\d+\.\d+\.\d+$/);
    expect(text).toContain(`'${pkg}', '${spec}'`);
  });
});
