/**
 * `pix policy show`: the policy that binds the account (`pix policy enforce`), as every payment of it reads
 * it — where it is recorded, since when and by whom, what it requires (plans, caps) — and the records that
 * do not hold and are ignored. Needs the account (its credentials), as a payment does.
 */
import type { Command } from 'commander';
import { enforcedChain } from '../../approvals/inforce.js';
import type { Deps } from '../../context.js';
import { formatBRL } from '../../domain/money.js';
import type { Policy } from '../../domain/policy.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

/** `require-plan: yes; caps: R$ 10.000,00 a payment, …; night 20:00–06:00 Brasília`. */
export function boundWords(policy: Policy): string {
  const { perPayment, perDay, perReceiverPerDay } = policy.caps;
  const caps = [
    perPayment === undefined ? undefined : `${formatBRL(perPayment)} a payment`,
    perDay === undefined ? undefined : `${formatBRL(perDay)} a day`,
    perReceiverPerDay === undefined ? undefined : `${formatBRL(perReceiverPerDay)} a receiver a day`,
  ].filter(Boolean);
  return `require-plan: ${policy.requirePlan ? 'yes (every payment is an approved plan)' : 'no'}; caps: ${caps.length === 0 ? 'none' : caps.join(', ')}; night ${policy.night.text} Brasília`;
}

const showOptionsSchema = z.object({});

export async function runPolicyShow(_options: z.output<typeof showOptionsSchema>, deps: Deps): Promise<void> {
  const account = await accountOf(deps);
  const chain = await enforcedChain(deps, account.id);
  const { where } = await deps.stores.approvals();
  const { current, ignored } = chain;
  const mode = await outputMode(deps, (await deps.settings()).timeZone.value);
  const { stdout } = deps.io;
  if (mode.format === 'json') {
    stdout.write(
      jsonDocument(
        {
          account: account.id,
          where,
          enforced:
            current === undefined
              ? null
              : {
                  digest: current.policy.digest,
                  at: current.record.at,
                  by: current.record.by,
                  requirePlan: current.policy.requirePlan,
                  caps: current.policy.caps,
                  night: current.policy.night.text,
                  policyChange: current.policy.policyChange.text,
                },
          ignored: ignored.map(({ record, why }) => ({ digest: record.digest, at: record.at, why })),
        },
        mode.pretty,
      ),
    );
    return;
  }
  const rows: string[][] = [
    ['Account', `profile "${account.profile}" via ${account.host} (${account.id})`],
    ['Recorded in', where],
  ];
  if (current === undefined) {
    rows.push([
      'Policy',
      'none enforced: payments follow the profile (its require-plan, its policy for plans)',
    ]);
  } else {
    rows.push(
      ['Policy', current.policy.digest],
      ['Since', `${current.record.at}, ${current.record.by}`],
      ['Binds', boundWords(current.policy)],
      ['Changed by', `a new policy approved by ${current.policy.policyChange.text} of this one`],
    );
  }
  for (const { record, why } of ignored) rows.push(['Ignored', `${record.digest.slice(0, 19)}: ${why}`]);
  stdout.write(mode.table(['Field', 'Value'], rows));
}

export const verb = describeVerb({
  summary: 'the policy that binds the account, and since when',
  examples: ['pix policy show', "pix policy show --json | jq '.enforced.requirePlan'"],
  exits: ['auth', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command.action(async (_options, self: Command) => {
    await runPolicyShow(parseOptions(showOptionsSchema, self.opts()), deps);
  });
}
