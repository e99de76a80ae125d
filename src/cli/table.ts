/**
 * The command table: the tree of nouns and verbs. What a verb is — its summary, the output formats it
 * writes, the fields `--fields` picks from, whether it pages, the exit kinds it can return — is said once,
 * in its own file (`verb`, commands/<noun>/<verb>.ts), and reaches here through cli/verbs.ts, which the build
 * makes from those files; here are only the nouns (their summary and examples), which verb goes where and in
 * what order, and a noun's default verb. The Commander tree (cli/load.ts), the help's lists, shell
 * completion, the man pages and package.json's `man` list are made from it; nothing else names the commands.
 */
import type { Command } from 'commander';
import type { DescribedTree, VerbDescription } from '../commands/shared/help.js';
import { CONFIG_KEYS } from '../config/types.js';
import type { Deps, OutputFormat } from '../context.js';
import type { ErrorKind } from '../errors.js';
import { VERBS } from './verbs.js';

/** A command module: adds its flags, arguments, subcommands and action to the command made for it. */
export interface CommandModule {
  /** `wholeTree`: the program with every command loaded, for the one command that describes them all (completion). */
  register(command: Command, deps: Deps, wholeTree: () => Promise<DescribedTree>): void;
  /** What the verb says of itself: its examples end its --help (the rest is in cli/verbs.ts). */
  verb: VerbDescription;
}

/**
 * A verb of cli/verbs.ts: its description as the table needs it (no examples; its fields as names: the
 * records' JSON paths, and the names of the `-o csv` columns that are not one), and its module.
 */
export type VerbEntry = Omit<VerbDescription, 'examples' | 'fields'> & {
  fields?: readonly string[] | true;
  columns?: readonly string[];
  load: () => Promise<CommandModule>;
};

/**
 * The command tree, one entry per verb (`commands/<noun>/<verb>.ts`), with each verb's module loaded only
 * when it is the one being run, so `pix --help` loads commander alone (start-up is a feature, architecture
 * rule 8; bin/pix.js answers --version itself). An entry is a verb (`load`) or a noun (`children`), never
 * both: a noun that does something by itself names the verb it runs (`default`), so no flag of one command
 * is accepted, and silently ignored, by another.
 */
export interface Entry {
  name: string;
  /** One line in the parent's list of commands (and the command's own description, unless `description`). */
  summary: string;
  /** The description its own --help shows, when longer than the summary. */
  description?: string;
  /** A verb's file, as `noun/verb` under src/commands/ (cli/verbs.ts's key). */
  file?: string;
  /** A verb's module. A noun has none: it has `children`, and one of them may be its `default`. */
  load?: () => Promise<CommandModule>;
  children?: Entry[];
  /**
   * The verb the noun runs when none is named (`pix journal` is `pix journal list`), so the noun itself takes
   * no flags: each flag belongs to one command (`pix journal show ID --unresolved` is a usage error).
   */
  default?: boolean;
  /** A group's own examples and exit codes (its --help is shown without loading its children). */
  examples?: { examples: string[]; exits: ErrorKind[] };
  /** The `-o` formats it writes (its subcommands too); default table and json. Others are exit 2. */
  formats?: readonly OutputFormat[] | undefined;
  /**
   * What `--fields` picks from its records (commands/shared/help.ts VerbDescription): their JSON paths
   * (`true`: any, `pix api`), and `columns`, the `-o csv` header names that are not a path.
   */
  fields?: readonly string[] | true | undefined;
  columns?: readonly string[] | undefined;
  /** Its output can be long: on a terminal it goes through the pager, unless the flag named says live. */
  paged?: boolean | { readonly unless: string } | undefined;
  /** A verb's exit kinds besides 0 (a noun's are in `examples`). */
  exits?: readonly ErrorKind[] | undefined;
}

type VerbName = keyof typeof VERBS;

/** The entry of a verb of cli/verbs.ts, named as the command line names it. */
function verb(file: VerbName, options: { name?: string; default?: boolean } = {}): Entry {
  const name = options.name ?? file.slice(file.indexOf('/') + 1);
  return { name, file, ...VERBS[file], ...(options.default ? { default: true } : {}) };
}

export const COMMANDS: Entry[] = [
  // In the order an operator reaches for them: the root's --help lists them so.
  {
    name: 'statement',
    summary: 'Read the account statement',
    examples: {
      examples: [
        'pix statement --from -7d',
        'pix statement summary --by week',
        'pix statement list --all -o csv',
      ],
      exits: ['usage', 'auth', 'not_found', 'rejected', 'unavailable'],
    },
    children: [verb('statement/list', { default: true }), verb('statement/summary')],
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
      verb('charge/immediate'),
      verb('charge/duedate'),
      verb('charge/list'),
      verb('charge/show'),
      verb('charge/wait'),
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
    children: [verb('pay/qr'), verb('pay/key'), verb('pay/batch')],
  },
  {
    name: 'keys',
    summary: "The account's registered PIX keys",
    examples: {
      examples: ['pix keys', "pix keys list --json | jq -r '.result[].id'"],
      exits: ['usage', 'auth', 'rejected', 'unavailable'],
    },
    children: [verb('keys/list', { default: true }), verb('keys/show'), verb('keys/count')],
  },
  {
    name: 'account',
    summary: 'The bank account the credentials reach, as pix knows it (learned from the DICT, or bound)',
    examples: {
      examples: ['pix account', 'pix account bind --participant 12345678 --branch 0001 --number 123456-7'],
      exits: ['usage', 'auth', 'unavailable', 'declined'],
    },
    children: [verb('account/show', { default: true }), verb('account/bind'), verb('account/confirm')],
  },
  {
    name: 'journal',
    summary: 'Payments and charges pix sent, and resolving those with no known outcome',
    examples: {
      examples: [
        'pix journal --unresolved',
        'pix journal show 1a2b3c4d',
        'pix journal resolve 1a2b3c4d --not-paid',
      ],
      exits: ['usage', 'not_found'],
    },
    children: [
      verb('journal/list', { default: true }),
      verb('journal/show'),
      verb('journal/resolve'),
      verb('journal/verify'),
    ],
  },
  {
    name: 'ledger',
    summary: 'The ledger a team shares: a PostgreSQL database instead of this config directory',
    examples: {
      examples: ['pix ledger status', 'pix ledger migrate --from file'],
      exits: ['usage', 'unavailable', 'declined'],
    },
    children: [verb('ledger/init'), verb('ledger/use'), verb('ledger/status'), verb('ledger/migrate')],
  },
  {
    name: 'reconcile',
    summary: 'Which invoices, charges and payments the statement settles, and how sure that is',
    examples: {
      examples: [
        'pix reconcile --from -7d',
        'pix reconcile --expected receber.csv --map id=Documento,amount=Valor,document=CNPJ,due=Vencimento --from -30d',
      ],
      exits: ['usage', 'auth', 'unavailable'],
    },
    children: [verb('reconcile/run', { default: true }), verb('reconcile/match'), verb('reconcile/unmatch')],
  },
  verb('close/day', { name: 'close' }),
  verb('receipt/show', { name: 'receipt' }),
  // Payment approvals (README, Payment approvals): plans, and the policy that says who approves them.
  {
    name: 'schedule',
    summary: 'Scheduled and recurring payments: paid on their day, once, never late in silence',
    examples: {
      examples: [
        'pix schedule create --key ana@example.com --amount 1500 --every 10 --count 12 --yes',
        'pix schedule list',
        'pix schedule run-due            # from cron or a timer (a file ledger)',
        'pix schedule run                # a worker on the shared ledger',
      ],
      exits: ['usage', 'not_found', 'declined'],
    },
    children: [
      verb('schedule/list', { default: true }),
      verb('schedule/create'),
      verb('schedule/show'),
      verb('schedule/activate'),
      verb('schedule/pause'),
      verb('schedule/resume'),
      verb('schedule/cancel'),
      verb('schedule/pay'),
      verb('schedule/run-due'),
      verb('schedule/run'),
    ],
  },
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
    children: [verb('plan/show'), verb('plan/approve'), verb('plan/reject'), verb('plan/execute')],
  },
  {
    name: 'policy',
    summary: 'The payment policy: check it, approve it as an admin, make it bind the account',
    examples: {
      examples: [
        'pix policy check pix-policy.json --amount 8000 --new-receiver',
        'pix policy approve pix-policy.json',
        'pix policy enforce pix-policy.json',
      ],
      exits: ['usage', 'declined'],
    },
    children: [verb('policy/check'), verb('policy/approve'), verb('policy/enforce'), verb('policy/show')],
  },
  verb('listen/start', { name: 'listen' }),
  {
    name: 'events',
    summary: 'The events pix listen made: list them, resend the failed ones, verify the log',
    examples: {
      examples: ['pix events list', 'pix events list --failed --json', 'pix events verify'],
      exits: ['usage', 'unavailable', 'declined'],
    },
    children: [verb('events/list'), verb('events/resend'), verb('events/verify')],
  },
  {
    name: 'emv',
    summary: 'Inspect BR Codes offline',
    formats: VERBS['emv/decode'].formats,
    paged: true,
    examples: {
      examples: ['pix emv decode "$CODE"', 'pbpaste | pix emv decode - --json'],
      exits: ['usage'],
    },
    children: [verb('emv/decode')],
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
      verb('sandbox/serve'),
      verb('sandbox/reset'),
      verb('sandbox/pay'),
      verb('sandbox/clock'),
      verb('sandbox/seed'),
      verb('sandbox/move-key'),
      verb('sandbox/batch-file'),
    ],
  },
  verb('api/request', { name: 'api' }),
  verb('auth/login'),
  verb('auth/logout'),
  {
    name: 'auth',
    summary: 'Inspect the credentials in use',
    examples: {
      examples: ['pix auth status', 'pix auth status --json | jq .credentials.kind'],
      exits: ['usage', 'auth'],
    },
    children: [verb('auth/status')],
  },
  {
    name: 'profile',
    summary: 'List profiles, create one, switch the current one, rename or delete one',
    examples: {
      examples: ['pix profile list', 'pix profile use prod', 'pix profile use sandbox'],
      exits: ['usage'],
    },
    children: [
      verb('profile/list'),
      verb('profile/create'),
      verb('profile/use'),
      verb('profile/delete'),
      verb('profile/rename'),
    ],
  },
  {
    name: 'config',
    summary: "Read and change the current profile's settings",
    description: `Read and change the current profile's settings (keys: ${CONFIG_KEYS.join(', ')})`,
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
    children: [verb('config/list'), verb('config/get'), verb('config/set'), verb('config/unset')],
  },
  verb('completion/script', { name: 'completion' }),
];

/** The entry each command of the tree was made from (cli/load.ts); the commands a module adds have none. */
const ENTRY_OF = new WeakMap<Command, Entry>();

export function markEntry(command: Command, entry: Entry): void {
  ENTRY_OF.set(command, entry);
}

/** What the verb's own module says of itself (its `verb`), once loaded (cli/load.ts). */
const VERB_OF = new WeakMap<Command, VerbDescription>();

export function markVerb(command: Command, verb: VerbDescription): void {
  VERB_OF.set(command, verb);
}

export function verbOf(command: Command): VerbDescription | undefined {
  return VERB_OF.get(command);
}

/** The entry `command` itself was made from, if any. */
export function ownEntry(command: Command): Entry | undefined {
  return ENTRY_OF.get(command);
}

/**
 * The names `--fields` takes for an entry's records: their paths, then the `-o csv` columns that are not
 * one (`true`: any path, `pix api`; undefined: it has no records).
 */
export function fieldNames(entry: Entry | undefined): readonly string[] | true | undefined {
  const fields = entry?.fields;
  return Array.isArray(fields) ? [...fields, ...(entry?.columns ?? [])] : fields;
}

/** The verb a noun runs when none is named (`pix journal` is `pix journal list`), if it has one. */
export function defaultVerbOf(noun: Command): Command | undefined {
  const verb = ENTRY_OF.get(noun)?.children?.find((child) => child.default);
  return verb === undefined ? undefined : noun.commands.find((command) => ENTRY_OF.get(command) === verb);
}

/** The entry of `command`, or of its nearest ancestor that has one. */
export function entryOf(command: Command): Entry | undefined {
  for (let at: Command | null = command; at; at = at.parent) {
    const entry = ENTRY_OF.get(at);
    if (entry) return entry;
  }
  return undefined;
}
