import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import {
  openPlan,
  POLICY_OPTION,
  paidRows,
  planDocument,
  policyFlag,
  renderPlan,
  review,
} from '../shared/plan.js';

const showOptionsSchema = z.object({ file: z.string().check(z.minLength(1)), policy: policyFlag });

export type PlanShowOptions = z.output<typeof showOptionsSchema>;

/**
 * A plan for a person or a script: who made it and when, its rows (new receivers marked), the rules of
 * the policy that apply with who approved and what is still missing, and what the local journal paid of
 * it. Reads no API: an approver needs no token.
 */
export async function runPlanShow(options: PlanShowOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const mode = await outputMode(deps, settings.timeZone.value);
  const opened = await openPlan(deps, options.file, options.policy);
  const now = deps.clock.now();
  // The time of payment is not known yet: night rules are given as conditional.
  const verdict = review(opened, undefined);
  const paid = paidRows(await (await deps.stores.journal()).read(), opened.plan.id);
  deps.io.stdout.write(
    mode.format === 'json'
      ? jsonDocument(planDocument(opened, verdict, paid, now), mode.pretty)
      : renderPlan(opened, verdict, paid, mode, now),
  );
}

export const verb = describeVerb({
  summary: 'the plan, its rows, the rules that apply, who approved and what is missing',
  examples: [
    'pix plan show payouts.plan.json',
    "pix plan show payouts.plan.json --json | jq '.rules[] | select(.met | not)'",
  ],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<FILE>', 'the plan (pix pay … --plan FILE)')
    .option(...POLICY_OPTION)
    .action(async (file: string, _options, self: Command) => {
      await runPlanShow(parseOptions(showOptionsSchema, { ...self.opts(), file }, { file: 'FILE' }), deps);
    });
}
