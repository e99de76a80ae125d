import type { Command } from 'commander';
import { readPlanFile } from '../../approvals/files.js';
import { loadPolicy, policyRefusal } from '../../approvals/inforce.js';
import type { Deps } from '../../context.js';
import { formatBRL } from '../../domain/money.js';
import { rowFacts } from '../../domain/plan.js';
import { applyingRules, type Policy, type RowFacts } from '../../domain/policy.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import * as z from '../../zod.js';
import { amountFlag, integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

const checkOptionsSchema = z.object({
  file: z.optional(z.string().check(z.minLength(1))),
  plan: z.optional(z.string().check(z.minLength(1))),
  amount: z._default(amountFlag, 10_000),
  rows: z._default(integerFlag(1), 1),
  newReceiver: z._default(z.boolean(), false),
  outsideAllowlist: z._default(z.boolean(), false),
  night: z._default(z.boolean(), false),
});

export type PolicyCheckOptions = z.output<typeof checkOptionsSchema>;

function capWords(policy: Policy): string {
  const { perPayment, perDay, perReceiverPerDay } = policy.caps;
  const parts = [
    perPayment === undefined ? undefined : `${formatBRL(perPayment)} a payment`,
    perDay === undefined ? undefined : `${formatBRL(perDay)} a day`,
    perReceiverPerDay === undefined ? undefined : `${formatBRL(perReceiverPerDay)} a receiver a day`,
  ].filter(Boolean);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/**
 * Validates a policy (exit 2 naming the file, the line and the key) and prints what it asks of a sample
 * plan: `--rows` rows of `--amount` each (new receivers, outside the allowlist, paid at night when asked),
 * or the facts of a real plan (`--plan FILE`). Says whether the admins approved the policy.
 */
export async function runPolicyCheck(options: PolicyCheckOptions, deps: Deps): Promise<void> {
  const inForce = await loadPolicy(deps, options.file, 'FILE');
  const { policy, file } = inForce;
  const rows: RowFacts[] =
    options.plan !== undefined
      ? readPlanFile(options.plan).rows.map(rowFacts)
      : Array.from({ length: options.rows }, (_, index) => ({
          id: `sample-${index + 1}`,
          amount: options.amount,
          newReceiver: options.newReceiver,
          outsideAllowlist: options.outsideAllowlist,
        }));
  const applying = applyingRules(policy, rows, options.night);
  const refusal = policyRefusal(inForce);
  const mode = await outputMode(deps, (await deps.settings()).timeZone.value);
  const { stdout } = deps.io;
  if (mode.format === 'json') {
    stdout.write(
      jsonDocument(
        {
          file,
          digest: policy.digest,
          approved: refusal === undefined,
          ...(refusal === undefined ? {} : { needs: refusal }),
          approvers: policy.approvers.map((a) => ({
            name: a.name,
            groups: a.groups,
            keys: a.keys.map((k) => k.key.fingerprint),
          })),
          night: policy.night.text,
          caps: policy.caps,
          applying: applying.map(({ rule, why }) => ({ name: rule.name, require: rule.require.text, why })),
        },
        mode.pretty,
      ),
    );
    return;
  }
  const groups = [...policy.groups.entries()].map(
    ([group, members]) => `${group}: ${members.map((m) => m.name).join(', ')}`,
  );
  stdout.write(
    mode.table(
      ['Field', 'Value'],
      [
        ['Policy', `${file} (${policy.digest})`],
        ['Approved', refusal ?? 'yes, by its admins'],
        ['Groups', groups.join('; ')],
        ['Night', `${policy.night.text} Brasília`],
        ['Caps', capWords(policy)],
        ['Policy changes', policy.policyChange.text],
      ],
    ),
  );
  const sample =
    options.plan !== undefined
      ? `plan ${options.plan}`
      : `${options.rows} row${options.rows === 1 ? '' : 's'} of ${formatBRL(options.amount)}${options.newReceiver ? ', new receivers' : ''}${options.outsideAllowlist ? ', outside the allowlist' : ''}${options.night ? ', paid at night' : ''}`;
  stdout.write(mode.human ? `\nFor ${sample}:\n` : '');
  stdout.write(
    mode.table(
      ['Rule', 'Requires', 'Why'],
      applying.map(({ rule, why }) => [rule.name, rule.require.text, why]),
    ),
  );
}

export const verb = describeVerb({
  summary: 'validate a policy and show what it asks of a sample plan',
  examples: [
    'pix policy check pix-policy.json',
    'pix policy check pix-policy.json --amount 8000 --rows 3 --new-receiver --night',
  ],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('[FILE]', "the policy (default: the profile's `policy` setting)")
    .option('--plan <file>', 'what the policy asks of this plan')
    .option('--amount <A>', 'the sample plan: each row pays this (default 100)')
    .option('--rows <n>', 'the sample plan: this many rows (default 1)')
    .option('--new-receiver', 'the sample plan: to receivers never paid')
    .option('--outside-allowlist', 'the sample plan: to receivers not on the allowlist')
    .option('--night', 'the sample plan: paid at night')
    .action(async (file: string | undefined, _options, self: Command) => {
      const options = parseOptions(checkOptionsSchema, { ...self.opts(), file }, { file: 'FILE' });
      await runPolicyCheck(options, deps);
    });
}
