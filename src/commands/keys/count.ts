import type { Command } from 'commander';
import { keyPage } from '../../api/resources/keys.js';
import type { Deps } from '../../context.js';
import { counted } from '../../domain/words.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

const keysCountOptionsSchema = z.object({});

export type KeysCountOptions = z.output<typeof keysCountOptionsSchema>;

/** How many keys the account has: the total the key list announces, read with a one-key page. */
export async function runKeysCount(_options: KeysCountOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const mode = await outputMode(deps, settings.timeZone.value);
  const { total } = await keyPage(await deps.api(), { limit: 1, offset: 0 });
  if (mode.format === 'json') {
    // A number of things is `total`, as in every list's document (contract §3).
    deps.io.stdout.write(jsonDocument({ total }, mode.pretty));
    return;
  }
  deps.io.stdout.write(mode.human ? `${counted(total, 'key')}\n` : `${total}\n`);
}

export const verb = describeVerb({
  summary: 'how many keys the account has',
  examples: ['pix keys count', 'pix keys count --json'],
  exits: ['usage', 'auth', 'rejected', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command.action(async (_options, self: Command) => {
    await runKeysCount(parseOptions(keysCountOptionsSchema, self.opts()), deps);
  });
}
