import type { Command } from 'commander';
import { type ErrorKind, EXIT_CODES } from '../../errors.js';

/**
 * Ends a command's `--help` with real examples and the exit codes it can return, so people and
 * script authors learn from the help itself.
 */
export function addExamples(command: Command, examples: string[], kinds: ErrorKind[]): Command {
  const codes = ['0 ok', ...kinds.map((kind) => `${EXIT_CODES[kind]} ${kind}`)].join(', ');
  const lines = ['', 'Examples:', ...examples.map((example) => `  $ ${example}`), '', `Exit codes: ${codes}`];
  return command.addHelpText('after', lines.join('\n'));
}

/**
 * What the shell completion offers for an option's value or a positional argument, where Commander's
 * `.choices()` would be too strict (unknown upper-case modalities must still pass, with a warning):
 * - a list of words (modalities, config keys);
 * - `{ dynamic: 'profiles' }`: the profile names, read from the config when TAB is pressed;
 * - `{ units: [...] }`: a number followed by one of these units (durations: `30` → `30m 30h 30d`).
 * Options and arguments declared with `.choices()` are completed from their choices without this.
 */
export type CompletionValues =
  | readonly string[]
  | { readonly dynamic: 'profiles' }
  | { readonly units: readonly string[] };

const COMPLETION = Symbol.for('pix.completionValues');

interface WithCompletion {
  [COMPLETION]?: CompletionValues;
}

/** Attaches completion values to an Option or Argument (nothing changes in parsing); returns it. */
export function completionValues<T extends object>(target: T, values: CompletionValues): T {
  (target as WithCompletion)[COMPLETION] = values;
  return target;
}

/** The completion values attached with completionValues(), if any. */
export function completionValuesOf(target: object): CompletionValues | undefined {
  return (target as WithCompletion)[COMPLETION];
}
