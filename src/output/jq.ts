/**
 * `--jq EXPR`: jq itself (jq 1.8, compiled to WebAssembly by the jq-wasm package) over the JSON document a
 * command would print, so scripts need no `jq` binary. Loaded only when `--jq` is given. The build copies
 * jq's `.wasm` beside the chunks (scripts/build.mjs); from the sources it is read from the package.
 *
 * As `gh --jq` and `jq -r -c`: a string result prints raw (no quotes), any other compact, one per line.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { PixError, usageError } from '../errors.js';

export interface JqFilter {
  /** The expression's results over the JSON text `json`, one per line; a jq error is exit 2. */
  run(json: string): string;
}

async function wasmBytes(): Promise<Uint8Array> {
  try {
    return await readFile(new URL('./jq.wasm', import.meta.url));
  } catch {
    // Run from the sources (tests, tsx): the package's own copy.
    const require = createRequire(import.meta.url);
    return await readFile(require.resolve('jq-wasm/jq.wasm'));
  }
}

/** jq's message without its position lines and `jq: error:` prefix: one line for `error: --jq: …`. */
function firstLine(stderr: string): string {
  const line = stderr.split('\n').find((text) => text.startsWith('jq: error')) ?? stderr.split('\n')[0] ?? '';
  return line
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
    .replace(/ at <top-level>, line \d+, column \d+:?$/, '')
    .trim();
}

/**
 * Loads jq and checks `expression` compiles (a syntax error or an unknown function is exit 2, before
 * the command sends anything). The check compiles it inside a branch that never runs.
 */
export async function loadJqFilter(expression: string): Promise<JqFilter> {
  const { loadJq } = await import('jq-wasm');
  const jq = await loadJq({ wasmBinary: await wasmBytes() });
  const checked = jq.raw('null', `if false then (${expression}\n) else empty end`, ['-n']);
  if (checked.exitCode !== 0) {
    throw usageError('--jq', firstLine(checked.stderr), `jq ${jq.version.replace(/^jq-/, '')}'s syntax`);
  }
  return {
    run(json) {
      const result = jq.raw(json, expression, ['-r', '-c']);
      if (result.exitCode !== 0) {
        throw new PixError('usage', `--jq: ${firstLine(result.stderr)}`, {});
      }
      return result.stdout === '' ? '' : `${result.stdout}\n`;
    },
  };
}
