#!/usr/bin/env node
// The unit suite against the newest release, within the major package.json allows, of the dependencies pix
// leans on most: undici (every request) and zod (every flag and answer). package.json gives them caret ranges
// and the lock file pins what `npm ci` installs; this proves the next `npm install` would not break pix.
// They are installed with `npm install --no-save` (package.json and the lock file untouched), the suite and the
// type check run, and the locked versions are put back whatever happened. `SKIPPED: …` and exit 0 when the
// registry cannot be reached; a failing test fails it.
//
//   node scripts/test-newest-deps.mjs
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = ['undici', 'zod'];

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

function npm(args, options = {}) {
  return spawnSync('npm', args, { cwd: root, encoding: 'utf8', stdio: options.stdio ?? 'pipe' });
}

/** The newest published version within `range`, or undefined when the registry does not answer. */
function newest(name, range) {
  const result = npm(['view', `${name}@${range}`, 'version', '--json']);
  if (result.status !== 0) return undefined;
  const versions = [JSON.parse(result.stdout)].flat();
  return versions.at(-1);
}

const wanted = [];
for (const name of PACKAGES) {
  const range = pkg.dependencies[name] ?? pkg.devDependencies[name];
  const locked = lock.packages[`node_modules/${name}`].version;
  const latest = newest(name, range);
  if (latest === undefined) {
    console.log(`SKIPPED: the npm registry cannot be reached to find the newest ${name}@${range}`);
    process.exit(0);
  }
  wanted.push({ name, range, locked, latest });
}
for (const { name, range, locked, latest } of wanted) {
  console.log(`${name}: ${range}, locked ${locked}, newest ${latest}`);
}

const install = (versions) =>
  npm(['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', ...versions], {
    stdio: 'inherit',
  });

let status = 1;
try {
  if (install(wanted.map(({ name, latest }) => `${name}@${latest}`)).status !== 0) {
    throw new Error('npm install of the newest versions failed');
  }
  const typecheck = spawnSync('npx', ['tsc', '--noEmit'], { cwd: root, stdio: 'inherit' });
  const unit = spawnSync('npx', ['vitest', 'run', '--project', 'unit*'], { cwd: root, stdio: 'inherit' });
  status = typecheck.status === 0 && unit.status === 0 ? 0 : 1;
} finally {
  // The locked versions back, as `npm ci` installed them.
  if (install(wanted.map(({ name, locked }) => `${name}@${locked}`)).status !== 0) status = 1;
}
process.exit(status);
