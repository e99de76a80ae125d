import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { BIN, NODE, runProcess, tempConfigDir } from '../helpers/cli.js';

/**
 * What the built binary loads, as Node itself reports it: NODE_DEBUG=esm,module names every file the loaders
 * read, and a preloaded hook prints process.moduleLoadList (Node's built-ins) at exit. No timing here: the
 * figures live in `npm run bench`; this guards what makes them (docs/performance.md).
 */
interface Loaded {
  code: number | null;
  stdout: string;
  stderr: string;
  /** npm packages whose code ran, whether from node_modules or bundled into dist/ (esbuild's path comments). */
  packages: Set<string>;
  /** Files of node_modules, and modules bundled into the dist/ files that were loaded. */
  modules: string[];
  builtins: Set<string>;
}

const hookDir = tempConfigDir();
const HOOK = join(hookDir, 'builtins-at-exit.cjs');
writeFileSync(
  HOOK,
  `process.on('exit', () => require('node:fs').writeSync(2, '\\n@builtins ' + process.moduleLoadList.join(',') + '\\n'));\n`,
);

function packageOf(path: string): string | undefined {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  return match?.[1];
}

function bundledModules(file: string): string[] {
  // esbuild starts each bundled module with a `// node_modules/<pkg>/<file>` comment.
  return [...readFileSync(file, 'utf8').matchAll(/^\/\/ (node_modules\/\S+)$/gm)].map((match) => match[1]!);
}

async function loadedBy(args: string[], env: Record<string, string> = {}): Promise<Loaded> {
  const { code, stdout, stderr } = await runProcess(NODE, ['-r', HOOK, BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: hookDir,
      PIX_CONFIG_DIR: tempConfigDir(),
      NODE_DEBUG: 'esm,module',
      ...env,
    },
  });
  const files = new Set<string>();
  for (const match of stderr.matchAll(/Storing file:\/\/(\S+)/g)) files.add(decodeURIComponent(match[1]!));
  for (const match of stderr.matchAll(/: load "([^"]+)"/g)) files.add(match[1]!);
  const modules: string[] = [];
  for (const file of files) {
    if (file.includes('/node_modules/')) modules.push(file.slice(file.indexOf('node_modules/')));
    else if (/\/dist\/[^/]+\.js$/.test(file)) modules.push(...bundledModules(file));
  }
  const packages = new Set(modules.map(packageOf).filter((name) => name !== undefined));
  const builtins = new Set(
    (/@builtins ([^\n]+)/.exec(stderr)?.[1] ?? '')
      .split(',')
      .filter((entry) => entry.startsWith('NativeModule '))
      .map((entry) => entry.slice('NativeModule '.length)),
  );
  return { code, stdout, stderr, packages, modules, builtins };
}

/** BACEN's example BR Code (manual de padrões), decoded offline by `pix emv decode`. */
const BACEN_EXAMPLE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

const HEAVY = ['zod', 'qrcode', 'undici', 'chalk'];

describe('start-up: what the built binary loads', () => {
  it.each([
    [['--version'], false],
    [['-V'], false],
    [['--help'], true],
    [['charge', '--help'], true],
  ])(
    'pix %j loads commander only if it needs the command tree (%s), and none of the heavy modules',
    async (args, tree) => {
      const loaded = await loadedBy(args);
      expect(loaded.code).toBe(0);
      expect(loaded.stdout).not.toBe('');
      // A lone --version is answered before Commander is loaded; help needs the tree.
      if (tree) expect([...loaded.packages]).toContain('commander');
      else expect([...loaded.packages]).not.toContain('commander');
      for (const name of HEAVY) expect(loaded.packages, name).not.toContain(name);
      // Nor the network. (commander loads node:child_process, for executable subcommands pix has none of: its
      // code is taken as it is, architecture rule 8.)
      for (const name of ['http', 'http2', 'tls', 'crypto']) {
        expect(loaded.builtins, name).not.toContain(name);
      }
    },
  );

  it('piped --json output loads no chalk (colour only for people)', async () => {
    const loaded = await loadedBy(['emv', 'decode', BACEN_EXAMPLE, '--json']);
    expect(loaded.code).toBe(0);
    expect(loaded.packages).toContain('zod');
    expect(loaded.packages).not.toContain('chalk');
  });

  it('pix --version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const loaded = await loadedBy(['--version']);
    expect(loaded.stdout).toBe(`${version}\n`);
  });

  describe('one request', () => {
    let server: SandboxServer;
    beforeAll(async () => {
      server = await startSandboxServer({ port: 0, stateFile: join(tempConfigDir(), 'state.json') });
    });
    afterAll(async () => {
      await server.close();
    });

    it("pix keys --json goes through Node's own HTTP client: no undici, no HTTP/2, no TLS over http", async () => {
      const loaded = await loadedBy(['keys', '--json'], { PIX_BASE_URL: server.url, PIX_TOKEN: 'startup' });
      expect(loaded.code).toBe(0);
      const page = JSON.parse(loaded.stdout) as { total: number; result: Array<{ key: string }> };
      expect(page.total).toBeGreaterThan(0);
      expect(page.result.length).toBe(page.total);

      // The detection sees bundled packages (so the --version and --help checks above are not vacuous).
      expect(loaded.packages).toContain('zod');
      expect(loaded.packages).toContain('commander');
      // undici (its entry point brings fetch, WebSocket, caches and mocks) loads only behind a proxy.
      expect(loaded.packages).not.toContain('undici');
      expect(loaded.builtins).toContain('http');
      // Over http: no HTTP/2, no TLS. A token from the environment needs no hashing, nothing asks on /dev/tty.
      for (const name of ['http2', 'tls', 'https', 'crypto', 'tty']) {
        expect(loaded.builtins, name).not.toContain(name);
      }
      expect(loaded.packages).not.toContain('qrcode');
      // The PostgreSQL driver loads only for a profile whose ledger is a database (docs/team.md).
      expect(loaded.packages).not.toContain('postgres');
      // jq (--jq) and the workbook writer (-o xlsx) load only when asked for.
      for (const name of ['jq-wasm', 'fflate', 'sax']) expect(loaded.packages, name).not.toContain(name);
      const withJq = await loadedBy(['keys', '--jq', '.total'], {
        PIX_BASE_URL: server.url,
        PIX_TOKEN: 'startup',
      });
      expect(withJq.stdout).toBe(`${page.total}\n`);
      expect(withJq.packages).toContain('jq-wasm');
      // Built-ins pix itself keeps out, each a few ms: node:fs is never imported as an ES module (its facade
      // would load the file-stream modules: scripts/build/node-fs-without-stream-getters.mjs), node:os only
      // without HOME, node:module only where the compile cache is, and no engine flag is ever set (node:v8).
      for (const name of ['os', 'internal/fs/streams']) expect(loaded.builtins, name).not.toContain(name);
      // The Node running pix (NODE: Node 24 in `npm run test:e2e:node24`), not the one running vitest.
      const major = Number(
        execFileSync(NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0],
      );
      expect(loaded.builtins.has('module'), 'module').toBe(major >= 22);
      expect(loaded.builtins.has('v8'), 'v8').toBe(false);
      // Node's ES module loader pays for every file: the small shared modules come in one chunk
      // (src/common-chunk.ts).
      const distFiles = [...loaded.stderr.matchAll(/Storing file:\/\/(\S+\/dist\/[^/\s]+\.js)/g)].map(
        (m) => m[1],
      );
      expect(new Set(distFiles).size).toBeLessThanOrEqual(25);
    });
  });
});

describe('start-up: the ledger', () => {
  it('a payment on the file ledger loads no PostgreSQL driver; a profile on a database loads it', async () => {
    const dir = tempConfigDir();
    try {
      const pay = ['pay', 'key', 'ana@example.com', '--amount', '1', '--yes', '--duplicate-window', '0'];
      const file = await loadedBy(pay, { PIX_CONFIG_DIR: dir });
      expect(file.code, file.stderr).toBe(0);
      expect(file.packages).not.toContain('postgres');
      // The same payment with a ledger on a database nobody listens for: refused before anything is sent
      // (exit 6), and the driver was loaded, so the check above is not vacuous.
      const shared = await loadedBy(pay, {
        PIX_CONFIG_DIR: dir,
        PIX_LEDGER_URL: 'postgres://pix@127.0.0.1:1/pix?sslmode=disable',
      });
      expect(shared.code, shared.stderr).toBe(6);
      expect(shared.stderr).toMatch(
        /the shared ledger postgres:\/\/127\.0\.0\.1:1\/pix could not be reached/,
      );
      expect(shared.packages).toContain('postgres');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('start-up: the embedded sandbox', () => {
  /** Node's HTTP stack: what a command pays for when it speaks HTTP at all (either side). */
  const HTTP = ['http', '_http_client', '_http_server', 'https', 'http2', 'tls'];

  it('pix statement answers in-process: neither node:http nor undici is loaded', async () => {
    const loaded = await loadedBy(['statement', '--json', '--verbose']);
    expect(loaded.code, loaded.stderr).toBe(0);
    expect((JSON.parse(loaded.stdout) as { total: number }).total).toBeGreaterThan(0);
    expect(loaded.stderr).toContain('sandbox: simulated account, no real money moves');
    expect(loaded.stderr).toContain('> GET http://sandbox.localhost/api/financial/v1/account/transactions?');
    // The detection works in this run (so the absences below are not vacuous).
    expect(loaded.packages).toContain('zod');
    expect(loaded.builtins).toContain('fs');
    expect(loaded.packages).not.toContain('undici');
    for (const name of HTTP) expect(loaded.builtins, name).not.toContain(name);
    // Nor node:crypto: the sandbox reaches Web Crypto only to make ids and tokens, which a read does not.
    expect(loaded.builtins).not.toContain('crypto');
  });

  it("with PIX_SANDBOX_FAULTS it still serves over loopback, through Node's HTTP client", async () => {
    const loaded = await loadedBy(['statement', '--json', '--verbose'], { PIX_SANDBOX_FAULTS: 'keys:500' });
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(loaded.stderr).toMatch(
      /> GET http:\/\/127\.0\.0\.1:\d+\/api\/financial\/v1\/account\/transactions\?/,
    );
    expect(loaded.packages).not.toContain('undici');
    expect(loaded.builtins).toContain('http');
  });
});

/** Whether the node running pix here offers module.enableCompileCache (22.1+; npm run test:e2e:node24). */
const compileCache =
  execFileSync(NODE, ['-p', "typeof require('node:module').enableCompileCache"], {
    encoding: 'utf8',
  }).trim() === 'function';

describe.skipIf(!compileCache)('start-up: the compile cache of bin/pix.js (Node 22.1+)', () => {
  const runHelp = (env: Record<string, string>) =>
    runProcess(NODE, [BIN, '--help'], {
      env: { PATH: process.env.PATH ?? '', PIX_CONFIG_DIR: tempConfigDir(), ...env },
    });

  it("lives in the user's own cache folder, made 0700, and a run fills it", async () => {
    const home = tempConfigDir();
    const result = await runHelp({ HOME: home });
    expect(result.code).toBe(0);
    const dir = join(home, '.cache', 'pix', 'compile-cache');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir, { recursive: true }).length).toBeGreaterThan(0);
  });

  it('is not used where others can write (pix runs uncached), and NODE_DISABLE_COMPILE_CACHE turns it off', async () => {
    const shared = tempConfigDir();
    mkdirSync(join(shared, 'pix'));
    chmodSync(join(shared, 'pix'), 0o777);
    const result = await runHelp({ HOME: tempConfigDir(), XDG_CACHE_HOME: shared });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: pix');
    expect(readdirSync(join(shared, 'pix', 'compile-cache'))).toEqual([]);

    const home = tempConfigDir();
    expect((await runHelp({ HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' })).code).toBe(0);
    expect(readdirSync(join(home, '.cache', 'pix', 'compile-cache'))).toEqual([]);
  });
});
