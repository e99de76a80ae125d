import type { IOStreams } from './iostreams.js';

/**
 * "statement 300 of 1000" on one rewritten stderr line, only when stderr is a terminal and stdout is
 * not (on a terminal the rows themselves show the progress, and a pager must not receive `\r` lines).
 */
export function createProgress(io: Pick<IOStreams, 'stdout' | 'stderr'>, label: string) {
  const { stdout, stderr } = io;
  let shown = false;
  return {
    update(done: number, total: number) {
      if (!stderr.isTTY || stdout.isTTY) return;
      shown = true;
      stderr.write(`\r${label} ${done} of ${total}`);
    },
    done() {
      if (shown) stderr.write('\r\u001b[2K');
      shown = false;
    },
  };
}
