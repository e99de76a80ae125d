import type { DepsOverrides } from '../../src/context.js';
import { run } from '../../src/main.js';
import { tempConfigDir } from './cli.js';
import { createTestIO, type TestIO, type TestIOOptions } from './io.js';

/** How one in-process run is made: the test's streams (TestIOOptions) and the parts of the context it gives. */
export interface PixOptions extends TestIOOptions, Partial<Omit<DepsOverrides, 'io' | 'env'>> {
  /** The whole environment (nothing is inherited); merged key by key over a runner's defaults. */
  env?: Record<string, string>;
}

export interface PixResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as bytes (a workbook, a BOM). */
  stdoutBytes: Buffer;
  /** The prompts read, in order (createTestIO). */
  readLines: TestIO['readLines'];
  test: TestIO;
}

/**
 * pix run in-process, as a user would type `argv`, with captured streams: the exit code and what it wrote.
 * Without an environment it gets a fresh, empty PIX_CONFIG_DIR and nothing else (no network: the built-in
 * sandbox profile).
 */
export async function pix(argv: string[], options: PixOptions = {}): Promise<PixResult> {
  const { env, tty, stdinTTY, stdoutTTY, stderrTTY, columns, answers, terminalAnswers, stdin, ...parts } =
    options;
  const test = createTestIO({
    ...(stdin === undefined ? {} : { stdin }),
    ...(tty === undefined ? {} : { tty }),
    ...(stdinTTY === undefined ? {} : { stdinTTY }),
    ...(stdoutTTY === undefined ? {} : { stdoutTTY }),
    ...(stderrTTY === undefined ? {} : { stderrTTY }),
    ...(columns === undefined ? {} : { columns }),
    ...(answers === undefined ? {} : { answers }),
    ...(terminalAnswers === undefined ? {} : { terminalAnswers }),
  });
  const code = await run(argv, { ...parts, io: test.io, env: env ?? { PIX_CONFIG_DIR: tempConfigDir() } });
  return {
    code,
    stdout: test.stdout(),
    stderr: test.stderr(),
    stdoutBytes: test.stdoutBytes(),
    readLines: test.readLines,
    test,
  };
}

/**
 * `pix` with a file's defaults — its environment, its MockAgent, its clock — read at each call (so a test's
 * agent or directory is the current one), under what the call gives (the environment merged key by key).
 */
export function pixWith(
  defaults: () => PixOptions,
): (argv: string[], options?: PixOptions) => Promise<PixResult> {
  return (argv, options = {}) => {
    const base = defaults();
    const env = base.env || options.env ? { ...base.env, ...options.env } : undefined;
    return pix(argv, { ...base, ...options, ...(env ? { env } : {}) });
  };
}
