import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { formatDateTime } from '../../domain/when.js';
import { PixError, usageError } from '../../errors.js';
import { type JournalEntry, type Resolution, shortId } from '../../journal/entries.js';
import { effectiveState, isResolvable } from '../../journal/rules.js';
import type { JournalStore } from '../../journal/stores.js';
import { jsonDocument } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { lookUp, openJournal, publicEntry, resolutionWords, warnIfDamaged } from '../shared/journal.js';

const resolveOptionsSchema = z.object({
  id: z.string().check(z.minLength(1)),
  paid: z._default(z.boolean(), false),
  notPaid: z._default(z.boolean(), false),
});

export type JournalResolveOptions = z.output<typeof resolveOptionsSchema>;

/**
 * Exit 8 while entry `entry` may still be sent: a live pix is sending it (on this machine or, on the shared
 * ledger, holding a beating lease), or — for `--not-paid` — its claimant's send deadline has not passed
 * (journal/postgres/leases.ts): a claimant paused past its lease never sends after that deadline, but until
 * it a statement that shows nothing proves nothing, and paying again could pay twice.
 */
async function refuseWhileSendable(
  journal: JournalStore,
  entry: JournalEntry,
  resolution: Resolution,
  timeZone: string,
): Promise<void> {
  const holder = await journal.holder(entry);
  const id = shortId(entry.id);
  if (holder !== undefined) {
    const who = holder.here
      ? `pix process ${holder.pid}`
      : `pix process ${holder.pid} on ${safeText(holder.host, 80)}`;
    throw new PixError(
      'declined',
      `journal entry ${id} is being sent by ${who}: it is in progress, not unknown; nothing was changed`,
      {
        hint: 'its own report will say how it ended; resolve it only if that process is gone and its outcome stays unknown',
      },
    );
  }
  if (resolution !== 'not-paid') return;
  const deadline = await journal.sendDeadline(entry);
  if (deadline === undefined) return;
  const when = formatDateTime(deadline.until.toISOString(), timeZone);
  throw new PixError(
    'declined',
    `journal entry ${id} may still be sent until ${when} (in ${Math.ceil(deadline.remainingMs / 1000)} s: its claim's lease, the request's timeout and a margin): the statement cannot show yet that it was not paid; nothing was changed`,
    { hint: `after ${when}, look at the statement again, then run this again` },
  );
}

export async function runJournalResolve(options: JournalResolveOptions, deps: Deps): Promise<void> {
  const { mode, journal, timeZone } = await openJournal(deps);
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
  await refuseWhileSendable(journal, entry, resolution, timeZone);
  // Asking who sends it brought the entry up to date: it may have ended meanwhile.
  if (!isResolvable(entry)) {
    throw usageError('ID', `journal entry ${shortId(entry.id)} is ${entry.state} now: nothing to resolve`);
  }
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

export const verb = describeVerb({
  summary: 'record what the statement shows about an entry whose outcome pix could not know',
  formats: LIST_FORMATS,
  paged: true,
  examples: ['pix journal resolve 1a2b3c4d --not-paid', 'pix journal resolve 1a2b3c4d --paid'],
  exits: ['usage', 'not_found', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<ID>')
    .option('--paid', 'it went through (a charge: it was created): counts as done')
    .option('--not-paid', 'it did not: no longer blocks paying again')
    .action(async (id: string, _options, self: Command) => {
      await runJournalResolve(parseOptions(resolveOptionsSchema, { ...self.opts(), id }, { id: 'ID' }), deps);
    });
}
