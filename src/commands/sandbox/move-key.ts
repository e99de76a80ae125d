import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { maskDocument } from '../../domain/documents.js';
import { parsePixKey } from '../../domain/pixkey.js';
import { usageError } from '../../errors.js';
import { loadDict } from '../../sandbox/index.js';
import * as z from '../../zod.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { openStore, stateFlag, stateOption, translate, writeJson } from './shared.js';

export const moveKeySchema = z.object({
  key: fromDomain((text) => parsePixKey(text).key),
  state: stateFlag,
  to: stateFlag,
  back: z._default(z.boolean(), false),
});
export type MoveKeyOptions = z.output<typeof moveKeySchema>;

/**
 * Someone else's key passes to another owner (another person, or the same document at another bank):
 * the sandbox's DICT answers the new owner from now on. For rehearsing what a payment approved for the
 * old owner does (`pix plan execute` refuses it); `--back` gives it back to its first owner.
 */
export async function runMoveKey(opts: MoveKeyOptions, deps: Deps): Promise<void> {
  if (opts.to !== undefined) {
    if (opts.back) throw usageError('--back', 'is for a key of someone else, not with --to');
    return moveOwnKey(opts, opts.to, deps);
  }
  const store = await openStore(deps, opts.state);
  const { moveKey } = await loadDict();
  const owner = await translate(() => store.update((state) => moveKey(state, opts.key, opts.back)), {
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

/**
 * `--to STATE`: one of this state's own keys passes to the account of state STATE (another `pix sandbox
 * serve --state`): this account no longer lists it, that one does, with the same record, and the DICT
 * answers that account's bank details for it. What a key ported between accounts does to pix's idea of
 * which account is which (journal/accounts.ts).
 */
async function moveOwnKey(opts: MoveKeyOptions, to: string, deps: Deps): Promise<void> {
  const [from, into] = await Promise.all([openStore(deps, opts.state), openStore(deps, to)]);
  const { giveKey, takeKey } = await loadDict();
  const words = { notFound: 'not a key of this account', refused: 'the other account has this key already' };
  // Registered there first: a key is never of neither account, and one the other has is refused before.
  const record = (await translate(() => from.read(), words)).keys.find((own) => own.key === opts.key);
  if (record === undefined) await translate(() => from.update((state) => giveKey(state, opts.key)), words);
  await translate(() => into.update((state) => takeKey(state, record!)), words);
  await translate(() => from.update((state) => giveKey(state, opts.key)), words);
  if (deps.globals.json) writeJson(deps, { key: opts.key, id: record!.id, to });
  else deps.io.stdout.write(`${opts.key}\t${record!.id}\t${to}\n`);
}

export const verb = describeVerb({
  summary: "Give someone else's key to a new owner (the DICT answers another receiver)",
  examples: [
    'pix sandbox move-key ana@example.com',
    'pix sandbox move-key +5511987654321 --json',
    'pix sandbox move-key ana@example.com --back   # its first owner again',
    'pix sandbox move-key loja@sandbox.pix.local --to other-state.json',
  ],
  exits: ['usage', 'not_found', 'rejected', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<key>', "a key of someone else (with --to: one of the sandbox account's own)")
    .option(...stateOption)
    .option('--to <file>', "one of this account's own keys, to the account of this other state file")
    .option('--back', 'the key returns to the owner it had before it was ever moved')
    .action(async (key: string, raw) =>
      runMoveKey(parseOptions(moveKeySchema, { ...raw, key }, { key: '<key>' }), deps),
    );
}
