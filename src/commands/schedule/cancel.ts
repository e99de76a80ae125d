/** `pix schedule cancel ID`: pay none of its occurrences again (for good: a new schedule is made instead). */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { changeState } from './shared.js';

const optionsSchema = z.object({ id: z.string().check(z.minLength(1)) });

export type ScheduleCancelOptions = z.output<typeof optionsSchema>;

export async function runScheduleCancel(options: ScheduleCancelOptions, deps: Deps): Promise<void> {
  await changeState(deps, options.id, 'cancelled');
}

export const verb = describeVerb({
  summary: 'pay none of its occurrences again',
  examples: ['pix schedule cancel "$SCHEDULE"', 'pix schedule cancel "$SCHEDULE" && pix schedule list --all'],
  exits: ['usage', 'not_found', 'declined', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command.argument('<ID>', 'the schedule (its id, or the unique start of it)').action(async (id: string) => {
    await runScheduleCancel(parseOptions(optionsSchema, { id }, { id: 'ID' }), deps);
  });
}
