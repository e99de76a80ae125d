/**
 * `jq` for tests on a machine without it: jq 1.8 itself (the jq-wasm build pix's --jq uses), reading stdin
 * and taking the flags and the filter as the jq command line does (`jq -r .x`, `jq -c 'select(…)'`).
 */
import { raw } from 'jq-wasm';

const args = process.argv.slice(2);
const filter = args.find((arg) => !arg.startsWith('-')) ?? '.';
const flags = args.filter((arg) => arg.startsWith('-'));
let input = '';
for await (const chunk of process.stdin) input += chunk;
const result = await raw(input, filter, flags);
process.stdout.write(
  result.stdout === '' || result.stdout.endsWith('\n') ? result.stdout : `${result.stdout}\n`,
);
process.stderr.write(result.stderr);
process.exitCode = result.exitCode;
