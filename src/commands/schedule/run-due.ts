/**
 * `pix schedule run-due`: pays the occurrences that are due now and exits — for cron, a systemd timer or a
 * CI schedule (docs/schedules.md has a unit, a timer and a crontab line). Such a trigger may fire twice, at
 * once or late, or not at all: the journal pays each occurrence's row once per account whatever runs it
 * (commands/schedule/payment.ts), and an occurrence whose window ended with nothing sent is recorded `missed`,
 * never paid late on its own.
 *
 * 1. The schedules are read (one read of the ledger); when no occurrence's time has come since the
 *    bookmarks, that is all (exit 0, "nothing due").
 * 2. The journal judges each occurrence whose time has come: due, missed, held or settled.
 * 3. The missed are recorded (each a `schedule.missed` event for `pix listen`); the due are paid as one
 *    batch (its report on stdout, as `pix pay batch` writes it), each within its window, each to the
 *    receiver its schedule confirmed; the bookmarks move over what is settled.
 *
 * Exit: the batch's (0, 5, 6, 7, 8: contract §4); 8 when an occurrence was found missed in this run, so a
 * timer or a cron line that ran late says so.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { formatBRL } from '../../domain/money.js';
import { formatDateTime } from '../../domain/when.js';
import { PixError } from '../../errors.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { payOccurrences, recordMissed } from './payment.js';
import { accountNow, type OccurrenceView } from './shared.js';
import { schedulesToLook, settleBookmarks, survey } from './survey.js';

const runDueOptionsSchema = z.object({});

export type RunDueOptions = z.output<typeof runDueOptionsSchema>;

export function missedWords(view: OccurrenceView): string {
  const { schedule } = view;
  const end = formatDateTime(new Date(view.window.end).toISOString(), schedule.timeZone);
  const row = view.line.id === undefined ? '' : ` row ${view.line.id}`;
  return `${schedule.id} ${view.occurrence.date}${row}: ${formatBRL(view.line.amountCentavos)} to ${safeText(view.line.receiver.name, 80)}, not paid by ${end}; \`pix schedule pay ${schedule.id} ${view.occurrence.date}\` pays it`;
}

export async function runScheduleRunDue(_options: RunDueOptions, deps: Deps): Promise<void> {
  const { stderr } = deps.io;
  const settings = await deps.settings();
  const store = await deps.stores.schedules();
  const schedules = await store.read();
  const [now, account] = await Promise.all([accountNow(deps), accountOf(deps)]);
  const looking = schedulesToLook(schedules, account, now);
  if (looking.length === 0) {
    stderr.write('schedule: nothing due\n');
    const mode = await outputMode(deps, settings.timeZone.value);
    if (mode.format === 'json') deps.io.stdout.write(jsonDocument({ results: [] }, mode.pretty));
    return;
  }
  const journal = await deps.stores.journal();
  await journal.checkSound();
  const found = await survey(journal, account, looking, now);
  for (const view of found.missed) {
    await recordMissed(journal, account, view);
    stderr.write(`missed: ${missedWords(view)}\n`);
  }
  for (const view of found.held) {
    stderr.write(
      `held: ${view.schedule.id} ${view.occurrence.date}: its payment (journal entry ${view.entry?.id.slice(0, 8)}) is ${view.state}; see \`pix journal show ${view.entry?.id.slice(0, 8)}\`\n`,
    );
  }
  // The misses just recorded are settled too: judged again when there were any.
  const judged = found.missed.length === 0 ? found : await survey(journal, account, looking, now);
  await settleBookmarks(store, judged, looking);
  try {
    if (found.due.length > 0) {
      await payOccurrences(deps, found.due, {
        now: () => accountNow(deps),
        withinWindow: true,
        confirmedAhead: true,
      });
    } else {
      const mode = await outputMode(deps, settings.timeZone.value);
      if (mode.format === 'json') deps.io.stdout.write(jsonDocument({ results: [] }, mode.pretty));
    }
  } finally {
    if (found.due.length > 0) {
      // What this run paid moves the bookmarks too: the next run reads the schedules alone.
      const after = await survey(journal, account, looking, await accountNow(deps));
      await settleBookmarks(store, after, await store.read());
    }
  }
  if (found.missed.length > 0) {
    throw new PixError(
      'declined',
      `${found.missed.length} occurrence${found.missed.length === 1 ? '' : 's'} missed ${found.missed.length === 1 ? 'its' : 'their'} window: nothing was sent for ${found.missed.length === 1 ? 'it' : 'them'}`,
      {
        hint: 'run `pix schedule run-due` more often (a timer every 15 minutes from its time), and pay a missed one with `pix schedule pay ID DATE`',
      },
    );
  }
}

export const verb = describeVerb({
  summary: 'pay what is due now and exit (cron, a systemd timer, CI); record what was missed',
  formats: LIST_FORMATS,
  examples: [
    'pix schedule run-due',
    'pix schedule run-due -o ndjson >> payouts.ndjson   # from cron: */15 * * * *',
  ],
  exits: ['auth', 'rejected', 'unavailable', 'unknown_outcome', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command.action(async (_options, self: Command) => {
    await runScheduleRunDue(parseOptions(runDueOptionsSchema, self.opts()), deps);
  });
}
