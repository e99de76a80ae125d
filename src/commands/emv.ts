import type { Command } from 'commander';
import type { Deps } from '../context.js';
import { type DecodedBrCode, decodeBrCode, type ExplainedField, explainBrCode } from '../domain/brcode.js';
import { centavosToApi } from '../domain/money.js';
import { counted } from '../domain/words.js';
import { usageError } from '../errors.js';
import { jsonDocument, outputMode } from '../output/format.js';
import { type Column, createListWriter } from '../output/records.js';
import { safeText } from '../output/sanitize.js';
import { asUsage } from '../usage.js';
import * as z from '../zod.js';
import { parseOptions } from './shared/flags.js';
import { addExamples } from './shared/help.js';

const decodeOptionsSchema = z.object({
  emv: z.string(),
  strict: z._default(z.boolean(), false),
});

export type EmvDecodeOptions = z.output<typeof decodeOptionsSchema>;

/** What `-` on a terminal waits for (said on stderr; a pipe is read silently). */
export const PASTE_PROMPT = 'Paste a BR Code and press Enter (Ctrl-C to cancel): ';

/**
 * `-` reads the code from stdin (what `pix pay qr -` does too): a pipe to its end; a terminal one
 * line, after saying on stderr what it waits for (a BR Code is one line, so Enter ends it).
 */
export async function readEmvArgument(text: string, deps: Deps): Promise<string> {
  if (text !== '-') return text;
  const { stdin, stderr } = deps.io;
  let input: string;
  if (stdin.isTTY) {
    stderr.write(PASTE_PROMPT);
    input = (await stdin.readLine(false)).trim();
  } else {
    input = (await stdin.readAll()).toString('utf8').trim();
  }
  if (input === '') throw usageError('EMV', 'nothing on stdin: pipe a BR Code, or pass it as the argument');
  return input;
}

/** Decodes offline; a broken code is a usage error (exit 2) naming what is wrong and where. */
export function decodeEmvOrFail(text: string): DecodedBrCode {
  return asUsage(
    'EMV',
    () => decodeBrCode(text),
    'copy the whole code again: it ends in 6304 and 4 hex digits',
  );
}

/**
 * The rules of the manual the code breaks, each a `warning:` line on stderr; with `strict`, the first
 * is a usage error (exit 2) instead, naming how many there are.
 */
export function reportBrokenRules(decoded: DecodedBrCode, strict: boolean, deps: Deps): void {
  const { warnings } = decoded;
  if (warnings.length === 0) return;
  if (strict) {
    throw usageError(
      '--strict',
      `the code breaks ${counted(warnings.length, 'rule')} of the BR Code manual: ${warnings.join('; ')}`,
      'drop --strict to decode it anyway, as payer apps do',
    );
  }
  for (const warning of warnings) deps.io.stderr.write(`warning: ${safeText(warning)}\n`);
}

/** The decoded structure for `--json`: amounts in reais like the API's, plus every field explained. */
export function decodedJson(decoded: DecodedBrCode, explained: ExplainedField[]): Record<string, unknown> {
  const { fields: _fields, amount, ...rest } = decoded;
  return {
    ...rest,
    ...(amount === undefined ? {} : { amount: centavosToApi(amount) }),
    fields: explained,
  };
}

/**
 * The rows of `emv decode`: for people a table whose Value column leaves a template's raw text out
 * (its sub-fields, on the next rows, show it); for machines (TSV, CSV) the fields as in `--json`.
 */
function fieldColumns(templates: Set<string>, human: boolean): Column<ExplainedField>[] {
  if (!human) {
    return (['path', 'name', 'value', 'meaning'] as const).map((name) => ({
      header: name,
      human: (row) => row[name],
      machine: (row) => row[name],
    }));
  }
  const none = () => undefined;
  return [
    { header: 'Field', kind: 'enum', human: (row) => row.path, machine: none },
    { header: 'Name', priority: 2, human: (row) => row.name, machine: none },
    { header: 'Value', human: (row) => (templates.has(row.path) ? '' : row.value), machine: none },
    { header: 'Meaning', priority: 3, human: (row) => row.meaning, machine: none },
  ];
}

export async function runEmvDecode(options: EmvDecodeOptions, deps: Deps): Promise<void> {
  const text = await readEmvArgument(options.emv, deps);
  const decoded = decodeEmvOrFail(text);
  reportBrokenRules(decoded, options.strict, deps);
  const explained = explainBrCode(decoded);
  // No profile is needed offline, so the time zone is irrelevant here.
  const mode = await outputMode(deps, 'UTC');
  const { stdout } = deps.io;
  if (mode.format === 'json') {
    stdout.write(jsonDocument(decodedJson(decoded, explained), mode.pretty));
    return;
  }
  const templates = new Set(decoded.fields.filter((field) => field.children).map((field) => field.id));
  const writer = createListWriter(stdout, {
    ...mode,
    columns: fieldColumns(templates, mode.human),
    listField: 'fields',
    raw: (row) => row,
  });
  await writer.begin(explained.length);
  for (const row of explained) await writer.write(row);
  await writer.end();
  if (mode.human) {
    const what = decoded.kind === 'dynamic' ? 'dynamic code (details fetched from its URL)' : 'static code';
    stdout.write(`${mode.colors.green('CRC OK')}: ${what}\n`);
  }
}

export function register(command: Command, deps: Deps): void {
  const decode = command
    .command('decode')
    .description('Parse a BR Code offline, check its CRC and explain every field')
    .argument('<EMV>', 'the copy-and-paste code, or - to read it from stdin')
    .option(
      '--strict',
      'exit 2 when the code breaks any rule of the BR Code manual (default: warn on stderr)',
    )
    .action(async (emv: string, flags: { strict?: boolean }) => {
      await runEmvDecode(
        parseOptions(decodeOptionsSchema, { emv, strict: flags.strict }, { emv: 'EMV', strict: '--strict' }),
        deps,
      );
    });
  addExamples(
    decode,
    [
      "pix emv decode '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D'",
      'pbpaste | pix emv decode -',
      "pix emv decode - --json < code.txt | jq -r '.merchantName'",
      'pix emv decode --strict "$(cat code.txt)"',
    ],
    ['usage'],
  );
  addExamples(command, ['pix emv decode "$CODE"', 'pbpaste | pix emv decode - --json'], ['usage']);
}
