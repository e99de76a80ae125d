/**
 * The program: the root command with the global flags (cli/globals.ts), help as pix shows it, the root's
 * examples, and the one hook that runs before every command — it throws a wrong global flag found when the
 * context was made, and points the writer at its destination (`--output-file`, the pager, the `--jq` and
 * `--fields` mode). The commands themselves come from the table (cli/table.ts, cli/load.ts).
 */
import { Command, CommanderError } from 'commander';
import { addExamples, completionValues } from '../commands/shared/help.js';
import type { Deps } from '../context.js';
import type { ColumnValues } from '../output/fields.js';
import { pixVersion } from '../version.js';
import { globalOptions } from './globals.js';
import { configureHelp } from './help.js';
import { type Entry, entryOf, fieldNames, verbOf } from './table.js';

/** Shell completion of durations (`30` → `30s 30m 30h 30d`) and of profile names. */
const DURATION_UNITS = { units: ['s', 'm', 'h', 'd'] } as const;
const PROFILES = { dynamic: 'profiles' } as const;

/**
 * Points the writer at its destination once the command is known: `--output-file`, or the pager when the
 * command's output can be long, stdout is a terminal and neither `--no-pager` nor PIX_PAGER= says no; and
 * `--jq`/`--fields` (output/capture.ts, whose expression is checked now, before anything is sent). A workbook
 * is never written to a terminal.
 */
async function openOutput(deps: Deps, paged: boolean, columns?: ColumnValues): Promise<void> {
  const { outputFile, pager } = deps.globals;
  const capture =
    deps.globals.jq === undefined && deps.globals.fields === undefined
      ? undefined
      : await (await import('../output/capture.js')).outputCapture(deps.globals, columns);
  if (outputFile !== undefined) {
    return deps.output.open({ file: outputFile, replace: deps.globals.force, capture });
  }
  const binary = deps.globals.output === 'xlsx' || deps.globals.output === 'pdf';
  if (binary && deps.io.stdout.isTTY) {
    const { usageError } = await import('../errors.js');
    const what = deps.globals.output === 'pdf' ? 'a PDF document' : 'a binary workbook';
    throw usageError(
      '-o',
      `${deps.globals.output} is ${what}, not for a terminal`,
      `add --output-file FILE.${deps.globals.output}`,
    );
  }
  const pages = paged && pager && deps.io.stdout.isTTY;
  const startPager = pages ? await (await import('../output/pager.js')).preparePager(deps.env) : undefined;
  await deps.output.open({ pager: startPager, capture });
}

/**
 * `--fields help`: the names `--fields` takes, one a line on stdout (the records' paths, then the `-o csv`
 * columns that are not one), and the command does nothing else: exit 0, as `--help`.
 */
function listFields(deps: Deps, entry: Entry | undefined): never {
  const names = fieldNames(entry);
  if (names === true) deps.io.stderr.write('any path of its JSON records (a, or a nested one: a.b)\n');
  else deps.io.stdout.write((names ?? []).map((name) => `${name}\n`).join(''));
  throw new CommanderError(0, 'pix.fieldsHelp', '');
}

/**
 * The `-o csv` columns `--fields` names that are not a path of the records (`counterpartyName`), read by
 * the verb's own columns (its description's `fields.columns`), so the value is the column's.
 */
function columnsAsked(deps: Deps, action: Command, entry: Entry | undefined): ColumnValues | undefined {
  const asked = deps.globals.fields?.filter((field) => entry?.columns?.includes(field));
  const fields = verbOf(action)?.fields;
  if (!asked?.length || typeof fields !== 'object' || fields.columns === undefined) return undefined;
  return new Map(
    fields
      .columns()
      .filter((column) => asked.includes(column.header))
      .map((column) => [column.header, column.machine]),
  );
}

/** `globalsError`: a wrong global flag the context found (src/wiring.ts), thrown when a command would run. */
export function createProgram(deps: Deps, globalsError?: unknown): Command {
  const program = new Command('pix');
  configureHelp(program);
  program
    .description('Run a PIX payment account from the terminal and from CI.')
    .version(pixVersion(), '-V, --version', 'print the version');
  for (const option of globalOptions((option, flag) =>
    flag.completion === 'profiles'
      ? completionValues(option, PROFILES)
      : flag.completion === 'durations'
        ? completionValues(option, DURATION_UNITS)
        : option,
  )) {
    program.addOption(option);
  }
  program
    .showSuggestionAfterError(true)
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => deps.io.stdout.write(text),
      writeErr: (text) => deps.io.stderr.write(text),
      // main.ts prints Commander's errors itself, in the one-line form of the contract.
      outputError: () => {},
    });
  addExamples(
    program,
    [
      'pix statement --from yesterday --to today',
      'pix charge immediate --amount 10,50',
      'pix statement --all -o csv > statement.csv',
    ],
    [
      'internal',
      'usage',
      'auth',
      'not_found',
      'rejected',
      'unavailable',
      'unknown_outcome',
      'declined',
      'pending',
    ],
  );
  program.hook('preAction', async (_program, action) => {
    if (globalsError !== undefined) throw globalsError;
    const entry = entryOf(action);
    if (deps.globals.fieldsHelp) listFields(deps, entry);
    const paged = entry?.paged;
    // A live view never pages (`--follow` under less would stop at its prompt and hold Ctrl-C).
    const pages = typeof paged === 'object' ? action.opts()[paged.unless] !== true : paged === true;
    await openOutput(deps, pages, columnsAsked(deps, action, entry));
  });
  return program;
}
