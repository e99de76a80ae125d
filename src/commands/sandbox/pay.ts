import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { centavosToApi, formatBRL, formatDecimal } from '../../domain/money.js';
import { UUID_PATTERN } from '../../domain/pixkey.js';
import { loadAccount } from '../../sandbox/index.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';
import { openStore, stateFlag, stateOption, translate, writeJson } from './shared.js';

export const paySchema = z.object({
  chargeId: z.string().check(z.regex(UUID_PATTERN, 'must be a charge id (a UUID)')),
  state: stateFlag,
});
export type PayOptions = z.output<typeof paySchema>;

export async function runPay(opts: PayOptions, deps: Deps): Promise<void> {
  const store = await openStore(deps, opts.state);
  const [{ payByThirdParty }, { loadBusinessDayTest }] = await Promise.all([
    loadAccount(),
    import('../../domain/duedate.js'),
  ]);
  const isBusinessDay = await loadBusinessDayTest();
  const paid = await translate(() =>
    store.update((state, now) => {
      const result = payByThirdParty(state, now, opts.chargeId, isBusinessDay);
      return {
        id: result.charge.id,
        status: result.charge.status,
        amount: result.amount,
        payer: result.payer.name,
      };
    }),
  );
  if (deps.globals.json) {
    writeJson(deps, {
      id: paid.id,
      status: paid.status,
      amount: centavosToApi(paid.amount),
      payer: paid.payer,
    });
  } else if (deps.io.stdout.isTTY) {
    deps.io.stdout.write(
      `Charge ${paid.id} paid by ${paid.payer}: ${formatBRL(paid.amount)} (${paid.status})\n`,
    );
  } else {
    deps.io.stdout.write(`${paid.id}\t${paid.status}\t${formatDecimal(paid.amount)}\t${paid.payer}\n`);
  }
}

export function register(command: Command, deps: Deps): void {
  command
    .argument('<charge-id>', 'the id of a charge created on the sandbox')
    .option(...stateOption)
    .action(async (chargeId, raw) =>
      runPay(parseOptions(paySchema, { ...raw, chargeId }, { chargeId: '<charge-id>' }), deps),
    );
  addExamples(
    command,
    [
      'pix sandbox pay "$CHARGE_ID"',
      'pix sandbox pay "$(pix charge immediate --amount 10 --json --no-qr | jq -r .id)"',
    ],
    ['usage', 'not_found', 'rejected', 'unavailable'],
  );
}
