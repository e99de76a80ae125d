/**
 * `pix account`: the bank account the profile's credentials reach (commands/shared/account.ts), as pix
 * knows it — its id, bank details and owner, how it was learned, the former names whose records are its
 * own, and where this is kept (the shared ledger, or the config directory). Learns it first if need be.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { describeBank } from '../../journal/accounts.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { describeAccount } from './shared.js';

const showOptionsSchema = z.object({});

export async function runAccountShow(deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const mode = await outputMode(deps, settings.timeZone.value);
  const { account, checkedAt, where } = await describeAccount(deps);
  if (mode.format === 'json') {
    deps.io.stdout.write(
      jsonDocument(
        {
          id: account.id,
          bank: account.bank,
          owner: account.owner ?? null,
          basis: account.basis,
          learnedAt: account.learnedAt,
          checkedAt: checkedAt ?? null,
          formerIds: account.formerIds,
          where,
        },
        mode.pretty,
      ),
    );
    return;
  }
  const owner = account.owner
    ? `${account.owner.name}${account.owner.document ? ` (${account.owner.document})` : ''}`
    : '';
  const how =
    account.basis === 'bound' ? 'bound by an operator (pix account bind)' : 'the DICT, for one of its keys';
  const rows: Array<[string, string, string]> = [
    ['Account', 'id', account.id],
    ['Bank account', 'bank', describeBank(account.bank)],
    ['Owner', 'owner', owner],
    ['Learned from', 'basis', how],
    ['Learned', 'learnedAt', account.learnedAt],
    ['Checked', 'checkedAt', checkedAt ?? ''],
    ['Former names', 'formerIds', account.formerIds.join(', ')],
    ['Kept in', 'where', where],
  ];
  deps.io.stdout.write(
    mode.table(
      ['Field', 'Value'],
      rows.map(([label, field, value]) => [mode.human ? label : field, safeText(value, 200)]),
    ),
  );
}

export const verb = describeVerb({
  summary: 'its id, bank details and owner, how it was learned, its former names',
  examples: ['pix account', 'pix account show --json'],
  exits: ['auth', 'unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command.action(async (_options, self: Command) => {
    parseOptions(showOptionsSchema, self.opts());
    await runAccountShow(deps);
  });
}
