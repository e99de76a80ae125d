/**
 * `pix schedule pay ID DATE`: pays one occurrence by hand — one that was missed or refused, or one due now
 * that no runner has reached. It is a new payment, not the schedule's: it is confirmed now (or --yes), every
 * guard of a payment applies (a profile that pays only approved plans refuses it, exit 8), the receiver must
 * still be the one the schedule was confirmed for, and the journal's row of the occurrence pays it once
 * (paid already: `already_paid`, nothing sent). DATE is the rule's date (`pix schedule show` lists them). A
 * batch file's schedule pays every row of that occurrence not paid yet.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { occurrenceOn } from '../../domain/schedule.js';
import { formatForMessage, parseDateOnly } from '../../domain/when.js';
import { usageError } from '../../errors.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { payOccurrences } from './payment.js';
import { accountNow, findSchedule, viewOccurrenceLines } from './shared.js';

const payOptionsSchema = z.object({
  id: z.string().check(z.minLength(1)),
  date: fromDomain(parseDateOnly),
  allowDuplicate: z._default(z.boolean(), false),
});

export type SchedulePayOptions = z.output<typeof payOptionsSchema>;

export async function runSchedulePay(options: SchedulePayOptions, deps: Deps): Promise<void> {
  const [store, account, now] = await Promise.all([
    deps.stores.schedules(),
    accountOf(deps),
    accountNow(deps),
  ]);
  const schedule = findSchedule(await store.read(), account, options.id);
  const occurrence = occurrenceOn(schedule.recurrence, options.date);
  if (occurrence === undefined) {
    throw usageError(
      'DATE',
      `${options.date} is not a date of ${schedule.id}`,
      `\`pix schedule show ${schedule.id}\` lists them`,
    );
  }
  const journal = await deps.stores.journal();
  const views = await viewOccurrenceLines(journal, account, schedule, occurrence, now);
  const view = views[0]!;
  if (now.getTime() < view.window.start) {
    throw usageError(
      'DATE',
      `the occurrence of ${options.date} is not due before ${formatForMessage(new Date(view.window.start).toISOString(), schedule.timeZone)}`,
      'it is paid on its day by the runners',
    );
  }
  await payOccurrences(deps, views, {
    now: () => accountNow(deps),
    withinWindow: false,
    confirmedAhead: false,
    allowDuplicate: options.allowDuplicate,
  });
}

export const verb = describeVerb({
  summary: 'pay one occurrence by hand (a missed or refused one), as a new payment',
  formats: LIST_FORMATS,
  examples: [
    'pix schedule pay "$SCHEDULE" 2026-03-10 --yes   # a missed occurrence, paid now as a new payment',
    'pix schedule pay "$SCHEDULE" 2026-03-10 --yes -o ndjson > paid.ndjson',
  ],
  exits: ['usage', 'not_found', 'rejected', 'unavailable', 'unknown_outcome', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<ID>', 'the schedule (its id, or the unique start of it)')
    .argument('<DATE>', "the occurrence: its rule's date, YYYY-MM-DD")
    .option(
      '--allow-duplicate',
      'pay it even if the journal or the statement shows the same payment made already',
    )
    .action(async (id: string, date: string, _options, self: Command) => {
      await runSchedulePay(
        parseOptions(payOptionsSchema, { ...self.opts(), id, date }, { id: 'ID', date: 'DATE' }),
        deps,
      );
    });
}
