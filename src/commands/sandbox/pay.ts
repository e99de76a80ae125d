import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { parseTaxId } from '../../domain/documents.js';
import { centavosToApi, formatBRL, formatDecimal } from '../../domain/money.js';
import { parseExpectedName } from '../../domain/payee.js';
import { parsePixKey } from '../../domain/pixkey.js';
import { usageError } from '../../errors.js';
import { loadAccount } from '../../sandbox/index.js';
import * as z from '../../zod.js';
import { amountFlag, fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { openStore, stateFlag, stateOption, translate, writeJson } from './shared.js';

export const paySchema = z.object({
  chargeId: z.optional(
    z
      .string()
      .check(
        z.regex(
          /^(?:[0-9a-fA-F-]{4,36}|[A-Za-z0-9]{26,35})$/,
          'must be a charge id, the start of one (at least 4 characters, as `pix charge list` shows it) or its txid',
        ),
      ),
  ),
  key: z.optional(fromDomain((text) => parsePixKey(text).key)),
  amount: z.optional(amountFlag),
  payer: z.optional(fromDomain(parseExpectedName)),
  payerDocument: z.optional(fromDomain((text) => parseTaxId(text).digits)),
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

export async function runSandboxPay(opts: PayOptions, deps: Deps): Promise<void> {
  if ((opts.chargeId === undefined) === (opts.key === undefined)) {
    throw usageError(
      '<charge-id>',
      opts.key === undefined ? 'name a charge, or --key KEY' : 'a charge or --key, not both',
      'pix sandbox pay CHARGE (its amount), or pix sandbox pay --key KEY --amount A (any amount)',
    );
  }
  if (opts.key !== undefined && opts.amount === undefined)
    throw usageError('--amount', 'required with --key');
  if (opts.payerDocument !== undefined && opts.payer === undefined)
    throw usageError('--payer-document', 'goes with --payer NAME');
  const payer =
    opts.payer === undefined
      ? undefined
      : {
          name: opts.payer,
          ...(opts.payerDocument === undefined ? {} : { documentNumber: opts.payerDocument }),
        };
  const store = await openStore(deps, opts.state);
  const [{ payByThirdParty, payToOwnKey }, { loadBusinessDayTest }] = await Promise.all([
    loadAccount(),
    import('../../domain/duedate.js'),
  ]);
  const isBusinessDay = await loadBusinessDayTest();
  const paid = await translate(
    () =>
      store.update((state, now) => {
        if (opts.key !== undefined) {
          const result = payToOwnKey(state, now, opts.key, opts.amount!, payer);
          return { id: opts.key, status: 'CONFIRMED', amount: result.amount, payer: result.payer.name };
        }
        const id = chargeNamed(state.charges, opts.chargeId!);
        const result = payByThirdParty(state, now, id, isBusinessDay, payer);
        // Thrown before the state is written (StateStore.update): nothing was paid.
        if (opts.amount !== undefined && opts.amount !== result.amount) {
          throw usageError(
            '--amount',
            `the charge asks ${formatBRL(result.amount)}, and its code fixes the amount; nothing was paid`,
            "pay any amount to the account's key with --key KEY --amount A",
          );
        }
        return {
          id: result.charge.id,
          status: result.charge.status,
          amount: result.amount,
          payer: result.payer.name,
        };
      }),
    opts.key === undefined ? undefined : { notFound: 'not a key of this account', refused: 'cannot be paid' },
  );
  if (deps.globals.json) {
    writeJson(deps, {
      id: paid.id,
      status: paid.status,
      amount: centavosToApi(paid.amount),
      payer: paid.payer,
    });
  } else if (deps.io.stdout.isTTY) {
    const what = opts.key === undefined ? `Charge ${paid.id}` : `Key ${paid.id}`;
    deps.io.stdout.write(`${what} paid by ${paid.payer}: ${formatBRL(paid.amount)} (${paid.status})\n`);
  } else {
    deps.io.stdout.write(`${paid.id}\t${paid.status}\t${formatDecimal(paid.amount)}\t${paid.payer}\n`);
  }
}

export const verb = describeVerb({
  summary: 'Have a third party pay one of your sandbox charges',
  examples: [
    'pix sandbox pay "$CHARGE_ID"',
    'pix sandbox pay "$(pix charge immediate --amount 10 --json --no-qr | jq -r .id)"',
    "pix sandbox pay --key \"$(pix keys --jq '.result[0].key')\" --amount 99,90 --payer 'Mercado Bom Preço Ltda'",
  ],
  exits: ['usage', 'not_found', 'rejected', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('[charge-id]', 'a charge created on the sandbox: its id, the start of it, or its txid')
    .option('--key <KEY>', "pay one of the account's own keys instead of a charge (any amount: --amount)")
    .option(
      '--amount <A>',
      "with --key: the amount paid; with a charge: must be the charge's (a code fixes it)",
    )
    .option('--payer <NAME>', "who pays (default: the charge's debtor, or one of the sandbox's people)")
    .option('--payer-document <CPF|CNPJ>', "the payer's document (default: a CPF made from the name)")
    .option(...stateOption)
    .action(async (chargeId: string | undefined, raw) =>
      runSandboxPay(
        parseOptions(
          paySchema,
          { ...raw, ...(chargeId === undefined ? {} : { chargeId }) },
          { chargeId: '<charge-id>' },
        ),
        deps,
      ),
    );
}
