/**
 * Help as pix shows it, laid out as gh lays out its own: a noun's commands come first; a command's own
 * arguments and flags next; the global flags it inherits last, named in a short block (`pix --help` says what
 * each does), never twenty lines repeated on every page. Only Commander's documented Help API is used
 * (configureHelp with formatHelp and its helpers).
 */
import type { Command, Help, Option } from 'commander';
import { defaultVerbOf } from './table.js';

/** The heading of the short block of global flags below a subcommand's own. */
export const GLOBAL_FLAGS_HEADING = 'Global options (pix --help says what each does):';

/** `-p, --profile <name>` → `-p/--profile`: a global flag named in the short block. */
function named(option: Option): string {
  return [option.short, option.long].filter((name) => name !== undefined).join('/');
}

/** The program's own flags, which every command accepts (its --version aside). */
function globalFlags(command: Command): Option[] {
  let root = command;
  while (root.parent) root = root.parent;
  return root.options.filter((option) => !option.hidden && option.long !== '--version');
}

function formatHelp(command: Command, helper: Help): string {
  const termWidth = helper.padWidth(command, helper);
  const helpWidth = helper.helpWidth ?? 80;
  const item = (term: string, description: string) => helper.formatItem(term, termWidth, description, helper);
  const output = [`${helper.styleTitle('Usage:')} ${helper.styleUsage(helper.commandUsage(command))}`, ''];
  const description = helper.commandDescription(command);
  if (description.length > 0) {
    output.push(helper.boxWrap(helper.styleCommandDescription(description), helpWidth), '');
  }
  const commands = helper
    .visibleCommands(command)
    .map((sub) =>
      item(
        helper.styleSubcommandTerm(helper.subcommandTerm(sub)),
        helper.styleSubcommandDescription(helper.subcommandDescription(sub)),
      ),
    );
  output.push(...helper.formatItemList('Commands:', commands, helper));
  const args = helper
    .visibleArguments(command)
    .map((argument) =>
      item(
        helper.styleArgumentTerm(helper.argumentTerm(argument)),
        helper.styleArgumentDescription(helper.argumentDescription(argument)),
      ),
    );
  output.push(...helper.formatItemList('Arguments:', args, helper));
  const options = helper
    .visibleOptions(command)
    .map((option) =>
      item(
        helper.styleOptionTerm(helper.optionTerm(option)),
        helper.styleOptionDescription(helper.optionDescription(option)),
      ),
    );
  output.push(...helper.formatItemList('Options:', options, helper));
  // A noun that runs a verb by itself (`pix statement` is `pix statement list`) shows that verb's flags:
  // they are what `pix statement --from …` takes, and where a person looks for them first.
  const verb = defaultVerbOf(command);
  if (verb !== undefined) {
    const width = Math.max(termWidth, helper.padWidth(verb, helper));
    const own = helper
      .visibleOptions(verb)
      .filter((option) => option.long !== '--help')
      .map((option) =>
        helper.formatItem(
          helper.styleOptionTerm(helper.optionTerm(option)),
          width,
          helper.styleOptionDescription(helper.optionDescription(option)),
          helper,
        ),
      );
    const heading = `Options of \`${fullPath(verb)}\`, which \`${fullPath(command)}\` runs:`;
    output.push(...helper.formatItemList(heading, own, helper));
  }
  if (command.parent) {
    // Named in lines of the help's width, each indented as the items above it.
    const lines = [''];
    for (const [index, name] of globalFlags(command).map(named).entries()) {
      const word = index === 0 ? name : `, ${name}`;
      if (lines.at(-1)!.length + word.length > helpWidth - 3 && index > 0) {
        lines[lines.length - 1] += ',';
        lines.push(name);
      } else lines[lines.length - 1] += word;
    }
    output.push(GLOBAL_FLAGS_HEADING, ...lines.map((line) => `  ${line}`), '');
  }
  return output.join('\n');
}

function fullPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Set on the program before its commands are made: subcommands inherit it. */
export function configureHelp(program: Command): void {
  program.configureHelp({
    // A list of commands names them (as gh lists them): each one's own --help gives its arguments and flags,
    // which the list could not show without loading every verb's module.
    subcommandTerm: (command) => command.name(),
    formatHelp,
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
