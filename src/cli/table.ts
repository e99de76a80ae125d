/**
 * The command table: one declaration per verb (`commands/<noun>/<verb>.ts`) — its name, summary, the output
 * formats it writes, the fields `--fields` picks from, whether it pages, and how its module is loaded. The
 * Commander tree (cli/load.ts), the help's lists, shell completion, the man pages and package.json's `man`
 * list are made from it; nothing else names the commands.
 */
import type { Command } from 'commander';
import { CONFIG_KEYS } from '../config/types.js';
import type { Deps, OutputFormat } from '../context.js';
import type { ErrorKind } from '../errors.js';

/** A command module: adds its flags, arguments, subcommands and action to the command made for it. */
export interface CommandModule {
  /** `wholeTree`: the program with every command loaded, for the one command that describes them all (completion). */
  register(command: Command, deps: Deps, wholeTree: () => Promise<Command>): void;
}

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
    children: [
      {
        name: 'list',
        summary: 'entries of a period, a page, every one (--all) or as they arrive (--follow)',
        default: true,
        load: () => import('../commands/statement/list.js'),
        formats: [...LIST_FORMATS, 'ofx'],
        fields: FIELDS.statement,
        // A live view never pages: `--follow` under less would stop at its prompt and hold Ctrl-C.
        paged: (options) => options.follow !== true,
      },
      {
        name: 'summary',
        summary: 'Income, outcome, fees and net by day, week or month, with a chart',
        load: () => import('../commands/statement/summary.js'),
        formats: LIST_FORMATS,
        fields: FIELDS.summary,
        paged: true,
      },
    ],
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
        load: () => import('../commands/charge/immediate.js'),
        formats: LIST_FORMATS,
      },
      {
        name: 'duedate',
        summary: 'A due-date charge: debtor, discount, fine and interest',
        load: () => import('../commands/charge/duedate.js'),
        formats: LIST_FORMATS,
      },
      {
        name: 'list',
        summary: 'The charges pix created (the local ledger), newest first',
        load: () => import('../commands/charge/list.js'),
        formats: LIST_FORMATS,
        fields: FIELDS.charges,
        paged: true,
      },
      {
        name: 'show',
        summary: 'A charge of the ledger again: its code, QR and payment',
        load: () => import('../commands/charge/show.js'),
        formats: LIST_FORMATS,
        fields: FIELDS.charges,
      },
      {
        name: 'wait',
        summary:
          'Wait until a charge is paid (exit 0), still pending at the end of --wait (9) or expired (5)',
        load: () => import('../commands/charge/wait.js'),
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
        load: () => import('../commands/pay/qr.js'),
      },
      { name: 'key', summary: 'Pay a PIX key', load: () => import('../commands/pay/key.js') },
      {
        name: 'batch',
        summary: 'Pay every row of a CSV or NDJSON file, each exactly once',
        load: () => import('../commands/pay/batch.js'),
        formats: LIST_FORMATS,
      },
    ],
  },
  {
    name: 'keys',
    summary: "The account's registered PIX keys",
    examples: {
      examples: ['pix keys', "pix keys list --json | jq -r '.result[].id'"],
      exits: ['usage', 'auth', 'rejected', 'unavailable'],
    },
    children: [
      {
        name: 'list',
        summary: 'the keys, a page or every one (--all)',
        default: true,
        load: () => import('../commands/keys/list.js'),
        formats: LIST_FORMATS,
        fields: FIELDS.keys,
        paged: true,
      },
      {
        name: 'show',
        summary: 'one key, by its value (as typed: 123.456.789-09) or its id',
        load: () => import('../commands/keys/show.js'),
        fields: FIELDS.keys,
      },
    ],
  },
  {
    name: 'account',
    summary: 'The bank account the credentials reach, as pix knows it (learned from the DICT, or bound)',
    examples: {
      examples: ['pix account', 'pix account bind --participant 12345678 --branch 0001 --number 123456-7'],
      exits: ['usage', 'auth', 'unavailable', 'declined'],
    },
    children: [
      {
        name: 'show',
        summary: 'its id, bank details and owner, how it was learned, its former names',
        default: true,
        load: () => import('../commands/account/show.js'),
      },
      {
        name: 'bind',
        summary: 'name the bank account of credentials whose account lists no PIX key',
        load: () => import('../commands/account/bind.js'),
      },
      {
        name: 'confirm',
        summary: 'record that the credentials now reach another bank account (exit 8 until then)',
        load: () => import('../commands/account/confirm.js'),
      },
    ],
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
      {
        name: 'list',
        summary: 'the entries, newest first (--unresolved: those with no known outcome)',
        default: true,
        load: () => import('../commands/journal/list.js'),
        formats: LIST_FORMATS,
        fields: FIELDS.journal,
        paged: true,
      },
      {
        name: 'show',
        summary: 'one entry, by its id (the first characters will do)',
        load: () => import('../commands/journal/show.js'),
        formats: LIST_FORMATS,
        fields: FIELDS.journal,
        paged: true,
      },
      {
        name: 'resolve',
        summary: 'record what the statement shows about an entry whose outcome pix could not know',
        load: () => import('../commands/journal/resolve.js'),
        formats: LIST_FORMATS,
        paged: true,
      },
      {
        name: 'verify',
        summary: 'list the damaged, missing or misplaced lines of the journal (exit 8 if any); --accept',
        load: () => import('../commands/journal/verify.js'),
        formats: LIST_FORMATS,
        paged: true,
      },
    ],
  },
  {
    name: 'ledger',
    summary: 'The ledger a team shares: a PostgreSQL database instead of this config directory',
    examples: {
      examples: ['pix ledger status', 'pix ledger migrate --from file'],
      exits: ['usage', 'unavailable', 'declined'],
    },
    children: [
      {
        name: 'init',
        summary:
          "create or migrate the database's schema, as its owner (--url-stdin or --url-file keeps its URL in the profile)",
        load: () => import('../commands/ledger/init.js'),
      },
      {
        name: 'use',
        summary:
          "keep a ledger's URL in the profile, creating nothing: the schema must be there (--url-stdin or --url-file)",
        load: () => import('../commands/ledger/use.js'),
      },
      {
        name: 'status',
        summary: 'backend, schema version, counts, the oldest unresolved payment, live leases',
        load: () => import('../commands/ledger/status.js'),
      },
      {
        name: 'migrate',
        summary: "import this machine's journal and charge ledger into the shared ledger",
        load: () => import('../commands/ledger/migrate.js'),
      },
    ],
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
    children: [
      {
        name: 'run',
        summary: 'reconcile the expected invoices against the statement (pix reconcile alone runs it)',
        default: true,
        load: () => import('../commands/reconcile/run.js'),
        formats: LIST_FORMATS,
        paged: true,
      },
      {
        name: 'match',
        summary: 'record that an entry settles an expectation (kept on every reconcile)',
        load: () => import('../commands/reconcile/match.js'),
      },
      {
        name: 'unmatch',
        summary: 'record that an entry does not settle an expectation',
        load: () => import('../commands/reconcile/unmatch.js'),
      },
    ],
  },
  {
    name: 'close',
    summary: "Close a day's books: its balance, OFX, workbook and reconciliation, digested",
    load: () => import('../commands/close/day.js'),
    formats: ['table', 'json'],
  },
  {
    name: 'receipt',
    summary: 'A payment advice of a journal payment (PDF, HTML or JSON): not the bank’s comprovante',
    load: () => import('../commands/receipt/show.js'),
    formats: ['table', 'json', 'pdf', 'html'],
  },
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
      {
        name: 'list',
        summary: 'the schedules, their next occurrence, and those missed, refused or held',
        default: true,
        load: () => import('../commands/schedule/list.js'),
      },
      {
        name: 'create',
        summary:
          'schedule a payment by key: --at DATE, or --every RULE (a day, the Nth business day, a weekday)',
        load: () => import('../commands/schedule/create.js'),
      },
      {
        name: 'show',
        summary: 'one schedule: every occurrence so far with its state, and the next ones',
        load: () => import('../commands/schedule/show.js'),
      },
      {
        name: 'activate',
        summary:
          'start a schedule approved ahead: a standing plan (create --plan) approved with pix plan approve',
        load: () => import('../commands/schedule/activate.js'),
      },
      {
        name: 'pause',
        summary: 'pay none of its occurrences until resumed (those passing meanwhile are skipped)',
        load: () => import('../commands/schedule/pause.js'),
      },
      {
        name: 'resume',
        summary: 'pay its occurrences again, from the next one',
        load: () => import('../commands/schedule/resume.js'),
      },
      {
        name: 'cancel',
        summary: 'pay none of its occurrences again',
        load: () => import('../commands/schedule/cancel.js'),
      },
      {
        name: 'pay',
        summary: 'pay one occurrence by hand (a missed or refused one), as a new payment',
        load: () => import('../commands/schedule/pay.js'),
        formats: LIST_FORMATS,
      },
      {
        name: 'run-due',
        summary: 'pay what is due now and exit (cron, a systemd timer, CI); record what was missed',
        load: () => import('../commands/schedule/run-due.js'),
        formats: LIST_FORMATS,
      },
      {
        name: 'run',
        summary:
          'a worker paying the occurrences on the shared ledger (pg-boss); as many as wanted, anywhere',
        load: () => import('../commands/schedule/run.js'),
        formats: LIST_FORMATS,
      },
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
    children: [
      {
        name: 'show',
        summary: 'the plan, its rows, the rules that apply, who approved and what is missing',
        load: () => import('../commands/plan/show.js'),
      },
      {
        name: 'approve',
        summary: "sign the plan's id with your SSH key (kept beside the plan, one file per key)",
        load: () => import('../commands/plan/approve.js'),
      },
      {
        name: 'reject',
        summary: 'sign a refusal of the plan, with its reason',
        load: () => import('../commands/plan/reject.js'),
      },
      {
        name: 'execute',
        summary: 'verify every approval against the policy, then pay each row once',
        load: () => import('../commands/plan/execute.js'),
        formats: LIST_FORMATS,
      },
    ],
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
    children: [
      {
        name: 'check',
        summary: 'validate a policy and show what it asks of a sample plan',
        load: () => import('../commands/policy/check.js'),
      },
      {
        name: 'approve',
        summary: "sign the policy's digest with your SSH key (admins)",
        load: () => import('../commands/policy/approve.js'),
      },
      {
        name: 'enforce',
        summary: 'make an approved policy bind the account: every payment of it, whatever the profile',
        load: () => import('../commands/policy/enforce.js'),
      },
      {
        name: 'show',
        summary: 'the policy that binds the account, and since when',
        load: () => import('../commands/policy/show.js'),
      },
    ],
  },
  {
    name: 'listen',
    summary: 'Events from the statement, signed and delivered at least once (the webhooks the API lacks)',
    load: () => import('../commands/listen/start.js'),
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
        load: () => import('../commands/events/list.js'),
        formats: LIST_FORMATS,
      },
      {
        name: 'resend',
        summary: 'deliver events again, now',
        load: () => import('../commands/events/resend.js'),
      },
      {
        name: 'verify',
        summary: 'check the event log: exit 8 naming each damaged line, 0 when sound',
        load: () => import('../commands/events/verify.js'),
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
        load: () => import('../commands/emv/decode.js'),
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
        load: () => import('../commands/sandbox/serve.js'),
      },
      {
        name: 'reset',
        summary: 'Start the sandbox account afresh (keys, statement, no charges, real time)',
        load: () => import('../commands/sandbox/reset.js'),
      },
      {
        name: 'pay',
        summary: 'Have a third party pay one of your sandbox charges',
        load: () => import('../commands/sandbox/pay.js'),
      },
      {
        name: 'clock',
        summary: 'Show or move sandbox time (shared by every process using the state file)',
        load: () => import('../commands/sandbox/clock.js'),
      },
      {
        name: 'seed',
        summary: 'Replace the generated statement with N transactions over the last 60 days',
        load: () => import('../commands/sandbox/seed.js'),
      },
      {
        name: 'move-key',
        summary: "Give someone else's key to a new owner (the DICT answers another receiver)",
        load: () => import('../commands/sandbox/move-key.js'),
      },
      {
        name: 'batch-file',
        summary: 'Write a sample batch payout file (for pix pay batch) the sandbox can pay',
        load: () => import('../commands/sandbox/batch-file.js'),
      },
    ],
  },
  {
    name: 'api',
    summary: 'An authenticated request to any path of the API (it cannot move money)',
    load: () => import('../commands/api/request.js'),
    formats: ['json'],
    fields: true,
  },
  {
    name: 'login',
    summary: 'Store credentials in a profile and make it current',
    load: () => import('../commands/auth/login.js'),
  },
  {
    name: 'logout',
    summary: "Remove a profile's stored credentials",
    load: () => import('../commands/auth/logout.js'),
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
        load: () => import('../commands/auth/status.js'),
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
        load: () => import('../commands/profile/list.js'),
      },
      {
        name: 'create',
        summary: 'a new, empty profile (--base-url: its API); credentials come from pix login',
        load: () => import('../commands/profile/create.js'),
      },
      {
        name: 'use',
        summary: 'make a profile the current one (sandbox is built in)',
        load: () => import('../commands/profile/use.js'),
      },
      {
        name: 'delete',
        summary: 'remove a profile and its stored credentials (not the one in use)',
        load: () => import('../commands/profile/delete.js'),
      },
      {
        name: 'rename',
        summary: 'give a profile a new name; what it paid stays its own',
        load: () => import('../commands/profile/rename.js'),
      },
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
    children: [
      {
        name: 'list',
        summary: 'the settings in effect, with their source: `key<TAB>value<TAB>source` per line',
        load: () => import('../commands/config/list.js'),
      },
      {
        name: 'get',
        summary: 'the value in effect for one setting (default included); nothing when there is none',
        load: () => import('../commands/config/get.js'),
      },
      {
        name: 'set',
        summary: 'change a setting (checked first)',
        load: () => import('../commands/config/set.js'),
      },
      {
        name: 'unset',
        summary: 'remove a setting',
        load: () => import('../commands/config/unset.js'),
      },
    ],
  },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh or fish)',
    // The script describes every command: the module is handed the whole tree rather than importing this one.
    load: () => import('../commands/completion/script.js'),
  },
];

/** The entry each command of the tree was made from (cli/load.ts); the commands a module adds have none. */
const ENTRY_OF = new WeakMap<Command, Entry>();

export function markEntry(command: Command, entry: Entry): void {
  ENTRY_OF.set(command, entry);
}

/** The entry `command` itself was made from, if any. */
export function ownEntry(command: Command): Entry | undefined {
  return ENTRY_OF.get(command);
}

/** The entry of `command`, or of its nearest ancestor that has one. */
export function entryOf(command: Command): Entry | undefined {
  for (let at: Command | null = command; at; at = at.parent) {
    const entry = ENTRY_OF.get(at);
    if (entry) return entry;
  }
  return undefined;
}
