#!/usr/bin/env node
// `npm run test:install`: the tarball route a user takes to install pix on another machine, checked for real —
// `npm pack` (which builds, through `prepare`), then `npm install -g pix-<version>.tgz` into a temporary prefix,
// then the installed `pix` run from PATH: --version, --help, and two commands through the whole stack on the
// embedded sandbox (its HTTP stays on loopback). The install stays small: at most INSTALL_BUDGET's packages
// (pix included) and bytes of files, since dist/ bundles all but what must run from node_modules.
//
// NOT offline: installing a tarball makes npm resolve its dependencies' version ranges, which needs their
// metadata from the registry (the tarballs themselves come from npm's cache when `npm ci` put them there:
// --prefer-offline). That is why this is a script run by hand before a release, and not a test:
// tests use loopback only. Without the registry (npm ping fails) it says SKIPPED and exits 0. The offline half — `npm install -g .` and what the tarball holds — is
// test/e2e/install.test.ts.
import { execFile } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** What `npm install -g` of the tarball may put on a machine. */
const INSTALL_BUDGET = { packages: 8, bytes: 8 * 1024 * 1024 };
const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
if (!(await registryAnswers())) {
  step('SKIPPED: the npm registry does not answer (npm ping), and installing a tarball needs it');
  process.exit(0);
}
const scratch = mkdtempSync(join(tmpdir(), 'pix-install-'));
const prefix = join(scratch, 'prefix');
const env = {
  PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
  HOME: scratch,
  PIX_CONFIG_DIR: join(scratch, 'config'),
};

function step(text) {
  process.stderr.write(`check-install: ${text}\n`);
}

/** Runs `pix ARGS` as installed (found on PATH) and returns its stdout; throws on a non-zero exit. */
async function pix(args) {
  const { stdout } = await run('pix', args, { env, cwd: scratch, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** The packages installed under `dir` (a node_modules folder), nested ones included. */
function packagesIn(dir) {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const folders = entry.name.startsWith('@')
      ? readdirSync(join(dir, entry.name)).map((name) => join(dir, entry.name, name))
      : [join(dir, entry.name)];
    for (const folder of folders) {
      count++;
      if (readdirSync(folder).includes('node_modules')) count += packagesIn(join(folder, 'node_modules'));
    }
  }
  return count;
}

/** The bytes of the files under `path`. */
function bytesIn(path) {
  const stats = lstatSync(path);
  if (!stats.isDirectory()) return stats.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesIn(join(path, name)), 0);
}

function check(condition, what) {
  if (!condition) throw new Error(what);
}

/** Whether the npm registry answers: offline, the check is skipped (said on stderr), not failed. */
async function registryAnswers() {
  try {
    await run('npm', ['ping'], { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

try {
  step('npm pack');
  const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  const tarball = join(scratch, JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')))[0].filename);
  step(`npm install -g ${tarball} --prefix ${prefix}`);
  await run(
    'npm',
    ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
    {
      cwd: scratch,
    },
  );

  const installed = join(prefix, 'lib', 'node_modules');
  const packages = packagesIn(installed);
  const bytes = bytesIn(installed);
  const size = `${packages} packages, ${(bytes / 1024 / 1024).toFixed(1)} MB`;
  step(`installed: ${size}`);
  check(
    packages <= INSTALL_BUDGET.packages && bytes <= INSTALL_BUDGET.bytes,
    `the install is ${size}: more than the budget of ${INSTALL_BUDGET.packages} packages and ${INSTALL_BUDGET.bytes / 1024 / 1024} MB`,
  );
  check((await pix(['--version'])) === `${version}\n`, `pix --version does not print ${version}`);
  check((await pix(['--help'])).includes('statement'), 'pix --help does not list the statement command');
  const statement = JSON.parse(await pix(['statement', '--limit', '3', '--json']));
  check(statement.results?.length === 3, 'pix statement --limit 3 --json did not give 3 entries');
  const keys = JSON.parse(await pix(['keys', '--json']));
  check(Array.isArray(keys.result) && keys.result.length > 0, 'pix keys --json gave no keys');
  step(`ok: the installed pix ${version} runs (--version, --help, statement, keys)`);
} catch (error) {
  step(`FAILED: ${(error.stderr || error.message || String(error)).trim()}`);
  process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
