/**
 * argv → the modules to load. The tree is made from the command table (cli/table.ts) with every verb's
 * name and summary, and only the modules on the path argv names are imported and registered (all of them
 * only for completion and the man pages), so `pix --help` loads commander alone and `pix keys` never loads
 * the charge, QR or batch code (architecture rule 8).
 */
import type { Command } from 'commander';
import { addExamples, type CommandFacts, type DescribedTree, outputHelp } from '../commands/shared/help.js';
import type { Deps } from '../context.js';
import { type CommandOutput, GLOBALS_WITH_VALUE } from './globals.js';
import { addHelpCommand } from './help.js';
import { createProgram } from './program.js';
import { COMMANDS, defaultVerbOf, type Entry, fieldNames, markEntry, markVerb, ownEntry } from './table.js';
import { teachUsageErrors } from './teach.js';

/**
 * The names of the commands the user asked for, e.g. ['charge', 'immediate'], read from argv before parsing.
 * The program's own global flags that take a value (`-p NAME`) are skipped with their value.
 */
export function commandPath(argv: readonly string[]): string[] {
  const path: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') break;
    if (token.startsWith('-')) {
      if (GLOBALS_WITH_VALUE.has(token)) i++;
      continue;
    }
    path.push(token);
  }
  return path;
}

function addEntries(parent: Command, entries: Entry[]): Map<Entry, Command> {
  const made = new Map<Entry, Command>();
  for (const entry of entries) {
    const command = parent
      .command(entry.name, { isDefault: entry.default === true })
      .description(entry.description ?? entry.summary);
    if (entry.description !== undefined) command.summary(entry.summary);
    markEntry(command, entry);
    if (entry.examples) addExamples(command, entry.examples.examples, entry.examples.exits);
    made.set(entry, command);
    if (entry.children) {
      for (const [child, childCommand] of addEntries(command, entry.children)) made.set(child, childCommand);
    }
  }
  return made;
}

/**
 * The verb argv names, as the entry path from the root: `pix charge immediate` → [charge, immediate], and a
 * noun's default verb when no verb of it is named (`pix journal --unresolved` → [journal, list]; `typed`
 * counts the entries named). Empty when argv names no command (`pix --help`); a noun alone when it has no
 * default (its help is shown).
 */
function entryPath(argv: readonly string[]): { entries: Entry[]; typed: number } {
  let path = commandPath(argv);
  if (path[0] === 'help') path = path.slice(1);
  const entries: Entry[] = [];
  let level: Entry[] | undefined = COMMANDS;
  for (const name of path) {
    const entry: Entry | undefined = level?.find((candidate) => candidate.name === name);
    if (!entry) break;
    entries.push(entry);
    level = entry.children;
    if (!level) break;
  }
  const typed = entries.length;
  const fallback = entries.at(-1)?.children?.find((child) => child.default);
  return { entries: fallback ? [...entries, fallback] : entries, typed };
}

/** Loads the modules on the path the user typed (all of them with `all`, for completion). */
export async function loadCommands(
  program: Command,
  deps: Deps,
  argv: readonly string[],
  all = false,
): Promise<void> {
  const made = addEntries(program, COMMANDS);
  addHelpCommand(program);
  let toLoad: Entry[];
  if (all) {
    toLoad = [...made.keys()].filter((entry) => entry.load);
  } else {
    toLoad = entryPath(argv).entries.filter((entry) => entry.load);
  }
  const modules = await Promise.all(toLoad.map((entry) => entry.load!()));
  const wholeTree = () => wholeProgram(deps);
  modules.forEach((module, index) => {
    const entry = toLoad[index]!;
    const command = made.get(entry)!;
    module.register(command, deps, wholeTree);
    markVerb(command, module.verb);
    // The verb's own description ends its help: what it writes, its examples and the exits it can return.
    const output = outputHelp(entry.formats ?? ['table', 'json'], fieldNames(entry));
    addExamples(command, module.verb.examples, module.verb.exits, output);
  });
  teachUsageErrors(program);
}

/**
 * The command argv names, as the rules of the output flags need it (cli/globals.ts): how it is typed, the
 * `-o` formats it writes, whether `--fields` applies. Undefined when argv names no command pix has.
 */
export function commandOutput(argv: readonly string[]): CommandOutput | undefined {
  const { entries, typed } = entryPath(argv);
  const entry = entries.at(-1);
  if (!entry) return undefined;
  return {
    // As typed: `pix keys -o ofx` names `pix keys`, whose default verb it would have run.
    command: ['pix', ...entries.slice(0, typed).map((step) => step.name)].join(' '),
    formats: entry.formats ?? ['table', 'json'],
    fields: entry.fields,
    columns: entry.columns,
  };
}

/** What the table says of a command of the tree: its own fields, exit kinds and default verb, its formats or its nearest ancestor's. */
export function factsOf(command: Command): CommandFacts {
  const own = ownEntry(command);
  let formats: CommandFacts['formats'];
  for (let at: Command | null = command; at && formats === undefined; at = at.parent) {
    formats = ownEntry(at)?.formats;
  }
  return {
    fields: fieldNames(own),
    formats,
    exits: own?.exits ?? own?.examples?.exits,
    defaultVerb: defaultVerbOf(command),
  };
}

/** A fresh program with every command module loaded (`pix completion`, the man pages), and what the table says of each. */
export async function wholeProgram(deps: Deps): Promise<DescribedTree> {
  const program = createProgram(deps);
  await loadCommands(program, deps, [], true);
  return { program, facts: factsOf };
}
