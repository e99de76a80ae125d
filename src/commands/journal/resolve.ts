import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { usageError } from '../../errors.js';
import { type Resolution, shortId } from '../../journal/entries.js';
import { effectiveState, isResolvable } from '../../journal/rules.js';
import { jsonDocument } from '../../output/format.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';
import { lookUp, openJournal, publicEntry, resolutionWords, warnIfDamaged } from './shared.js';

const resolveOptionsSchema = z.object({
  id: z.string().check(z.minLength(1)),
  paid: z._default(z.boolean(), false),
  notPaid: z._default(z.boolean(), false),
});

export type JournalResolveOptions = z.output<typeof resolveOptionsSchema>;

export async function runJournalResolve(options: JournalResolveOptions, deps: Deps): Promise<void> {
  const { mode, journal } = await openJournal(deps);
  await warnIfDamaged(deps, journal);
  const { stdout, stderr } = deps.io;
  if (options.paid === options.notPaid) {
    throw usageError(
      options.paid ? '--not-paid' : '--paid',
      options.paid
        ? 'give --paid or --not-paid, not both'
        : 'say what the statement shows: --paid or --not-paid',
    );
  }
  const entry = await lookUp(journal, options.id);
  if (!isResolvable(entry)) {
    throw usageError(
      'ID',
      `journal entry ${shortId(entry.id)} is ${entry.state}: pix knows its outcome, there is nothing to resolve`,
    );
  }
  const resolution: Resolution = options.paid ? 'paid' : 'not-paid';
  await journal.resolve(entry.id, resolution);
  const resolved = { ...entry, resolution, resolvedAt: deps.clock.now().toISOString() };
  const effect =
    effectiveState(resolved) === 'done'
      ? 'it counts as done'
      : `it no longer blocks ${entry.kind === 'payment' ? 'paying again' : 'anything'}`;
  const was = entry.resolution === undefined ? '' : ` (was ${resolutionWords(entry, entry.resolution)})`;
  stderr.write(
    `journal entry ${shortId(entry.id)} resolved: ${resolutionWords(entry, resolution)}${was}; ${effect}\n`,
  );
  if (mode.format === 'json') stdout.write(jsonDocument(publicEntry(resolved), mode.pretty));
}

export function register(command: Command, deps: Deps): void {
  command
    .argument('<ID>')
    .option('--paid', 'it went through (a charge: it was created): counts as done')
    .option('--not-paid', 'it did not: no longer blocks paying again')
    .action(async (id: string, _options, self: Command) => {
      await runJournalResolve(parseOptions(resolveOptionsSchema, { ...self.opts(), id }, { id: 'ID' }), deps);
    });
  addExamples(
    command,
    ['pix journal resolve 1a2b3c4d --not-paid', 'pix journal resolve 1a2b3c4d --paid'],
    ['usage', 'not_found'],
  );
}
