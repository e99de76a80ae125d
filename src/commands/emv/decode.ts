import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import type { DecodedBrCode } from '../../domain/brcode.js';
import { type ExplainedField, explainBrCode } from '../../domain/brcodeexplain.js';
import { centavosToApi } from '../../domain/money.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import { type Column, createListWriter } from '../../output/records.js';
import * as z from '../../zod.js';
import { decodeEmvOrFail, readEmvArgument, reportBrokenRules } from '../shared/emv.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';

const decodeOptionsSchema = z.object({
  emv: z.string(),
  strict: z._default(z.boolean(), false),
});

export type EmvDecodeOptions = z.output<typeof decodeOptionsSchema>;

/** The decoded structure for `--json`: amounts in reais like the API's, plus every field explained. */
export function decodedJson(decoded: DecodedBrCode, explained: ExplainedField[]): Record<string, unknown> {
  const { fields: _fields, amount, ...rest } = decoded;
  return {
    ...rest,
    ...(amount === undefined ? {} : { amount: centavosToApi(amount) }),
    fields: explained,
  };
}

/** The fields of an explained field, as `--json` and `-o csv` name them. */
const EXPLAINED = ['path', 'name', 'value', 'meaning'] as const;

/**
 * The rows of `emv decode`: for people a table whose Value column leaves a template's raw text out
 * (its sub-fields, on the next rows, show it); for machines (TSV, CSV) the fields as in `--json`.
 */
function fieldColumns(templates: Set<string>, human: boolean): Column<ExplainedField>[] {
  if (!human) {
    return EXPLAINED.map((name) => ({
      header: name,
      human: (row) => row[name],
      machine: (row) => row[name],
    }));
  }
  const none = () => undefined;
  return [
    { header: 'Field', kind: 'enum', human: (row) => row.path, machine: none },
    { header: 'Name', priority: 2, wrap: true, human: (row) => row.name, machine: none },
    { header: 'Value', human: (row) => (templates.has(row.path) ? '' : row.value), machine: none },
    { header: 'Meaning', priority: 3, wrap: true, human: (row) => row.meaning, machine: none },
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

export const verb = describeVerb({
  summary: 'Parse a BR Code offline, check its CRC and explain every field',
  formats: LIST_FORMATS,
  fields: { paths: EXPLAINED, columns: () => fieldColumns(new Set(), false) },
  paged: true,
  examples: [
    "pix emv decode '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D'",
    'pbpaste | pix emv decode -',
    "pix emv decode - --json < code.txt | jq -r '.merchantName'",
    'pix emv decode --strict "$(cat code.txt)"',
  ],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
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
}
