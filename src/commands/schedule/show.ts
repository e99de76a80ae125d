/**
 * `pix schedule show ID`: one schedule — what was confirmed (key, amount, receiver, rule), its state, every
 * occurrence so far with its state (paid, held, refused, missed; each with its journal entry), and the next
 * ones in the schedule's zone. `--json`: the schedule with `occurrences` and `next`.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { jsonDocument, money, outputMode } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import {
  comingOccurrences,
  dueWords,
  findSchedule,
  occurrenceJson,
  pastViews,
  receiverWords,
  ruleWords,
  SHOWN_NEXT,
  scheduleJson,
  schedulesNow,
  targetWords,
} from './shared.js';

const showOptionsSchema = z.object({ id: z.string().check(z.minLength(1)) });

export type ScheduleShowOptions = z.output<typeof showOptionsSchema>;

export async function runScheduleShow(options: ScheduleShowOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const { schedules, account, now, journal } = await schedulesNow(deps);
  const schedule = findSchedule(schedules, account, options.id);
  const past = await pastViews(journal, account, schedule, now, true);
  const coming = schedule.state === 'cancelled' ? [] : comingOccurrences(schedule, now, SHOWN_NEXT);
  const mode = await outputMode(deps, settings.timeZone.value);
  if (mode.format === 'json') {
    deps.io.stdout.write(
      jsonDocument({ ...scheduleJson(schedule, coming), occurrences: past.map(occurrenceJson) }, mode.pretty),
    );
    return;
  }
  const details: Array<[string, string, string]> = [
    ['Id', 'id', schedule.id],
    ['State', 'state', schedule.state],
    ['Amount', 'amount', money(schedule.amountCentavos, mode.human)],
    ['Pays', 'pays', targetWords(schedule)],
    ['Receiver', 'receiver', receiverWords(schedule)],
    ['Rule', 'rule', ruleWords(schedule)],
    ['Description', 'description', safeText(schedule.description ?? '', 140)],
    ['Next', 'next', coming.map((occurrence) => dueWords(schedule, occurrence)).join('; ')],
  ];
  deps.io.stdout.write(
    mode.table(
      ['Field', 'Value'],
      details.map(([label, field, value]) => (mode.human ? [label, value] : [field, value])),
    ),
  );
  if (past.length > 0) {
    deps.io.stdout.write(
      mode.table(
        ['occurrence', 'paid on', 'state', 'journal entry', 'reason'],
        past.map((view) => [
          view.line.id === undefined ? view.occurrence.date : `${view.occurrence.date} ${view.line.id}`,
          view.occurrence.payOn,
          view.state,
          view.entry?.id.slice(0, 8) ?? '',
          safeText(view.entry?.reason ?? '', 80),
        ]),
      ),
    );
  }
}

export const verb = describeVerb({
  summary: 'one schedule: every occurrence so far with its state, and the next ones',
  examples: ['pix schedule show "$SCHEDULE"', 'pix schedule show "$SCHEDULE" --json'],
  exits: ['usage', 'not_found', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command.argument('<ID>', 'the schedule (its id, or the unique start of it)').action(async (id: string) => {
    await runScheduleShow(parseOptions(showOptionsSchema, { id }, { id: 'ID' }), deps);
  });
}
