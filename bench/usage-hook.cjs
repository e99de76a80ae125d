// Preloaded (`node -r bench/usage-hook.cjs …`, lib.mjs USAGE_HOOK) into every child the bench measures, floors
// and pix alike: as the process exits it writes its own peak RSS (KB) and CPU time (user + system, µs), from
// getrusage, to fd 2. CommonJS, so that preloading it does not start Node's ESM loader in `node -e 0`.
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const usage = process.resourceUsage();
  writeSync(2, `\npix-bench-usage:${usage.maxRSS}:${usage.userCPUTime + usage.systemCPUTime}\n`);
});
