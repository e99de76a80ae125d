/** `pix schedule resume ID`: pay its occurrences again, from the next one (those whose window passed while paused are skipped). */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { changeState } from './shared.js';

const optionsSchema = z.object({ id: z.string().check(z.minLength(1)) });

export type ScheduleResumeOptions = z.output<typeof optionsSchema>;

export async function runScheduleResume(options: ScheduleResumeOptions, deps: Deps): Promise<void> {
  await changeState(deps, options.id, 'active');
}

export const verb = describeVerb({
  summary: 'pay its occurrences again, from the next one',
  examples: ['pix schedule resume "$SCHEDULE"', 'pix schedule resume "$SCHEDULE" && pix schedule list --all'],
  exits: ['usage', 'not_found', 'declined', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command.argument('<ID>', 'the schedule (its id, or the unique start of it)').action(async (id: string) => {
    await runScheduleResume(parseOptions(optionsSchema, { id }, { id: 'ID' }), deps);
  });
}
