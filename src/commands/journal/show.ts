import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { recoveryHint } from '../../journal/record.js';
import { isUnresolved } from '../../journal/rules.js';
import { jsonDocument } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import {
  JOURNAL_FIELDS,
  lookUp,
  openJournal,
  publicEntry,
  renderEntry,
  warnIfDamaged,
} from '../shared/journal.js';

const showOptionsSchema = z.object({ id: z.string().check(z.minLength(1)) });

export type JournalShowOptions = z.output<typeof showOptionsSchema>;

export async function runJournalShow(options: JournalShowOptions, deps: Deps): Promise<void> {
  const { timeZone, mode, journal } = await openJournal(deps);
  await warnIfDamaged(deps, journal);
  const { stdout, stderr } = deps.io;
  const entry = await lookUp(journal, options.id);
  stdout.write(
    mode.format === 'json' ? jsonDocument(publicEntry(entry), mode.pretty) : renderEntry(entry, mode),
  );
  // The same instructions as when it was left unknown: where to look, and the two ways to record it.
  if (isUnresolved(entry)) {
    stderr.write(`hint: ${safeText(recoveryHint(entry, { timeZone: timeZone }), 600)}\n`);
  }
}

export const verb = describeVerb({
  summary: 'one entry, by its id (the first characters will do)',
  formats: LIST_FORMATS,
  fields: { paths: JOURNAL_FIELDS },
  paged: true,
  examples: ['pix journal show 1a2b3c4d', 'pix journal show 1a2b --json'],
  exits: ['usage', 'not_found'],
});

export function register(command: Command, deps: Deps): void {
  command.argument('<ID>').action(async (id: string) => {
    await runJournalShow(parseOptions(showOptionsSchema, { id }, { id: 'ID' }), deps);
  });
}
