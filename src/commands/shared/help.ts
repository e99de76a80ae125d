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
