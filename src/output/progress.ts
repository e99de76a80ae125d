import type { IOStreams } from './iostreams.js';

/**
 * "statement 300 of 1000" on one rewritten stderr line, only when stderr is a terminal. A command that
 * streams its rows (`streamsRows`, the default) shows none when stdout is a terminal too: the rows show
 * the progress, and a pager must not receive `\r` lines. One that prints only at the end (a batch, a
 * summary) shows it on a terminal whatever stdout is.
 */
export function createProgress(
  io: Pick<IOStreams, 'stdout' | 'stderr'>,
  label: string,
  { streamsRows = true }: { streamsRows?: boolean } = {},
) {
  const { stdout, stderr } = io;
  let shown = false;
  return {
    update(done: number, total: number) {
      if (!stderr.isTTY || (streamsRows && stdout.isTTY)) return;
      shown = true;
      stderr.write(`\r${label} ${done} of ${total}`);
    },
    done() {
      if (shown) stderr.write('\r\u001b[2K');
      shown = false;
    },
  };
}
