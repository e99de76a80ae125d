import type { Command } from 'commander';
import type { OutputFormat } from '../../context.js';
import { type ErrorKind, EXIT_CODES } from '../../errors.js';
import type { Column } from '../../output/records.js';
import type * as z from '../../zod.js';

/** The formats of a list (`-o`): what every list writer writes (output/records.ts). */
export const LIST_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'csv', 'csv-br', 'xlsx'];

/**
 * What a verb says of itself, in its own file (`commands/<noun>/<verb>.ts`), and nowhere else: the command
 * table (cli/verbs.ts, generated from it by the build), the help's lists, completion, the man pages and
 * `--fields`'s names are all made from it.
 */
export interface VerbDescription {
  /** One line in its noun's list of commands (and its description, unless `description`). */
  summary: string;
  /** The description its own --help shows, when longer than the summary. */
  description?: string;
  /** The `-o` formats it writes; default table and json. Others are exit 2. */
  formats?: readonly OutputFormat[];
  /**
   * What `--fields` picks from its records (reads only: lists and details, never a command that moves
   * money): their JSON paths and the column names its `-o csv` header shows (RecordFields), or `true` for
   * records of any shape (`pix api`).
   */
  fields?: RecordFields | true;
  /**
   * Its output can be long: on a terminal it goes through the pager. Never for commands that prompt; a live
   * view is named by the flag that makes one (`{ unless: 'follow' }`).
   */
  paged?: boolean | { readonly unless: string };
  /** Its --help ends with these, run by test/e2e/docs.test.ts. */
  examples: readonly string[];
  /** The exit codes it can return besides 0, as their kinds: its --help and man page list them. */
  exits: readonly ErrorKind[];
}

/**
 * The fields of a command's records, by where they come from, so no list of them is kept by hand beside
 * the record: `schema`, the zod object of the records as `--json` shows them (its paths, nested ones
 * dotted), or `paths` where the records have no schema; and `columns`, the list's machine columns (what
 * `-o csv` and the piped table write), whose header names `--fields` accepts too, with the same values.
 * Read by the build (cli/verbs.ts: the names) and, for the columns, when `--fields` runs.
 */
export interface RecordFields {
  schema?: z.ZodMiniObject;
  paths?: readonly string[];
  columns?: () => readonly Column<never>[];
}

/**
 * A verb's description, checked against the type where it is written: each verb file exports one as `verb`,
 * and the build makes cli/verbs.ts from them (its noun's list, completion, the man page, `--fields`).
 */
export function describeVerb<const T extends VerbDescription>(description: T): T {
  return description;
}

/**
 * What the command table says of a command of the tree, handed to what describes them all (`pix
 * completion`, the man pages) by the loader (cli/load.ts): Commander's objects carry none of it.
 */
export interface CommandFacts {
  fields?: readonly string[] | true | undefined;
  formats?: readonly OutputFormat[] | undefined;
  exits?: readonly ErrorKind[] | undefined;
  /** The verb the noun runs when none is named (`pix journal` is `pix journal list`). */
  defaultVerb?: Command | undefined;
}

/** Every command of pix, loaded, with what the table says of each. */
export interface DescribedTree {
  program: Command;
  facts(command: Command): CommandFacts;
}

/**
 * Ends a command's `--help` with real examples and the exit codes it can return, so people and
 * script authors learn from the help itself (cli/load.ts, from the verb's description).
 */
export function addExamples(
  command: Command,
  examples: readonly string[],
  kinds: readonly ErrorKind[],
  output: readonly string[] = [],
): Command {
  const codes = ['0 ok', ...kinds.map((kind) => `${EXIT_CODES[kind]} ${kind}`)].join(', ');
  const lines = [
    ...output,
    '',
    'Examples:',
    ...examples.map((example) => `  $ ${example}`),
    '',
    `Exit codes: ${codes}`,
  ];
  return command.addHelpText('after', lines.join('\n'));
}

/** Names after a heading, in lines of at most 78 columns, the later ones indented. */
function wrapped(heading: string, names: readonly string[]): string[] {
  const lines = [heading];
  for (const [index, name] of names.entries()) {
    const word = `${name}${index < names.length - 1 ? ',' : ''}`;
    if (lines.at(-1)!.length + word.length + 1 > 78) lines.push(`  ${word}`);
    else lines[lines.length - 1] += ` ${word}`;
  }
  return lines;
}

/**
 * What a verb's --help says of its output, before its examples: the `-o` formats it writes and the names
 * `--fields` takes (its records' paths, then its columns' names), as the command table has them.
 */
export function outputHelp(
  formats: readonly OutputFormat[],
  fields: readonly string[] | true | undefined,
): string[] {
  const lines = ['', ...wrapped('Formats (-o):', formats)];
  if (fields === true) lines.push('Fields (--fields): any path of its JSON records');
  else if (fields !== undefined) lines.push(...wrapped('Fields (--fields):', fields));
  return lines;
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

/** Kept beside Commander's objects, never on them. */
const COMPLETION = new WeakMap<object, CompletionValues>();

/** Attaches completion values to an Option or Argument (nothing changes in parsing); returns it. */
export function completionValues<T extends object>(target: T, values: CompletionValues): T {
  COMPLETION.set(target, values);
  return target;
}

/** The completion values attached with completionValues(), if any. */
export function completionValuesOf(target: object): CompletionValues | undefined {
  return COMPLETION.get(target);
}
