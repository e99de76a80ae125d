/** `pix schedule pause ID`: stop paying its occurrences until it is resumed (those whose window passes meanwhile are skipped). */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { changeState } from './shared.js';

const optionsSchema = z.object({ id: z.string().check(z.minLength(1)) });

export type SchedulePauseOptions = z.output<typeof optionsSchema>;

export async function runSchedulePause(options: SchedulePauseOptions, deps: Deps): Promise<void> {
  await changeState(deps, options.id, 'paused');
}

export const verb = describeVerb({
  summary: 'pay none of its occurrences until resumed (those passing meanwhile are skipped)',
  examples: ['pix schedule pause "$SCHEDULE"', 'pix schedule pause "$SCHEDULE" && pix schedule list --all'],
  exits: ['usage', 'not_found', 'declined', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command.argument('<ID>', 'the schedule (its id, or the unique start of it)').action(async (id: string) => {
    await runSchedulePause(parseOptions(optionsSchema, { id }, { id: 'ID' }), deps);
  });
}
