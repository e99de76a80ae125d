/**
 * `pix completion bash|zsh|fish`: a completion script generated from the Commander tree itself (every
 * command module loaded), so commands, flags and fixed values cannot drift from what pix accepts.
 *
 * Values offered: an option's or argument's `.choices()` (`-o` formats, the shell names), and what a
 * command attached with completionValues() (modalities, config keys, duration units, profile names).
 * Profile names are read when TAB is pressed, by running `pix profile list` (its piped form is
 * `*?<TAB>name<TAB>url`), so profiles created after the script was generated are offered too.
 * A value pix knows nothing about falls back to the shell's file completion.
 *
 * Here the model (one node per command) and the command; the scripts' text is in `shells.ts`.
 */
import { Argument, type Command, type Option } from 'commander';
import type { Deps } from '../../context.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import {
  type CompletionValues,
  completionValuesOf,
  type DescribedTree,
  describeVerb,
} from '../shared/help.js';
import { bashScript, fishScript, names, zshScript } from './shells.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const completionOptionsSchema = z.object({ shell: z.enum(SHELLS) });
export type CompletionOptions = z.output<typeof completionOptionsSchema>;

// ---------------------------------------------------------------------------------------------
// The model: one node per command, read from Commander

export type ValueSource =
  | { kind: 'words'; words: string[] }
  | { kind: 'profiles' }
  | { kind: 'units'; units: string[] }
  /** Nothing known: the shell's default (file names). */
  | { kind: 'any' };

export interface CompletionOption {
  short: string | undefined;
  long: string | undefined;
  description: string;
  /** Undefined for a flag without a value. */
  value: ValueSource | undefined;
  /** Declared on an ancestor command (a global flag), not on this one. */
  inherited: boolean;
}

export interface CompletionNode {
  /** The words after `pix`, e.g. ['charge', 'immediate']; [] for pix itself. */
  path: string[];
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  /** Its own options, the global ones, and -h/--help. */
  options: CompletionOption[];
  /** The positional arguments, in order. */
  args: ValueSource[];
}

function sourceOf(
  choices: readonly string[] | undefined,
  attached: CompletionValues | undefined,
): ValueSource {
  if (choices && choices.length > 0) return { kind: 'words', words: [...choices] };
  if (attached === undefined) return { kind: 'any' };
  if ('dynamic' in attached) return { kind: 'profiles' };
  if ('units' in attached) return { kind: 'units', units: [...attached.units] };
  return { kind: 'words', words: [...attached] };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function optionOf(option: Option, inherited = false): CompletionOption {
  return {
    inherited,
    short: option.short,
    long: option.long,
    description: oneLine(option.description),
    value:
      option.required || option.optional
        ? sourceOf(option.argChoices, completionValuesOf(option))
        : undefined,
  };
}

/** Every command of the tree, parents before children, with what completion needs of each. */
export function completionModel({ program, facts }: DescribedTree): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string[], inherited: CompletionOption[]): void => {
    const help = command.createHelp();
    const described = facts(command);
    // A noun that runs a default verb (`pix journal` is `pix journal list`) accepts that verb's flags.
    const verb = described.defaultVerb;
    const verbFacts = verb ? facts(verb) : undefined;
    const verbOptions = verb ? help.visibleOptions(verb).filter((option) => option.long !== '--help') : [];
    const own = [...help.visibleOptions(command), ...verbOptions].map((option) => optionOf(option));
    // The root's --version is not offered below it; its other options are global (contract §1).
    const passDown = command.options
      .filter((option) => !option.hidden && option.long !== '--version')
      .map((option) => optionOf(option, true));
    const ownNames = new Set(own.flatMap(names));
    const globals = inherited.filter((option) => !names(option).some((name) => ownNames.has(name)));
    // Commander's implicit `help` command is left out: -h/--help is offered instead.
    const subcommands = help.visibleCommands(command).filter((sub) => sub.name() !== 'help');
    // `--fields` offers the fields of this command's records (cli/table.ts), where it has any.
    const fields = [described.fields, verbFacts?.fields].find(Array.isArray);
    // `-o` offers this command's formats (cli/table.ts), not every format some command writes; a noun's
    // default verb's when it runs one.
    const formats =
      path.length === 0 ? undefined : (verbFacts?.formats ?? described.formats ?? ['table', 'json']);
    const options = [...own, ...globals].map((option) =>
      option.long === '--fields' && fields
        ? { ...option, inherited: false, value: { kind: 'words' as const, words: [...fields] } }
        : option.long === '--output' && formats
          ? { ...option, inherited: false, value: { kind: 'words' as const, words: [...formats] } }
          : option,
    );
    nodes.push({
      path,
      description: oneLine(command.description()),
      subcommands: subcommands.map((sub) => ({ name: sub.name(), description: oneLine(sub.description()) })),
      options,
      args: command.registeredArguments.map((argument: Argument) =>
        sourceOf(argument.argChoices, completionValuesOf(argument)),
      ),
    });
    for (const sub of subcommands) visit(sub, [...path, sub.name()], [...passDown, ...globals]);
  };
  visit(program, [], []);
  return nodes;
}

// ---------------------------------------------------------------------------------------------
// The command

/**
 * A fresh command tree with every command module loaded (the one being run has only this command in it).
 * The loader (cli/load.ts) gives it: this module importing the loader, which loads this one, would be a cycle.
 */
export type WholeTree = () => Promise<DescribedTree>;

export async function runCompletion(
  options: CompletionOptions,
  deps: Deps,
  wholeTree: WholeTree,
): Promise<void> {
  const tree = await wholeTree();
  const nodes = completionModel(tree);
  const version = tree.program.version() ?? '';
  const script =
    options.shell === 'bash'
      ? bashScript(nodes, version)
      : options.shell === 'zsh'
        ? zshScript(nodes, version)
        : fishScript(nodes, version);
  deps.io.stdout.write(script);
}

export const verb = describeVerb({
  summary: 'Print a shell completion script (bash, zsh or fish)',
  examples: [
    'source <(pix completion bash)',
    'mkdir -p ~/.zfunc && pix completion zsh > ~/.zfunc/_pix   # with fpath=(~/.zfunc $fpath) in ~/.zshrc',
    'pix completion fish > ~/.config/fish/completions/pix.fish',
  ],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps, wholeTree: WholeTree): void {
  command
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action(async (shell: string) => {
      await runCompletion(
        parseOptions(completionOptionsSchema, { shell }, { shell: 'SHELL' }),
        deps,
        wholeTree,
      );
    });
}
