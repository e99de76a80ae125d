import type { InStream, IOStreams } from './iostreams.js';
import { escapeUnsafe } from './sanitize.js';

export interface Prompter {
  /**
   * True when a person can answer: stderr is a terminal, stdin is one too or the process has a
   * controlling terminal to read the answer from (stdin piped: `pbpaste | pix pay qr -`), and
   * `--no-input` was not given.
   */
  canPrompt(): boolean;
  /** Asks a yes/no question on stderr; anything but y/yes is no. */
  confirm(question: string): Promise<boolean>;
  /** Asks for a line; `hidden` for secrets (no echo). */
  ask(question: string, hidden?: boolean): Promise<string>;
}

/** The terminal a person types answers at: stdin when it is one, else the controlling terminal. */
function answersFrom(io: IOStreams): InStream | undefined {
  if (io.stdin.isTTY) return io.stdin;
  return io.terminal?.();
}

/** `signal` (deps.signal): a SIGINT or SIGTERM while a question waits ends the wait. */
export function createPrompter(
  io: IOStreams,
  inputAllowed: () => boolean,
  signal?: () => AbortSignal,
): Prompter {
  const prompter: Prompter = {
    canPrompt: () => inputAllowed() && io.stderr.isTTY && answersFrom(io) !== undefined,
    async confirm(question) {
      const answer = await prompter.ask(`${question} [y/N] `);
      return /^y(es)?$/i.test(answer.trim());
    },
    async ask(question, hidden = false) {
      // The question quotes server text (a receiver's name): nothing in it may move the cursor.
      io.stderr.write(escapeUnsafe(question));
      return (answersFrom(io) ?? io.stdin).readLine(hidden, signal?.());
    },
  };
  return prompter;
}
