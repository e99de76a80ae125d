#!/usr/bin/env node
// The README's set-up, as a new user runs it: a fresh clone of this commit, an empty HOME (so a fresh npm
// cache and config, and no ~/.config/pix), and the README's own lines, read from it, in bash under
// `set -euo pipefail`: Quick start's first command (`npm install && npx pix statement`) and every line of the
// Install section, with npm's global prefix in a temporary folder (the empty HOME's .npmrc; what `-g`
// installs goes there, on PATH),
// then `pix --version` and `pix statement` from PATH. Quick start's second command (`npm install && npm
// test`) is .ci/run's own, on its clean clone.
//
// NOT offline: `npm install` fetches the dependencies from the registry. Without it (npm ping fails) it says
// SKIPPED and exits 0; a line that fails fails it, naming the line.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** The caller's variables a user's own shell would have too: certificates, proxies, CI. */
const PASSED = [
  'CI',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'https_proxy',
  'http_proxy',
  'no_proxy',
];
const root = fileURLToPath(new URL('..', import.meta.url));

function step(text) {
  process.stderr.write(`check-readme-setup: ${text}\n`);
}

/** The command lines of the README's first shell block under `## heading`, comments dropped. */
function blockUnder(readme, heading) {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`README.md has no "## ${heading}" section`);
  const fence = /```(?:sh|bash|shell)\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!fence) throw new Error(`README.md: no shell block under "## ${heading}"`);
  return fence[1]
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

async function registryAnswers() {
  try {
    await run('npm', ['ping'], { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

if (!(await registryAnswers())) {
  step('SKIPPED: the npm registry does not answer (npm ping), and `npm install` needs it');
  process.exit(0);
}

const { stdout: commit } = await run('git', ['-C', root, 'rev-parse', 'HEAD']);
// The README of the commit cloned, not of the work tree.
const { stdout: readme } = await run('git', ['-C', root, 'show', `${commit.trim()}:README.md`], {
  maxBuffer: 16 * 1024 * 1024,
});
/** What a reader runs, each from its own fresh clone: Quick start's first command; the Install section alone. */
const runs = [
  { name: 'Quick start', lines: [blockUnder(readme, 'Quick start')[0]] },
  { name: 'Install', lines: [...blockUnder(readme, 'Install'), 'pix --version', 'pix statement --limit 3'] },
];
const scratch = mkdtempSync(join(tmpdir(), 'pix-readme-setup-'));
// The machine's way to the registry (its CA file, its registry) stays, as a user's machine has its own;
// nothing else of the caller's npm configuration comes along.
const machine = [];
for (const key of ['registry', 'cafile', 'strict-ssl']) {
  const { stdout } = await run('npm', ['config', 'get', key]).catch(() => ({ stdout: '' }));
  const value = stdout.trim();
  if (value !== '' && value !== 'undefined' && value !== 'null') machine.push(`${key}=${value}`);
}
let failed = false;
try {
  for (const [at, { name, lines }] of runs.entries()) {
    const clone = join(scratch, `clone-${at}`);
    const home = join(scratch, `home-${at}`);
    const prefix = join(scratch, `prefix-${at}`);
    mkdirSync(home);
    // Where `npm install -g` puts things without root, as npm's docs set it up: the user's .npmrc (a prefix
    // given in the environment would move the clone's own `npm install` there too).
    writeFileSync(join(home, '.npmrc'), `${[`prefix=${prefix}`, ...machine].join('\n')}\n`);
    await run('git', ['clone', '--quiet', root, clone]);
    await run('git', ['-C', clone, 'checkout', '--quiet', commit.trim()]);
    step(
      `${name}: a fresh clone of ${commit.trim().slice(0, 12)}, HOME empty; running:\n  ${lines.join('\n  ')}`,
    );
    // `a && b` failing is no error to `set -e`: each line is checked itself.
    const script = [
      'set -euo pipefail',
      ...lines.map((line) => `${line} || { echo ${JSON.stringify(`failed: ${line}`)} >&2; exit 1; }`),
    ].join('\n');
    const code = await new Promise((resolve) => {
      const child = spawn('bash', ['-c', script], {
        cwd: clone,
        stdio: ['ignore', 'inherit', 'inherit'],
        env: {
          PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
          HOME: home,
          npm_config_update_notifier: 'false',
          // The machine's certificates and proxies, and a CI runner's CI=true, stay: a user's shell has its own.
          ...Object.fromEntries(
            PASSED.filter((key) => process.env[key] !== undefined).map((key) => [key, process.env[key]]),
          ),
        },
      });
      child.on('exit', (exitCode) => resolve(exitCode));
    });
    if (code !== 0) {
      step(`FAILED: ${name}: exit ${code}`);
      failed = true;
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (failed) process.exit(1);
step('passed: the README set-up runs as written');
