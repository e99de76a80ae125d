import type { IOStreams } from './iostreams.js';
import { escapeUnsafe } from './sanitize.js';

export interface Prompter {
  /** True when a person can answer: stdin and stderr are terminals and `--no-input` was not given. */
  canPrompt(): boolean;
  /** Asks a yes/no question on stderr; anything but y/yes is no. */
  confirm(question: string): Promise<boolean>;
  /** Asks for a line; `hidden` for secrets (no echo). */
  ask(question: string, hidden?: boolean): Promise<string>;
}

/** `signal` (deps.signal): a SIGINT or SIGTERM while a question waits ends the wait. */
export function createPrompter(
  io: IOStreams,
  inputAllowed: () => boolean,
  signal?: () => AbortSignal,
): Prompter {
  const prompter: Prompter = {
    canPrompt: () => inputAllowed() && io.stdin.isTTY && io.stderr.isTTY,
    async confirm(question) {
      const answer = await prompter.ask(`${question} [y/N] `);
      return /^y(es)?$/i.test(answer.trim());
    },
    async ask(question, hidden = false) {
      // The question quotes server text (a receiver's name): nothing in it may move the cursor.
      io.stderr.write(escapeUnsafe(question));
      return io.stdin.readLine(hidden, signal?.());
    },
  };
  return prompter;
}
