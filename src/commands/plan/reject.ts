import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { usageError } from '../../errors.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { KEY_OPTION, POLICY_OPTION } from '../shared/plan.js';
import { runPlanVerdict, verdictOptionsSchema } from './approve.js';

export const verb = describeVerb({
  summary: 'sign a refusal of the plan, with its reason',
  examples: [
    'pix plan reject payouts.plan.json --reason "row inv-7 pays the old supplier"',
    'git add "$(pix plan reject payouts.plan.json --reason "not this month" --key ~/.ssh/id_ed25519)"',
  ],
  exits: ['usage', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<FILE>', 'the plan (pix pay … --plan FILE)')
    .requiredOption('--reason <text>', 'why the plan is refused (signed with the refusal)')
    .option(...KEY_OPTION)
    .option(...POLICY_OPTION)
    .action(async (file: string, _options, self: Command) => {
      const options = parseOptions(verdictOptionsSchema, { ...self.opts(), file }, { file: 'FILE' });
      if (options.reason === undefined) throw usageError('--reason', 'say why the plan is refused');
      // A refusal is signed like an approval; any one valid refusal stops the plan (commands/plan/execute.ts).
      await runPlanVerdict(options, deps, 'reject');
    });
}
