/**
 * `pix schedule list`: the account's schedules — state, the next occurrence (in the schedule's zone,
 * Brasília's by default), amount, receiver, rule — and every occurrence of the last days that needs a
 * person: missed, refused or held (its journal row says which). `--json`: `{"results": [schedule, …]}`,
 * each with `next` and `attention`.
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
  needsAttention,
  occurrenceJson,
  pastViews,
  ruleWords,
  scheduleJson,
  schedulesNow,
} from './shared.js';

const listOptionsSchema = z.object({ all: z._default(z.boolean(), false) });

export type ScheduleListOptions = z.output<typeof listOptionsSchema>;

export async function runScheduleList(options: ScheduleListOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const { schedules, account, now, journal } = await schedulesNow(deps);
  const mode = await outputMode(deps, settings.timeZone.value);
  const mine = schedules.filter(
    (schedule) => schedule.account === account.id && (options.all || schedule.state !== 'cancelled'),
  );
  const results = [];
  for (const schedule of mine) {
    const attention = (await pastViews(journal, account, schedule, now)).filter(needsAttention);
    const coming = schedule.state === 'cancelled' ? [] : comingOccurrences(schedule, now, 1);
    results.push({ schedule, attention, coming });
  }
  if (mode.format === 'json') {
    deps.io.stdout.write(
      jsonDocument(
        {
          results: results.map(({ schedule, attention, coming }) => ({
            ...scheduleJson(schedule, coming),
            attention: attention.map(occurrenceJson),
          })),
        },
        mode.pretty,
      ),
    );
    return;
  }
  const rows = results.map(({ schedule, attention, coming }) => [
    schedule.id,
    schedule.state,
    coming[0] === undefined ? '' : dueWords(schedule, coming[0]),
    money(schedule.amountCentavos, mode.human),
    safeText(schedule.receiver.name, 80),
    ruleWords(schedule),
    attention.map((view) => `${view.state} ${view.occurrence.date}`).join(', '),
  ]);
  if (rows.length === 0 && mode.human) {
    deps.io.stderr.write('no schedules on this account (`pix schedule create` makes one)\n');
    return;
  }
  deps.io.stdout.write(
    mode.table(
      ['id', 'state', 'next', { header: 'amount', kind: 'money' }, 'receiver', 'rule', 'attention'],
      rows,
    ),
  );
  const missed = results.reduce(
    (sum, { attention }) => sum + attention.filter((v) => v.state === 'missed').length,
    0,
  );
  if (missed > 0) {
    deps.io.stderr.write(
      `${missed} occurrence${missed === 1 ? '' : 's'} missed: nothing was sent for ${missed === 1 ? 'it' : 'them'}; \`pix schedule show ID\` names them, \`pix schedule pay ID DATE\` pays one\n`,
    );
  }
}

export const verb = describeVerb({
  summary: 'the schedules, their next occurrence, and those missed, refused or held',
  examples: ['pix schedule list', 'pix schedule list --json', 'pix schedule list --all'],
  exits: ['unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command.option('--all', 'cancelled schedules too').action(async (_options, self: Command) => {
    await runScheduleList(parseOptions(listOptionsSchema, self.opts()), deps);
  });
}
