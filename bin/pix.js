#!/usr/bin/env node
// Launcher of the compiled CLI: no tsx at run time, because start-up time is a feature.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // Scripts ask for the version in loops: answer it from one tiny module, without the command tree.
  const { pixVersion } = await import('../dist/version.js');
  process.stdout.write(`${pixVersion()}\n`);
} else {
  const { run } = await import('../dist/main.js');
  process.exitCode = await run(argv);
}
