// Preloaded (`node -r bench/usage-hook.cjs …`, lib.mjs USAGE_HOOK) into every child the bench measures, floors
// and pix alike: as the process exits it writes its own peak RSS (KB), CPU time (user + system, µs), from
// getrusage, and its RSS at that moment (KB), to fd 2. CommonJS, so that preloading it does not start Node's
// ESM loader in `node -e 0`.
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const usage = process.resourceUsage();
  // The RSS at exit too (KB): what a long-running command (pix listen) holds once it is idle.
  const rss = Math.round(process.memoryUsage.rss() / 1024);
  writeSync(2, `\npix-bench-usage:${usage.maxRSS}:${usage.userCPUTime + usage.systemCPUTime}:${rss}\n`);
});
