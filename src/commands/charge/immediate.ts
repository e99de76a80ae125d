import { type Command, Option } from 'commander';
import { createImmediateCharge, type ImmediateChargeInput } from '../../api/resources/charges.js';
import type { Deps } from '../../context.js';
import { parseChargeAmount, parseExpiresIn, parseText, withRef } from '../../domain/charge-values.js';
import { parseTaxId } from '../../domain/documents.js';
import { journaledCharge } from '../../journal/record.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { completionValues, describeVerb, LIST_FORMATS } from '../shared/help.js';
import {
  addCommonTailFlags,
  addKeyFlags,
  checkQrPngTarget,
  deliverCharge,
  refineSharedChargeOptions,
  resolveChargeKey,
  sharedChargeShape,
} from './shared.js';
import { addWaitFlags, createCommandOptions, createWaitShape, waitAfterCreate } from './wait.js';

const immediateOptionsSchema = z
  .object({
    amount: fromDomain(parseChargeAmount),
    expiresIn: z.optional(fromDomain(parseExpiresIn)),
    payerName: z.optional(fromDomain(parseText)),
    payerTaxId: z.optional(fromDomain(parseTaxId)),
    ...sharedChargeShape,
    ...createWaitShape,
  })
  .check(
    z.superRefine((options, context) => {
      refineSharedChargeOptions(options, context);
      // API §2.4: the immediate charge's debtor is {name, taxId}, both or neither.
      if (options.payerName !== undefined && options.payerTaxId === undefined) {
        context.addIssue({ code: 'custom', path: ['payerTaxId'], message: 'is required with --payer-name' });
      }
      if (options.payerTaxId !== undefined && options.payerName === undefined) {
        context.addIssue({ code: 'custom', path: ['payerName'], message: 'is required with --payer-tax-id' });
      }
    }),
  );

export type ImmediateOptions = z.output<typeof immediateOptionsSchema>;

export async function runImmediate(options: ImmediateOptions, deps: Deps): Promise<void> {
  await checkQrPngTarget(options, deps);
  if (options.expiresIn?.note) deps.io.stderr.write(`note: ${options.expiresIn.note}\n`);
  const client = await deps.api();
  const pixKeyId = await resolveChargeKey(options, deps, client);
  const input: ImmediateChargeInput = { pixKeyId, amount: options.amount };
  if (options.expiresIn) input.expiration = { value: options.expiresIn.value, unit: options.expiresIn.unit };
  if (options.payerName !== undefined && options.payerTaxId !== undefined) {
    input.debtor = { name: options.payerName, taxId: options.payerTaxId.digits };
  }
  if (options.question !== undefined) input.payerQuestion = options.question;
  const info = withRef(options.info.length ? options.info : undefined, options.ref);
  if (info?.length) input.additionalInformation = info;
  const { charge, entry } = await journaledCharge(
    deps,
    await accountOf(deps),
    {
      type: 'immediate',
      amountCentavos: input.amount,
      keyId: pixKeyId,
      ...(input.debtor === undefined
        ? {}
        : { payerDocument: input.debtor.taxId, payerName: input.debtor.name }),
      ...(options.ref === undefined ? {} : { ref: options.ref }),
    },
    () => createImmediateCharge(client, input),
  );
  await deliverCharge(charge, options, deps, entry.charge);
  if (options.wait) await waitAfterCreate(entry, options, deps);
}

export const verb = describeVerb({
  summary: 'An immediate charge: fixed amount, expires soon',
  formats: LIST_FORMATS,
  examples: [
    'pix charge immediate --amount 10,50',
    'pix charge immediate --amount 25 --key loja@sandbox.pix.local --expires-in 30m --question "Pedido 123?"',
    'pix charge immediate --amount 99.90 --payer-name "Ana Souza" --payer-tax-id 123.456.789-09 --info pedido=123',
    'pix charge immediate --amount 1250 --payer-name "Mercado Bom Preço" --payer-tax-id 04.252.011/0001-10 --ref NF-1042',
    'pix charge immediate --amount 10 --qr-png qr.png --no-qr',
    'pix charge immediate --amount 10 --json | jq -r .emvqrcps',
    'pix charge immediate --amount 10 --qr-png - > qr.png',
  ],
  exits: ['usage', 'auth', 'not_found', 'rejected', 'unavailable', 'unknown_outcome'],
});

export function register(command: Command, deps: Deps): void {
  command.requiredOption('--amount <reais>', 'amount in reais, at least 5,00 (10, 10,50 or 1.234,56)');
  addKeyFlags(command)
    .addOption(
      completionValues(
        new Option('--expires-in <duration>', 'expiry: 30m, 2h, 1d (seconds are rounded up to minutes)'),
        { units: ['m', 'h', 'd'] },
      ),
    )
    .option('--payer-name <name>', "payer's full name (with --payer-tax-id)")
    .option('--payer-tax-id <cpf-or-cnpj>', "payer's CPF or CNPJ, check digits verified (with --payer-name)");
  addWaitFlags(addCommonTailFlags(command), true).action(async (_options, self: Command) => {
    await runImmediate(
      parseOptions(immediateOptionsSchema, createCommandOptions(self, deps), { timeout: '--wait' }),
      deps,
    );
  });
}
