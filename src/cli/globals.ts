/**
 * The global flags of the contract (§1), declared once: the program adds them to its root command
 * (cli/program.ts), and the composition root reads them from argv before Commander parses the command
 * (`readGlobals`, with the same Commander parser, so a flag is read the same way in both), so every command
 * runs with its GlobalOptions fixed from the start (src/wiring.ts).
 */
import { Command, Option } from 'commander';
import { defaultGlobals, type GlobalOptions, type OutputFormat } from '../context.js';
import { parseDuration } from '../domain/duration.js';
import { InvalidValue } from '../domain/invalid.js';
import { closest } from '../domain/words.js';
import { usageError } from '../errors.js';
import { asUsage } from '../usage.js';

export const OUTPUT_FORMATS: readonly OutputFormat[] = [
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

/** What shell completion offers for a global flag's value (cli/program.ts attaches it). */
export type GlobalCompletion = 'profiles' | 'durations';

export interface GlobalFlag {
  flags: string;
  description: string;
  default?: string;
  choices?: readonly string[];
  completion?: GlobalCompletion;
}

/** In the order `--help` lists them. */
export const GLOBAL_FLAGS: readonly GlobalFlag[] = [
  { flags: '-p, --profile <name>', description: 'profile to use (PIX_PROFILE)', completion: 'profiles' },
  { flags: '--base-url <url>', description: 'API base URL (PIX_BASE_URL)' },
  { flags: '--json', description: 'one JSON document on stdout' },
  { flags: '-o, --output <format>', description: 'output format of list commands', choices: OUTPUT_FORMATS },
  {
    flags: '--jq <expression>',
    description: 'filter the JSON output with jq (no jq needed): strings raw, others compact',
  },
  {
    flags: '--fields <fields>',
    description: 'only these fields of each record, in order (id,amount,creditor.name)',
  },
  {
    flags: '--output-file <file>',
    description: 'write the output to FILE: complete, or FILE is left untouched',
  },
  { flags: '--force', description: 'let --output-file (and --qr-png) replace a file that exists' },
  { flags: '--wide', description: 'tables show every column in full, whatever the terminal width' },
  { flags: '--no-pager', description: 'no pager for long output (also PIX_PAGER=)' },
  { flags: '--no-color', description: 'no colour (also NO_COLOR)' },
  {
    flags: '--timeout <duration>',
    description: 'time limit of each request, e.g. 30s',
    default: '30s',
    completion: 'durations',
  },
  { flags: '-v, --verbose', description: 'log HTTP requests on stderr, credentials redacted' },
  { flags: '-y, --yes', description: 'answer yes to confirmations' },
  { flags: '--no-input', description: 'never prompt' },
];

/** A Commander Option for each global flag; `each` may attach more to it (shell completion). */
export function globalOptions(
  each: (option: Option, flag: GlobalFlag) => Option = (option) => option,
): Option[] {
  return GLOBAL_FLAGS.map((flag) => {
    const option = new Option(flag.flags, flag.description);
    if (flag.default !== undefined) option.default(flag.default);
    if (flag.choices !== undefined) option.choices(flag.choices);
    return each(option, flag);
  });
}

/** The global flags that take a value, by every name (`-p`, `--profile`): their value is not a command name. */
export const GLOBALS_WITH_VALUE: ReadonlySet<string> = new Set(
  globalOptions()
    .filter((option) => option.required || option.optional)
    .flatMap((option) => [option.short, option.long].filter((name): name is string => name !== undefined)),
);

/**
 * The global flags in argv, read by Commander's own option parser (`parseOptions`, which the root command
 * runs over the whole of argv too) on a command that has them alone. What Commander itself refuses (`-o
 * foo`) is left for the full parse to report, in its order; the GlobalOptions are then the defaults.
 */
export function readGlobals(
  argv: readonly string[],
  command?: CommandOutput,
): { globals: GlobalOptions; error?: unknown } {
  const scan = new Command('pix').helpOption(false).exitOverride();
  scan.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  for (const option of globalOptions()) scan.addOption(option);
  try {
    scan.parseOptions([...argv]);
  } catch {
    return { globals: defaultGlobals() };
  }
  try {
    return { globals: parseGlobalOptions(scan.opts(), command) };
  } catch (error) {
    return { globals: defaultGlobals(), error };
  }
}

/** The command being run, for the rules of its output flags. */
export interface CommandOutput {
  /** How the user would type it: `pix emv decode`. */
  command: string;
  /** The `-o` formats it writes. */
  formats: readonly OutputFormat[];
  /**
   * What `--fields` can pick from its records (lists and details, never a command that moves money): their
   * field names (nested ones dotted), or `true` for records of any shape (`pix api`).
   */
  fields?: readonly string[] | true | undefined;
  /** The names of its list's `-o csv` columns that are not a field (`counterpartyName`): `--fields` takes them too. */
  columns?: readonly string[] | undefined;
}

/**
 * Commander's parsed global flags → the typed GlobalOptions every command sees. `-o` must be one of
 * the command's formats and agree with `--json` (exit 2 otherwise, before anything is sent).
 */
export function parseGlobalOptions(raw: Record<string, unknown>, command?: CommandOutput): GlobalOptions {
  const globals = defaultGlobals();
  if (typeof raw.profile === 'string') globals.profile = raw.profile;
  if (typeof raw.baseUrl === 'string') globals.baseUrl = raw.baseUrl;
  if (typeof raw.output === 'string') {
    const output = raw.output as OutputFormat;
    if (raw.json === true && output !== 'json') {
      throw usageError('--json', `cannot be combined with -o ${output} (--json is -o json)`);
    }
    if (command && !command.formats.includes(output)) {
      throw usageError(
        '-o',
        `${command.command} has no ${output} output`,
        `its formats: ${command.formats.join(', ')}`,
      );
    }
    globals.output = output;
  }
  globals.json = raw.json === true || raw.output === 'json';
  if (globals.json) globals.output = 'json';
  if (typeof raw.jq === 'string') {
    if (raw.jq.trim() === '') throw usageError('--jq', 'needs an expression, e.g. .total');
    if (command && !command.formats.includes('json')) {
      throw usageError(
        '--jq',
        `${command.command} has no JSON output`,
        `its formats: ${command.formats.join(', ')}`,
      );
    }
    if (typeof raw.output === 'string' && raw.output !== 'json') {
      throw usageError('--jq', `cannot be combined with -o ${raw.output} (--jq reads the JSON output)`);
    }
    globals.jq = raw.jq;
    globals.json = true;
    globals.output = 'json';
  }
  if (raw.fields === 'help' || raw.fields === '') {
    if (command && !command.fields)
      throw usageError('--fields', `${command.command} has no records to pick from`);
    globals.fieldsHelp = true;
  } else if (typeof raw.fields === 'string') {
    const columns = command?.columns ?? [];
    const fields = asUsage('--fields', () => parseFields(String(raw.fields), columns));
    const wanted = globals.output ?? 'table';
    if (wanted !== 'json' && wanted !== 'ndjson' && wanted !== 'csv') {
      throw usageError('--fields', 'goes with --json, --jq, -o ndjson or -o csv');
    }
    if (command && !command.fields)
      throw usageError('--fields', `${command.command} has no records to pick from`);
    if (command && Array.isArray(command.fields))
      checkFields(fields, command, [...command.fields, ...columns]);
    globals.fields = fields;
    globals.fieldsFormat = wanted;
    // The command writes its JSON document; output/fields.ts cuts it and writes what was asked.
    globals.output = 'json';
  }
  globals.wide = raw.wide === true;
  globals.pager = raw.pager !== false;
  if (typeof raw.outputFile === 'string') {
    if (raw.outputFile === '') throw usageError('--output-file', 'needs a file name');
    globals.outputFile = raw.outputFile;
    formatOfFile(globals, raw, command);
  }
  globals.color = raw.color !== false;
  globals.verbose = raw.verbose === true;
  globals.yes = raw.yes === true;
  globals.force = raw.force === true;
  globals.input = raw.input !== false;
  if (typeof raw.timeout === 'string') {
    const timeout = raw.timeout;
    globals.timeoutMs = asUsage('--timeout', () => parseDuration(timeout).milliseconds);
  }
  return globals;
}

/**
 * The formats a file's extension names (contract §3): the first is what `--output-file NAME.ext` writes when
 * no `-o` says; an explicit `-o` must be one of them. An extension not listed leaves the format to `-o`.
 */
const FORMATS_BY_EXTENSION: Readonly<Record<string, readonly OutputFormat[]>> = {
  xlsx: ['xlsx'],
  ofx: ['ofx'],
  pdf: ['pdf'],
  csv: ['csv', 'csv-br'],
  json: ['json'],
  ndjson: ['ndjson'],
  jsonl: ['ndjson'],
  html: ['html'],
  tsv: ['table'],
};

/**
 * A file is written in the format its name says: `--output-file s.xlsx` is a workbook, never text in a
 * file named .xlsx. An explicit `-o` (or --json) that disagrees, or a command that cannot write that
 * format, is exit 2 naming both; `--jq` and `--fields` write what they pick, so only a binary name refuses
 * them.
 */
function formatOfFile(globals: GlobalOptions, raw: Record<string, unknown>, command?: CommandOutput): void {
  const file = globals.outputFile!;
  const extension = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase();
  const named = extension === undefined ? undefined : FORMATS_BY_EXTENSION[extension];
  if (named === undefined) return;
  const picked = globals.jq !== undefined || globals.fields !== undefined;
  if (picked) {
    if (['xlsx', 'ofx', 'pdf'].includes(named[0]!)) {
      throw usageError(
        '--output-file',
        `${file} names ${named[0]}, and ${globals.jq === undefined ? '--fields' : '--jq'} writes text`,
      );
    }
    return;
  }
  const explicit = typeof raw.output === 'string' || raw.json === true;
  if (explicit) {
    if (!named.includes(globals.output!)) {
      throw usageError(
        '--output-file',
        `${file} names ${named.join(' or ')}, and -o says ${globals.output}`,
        `name the file .${extensionOf(globals.output!)}, or drop -o`,
      );
    }
    return;
  }
  const format = named[0]!;
  if (command && !command.formats.includes(format)) {
    throw usageError(
      '--output-file',
      `${file} names ${format}, and ${command.command} has no ${format} output`,
      `its formats: ${command.formats.join(', ')}`,
    );
  }
  globals.output = format;
  globals.json = format === 'json';
}

/** The extension a format's file takes. */
function extensionOf(format: OutputFormat): string {
  if (format === 'csv-br') return 'csv';
  if (format === 'table') return 'tsv (or txt)';
  return format;
}

/**
 * The fields must be ones the command's records have (their shape, not the data of this run): a page of
 * outgoing entries has no `creditor.name`, yet the field is the statement's, and empty there. A name is a
 * field or an object holding fields (`creditor`).
 */
function checkFields(fields: readonly string[], command: CommandOutput, known: readonly string[]): void {
  const unknown = fields.filter(
    (field) => !known.includes(field) && !known.some((name) => name.startsWith(`${field}.`)),
  );
  if (unknown.length === 0) return;
  // Only a name close enough to be a typo is suggested (domain/words.ts): `nope` is not a mistyped `type`.
  const near = closest(unknown[0]!, known);
  throw usageError(
    '--fields',
    `${command.command} has no field ${unknown.join(', ')} (fields: ${known.join(', ')})`,
    near === undefined
      ? `\`${command.command} --fields help\` lists them, one a line`
      : `did you mean ${near}?`,
  );
}

/**
 * `--fields a,b.c` → the paths (nested ones dotted) and the list's column names (`columns`, taken as
 * written: `Paid by`); a malformed one is refused.
 */
function parseFields(text: string, columns: readonly string[]): string[] {
  const fields = text.split(',').map((field) => field.trim());
  for (const field of fields) {
    if (columns.includes(field)) continue;
    if (!/^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*$/.test(field)) {
      throw new InvalidValue(`"${field}" is not a field name (a, b, or a nested one: creditor.name)`);
    }
  }
  return fields;
}
