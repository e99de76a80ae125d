import type { Command } from 'commander';
import { everyKey, registeredKeySchema } from '../../api/resources/keys.js';
import type { Deps } from '../../context.js';
import { parsePixKey } from '../../domain/pixkey.js';
import { formatDateTime } from '../../domain/when.js';
import { PixError } from '../../errors.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

// KEY as a person types it (a CPF with its dots, a phone with its parentheses): the form the account keeps.
const keysShowOptionsSchema = z.object({ key: fromDomain(parsePixKey) });

export type KeysShowOptions = z.output<typeof keysShowOptionsSchema>;

export async function runKeysShow(options: KeysShowOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const mode = await outputMode(deps, settings.timeZone.value);
  // Every page of the account's keys (a list read short is exit 6: the key might be on the page not read).
  const wanted = options.key.key.toLowerCase();
  const keys = await everyKey(await deps.api(), 'run it again later');
  const key = keys.find((one) => one.key.toLowerCase() === wanted || one.id.toLowerCase() === wanted);
  if (!key) {
    throw new PixError('not_found', `no PIX key ${safeText(options.key.key, 80)} on this account`, {
      hint: 'list them with `pix keys`',
    });
  }
  if (mode.format === 'json') {
    deps.io.stdout.write(jsonDocument(key, mode.pretty));
    return;
  }
  const rows: Array<[string, string, string]> = [
    ['Key', 'key', key.key],
    ['Type', 'keyType', key.keyType],
    ['Created', 'createdAt', mode.human ? formatDateTime(key.createdAt, mode.timeZone) : key.createdAt],
    ['Id', 'id', key.id],
  ];
  deps.io.stdout.write(
    mode.table(
      ['Field', 'Value'],
      rows.map(([label, field, value]) => (mode.human ? [label, value] : [field, value])),
    ),
  );
}

export const verb = describeVerb({
  summary: 'one key, by its value (as typed: 123.456.789-09) or its id',
  fields: { schema: registeredKeySchema },
  examples: [
    'pix keys show loja@sandbox.pix.local',
    'pix keys show 123.456.789-09 --json',
    'pix keys show loja@sandbox.pix.local --fields id,keyType --json',
  ],
  exits: ['usage', 'auth', 'not_found', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<KEY>', 'the key (CPF, CNPJ, +55 phone, e-mail or random key) or its id')
    .action(async (key: string) => {
      await runKeysShow(parseOptions(keysShowOptionsSchema, { key }, { key: 'KEY' }), deps);
    });
}
