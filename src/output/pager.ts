/**
 * The pager, as git and gh do it: when stdout is a terminal, the output of a command that can be long
 * (statement, keys, emv decode, …) goes through `PIX_PAGER`, else `PAGER`, else `less -FRX` (which
 * shows a short output and quits at once, keeps colours, and leaves the text on the screen). An empty
 * `PIX_PAGER`/`PAGER`, `cat`, or `--no-pager` turns it off; so does a missing `less`. A command given in
 * a variable runs through `sh -c`, so it may carry options (`PIX_PAGER='less -S'`). `LESS=FRX` and
 * `LV=-c` are set for it when unset, as gh does. node:child_process is loaded only when a pager runs.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { childEnv, type Env } from '../context.js';
import { nodeOut } from './iostreams.js';
import type { Pager } from './output.js';

/** How to start the pager: a program and its arguments, found on PATH. */
export interface PagerCommand {
  file: string;
  args: string[];
}

function onPath(program: string, env: Env): string | undefined {
  for (const directory of (env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not there: the next directory.
    }
  }
  return undefined;
}

/** The pager the environment asks for, or undefined for none. */
export function pagerCommand(env: Env): PagerCommand | undefined {
  const asked = env.PIX_PAGER ?? env.PAGER;
  if (asked !== undefined) {
    const command = asked.trim();
    if (command === '' || command === 'cat') return undefined;
    return { file: 'sh', args: ['-c', command] };
  }
  const less = onPath('less', env);
  return less ? { file: less, args: ['-FRX'] } : undefined;
}

/** The pager's environment: a child's (no secrets: context.ts childEnv), with gh's defaults for less and lv. */
export function pagerEnv(env: Env): Record<string, string> {
  const result = childEnv(env);
  result.LESS ??= 'FRX';
  result.LV ??= '-c';
  return result;
}

/**
 * Loads node:child_process and returns what starts the pager (at the first byte of output), or
 * undefined when no pager is wanted. Its stdout and stderr are the terminal's own.
 */
export async function preparePager(env: Env): Promise<(() => Pager) | undefined> {
  const command = pagerCommand(env);
  if (!command) return undefined;
  const { spawn } = await import('node:child_process');
  return () => {
    const child = spawn(command.file, command.args, {
      stdio: ['pipe', 'inherit', 'inherit'],
      env: pagerEnv(env),
    });
    let exited = false;
    const exit = new Promise<void>((resolve) => {
      const done = () => {
        exited = true;
        resolve();
      };
      child.once('exit', done);
      // A pager that could not start: writes to it fail with EPIPE, and pix ends as if it was quit.
      child.once('error', done);
    });
    const stdin = child.stdin!;
    return {
      input: nodeOut(() => stdin),
      async close() {
        if (!exited) stdin.end();
        await exit;
      },
      kill() {
        if (!exited) child.kill('SIGTERM');
      },
    };
  };
}
