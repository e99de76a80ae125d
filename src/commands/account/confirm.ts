/**
 * `pix account confirm`: the profile's credentials reach another bank account than they did (exit 8 from
 * every command until now): asks the DICT again and records the account they reach now as theirs, on every
 * machine of the ledger. What was paid from the earlier account stays its own.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { describeBank } from '../../journal/accounts.js';
import { jsonDocument } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { confirmAccount } from '../shared/account.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { describeAccount } from './shared.js';

const confirmOptionsSchema = z.object({});

export async function runAccountConfirm(deps: Deps): Promise<void> {
  await confirmAccount(deps);
  const { account } = await describeAccount(deps);
  if (deps.globals.json) {
    deps.io.stdout.write(
      jsonDocument({ id: account.id, bank: account.bank, basis: account.basis }, deps.io.stdout.isTTY),
    );
    return;
  }
  deps.io.stdout.write(`${account.id}\t${safeText(describeBank(account.bank), 160)}\n`);
}

export const verb = describeVerb({
  summary: 'record that the credentials now reach another bank account (exit 8 until then)',
  examples: ['pix account confirm', 'pix account confirm --json'],
  exits: ['auth', 'unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command.action(async (_options, self: Command) => {
    parseOptions(confirmOptionsSchema, self.opts());
    await runAccountConfirm(deps);
  });
}
