import { execFile, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { NODE, runProcess, tempConfigDir } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The README's install, `npm install -g .`, into a temporary prefix: offline (npm links the folder, nothing is
 * fetched) and with a clean HOME, so neither the machine's npm settings nor its global packages play a part.
 * The tarball route (`npm pack` + `npm install -g pix-*.tgz`) needs the registry for the dependencies' metadata,
 * so it is not a test here: `npm run test:install` (scripts/check-install.mjs) runs it, by hand before a release.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};

let home: string;
let prefix: string;
/** PATH with the prefix's bin first, then the Node under test (the installed `pix` is `#!/usr/bin/env node`). */
let path: string;

function npm(args: string[]) {
  return run('npm', [...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: home, npm_config_cache: join(home, 'npm-cache') },
  });
}

beforeAll(async () => {
  home = tempDir('pix-install-');
  prefix = join(home, 'prefix');
  // --ignore-scripts: `prepare` would rebuild dist/ under the other tests' feet; npm test built it already.
  await npm(['install', '--global', '--prefix', prefix, '--ignore-scripts', root]);
  path = [join(prefix, 'bin'), dirname(NODE), process.env.PATH ?? ''].join(':');
});

describe('npm install -g . (README, Install)', () => {
  it('puts a working pix on PATH', async () => {
    const env = { PATH: path, HOME: home, PIX_CONFIG_DIR: tempConfigDir() };
    const version = await runProcess('pix', ['--version'], { env });
    expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });

    // A command through the whole stack: its dependencies, the embedded sandbox, HTTP on loopback.
    const statement = await runProcess('pix', ['statement', '--limit', '2', '--json'], { env });
    expect(statement.code).toBe(0);
    expect(JSON.parse(statement.stdout).results).toHaveLength(2);
  });

  it("installs the man pages: `man pix-statement-list` reads the command's own help", async (context) => {
    const manDir = join(prefix, 'share', 'man', 'man1');
    expect(readdirSync(manDir)).toEqual(
      expect.arrayContaining(['pix.1', 'pix-statement.1', 'pix-statement-list.1', 'pix-api.1']),
    );
    if (spawnSync('man', ['--version']).status !== 0) return context.skip('no `man` on this machine');
    const shown = await runProcess('man', ['pix-statement-list'], {
      env: {
        PATH: process.env.PATH ?? '',
        MANPATH: join(prefix, 'share', 'man'),
        MANPAGER: 'cat',
        MANWIDTH: '80',
      },
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/NAME\s+pix-statement-list\s+- entries of a period/);
    expect(shown.stdout).toContain('--counterparty <text>');
    expect(shown.stdout).toContain('Exit codes:');
  });
});

describe('npm pack: what the tarball holds', () => {
  it('the launcher (executable), the whole build, the README, the third-party notices, and no sources or tests', async () => {
    const { stdout } = await npm(['pack', '--dry-run', '--json', '--ignore-scripts']);
    const [packed] = JSON.parse(stdout) as [{ files: { path: string; mode: number }[] }];
    const files = new Map(packed.files.map((file) => [file.path, file.mode]));
    expect(files.get('bin/pix.js')! & 0o111).toBe(0o111);
    expect(files.has('dist/main.js')).toBe(true);
    expect(files.has('dist/version.js')).toBe(true);
    expect(files.has('README.md')).toBe(true);
    expect(files.has('THIRD_PARTY_NOTICES.md')).toBe(true);
    // One man page per command, made from the command tree by the build (scripts/build.mjs).
    for (const page of [
      'pix.1',
      'pix-statement.1',
      'pix-statement-summary.1',
      'pix-pay-batch.1',
      'pix-api.1',
    ]) {
      expect(files.has(`dist/man/${page}`), page).toBe(true);
    }
    // package.json's `man` (what npm installs) names every page the build made, and no other.
    const made = readdirSync(join(root, 'dist', 'man')).map((page) => `./dist/man/${page}`);
    const listed = (pkg as unknown as { man: string[] }).man;
    expect([...listed].sort(), 'package.json "man": list every page of dist/man').toEqual(made.sort());
    const outside = [...files.keys()].filter(
      (file) =>
        !/^(bin|dist)\//.test(file) &&
        !['README.md', 'THIRD_PARTY_NOTICES.md', 'package.json'].includes(file),
    );
    expect(outside).toEqual([]);
  });
});

describe('dependencies: only what runs from node_modules is installed', () => {
  it('are exactly the packages the build loads from node_modules at run time; the rest is bundled', () => {
    const dist = join(root, 'dist');
    const loaded = new Set<string>();
    for (const file of readdirSync(dist).filter((entry) => entry.endsWith('.js'))) {
      const code = readFileSync(join(dist, file), 'utf8');
      // require("x") (esbuild calls it __require where it cannot name it), import("x"), import … from "x".
      const specifiers = code.matchAll(
        /(?<![\w$])(?:__)?(?:require|import)\(\s*"([^"]+)"\s*\)|\bfrom\s*"([^"]+)"/g,
      );
      for (const [, called, imported] of specifiers) {
        const specifier = (called ?? imported)!;
        if (specifier.startsWith('.') || isBuiltin(specifier)) continue;
        const name = specifier
          .split('/')
          .slice(0, specifier.startsWith('@') ? 2 : 1)
          .join('/');
        if (/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/.test(name)) loaded.add(name);
      }
    }
    // Every package is bundled whole (dependencies as they are): nothing is loaded from node_modules, and an
    // install brings pix alone. The detection is not vacuous: the build's own chunks are read above.
    // One specifier stays unresolved on purpose: `pg`'s optional native binding, required (inside a try)
    // only through its `pg.native` getter, which nothing reaches: pg-boss, the one user of `pg`, is handed
    // pix's own connection (src/journal/postgres/queue.ts), so `pg` never connects at all.
    const never = new Set(['pg-native']);
    expect([...never].every((name) => loaded.has(name))).toBe(true);
    expect([...loaded].filter((name) => !never.has(name)).sort()).toEqual(
      Object.keys(pkg.dependencies).sort(),
    );
  });
});
