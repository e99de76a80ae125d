import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { PixError } from '../../errors.js';
import type { AcceptedDamage } from '../../journal/parser.js';
import { type ChainReport, describeDamage } from '../../journal/store.js';
import { jsonDocument } from '../../output/format.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { openJournal } from '../shared/journal.js';

const verifyOptionsSchema = z.object({
  accept: z._default(z.boolean(), false),
});

export type JournalVerifyOptions = z.output<typeof verifyOptionsSchema>;

/** A store without a chain (the database's rows are written whole by transactions). */
const NO_CHAIN: ChainReport = { lag: 0, acceptances: [] };

const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;

/**
 * `pix journal verify`: every line the reader could not take, and every break of the chain or of the
 * journal's end against its checkpoint (docs/reliability.md), by number: exit 8 when there is one
 * (payments and charges are stopped until the operator has looked), and the torn writes it skips
 * harmlessly. `--accept` records that the operator has looked: one acceptance line naming each damaged
 * line, and the checkpoint brought up to date; payments and charges run again.
 */
export async function runJournalVerify(options: JournalVerifyOptions, deps: Deps): Promise<void> {
  const { mode, journal } = await openJournal(deps);
  const { stdout, stderr } = deps.io;
  const table = (damage: readonly { line: number; reason: string }[]) =>
    mode.table(
      ['Line', 'Problem'],
      damage.map((problem) => [String(problem.line), problem.reason]),
    );
  if (options.accept) {
    const accepted: AcceptedDamage[] = await journal.accept();
    const entries = (await journal.read()).length;
    if (mode.format === 'json') {
      const shown = accepted.map(({ line, reason }) => ({ line, reason }));
      stdout.write(jsonDocument({ path: journal.where, entries, accepted: shown }, mode.pretty));
    } else if (accepted.length > 0) {
      stdout.write(table(accepted));
    }
    stderr.write(
      accepted.length === 0
        ? `journal ${journal.where}: no damaged line, nothing to accept\n`
        : `journal ${journal.where}: ${plural(accepted.length, 'damaged line')} accepted, recorded at its end; payments and charges run again\n`,
    );
    return;
  }
  const { damage, torn, chain = NO_CHAIN } = await journal.verify();
  const entries = (await journal.read()).length;
  if (mode.format === 'json') {
    const { checkpoint } = chain;
    const acceptances = chain.acceptances.map(({ line, at, accepted }) => ({
      line,
      at,
      accepted: accepted.map((one) => ({ line: one.line, reason: one.reason })),
    }));
    stdout.write(
      jsonDocument(
        {
          path: journal.where,
          entries,
          damaged: damage,
          torn,
          chain: {
            start: chain.start ?? null,
            checkpoint:
              checkpoint === undefined ? null : { lines: checkpoint.lines, bytes: checkpoint.bytes },
            lag: chain.lag,
          },
          acceptances,
        },
        mode.pretty,
      ),
    );
  } else if (damage.length > 0) {
    stdout.write(table(damage));
  }
  if (torn.length > 0) {
    stderr.write(
      `${torn.length} torn write${torn.length === 1 ? '' : 's'} skipped (line ${torn.slice(0, 5).join(', ')}${torn.length > 5 ? ', …' : ''}): writes cut short, which never sent anything\n`,
    );
  }
  for (const { line, at, accepted } of chain.acceptances) {
    stderr.write(
      `line ${line}: ${plural(accepted.length, 'damaged line')} accepted at ${at} (line ${accepted.map((one) => one.line).join(', ')})\n`,
    );
  }
  if (damage.length === 0) {
    const chained =
      chain.start === undefined
        ? 'no line is chained yet (written by an earlier pix)'
        : `chained from line ${chain.start}${chain.checkpoint === undefined ? '' : `, checkpoint at line ${chain.checkpoint.lines}`}${chain.lag > 0 ? ` (the last line not yet in it: a writer stopped before its checkpoint)` : ''}`;
    stderr.write(`journal ${journal.where}: ${entries} entries, no damaged line; ${chained}\n`);
    return;
  }
  throw new PixError('declined', `the journal is damaged: ${describeDamage(journal.where, damage)}`, {
    hint: 'payments and charges are stopped until you have looked: a damaged or missing line may record a payment, so check `pix statement` around the times of the lines next to it (keep a copy of the file; repair a line by hand if you can), then `pix journal verify --accept` records that you have',
  });
}

export const verb = describeVerb({
  summary: 'list the damaged, missing or misplaced lines of the journal (exit 8 if any); --accept',
  formats: LIST_FORMATS,
  paged: true,
  examples: ['pix journal verify', 'pix journal verify --json', 'pix journal verify --accept'],
  exits: ['declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--accept', 'record that you have looked at every damaged line: payments and charges run again')
    .action(async (_options, self: Command) => {
      await runJournalVerify(parseOptions(verifyOptionsSchema, self.opts()), deps);
    });
}
