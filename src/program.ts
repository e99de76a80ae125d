import { Command, type CommanderError, Option } from 'commander';
import {
  addExamples,
  addHelpCommand,
  completionValues,
  configureHelp,
  setFieldNames,
  setFormats,
  setUsage,
} from './commands/shared/help.js';
import type { Deps, OutputFormat } from './context.js';
import { closest } from './domain/words.js';
import type { ErrorKind } from './errors.js';
import type { OutStream } from './output/iostreams.js';
import { pixVersion } from './version.js';

/** A command module: adds its flags, arguments, subcommands and action to the command made for it. */
export interface CommandModule {
  register(command: Command, deps: Deps): void;
}

/**
 * The command tree, one entry per verb (`commands/<noun>/<verb>.ts`), with each verb's module loaded only
 * when it is the one being run, so `pix --help` loads commander alone (start-up is a feature, architecture
 * rule 8; bin/pix.js answers --version itself). A noun that does something by itself (`pix statement`,
 * `pix journal`) has its own `load` as well as `children`: that module adds the noun's flags, which its
 * verbs read too, so it is loaded with each of them.
 */
interface Entry {
  name: string;
  /** One line in the parent's list of commands (and the command's own description, unless `description`). */
  summary: string;
  /** The description its own --help shows, when longer than the summary. */
  description?: string;
  /**
   * Its flags and arguments as the parent's list of commands shows them (`[options] <ID>`), written here
   * because that list is shown without loading the verb's module (test/program.test.ts checks they agree).
   */
  usage?: string;
  load?: () => Promise<CommandModule>;
  children?: Entry[];
  /** A group's own examples and exit codes (its --help is shown without loading its children). */
  examples?: { examples: string[]; exits: ErrorKind[] };
  /** The `-o` formats it writes (its subcommands too); default table and json. Others are exit 2. */
  formats?: readonly OutputFormat[];
  /**
   * `--fields` picks from its records (reads only: lists and details); the names are what shell
   * completion offers (`true`: the records' own, e.g. `pix api`'s, nothing to offer).
   */
  fields?: readonly string[] | true;
  /**
   * Its output can be long: on a terminal it goes through the pager. Never for commands that prompt, nor
   * for a live view (a function of the command's own flags says when its output is one).
   */
  paged?: boolean | ((options: Record<string, unknown>) => boolean);
}

const PARTY = ['name', 'bank', 'documentNumber'];
/**
 * The fields of each command's records as `--json` shows them: what `--fields` accepts (a field a record
 * lacks is empty) and what completion offers.
 */
const FIELDS = {
  statement: [
    'id',
    'type',
    'amount',
    'fee',
    'status',
    'method',
    'confirmedAt',
    ...PARTY.map((field) => `creditor.${field}`),
    ...PARTY.map((field) => `debtor.${field}`),
  ],
  summary: ['period', 'count', 'income', 'outcome', 'fees', 'net'],
  keys: ['id', 'key', 'keyType', 'createdAt'],
  charges: [
    'id',
    'journalId',
    'type',
    'status',
    'amount',
    'txid',
    'createdAt',
    'expiresAt',
    'dueDate',
    'terms',
    'profile',
    'host',
    'paid.entryId',
    'paid.amount',
    'paid.match',
    'paid.how',
    'paid.day',
    'paid.matchedAt',
    'ambiguous.candidates',
    'ambiguous.rivals',
    'checkedAt',
    'emvqrcps',
  ],
  journal: [
    'id',
    'kind',
    'state',
    'at',
    'amount',
    'amountCentavos',
    'receiver',
    'endToEndId',
    'description',
    'resolution',
    'resolvedAt',
    'profile',
    'host',
    'baseUrl',
    'method',
    'key',
    'emvHash',
    'dynamic',
    'batchRow.batch',
    'batchRow.row',
    'chargeType',
    'keyId',
    'transferId',
    'chargeId',
    'status',
    'reason',
    'finishedAt',
    'anomalies',
  ],
  emv: ['path', 'name', 'value', 'meaning'],
} as const;

const LIST_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'csv', 'csv-br', 'xlsx'];

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
    // The keys of config/types.ts CONFIG_KEYS, written out so that the root's help does not load that module
    // (test/program.test.ts checks they are the same).
    description:
      "Read and change the current profile's settings (keys: base-url, time-zone, max-amount, default-key, tls-cert, tls-key, client-key, policy, require-plan)",
    examples: {
      examples: [
        'pix config list',
        'pix config set time-zone America/Manaus',
        'pix config set max-amount 500 --profile prod',
        'pix config get base-url',
        'pix config unset default-key',
      ],
      exits: ['usage'],
    },
    children: [
      {
        name: 'list',
        summary: 'the settings in effect, with their source: `key<TAB>value<TAB>source` per line',
        load: () => import('./commands/config/list.js'),
      },
      {
        name: 'get',
        summary: 'the value in effect for one setting (default included); nothing when there is none',
        usage: '<key>',
        load: () => import('./commands/config/get.js'),
      },
      {
        name: 'set',
        summary: 'change a setting (checked first)',
        usage: '<key> <value>',
        load: () => import('./commands/config/set.js'),
      },
      {
        name: 'unset',
        summary: 'remove a setting',
        usage: '<key>',
        load: () => import('./commands/config/unset.js'),
      },
    ],
  },
  {
    name: 'profile',
    summary: 'List profiles, create one, switch the current one, rename or delete one',
    examples: {
      examples: ['pix profile list', 'pix profile use prod', 'pix profile use sandbox'],
      exits: ['usage'],
    },
    children: [
      {
        name: 'list',
        summary: 'the profiles, the active one marked with *',
        load: () => import('./commands/profile/list.js'),
      },
      {
        name: 'create',
        summary: 'a new, empty profile (--base-url: its API); credentials come from pix login',
        usage: '<name>',
        load: () => import('./commands/profile/create.js'),
      },
      {
        name: 'use',
        summary: 'make a profile the current one (sandbox is built in)',
        usage: '<name>',
        load: () => import('./commands/profile/use.js'),
      },
      {
        name: 'delete',
        summary: 'remove a profile and its stored credentials (not the one in use)',
        usage: '<name>',
        load: () => import('./commands/profile/delete.js'),
      },
      {
        name: 'rename',
        summary: 'give a profile a new name; what it paid stays its own',
        usage: '<old> <new>',
        load: () => import('./commands/profile/rename.js'),
      },
    ],
  },
  {
    name: 'api',
    summary: 'An authenticated request to any path of the API (it cannot move money)',
    usage: '[options] <path>',
    load: () => import('./commands/api/request.js'),
    formats: ['json'],
    fields: true,
  },
  {
    name: 'listen',
    summary: 'Events from the statement, signed and delivered at least once (the webhooks the API lacks)',
    usage: '[options]',
    load: () => import('./commands/listen/start.js'),
    formats: ['table', 'ndjson'],
  },
  {
    name: 'events',
    summary: 'The events pix listen made: list them, resend the failed ones, verify the log',
    examples: {
      examples: ['pix events list', 'pix events list --failed --json', 'pix events verify'],
      exits: ['usage', 'unavailable', 'declined'],
    },
    children: [
      {
        name: 'list',
        summary: 'recent events and their delivery (--failed: the dead letters)',
        usage: '[options]',
        load: () => import('./commands/events/list.js'),
        formats: LIST_FORMATS,
      },
      {
        name: 'resend',
        summary: 'deliver events again, now',
        usage: '[options] [id]',
        load: () => import('./commands/events/resend.js'),
      },
      {
        name: 'verify',
        summary: 'check the event log: exit 8 naming each damaged line, 0 when sound',
        load: () => import('./commands/events/verify.js'),
      },
    ],
  },
  {
    name: 'statement',
    summary: 'Read the account statement',
    // `pix statement` lists (and follows); its flags are read by `summary` too.
    load: () => import('./commands/statement/list.js'),
    formats: [...LIST_FORMATS, 'ofx'],
    fields: FIELDS.statement,
    // A live view never pages: `--follow` under less would stop at its prompt and hold Ctrl-C.
    paged: (options) => options.follow !== true,
    children: [
      {
        name: 'summary',
        summary: 'Income, outcome, fees and net by day, week or month, with a chart',
        usage: '[options]',
        load: () => import('./commands/statement/summary.js'),
        formats: LIST_FORMATS,
        fields: FIELDS.summary,
        paged: true,
      },
    ],
  },
  {
    name: 'reconcile',
    summary: 'Which invoices, charges and payments the statement settles, and how sure that is',
    // `pix reconcile` runs by itself; its flags are the noun's, so this module is loaded with each verb too.
    load: () => import('./commands/reconcile/run.js'),
    formats: LIST_FORMATS,
    paged: true,
    children: [
      {
        name: 'match',
        summary: 'record that an entry settles an expectation (kept on every reconcile)',
        usage: '<expectation> <entry>',
        load: () => import('./commands/reconcile/match.js'),
      },
      {
        name: 'unmatch',
        summary: 'record that an entry does not settle an expectation',
        usage: '<expectation> <entry>',
        load: () => import('./commands/reconcile/unmatch.js'),
      },
    ],
  },
  {
    name: 'close',
    summary: "Close a day's books: its balance, OFX, workbook and reconciliation, digested",
    usage: '[options]',
    load: () => import('./commands/close/day.js'),
    formats: ['table', 'json'],
  },
  {
    name: 'receipt',
    summary: 'A payment advice of a journal payment (PDF, HTML or JSON): not the bank’s comprovante',
    usage: '[options] [id]',
    load: () => import('./commands/receipt/show.js'),
    formats: ['table', 'json', 'pdf', 'html'],
  },
  {
    name: 'keys',
    summary: "List the account's registered PIX keys",
    load: () => import('./commands/keys/list.js'),
    formats: LIST_FORMATS,
    fields: FIELDS.keys,
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
        fields: FIELDS.charges,
        paged: true,
      },
      {
        name: 'show',
        summary: 'A charge of the ledger again: its code, QR and payment',
        load: () => import('./commands/charge/show.js'),
        formats: LIST_FORMATS,
        fields: FIELDS.charges,
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
  // Payment approvals (README, Payment approvals): plans, and the policy that says who approves them.
  {
    name: 'plan',
    summary: 'Payment plans: show one, approve or refuse it with your SSH key, pay an approved one',
    examples: {
      examples: [
        'pix pay batch payouts.csv --plan payouts.plan.json',
        'pix plan show payouts.plan.json',
        'pix plan approve payouts.plan.json',
        'pix plan execute payouts.plan.json --yes',
      ],
      exits: ['usage', 'declined'],
    },
    children: [
      {
        name: 'show',
        summary: 'the plan, its rows, the rules that apply, who approved and what is missing',
        usage: '[options] <FILE>',
        load: () => import('./commands/plan/show.js'),
      },
      {
        name: 'approve',
        summary: "sign the plan's id with your SSH key (kept beside the plan, one file per key)",
        usage: '[options] <FILE>',
        load: () => import('./commands/plan/approve.js'),
      },
      {
        name: 'reject',
        summary: 'sign a refusal of the plan, with its reason',
        usage: '[options] <FILE>',
        load: () => import('./commands/plan/reject.js'),
      },
      {
        name: 'execute',
        summary: 'verify every approval against the policy, then pay each row once',
        usage: '[options] <FILE>',
        load: () => import('./commands/plan/execute.js'),
        formats: LIST_FORMATS,
      },
    ],
  },
  {
    name: 'policy',
    summary: 'The payment policy: check it, and approve it as an admin',
    examples: {
      examples: [
        'pix policy check pix-policy.json --amount 8000 --new-receiver',
        'pix policy approve pix-policy.json',
      ],
      exits: ['usage'],
    },
    children: [
      {
        name: 'check',
        summary: 'validate a policy and show what it asks of a sample plan',
        usage: '[options] [FILE]',
        load: () => import('./commands/policy/check.js'),
      },
      {
        name: 'approve',
        summary: "sign the policy's digest with your SSH key (admins)",
        usage: '[options] [FILE]',
        load: () => import('./commands/policy/approve.js'),
      },
    ],
  },
  {
    name: 'journal',
    summary: 'Payments and charges pix sent, and resolving those with no known outcome',
    // `pix journal` lists; its flags are the noun's, so this module is loaded with each verb too.
    load: () => import('./commands/journal/list.js'),
    formats: LIST_FORMATS,
    fields: FIELDS.journal,
    paged: true,
    children: [
      {
        name: 'show',
        summary: 'one entry, by its id (the first characters will do)',
        usage: '<ID>',
        load: () => import('./commands/journal/show.js'),
        formats: LIST_FORMATS,
        fields: FIELDS.journal,
        paged: true,
      },
      {
        name: 'resolve',
        summary: 'record what the statement shows about an entry whose outcome pix could not know',
        usage: '[options] <ID>',
        load: () => import('./commands/journal/resolve.js'),
        formats: LIST_FORMATS,
        paged: true,
      },
      {
        name: 'verify',
        summary: 'list the damaged, missing or misplaced lines of the journal (exit 8 if any); --accept',
        usage: '[options]',
        load: () => import('./commands/journal/verify.js'),
        formats: LIST_FORMATS,
        paged: true,
      },
    ],
  },
  {
    name: 'emv',
    summary: 'Inspect BR Codes offline',
    formats: LIST_FORMATS,
    paged: true,
    examples: {
      examples: ['pix emv decode "$CODE"', 'pbpaste | pix emv decode - --json'],
      exits: ['usage'],
    },
    children: [
      {
        name: 'decode',
        summary: 'Parse a BR Code offline, check its CRC and explain every field',
        usage: '[options] <EMV>',
        load: () => import('./commands/emv/decode.js'),
        formats: LIST_FORMATS,
        fields: FIELDS.emv,
        paged: true,
      },
    ],
  },
  {
    name: 'sandbox',
    summary: 'A local simulated PIX account for trying pix and for CI',
    examples: {
      examples: [
        'pix sandbox serve --port 8080',
        'pix sandbox pay "$(pix charge immediate --amount 10 --json --no-qr | jq -r .id)"',
        'pix sandbox clock --advance 2d',
      ],
      exits: ['usage', 'not_found', 'rejected', 'unavailable'],
    },
    children: [
      {
        name: 'serve',
        summary: 'Run the sandbox API on 127.0.0.1 and print its URL (for other tools and CI)',
        usage: '[options]',
        load: () => import('./commands/sandbox/serve.js'),
      },
      {
        name: 'reset',
        summary: 'Start the sandbox account afresh (keys, statement, no charges, real time)',
        usage: '[options]',
        load: () => import('./commands/sandbox/reset.js'),
      },
      {
        name: 'pay',
        summary: 'Have a third party pay one of your sandbox charges',
        usage: '[options] <charge-id>',
        load: () => import('./commands/sandbox/pay.js'),
      },
      {
        name: 'clock',
        summary: 'Show or move sandbox time (shared by every process using the state file)',
        usage: '[options]',
        load: () => import('./commands/sandbox/clock.js'),
      },
      {
        name: 'seed',
        summary: 'Replace the generated statement with N transactions over the last 60 days',
        usage: '[options]',
        load: () => import('./commands/sandbox/seed.js'),
      },
      {
        name: 'move-key',
        summary: "Give someone else's key to a new owner (the DICT answers another receiver)",
        usage: '[options] <key>',
        load: () => import('./commands/sandbox/move-key.js'),
      },
      {
        name: 'batch-file',
        summary: 'Write a sample batch payout file (for pix pay batch) the sandbox can pay',
        usage: '[options]',
        load: () => import('./commands/sandbox/batch-file.js'),
      },
    ],
  },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh or fish)',
    // The script describes every command: the module is handed the whole tree rather than importing this one.
    load: async () => {
      const completion = await import('./commands/completion/script.js');
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
    const command = parent.command(entry.name).description(entry.description ?? entry.summary);
    if (entry.description !== undefined) command.summary(entry.summary);
    if (entry.usage !== undefined) setUsage(command, entry.usage);
    ENTRY_OF.set(command, entry);
    if (entry.examples) addExamples(command, entry.examples.examples, entry.examples.exits);
    if (Array.isArray(entry.fields)) setFieldNames(command, entry.fields);
    if (entry.formats !== undefined) setFormats(command, entry.formats);
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
    for (const [at, name] of path.entries()) {
      const entry: Entry | undefined = level?.find((candidate) => candidate.name === name);
      if (!entry) break;
      if (entry.load) {
        toLoad.push(entry);
        // A noun that runs by itself takes flags of its own, whose values commandPath() cannot tell from
        // names: its verb is any of its children named further on (loading one too many is harmless).
        const rest = path.slice(at + 1);
        for (const child of entry.children ?? []) if (rest.includes(child.name)) toLoad.push(child);
        break;
      }
      if (!entry.children) break;
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
    const load = ENTRY_OF.get(sibling)?.load;
    if (sibling === command || !load) continue;
    const probe = new Command(sibling.name());
    (await load()).register(probe, deps);
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
      RAISED_BY.set(error, command);
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

const OUTPUT_FORMATS: readonly OutputFormat[] = [
  'table',
  'json',
  'ndjson',
  'csv',
  'csv-br',
  'xlsx',
  'ofx',
  'pdf',
  'html',
];
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
 * command's output can be long, stdout is a terminal and neither `--no-pager` nor PIX_PAGER= says no. A
 * workbook is never written to a terminal.
 */
async function openOutput(deps: Deps, paged: boolean): Promise<void> {
  const { outputFile, pager } = deps.globals;
  if (outputFile !== undefined) return deps.output.open({ file: outputFile, replace: deps.globals.force });
  const binary = deps.globals.output === 'xlsx' || deps.globals.output === 'pdf';
  if (binary && deps.io.stdout.isTTY) {
    const { usageError } = await import('./errors.js');
    const what = deps.globals.output === 'pdf' ? 'a PDF document' : 'a binary workbook';
    throw usageError(
      '-o',
      `${deps.globals.output} is ${what}, not for a terminal`,
      `add --output-file FILE.${deps.globals.output}`,
    );
  }
  if (!paged || !pager || !deps.io.stdout.isTTY) return;
  const { preparePager } = await import('./output/pager.js');
  await deps.output.open({ pager: await preparePager(deps.env) });
}

/**
 * `--jq` and `--fields`: the expression is checked before the command runs (a syntax error is exit 2,
 * nothing sent); then what the command writes to stdout (its JSON document, compact) is kept and, once it
 * succeeded, cut to the fields (output/fields.ts) and written as asked, or run through jq. A list cut to
 * fields without jq is not kept: its list writer streams it (output/records.ts). On a terminal
 * jq's lines have their unsafe characters shown escaped (output/sanitize.ts); piped, raw strings stay exact.
 */
async function captureOutput(deps: Deps): Promise<() => Promise<void>> {
  const { jq, fields, fieldsFormat } = deps.globals;
  const filter = jq === undefined ? undefined : await (await import('./output/jq.js')).loadJqFilter(jq);
  const out = deps.io.stdout;
  const parts: Array<string | Uint8Array> = [];
  const standIn: OutStream = {
    isTTY: false,
    columns: out.columns,
    write(chunk, done) {
      parts.push(chunk);
      if (done) queueMicrotask(() => done());
      return true;
    },
    drained: () => Promise.resolve(),
  };
  // A list cut to --fields (no jq) is written as it goes by its list writer, straight to `out`.
  const sink =
    fields !== undefined && filter === undefined && fieldsFormat !== undefined
      ? { out, fields, format: fieldsFormat, streamed: false }
      : undefined;
  if (sink) (await import('./output/fields.js')).setFieldsSink(standIn, sink);
  deps.io = { ...deps.io, stdout: standIn };
  return async () => {
    // One string, once: the parts are let go before it is parsed (jq holds its own copy, parsed).
    const decoder = new TextDecoder();
    let text = parts.map((part) => (typeof part === 'string' ? part : decoder.decode(part))).join('');
    parts.length = 0;
    deps.io = { ...deps.io, stdout: out };
    const write = async (shown: string) => {
      if (shown !== '' && !out.write(shown)) await out.drained();
    };
    if (sink?.streamed) return write(text);
    if (sink) {
      const { fieldsDocument } = await import('./output/records.js');
      return write(fieldsDocument(text, sink.fields, sink.format, out.isTTY));
    }
    const [{ escapeUnsafe }, { pickFields }] = await Promise.all([
      import('./output/sanitize.js'),
      import('./output/fields.js'),
    ]);
    if (fields !== undefined) text = JSON.stringify(pickFields(JSON.parse(text), fields).document);
    const result = filter!.run(text);
    return write(out.isTTY ? result.split('\n').map(escapeUnsafe).join('\n') : result);
  };
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
    .option('--jq <expression>', 'filter the JSON output with jq (no jq needed): strings raw, others compact')
    .option('--fields <fields>', 'only these fields of each record, in order (id,amount,creditor.name)')
    .option('--output-file <file>', 'write the output to FILE: complete, or FILE is left untouched')
    .option('--force', 'let --output-file (and --qr-png) replace a file that exists')
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
  let afterAction: (() => Promise<void>) | undefined;
  program.hook('preAction', async (_program, action) => {
    const { parseGlobalOptions } = await import('./factory.js');
    const entry = entryOf(action);
    deps.globals = parseGlobalOptions(action.optsWithGlobals(), {
      command: commandName(action),
      formats: entry?.formats ?? ['table', 'json'],
      fields: entry?.fields,
    });
    const paged = entry?.paged;
    await openOutput(deps, typeof paged === 'function' ? paged(action.opts()) : paged === true);
    if (deps.globals.jq !== undefined || deps.globals.fields !== undefined)
      afterAction = await captureOutput(deps);
  });
  // Runs only when the action succeeded (a failure skips it, and the captured output with it).
  program.hook('postAction', async () => {
    await afterAction?.();
  });
  return program;
}
