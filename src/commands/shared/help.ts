import type { Command } from 'commander';
import { type ErrorKind, EXIT_CODES } from '../../errors.js';

const EXIT_KINDS = Symbol.for('pix.exitKinds');

/** The error kinds a command's help says it can end with (addExamples), for its man page's EXIT STATUS. */
export function exitKindsOf(command: Command): readonly ErrorKind[] | undefined {
  return (command as unknown as Record<symbol, readonly ErrorKind[] | undefined>)[EXIT_KINDS];
}

/**
 * Ends a command's `--help` with real examples and the exit codes it can return, so people and
 * script authors learn from the help itself.
 */
export function addExamples(command: Command, examples: string[], kinds: ErrorKind[]): Command {
  (command as unknown as Record<symbol, readonly ErrorKind[]>)[EXIT_KINDS] = kinds;
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

const FIELD_NAMES = Symbol.for('pix.fieldNames');

/** What shell completion offers after `--fields` for `command` (cli/table.ts: the fields of its records). */
export function setFieldNames(command: Command, fields: readonly string[]): void {
  (command as unknown as Record<symbol, readonly string[]>)[FIELD_NAMES] = fields;
}

export function fieldNamesOf(command: Command): readonly string[] | undefined {
  return (command as unknown as Record<symbol, readonly string[] | undefined>)[FIELD_NAMES];
}

const FORMATS = Symbol.for('pix.formats');

/** What shell completion offers after `-o` for `command` and the commands below it (program.ts: its formats). */
export function setFormats(command: Command, formats: readonly string[]): void {
  (command as unknown as Record<symbol, readonly string[]>)[FORMATS] = formats;
}

/** The `-o` formats of `command`: its own, else its nearest ancestor's; undefined when none says. */
export function formatsOf(command: Command): readonly string[] | undefined {
  for (let at: Command | null = command; at; at = at.parent) {
    const formats = (at as unknown as Record<symbol, readonly string[] | undefined>)[FORMATS];
    if (formats !== undefined) return formats;
  }
  return undefined;
}

const DEFAULT_VERB = Symbol.for('pix.defaultVerb');

/** `verb` is what its noun runs when no verb is named (cli/table.ts `default`): completion offers its flags there too. */
export function setDefaultVerb(noun: Command, verb: Command): void {
  (noun as unknown as Record<symbol, Command>)[DEFAULT_VERB] = verb;
}

export function defaultVerbOf(noun: Command): Command | undefined {
  return (noun as unknown as Record<symbol, Command | undefined>)[DEFAULT_VERB];
}
