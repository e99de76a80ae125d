import type { OutStream } from './iostreams.js';

/** "fetched 300 of 1000" on one rewritten stderr line, only when stderr is a terminal. */
export function createProgress(stderr: OutStream, label: string) {
  let shown = false;
  return {
    update(done: number, total: number) {
      if (!stderr.isTTY) return;
      shown = true;
      stderr.write(`\r${label} ${done} of ${total}`);
    },
    done() {
      if (shown) stderr.write('\r\u001b[2K');
    },
  };
}
