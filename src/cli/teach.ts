/**
 * Usage errors that teach: Commander's error for a missing argument or value gets the command's usage line
 * as its hint, an unknown command a way forward, and an unknown flag that belongs to another verb of the
 * same noun says whose it is. Only Commander's documented API is used (exitOverride, error(),
 * makeOptionMandatory, the preAction hook); the wording around its messages is ours.
 */
import { Command, type CommanderError, type Option } from 'commander';
import type { Deps } from '../context.js';
import { closest } from '../domain/words.js';
import { ownEntry } from './table.js';

/** Commander's errors that the command's usage line helps with. */
const USAGE_LINE_ERRORS = new Set([
  'commander.missingArgument',
  'commander.optionMissingArgument',
  'commander.missingMandatoryOptionValue',
  'commander.excessArguments',
]);

/** The hint teachUsageErrors() attached to a Commander error, if any (main.ts prints it). */
export function usageHint(error: unknown): string | undefined {
  return (error as { pixHint?: string } | null)?.pixHint;
}

export function fullName(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/**
 * Commands people look for that the provider's API cannot give (API §1: no balance endpoint), and what pix
 * offers instead.
 */
const ABSENT: Readonly<Record<string, string>> = {
  balance:
    'the API has no balance: `pix statement summary` sums a period and `pix close --day D` keeps the running balance from an opening one',
  saldo:
    'the API has no balance: `pix statement summary` sums a period and `pix close --day D` keeps the running balance from an opening one',
};

function hintFor(command: Command, error: CommanderError): string | undefined {
  if (USAGE_LINE_ERRORS.has(error.code)) return `usage: ${fullName(command)} ${command.usage()}`;
  if (error.code === 'commander.unknownCommand') {
    const typed = /'([^']*)'/.exec(error.message)?.[1] ?? '';
    const absent = command.parent === null ? ABSENT[typed.toLowerCase()] : undefined;
    if (absent !== undefined) {
      error.message = error.message.split('\n')[0]!; // not Commander's spelling guess
      return absent;
    }
  }
  if (error.code === 'commander.unknownCommand' && !error.message.includes('Did you mean')) {
    // Commander suggests by spelling; a prefix (`pix stat`) is a typo too.
    const typed = /'([^']*)'/.exec(error.message)?.[1] ?? '';
    const names = command.commands.map((sub) => sub.name()).filter((name) => name.startsWith(typed));
    if (typed !== '' && names.length === 1) return `did you mean ${names[0]}?`;
    if (typed !== '' && names.length > 1) return `did you mean one of: ${names.join(', ')}?`;
    return `run '${fullName(command)} --help' for its commands`;
  }
  if (error.code === 'commander.unknownOption' && !error.message.includes('Did you mean')) {
    return `run '${fullName(command)} --help' for its flags`;
  }
  // A value outside a flag's choices (`-o xls`) gets a did-you-mean, as a command or flag does.
  const choices = /argument '([^']*)' is invalid\. Allowed choices are (.*)\.$/.exec(error.message);
  if (error.code === 'commander.invalidArgument' && choices) {
    const near = closest(choices[1]!, choices[2]!.split(', '));
    if (near !== undefined) return `did you mean ${near}?`;
  }
  return undefined;
}

/** The command each usage error was raised by (for explainUnknownOption). */
const RAISED_BY = new WeakMap<CommanderError, Command>();

/**
 * An unknown flag that is a flag of another verb of the same noun (`charge immediate --fine`, a flag of
 * `charge duedate`): says so, instead of Commander's guess by spelling ("did you mean --wide?"). The
 * other verbs' modules are loaded only here, on the way to a usage error, so a run that parses pays
 * nothing for it.
 */
export async function explainUnknownOption(error: CommanderError, deps: Deps): Promise<void> {
  const command = RAISED_BY.get(error);
  const parent = command?.parent;
  if (error.code !== 'commander.unknownOption' || !command || !parent?.parent) return;
  const flag = /'([^'=]*)/.exec(error.message)?.[1];
  if (!flag) return;
  const owners: string[] = [];
  for (const sibling of parent.commands) {
    const load = ownEntry(sibling)?.load;
    if (sibling === command || !load) continue;
    const probe = new Command(sibling.name());
    (await load()).register(probe, deps, () => Promise.reject(new Error('no tree for a probe')));
    if (probe.options.some((option) => option.long === flag || option.short === flag)) {
      owners.push(`\`${fullName(parent)} ${sibling.name()}\``);
    }
  }
  if (owners.length === 0) return;
  // One line, and our hint in place of Commander's spelling guess.
  error.message = error.message.split('\n')[0]!;
  Object.assign(error, {
    pixHint: `${flag} is a flag of ${owners.join(' and ')}, not of \`${fullName(command)}\``,
  });
}

/**
 * Makes Commander's usage errors teach, for every command of the tree: a hint with the usage line
 * (missing argument, missing value) or a way forward (unknown command). Commander checks required
 * options before arguments and unknown options; here a required option is checked last, once Commander
 * is about to run the action, so that `pix pay key` says the KEY is missing and `--amout` gets its "did
 * you mean --amount?": each is made optional for Commander (makeOptionMandatory(false)) and checked by
 * a preAction hook, with Commander's own words.
 */
export function teachUsageErrors(program: Command): void {
  const required = new Map<Command, Option[]>();
  const visit = (command: Command): void => {
    command.exitOverride((error) => {
      RAISED_BY.set(error, command);
      if (error.exitCode !== 0 && error.code !== 'commander.help') {
        const hint = hintFor(command, error);
        if (hint !== undefined) Object.assign(error, { pixHint: hint });
      }
      throw error;
    });
    const mandatory = command.options.filter((option) => option.mandatory);
    for (const option of mandatory) option.makeOptionMandatory(false);
    if (mandatory.length > 0) required.set(command, mandatory);
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
  program.hook('preAction', (_program, action) => {
    for (let at: Command | null = action; at; at = at.parent) {
      const missing = required
        .get(at)
        ?.find((option) => at.getOptionValue(option.attributeName()) === undefined);
      if (missing) {
        at.error(`error: required option '${missing.flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
        });
      }
    }
  });
}
