import { type Command, Help } from 'commander';
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

/** The heading of the global flags in a subcommand's help (Commander's own is "Global Options:"). */
export const GLOBAL_FLAGS_HEADING = 'Global options (valid on every command):';

/**
 * Help as pix shows it, set on the program before its commands are made (subcommands inherit it):
 * every subcommand's help lists the global flags it inherits (`pix statement --help` shows `--json`,
 * `-o`, `-p`, …) under GLOBAL_FLAGS_HEADING, as gh shows its INHERITED FLAGS.
 */
export function configureHelp(program: Command): void {
  program.configureHelp({
    showGlobalOptions: true,
    // A list of commands names them (as gh lists them): each one's own --help gives its arguments and flags,
    // which the list could not show without loading every verb's module.
    subcommandTerm: (command) => command.name(),
    // Only the program's own flags are global: a noun's flags (`pix journal --limit`) are not its verbs'.
    visibleGlobalOptions(command) {
      let root = command;
      while (root.parent) root = root.parent;
      const global = new Set(root.options);
      return Help.prototype.visibleGlobalOptions.call(this, command).filter((option) => global.has(option));
    },
    styleTitle: (title) => (title === 'Global Options:' ? GLOBAL_FLAGS_HEADING : title),
  });
}

/**
 * `pix help [command...]`: the help of the command at that path, however deep (`pix help charge
 * immediate` is `pix charge immediate --help`; Commander's own help command stops at the first name).
 * An unknown name is Commander's unknown-command error of the command it was looked up in.
 */
export function addHelpCommand(program: Command): void {
  program
    .command('help [command...]')
    .description('display help for a command')
    .action((names: string[]) => {
      let at: Command = program;
      for (const name of names) {
        const sub = at.commands.find(
          (command) => command.name() === name || command.aliases().includes(name),
        );
        if (!sub) {
          at.error(`error: unknown command '${name}'`, { code: 'commander.unknownCommand', exitCode: 1 });
        }
        at = sub;
      }
      at.help();
    });
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
