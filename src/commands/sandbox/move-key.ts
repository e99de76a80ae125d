import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { maskDocument } from '../../domain/documents.js';
import { parsePixKey } from '../../domain/pixkey.js';
import { loadDict } from '../../sandbox/index.js';
import * as z from '../../zod.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';
import { openStore, stateFlag, stateOption, translate, writeJson } from './shared.js';

export const moveKeySchema = z.object({
  key: fromDomain((text) => parsePixKey(text).key),
  state: stateFlag,
});
export type MoveKeyOptions = z.output<typeof moveKeySchema>;

/**
 * Someone else's key passes to another owner (another person, or the same document at another bank):
 * the sandbox's DICT answers the new owner from now on. For rehearsing what a payment approved for the
 * old owner does (`pix plan execute` refuses it).
 */
export async function runMoveKey(opts: MoveKeyOptions, deps: Deps): Promise<void> {
  const store = await openStore(deps, opts.state);
  const { moveKey } = await loadDict();
  const owner = await translate(() => store.update((state) => moveKey(state, opts.key)), {
    notFound: 'key not found',
    refused: 'the key cannot be moved',
  });
  const document = maskDocument(owner.documentNumber);
  if (deps.globals.json) {
    writeJson(deps, {
      key: opts.key,
      owner: { name: owner.name, documentNumber: document, participant: owner.participant },
    });
  } else {
    deps.io.stdout.write(`${opts.key}\t${owner.name}\t${document}\t${owner.participant}\n`);
  }
}

export function register(command: Command, deps: Deps): void {
  command
    .argument('<key>', "a key of someone else (not one of the sandbox account's own)")
    .option(...stateOption)
    .action(async (key: string, raw) =>
      runMoveKey(parseOptions(moveKeySchema, { ...raw, key }, { key: '<key>' }), deps),
    );
  addExamples(
    command,
    ['pix sandbox move-key ana@example.com', 'pix sandbox move-key +5511987654321 --json'],
    ['usage', 'not_found', 'rejected', 'unavailable'],
  );
}
