import { Command, type CommanderError, Option } from 'commander';
import { addExamples, addHelpCommand, completionValues, configureHelp } from './commands/shared/help.js';
import type { Deps, OutputFormat } from './context.js';
import type { ErrorKind } from './errors.js';
import { pixVersion } from './version.js';

/** A command module: adds its flags, arguments, subcommands and action to the command made for it. */
export interface CommandModule {
  register(command: Command, deps: Deps): void;
}

/**
 * The command tree, with each leaf's module loaded only when it is the one being run, so `pix --help`
 * loads commander alone (start-up is a feature, architecture rule 8; bin/pix.js answers --version itself).
 */
interface Entry {
  name: string;
  summary: string;
  load?: () => Promise<CommandModule>;
  children?: Entry[];
  /** A group's own examples and exit codes (its --help is shown without loading its children). */
  examples?: { examples: string[]; exits: ErrorKind[] };
  /** The `-o` formats it writes (its subcommands too); default table and json. Others are exit 2. */
  formats?: readonly OutputFormat[];
  /** Its output can be long: on a terminal it goes through the pager. Never for commands that prompt. */
  paged?: boolean;
}

const LIST_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'csv'];

export const COMMANDS: Entry[] = [
  // In the order of the contract's §1.
  {
    name: 'login',
    summary: 'Store credentials in a profile and make it current',
    load: () => import('./commands/auth/login.js'),
  },
  {
    name: 'logout',
    summary: "Remove a profile's stored credentials",
    load: () => import('./commands/auth/logout.js'),
  },
  {
    name: 'auth',
    summary: 'Inspect the credentials in use',
    examples: {
      examples: ['pix auth status', 'pix auth status --json | jq .credentials.kind'],
      exits: ['usage', 'auth'],
    },
    children: [
      {
        name: 'status',
        summary: 'Profile, base URL and credentials, with where each comes from',
        load: () => import('./commands/auth/status.js'),
      },
    ],
  },
  {
    name: 'config',
    summary: "Read and change the current profile's settings",
    load: () => import('./commands/config.js'),
  },
  {
    name: 'profile',
    summary: 'List profiles and switch the current one',
    load: () => import('./commands/profile.js'),
  },
  {
    name: 'statement',
    summary: 'Read the account statement',
    load: () => import('./commands/statement.js'),
    formats: LIST_FORMATS,
    paged: true,
  },
  {
    name: 'keys',
    summary: "List the account's registered PIX keys",
    load: () => import('./commands/keys.js'),
    formats: LIST_FORMATS,
    paged: true,
  },
  {
    name: 'charge',
    summary: 'Create PIX charges (copy-and-paste code and QR code)',
    examples: {
      examples: [
        'pix charge immediate --amount 10,50 --expires-in 30m',
        'pix charge duedate --amount 150 --due 2030-12-10 --debtor-name "Ana Souza" --debtor-cpf 123.456.789-09',
        'pix charge immediate --amount 10 --json --no-qr | jq -r .emvqrcps',
      ],
      exits: ['usage', 'auth', 'not_found', 'rejected', 'unavailable', 'unknown_outcome'],
    },
    children: [
      {
        name: 'immediate',
        summary: 'An immediate charge: fixed amount, expires soon',
        load: () => import('./commands/charge/immediate.js'),
        formats: LIST_FORMATS,
      },
      {
        name: 'duedate',
        summary: 'A due-date charge: debtor, discount, fine and interest',
        load: () => import('./commands/charge/duedate.js'),
        formats: LIST_FORMATS,
      },
      {
        name: 'list',
        summary: 'The charges pix created (the local ledger), newest first',
        load: () => import('./commands/charge/list.js'),
        formats: LIST_FORMATS,
        paged: true,
      },
      {
        name: 'show',
        summary: 'A charge of the ledger again: its code, QR and payment',
        load: () => import('./commands/charge/show.js'),
        formats: LIST_FORMATS,
      },
      {
        name: 'wait',
        summary: 'Wait until a charge is paid (exit 0), still pending at --timeout (9) or expired (5)',
        load: () => import('./commands/charge/wait.js'),
        formats: LIST_FORMATS,
      },
    ],
  },
  {
    name: 'pay',
    summary: 'Pay a PIX by QR code or by key',
    examples: {
      examples: [
        'pix pay qr "$CODE" --dry-run',
        'pix pay key ana@example.com --amount 10,50 --yes',
        'pix pay qr "$CODE" --yes --json | jq -r \'.transfer.id\'',
      ],
      exits: ['usage', 'auth', 'not_found', 'rejected', 'unavailable', 'unknown_outcome', 'declined'],
    },
    children: [
      {
        name: 'qr',
        summary: 'Pay a BR Code (QR code or copy-and-paste)',
        load: () => import('./commands/pay/qr.js'),
      },
      { name: 'key', summary: 'Pay a PIX key', load: () => import('./commands/pay/key.js') },
      {
        name: 'batch',
        summary: 'Pay every row of a CSV or NDJSON file, each exactly once',
        load: () => import('./commands/pay/batch.js'),
        formats: LIST_FORMATS,
      },
    ],
  },
  {
    name: 'journal',
    summary: 'Payments and charges pix sent, and resolving those with no known outcome',
    load: () => import('./commands/journal.js'),
    formats: LIST_FORMATS,
    paged: true,
  },
  {
    name: 'emv',
    summary: 'Inspect BR Codes offline',
    load: () => import('./commands/emv.js'),
    formats: LIST_FORMATS,
    paged: true,
  },
  {
    name: 'sandbox',
    summary: 'A local simulated PIX account for trying pix and for CI',
    load: () => import('./commands/sandbox.js'),
  },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh or fish)',
    // The script describes every command: the module is handed the whole tree rather than importing this one.
    load: async () => {
      const completion = await import('./commands/completion.js');
      return { register: (command, deps) => completion.register(command, deps, () => wholeProgram(deps)) };
    },
  },
];

/** A fresh program with every command module loaded (`pix completion`). */
async function wholeProgram(deps: Deps): Promise<Command> {
  const program = createProgram(deps);
  await loadCommands(program, deps, [], true);
  return program;
}

/**
 * The names of the commands the user asked for, e.g. ['charge', 'immediate'], read from argv before parsing.
 * The program's own global flags that take a value (`-p NAME`) are skipped with their value.
 */
function commandPath(program: Command, argv: readonly string[]): string[] {
  const takesValue = new Set(
    program.options
      .filter((option) => option.required || option.optional)
      .flatMap((option) => [option.short, option.long]),
  );
  const path: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') break;
    if (token.startsWith('-')) {
      if (takesValue.has(token)) i++;
      continue;
    }
    path.push(token);
  }
  return path;
}

/** The entry each command of the tree was made from (the commands its module adds have none). */
const ENTRY_OF = new WeakMap<Command, Entry>();

/** The entry of `command`, or of its nearest ancestor that has one. */
function entryOf(command: Command): Entry | undefined {
  for (let at: Command | null = command; at; at = at.parent) {
    const entry = ENTRY_OF.get(at);
    if (entry) return entry;
  }
  return undefined;
}

function addEntries(parent: Command, entries: Entry[]): Map<Entry, Command> {
  const made = new Map<Entry, Command>();
  for (const entry of entries) {
    const command = parent.command(entry.name).description(entry.summary);
    ENTRY_OF.set(command, entry);
    if (entry.examples) addExamples(command, entry.examples.examples, entry.examples.exits);
    made.set(entry, command);
    if (entry.children) {
      for (const [child, childCommand] of addEntries(command, entry.children)) made.set(child, childCommand);
    }
  }
  return made;
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
  const toLoad: Entry[] = [];
  if (all) {
    for (const entry of made.keys()) if (entry.load) toLoad.push(entry);
  } else {
    let path = commandPath(program, argv);
    if (path[0] === 'help') path = path.slice(1);
    let level: Entry[] | undefined = COMMANDS;
    for (const name of path) {
      const entry: Entry | undefined = level?.find((candidate) => candidate.name === name);
      if (!entry) break;
      if (entry.load) {
        toLoad.push(entry);
        break;
      }
      level = entry.children;
    }
  }
  const modules = await Promise.all(toLoad.map((entry) => entry.load!()));
  modules.forEach((module, index) => {
    module.register(made.get(toLoad[index]!)!, deps);
  });
  teachUsageErrors(program);
}

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

function fullName(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function hintFor(command: Command, error: CommanderError): string | undefined {
  if (USAGE_LINE_ERRORS.has(error.code)) return `usage: ${fullName(command)} ${command.usage()}`;
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
  return undefined;
}

type MandatoryCheck = { missingMandatoryOptionValue(option: Option): void };

/**
 * Makes Commander's usage errors teach, for every command of the tree: a hint with the usage line
 * (missing argument, missing value) or a way forward (unknown command). Commander checks required
 * options before arguments and unknown options; the missing option is reported last here, so that
 * `pix pay key` says the KEY is missing and `--amout` gets its "did you mean --amount?".
 */
function teachUsageErrors(program: Command): void {
  const missing = new Map<Command, Option>();
  const visit = (command: Command): void => {
    command.exitOverride((error) => {
      if (error.exitCode !== 0 && error.code !== 'commander.help') {
        const hint = hintFor(command, error);
        if (hint !== undefined) Object.assign(error, { pixHint: hint });
      }
      throw error;
    });
    (command as unknown as MandatoryCheck).missingMandatoryOptionValue = (option) => {
      if (!missing.has(command)) missing.set(command, option);
    };
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
  program.hook('preAction', (_program, action) => {
    for (let at: Command | null = action; at; at = at.parent) {
      const option = missing.get(at);
      if (option)
        (Command.prototype as unknown as MandatoryCheck).missingMandatoryOptionValue.call(at, option);
    }
  });
}

const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'csv'];
/** Shell completion of durations (`30` → `30s 30m 30h 30d`) and of profile names. */
const DURATION_UNITS = { units: ['s', 'm', 'h', 'd'] } as const;
const PROFILES = { dynamic: 'profiles' } as const;

/** `pix charge immediate` for the action command. */
function commandName(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return ['pix', ...names].join(' ');
}

/**
 * Points the writer at its destination once the flags are known: `--output-file`, or the pager when the
 * command's output can be long, stdout is a terminal and neither `--no-pager` nor PIX_PAGER= says no.
 */
async function openOutput(deps: Deps, paged: boolean): Promise<void> {
  const { outputFile, pager } = deps.globals;
  if (outputFile !== undefined) return deps.output.open({ file: outputFile });
  if (!paged || !pager || !deps.io.stdout.isTTY) return;
  const { preparePager } = await import('./output/pager.js');
  await deps.output.open({ pager: await preparePager(deps.env) });
}

export function createProgram(deps: Deps): Command {
  const program = new Command('pix');
  configureHelp(program);
  program
    .description('Run a PIX payment account from the terminal and from CI.')
    .version(pixVersion(), '-V, --version', 'print the version')
    .addOption(completionValues(new Option('-p, --profile <name>', 'profile to use (PIX_PROFILE)'), PROFILES))
    .option('--base-url <url>', 'API base URL (PIX_BASE_URL)')
    .option('--json', 'one JSON document on stdout')
    .addOption(new Option('-o, --output <format>', 'output format of list commands').choices(OUTPUT_FORMATS))
    .option('--output-file <file>', 'write the output to FILE: complete, or FILE is left untouched')
    .option('--wide', 'tables show every column in full, whatever the terminal width')
    .option('--no-pager', 'no pager for long output (also PIX_PAGER=)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .addOption(
      completionValues(
        new Option('--timeout <duration>', 'time limit of each request, e.g. 30s').default('30s'),
        DURATION_UNITS,
      ),
    )
    .option('-v, --verbose', 'log HTTP requests on stderr, credentials redacted')
    .option('-y, --yes', 'answer yes to confirmations')
    .option('--no-input', 'never prompt')
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
    const { parseGlobalOptions } = await import('./factory.js');
    const entry = entryOf(action);
    deps.globals = parseGlobalOptions(action.optsWithGlobals(), {
      command: commandName(action),
      formats: entry?.formats ?? ['table', 'json'],
    });
    await openOutput(deps, entry?.paged === true);
  });
  return program;
}
