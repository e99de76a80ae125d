import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { centavosToApi, formatBRL, formatDecimal } from '../../domain/money.js';
import { usageError } from '../../errors.js';
import { loadAccount } from '../../sandbox/index.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';
import { openStore, stateFlag, stateOption, translate, writeJson } from './shared.js';

export const paySchema = z.object({
  chargeId: z
    .string()
    .check(
      z.regex(
        /^(?:[0-9a-fA-F-]{4,36}|[A-Za-z0-9]{26,35})$/,
        'must be a charge id, the start of one (at least 4 characters, as `pix charge list` shows it) or its txid',
      ),
    ),
  state: stateFlag,
});

/**
 * The sandbox charge `given` names: its id, the unique start of its id (what `pix charge list` and `charge
 * show` show and accept), or its txid. Several charges starting so is exit 2 listing them; none is left to
 * the sandbox's own 404.
 */
function chargeNamed(
  charges: Readonly<Record<string, { id: string; transactionIdentification: string }>>,
  given: string,
): string {
  if (charges[given] !== undefined) return given;
  const start = given.toLowerCase();
  const matches = Object.values(charges).filter(
    (charge) => charge.id.toLowerCase().startsWith(start) || charge.transactionIdentification === given,
  );
  if (matches.length > 1) {
    throw usageError(
      '<charge-id>',
      `"${given}" starts ${matches.length} charges (${matches
        .slice(0, 5)
        .map((charge) => charge.id.slice(0, 8))
        .join(', ')}…)`,
      'type more of the id',
    );
  }
  return matches[0]?.id ?? given;
}
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
      const result = payByThirdParty(state, now, chargeNamed(state.charges, opts.chargeId), isBusinessDay);
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
    .argument('<charge-id>', 'a charge created on the sandbox: its id, the start of it, or its txid')
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
