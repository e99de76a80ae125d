#!/usr/bin/env node
// Launcher of the compiled CLI: no tsx at run time, because start-up time is a feature.
// node:fs from getBuiltinModule, not `import`: its ESM facade would load Node's file-stream modules for nothing.
const { lstatSync, mkdirSync } = process.getBuiltinModule('node:fs');

/**
 * Node 22.1+ can keep V8's compiled code of the modules on disk, so later runs skip compiling them
 * (docs/performance.md). The cache holds code that will run, so it lives only in a folder that is this
 * user's alone: `$XDG_CACHE_HOME/pix/compile-cache` (default `~/.cache/…`), made 0700, and used only if it
 * and `pix/` are directories owned by this user that no one else can write; otherwise pix runs uncached.
 * Never a shared temporary folder. NODE_DISABLE_COMPILE_CACHE=1 turns it off (Node's own switch).
 */
function enableCompileCache() {
  // node:module is loaded only where it has the cache (22.1+): on Node 20 it would cost start-up ≈ 3 ms for nothing.
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 1) || typeof process.getuid !== 'function') return;
  const module = process.getBuiltinModule('node:module');
  const { XDG_CACHE_HOME, HOME } = process.env;
  const base = XDG_CACHE_HOME?.startsWith('/')
    ? XDG_CACHE_HOME
    : HOME?.startsWith('/')
      ? `${HOME}/.cache`
      : '';
  if (base === '') return;
  try {
    const dir = `${base}/pix/compile-cache`;
    // One level at a time, never `recursive`: Node's recursive mkdir spins forever under /proc
    // (HOME=/proc/self). A base that cannot be made here means running uncached.
    for (const path of [base, `${base}/pix`, dir]) {
      try {
        mkdirSync(path, { mode: 0o700 });
      } catch (error) {
        if (error?.code !== 'EEXIST') throw error;
      }
    }
    for (const path of [`${base}/pix`, dir]) {
      const stat = lstatSync(path);
      if (!stat.isDirectory() || stat.uid !== process.getuid() || (stat.mode & 0o022) !== 0) return;
    }
    module.enableCompileCache(dir);
  } catch {
    // A read-only or odd home: run without the cache, as Node 20 does.
  }
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // Scripts ask for the version in loops: answer it from one tiny module, without the command tree.
  const { pixVersion } = await import('../dist/version.js');
  process.stdout.write(`${pixVersion()}\n`);
} else {
  enableCompileCache();
  const { run } = await import('../dist/main.js');
  process.exitCode = await run(argv);
}
