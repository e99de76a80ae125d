import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { PixError } from '../../errors.js';
import { describeDamage } from '../../journal/store.js';
import { jsonDocument } from '../../output/format.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';
import { openJournal } from './shared.js';

const verifyOptionsSchema = z.object({});

export type JournalVerifyOptions = z.output<typeof verifyOptionsSchema>;

/**
 * `pix journal verify`: every line the reader could not take, by number (exit 8 when there is one:
 * payments and charges are stopped until it is repaired), and the torn writes it skips harmlessly.
 */
export async function runJournalVerify(_options: JournalVerifyOptions, deps: Deps): Promise<void> {
  const { mode, journal } = await openJournal(deps);
  const { stdout, stderr } = deps.io;
  const { damage, torn } = journal.verify();
  const entries = journal.read().length;
  if (mode.format === 'json') {
    stdout.write(jsonDocument({ path: journal.path, entries, damaged: damage, torn }, mode.pretty));
  } else if (damage.length > 0) {
    stdout.write(
      mode.table(
        ['Line', 'Problem'],
        damage.map((problem) => [String(problem.line), problem.reason]),
      ),
    );
  }
  if (torn.length > 0) {
    stderr.write(
      `${torn.length} torn write${torn.length === 1 ? '' : 's'} skipped (line ${torn.slice(0, 5).join(', ')}${torn.length > 5 ? ', …' : ''}): writes cut short, which never sent anything\n`,
    );
  }
  if (damage.length === 0) {
    stderr.write(`journal ${journal.path}: ${entries} entries, no damaged line\n`);
    return;
  }
  throw new PixError('declined', `the journal is damaged: ${describeDamage(journal.path, damage)}`, {
    hint: 'payments and charges are stopped until each damaged line is repaired or removed by hand (keep a copy of the file first); a damaged line may record a payment: check `pix statement` around the times of the lines next to it',
  });
}

export function register(command: Command, deps: Deps): void {
  command.action(async () => {
    await runJournalVerify(parseOptions(verifyOptionsSchema, {}), deps);
  });
  addExamples(command, ['pix journal verify', 'pix journal verify --json'], ['declined']);
}
