#!/usr/bin/env node
// The end-to-end tests (test/e2e) with the built binary run by another Node line: vitest itself runs on this
// Node, and every `pix` the tests spawn runs on the Node of scripts/node-line.mjs (through PIX_TEST_NODE, read
// by test/helpers/cli.ts). `npm run build` first: the build stays on the Node that builds.
//
//   node scripts/test-e2e-node.mjs 24 [vitest arguments…]     e.g. npm run test:e2e:node24
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeLine } from './node-line.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const [major, ...vitestArgs] = process.argv.slice(2);

if (!/^\d+$/.test(major ?? '')) {
  process.stderr.write('usage: node scripts/test-e2e-node.mjs MAJOR [vitest arguments…]\n');
  process.exit(2);
}
if (!existsSync(join(root, 'dist', 'main.js'))) {
  process.stderr.write('dist/ is missing: run `npm run build` first\n');
  process.exit(2);
}
let node;
try {
  node = await nodeLine(major, { log: (text) => process.stderr.write(`${text}\n`) });
} catch (error) {
  // Offline with nothing cached: said loudly, but a machine without the registry must not fail CI for it.
  // Any other failure (a bad tarball, a node that does not run) is an error.
  const offline = error.code === 'PIX_NO_REGISTRY';
  process.stderr.write(
    `${offline ? `SKIPPED: end-to-end tests on Node ${major} not run: ` : ''}${error.message}\n`,
  );
  process.exit(offline ? 0 : 1);
}
process.stderr.write(`end-to-end tests with pix on Node ${node.version} (${node.path})\n`);
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const child = spawn(process.execPath, [vitest, 'run', 'test/e2e', ...vitestArgs], {
  cwd: root,
  env: { ...process.env, PIX_TEST_NODE: node.path },
  stdio: 'inherit',
});
child.on('close', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
