/**
 * `pix charge duedate`: a charge with a due date (API §4.3). Here the options and the command; the
 * request, from the flags laid over an optional `--body`, is built in `duedaterequest.ts`.
 */
import { type Command, Option } from 'commander';
import { createDueDateCharge, DEFAULT_MODALITY, dueDateChargeBody } from '../../api/resources/charges.js';
import type { Deps } from '../../context.js';
import { modalityParser, parseChargeAmount, parseText } from '../../domain/charge-values.js';
import type { DueDateModifiers } from '../../domain/duedate.js';
import { InvalidValue } from '../../domain/invalid.js';
import { MODALITIES, type ModifierName } from '../../domain/modalities.js';
import { todayIn } from '../../domain/when.js';
import { journaledCharge } from '../../journal/record.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { collect, fromDomain, integerFlag, parseOptions } from '../shared/flags.js';
import { completionValues, describeVerb, LIST_FORMATS } from '../shared/help.js';
import {
  buildDueDateRequest,
  DEBTOR_FIELDS,
  type DebtorOption,
  optionalStrings,
  readBody,
} from './duedaterequest.js';
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

/**
 * One `--discount`: `DATE=VALUE` for the dated modalities, a bare `VALUE` for the per-day ones. The
 * date is a day as `--due` takes it (`2030-12-01`, `+20d`), read once today is known; a value from
 * `--body` is a JSON number.
 */
export interface RawDiscount {
  date?: string;
  value: string | number;
}

function parseDiscountEntry(text: string): RawDiscount {
  const at = text.indexOf('=');
  if (at === -1) return { value: parseText(text) };
  const date = text.slice(0, at).trim();
  const value = text.slice(at + 1).trim();
  if (date === '' || value === '') throw new InvalidValue(`"${text}" is not DATE=VALUE`);
  return { date, value };
}

const dueDateOptionsSchema = z
  .object({
    amount: z.optional(fromDomain(parseChargeAmount)),
    due: z.optional(fromDomain(parseText)),
    expireAfterDays: z.optional(integerFlag(1)),
    ...optionalStrings<DebtorOption>((row) => row.option),
    discount: z._default(z.array(fromDomain(parseDiscountEntry)), []),
    discountModality: z.optional(fromDomain(modalityParser('discount'))),
    abatement: z.optional(fromDomain(parseText)),
    abatementModality: z.optional(fromDomain(modalityParser('abatement'))),
    fine: z.optional(fromDomain(parseText)),
    fineModality: z.optional(fromDomain(modalityParser('fine'))),
    interest: z.optional(fromDomain(parseText)),
    interestModality: z.optional(fromDomain(modalityParser('interest'))),
    body: z.optional(fromDomain(parseText)),
    ...sharedChargeShape,
    ...createWaitShape,
  })
  .check(z.superRefine(refineSharedChargeOptions));

export type DueDateOptions = z.output<typeof dueDateOptionsSchema>;

export async function runDueDate(options: DueDateOptions, deps: Deps): Promise<void> {
  const body = options.body === undefined ? {} : await readBody(options.body, deps);
  const settings = await deps.settings();
  const today = todayIn(settings.timeZone.value, deps.clock.now());
  const warnings: string[] = [];
  const request = buildDueDateRequest(options, body, today, warnings);
  await checkQrPngTarget(options, deps);
  for (const warning of warnings) deps.io.stderr.write(`warning: ${warning}\n`);
  const client = await deps.api();
  const pixKeyId = await resolveChargeKey({ ...options, bodyKeyId: body.pixKeyId }, deps, client);
  // The ledger keeps the modifiers as the request carries them: what the matcher prices the charge by.
  const { amountDiscount, amountAbatement, amountFine, amountInterest } = dueDateChargeBody({
    pixKeyId,
    ...request,
  }) as DueDateModifiers;
  const terms = Object.fromEntries(
    Object.entries({ amountDiscount, amountAbatement, amountFine, amountInterest }).filter(([, m]) => m),
  ) as DueDateModifiers;
  const { charge, entry } = await journaledCharge(
    deps,
    await accountOf(deps),
    {
      type: 'duedate',
      amountCentavos: request.amount,
      keyId: pixKeyId,
      dueDate: request.duedate,
      terms,
      payerDocument: request.debtor.cpf,
      payerName: request.debtor.name,
      ...(options.ref === undefined ? {} : { ref: options.ref }),
    },
    () => createDueDateCharge(client, { pixKeyId, ...request }),
  );
  await deliverCharge(charge, options, deps, entry.charge);
  if (options.wait) await waitAfterCreate(entry, options, deps);
}

/** `--KIND-modality <m>`: free text (unknown UPPER_CASE strings pass with a warning), the known ones completed in the shell. */
function modalityOption(kind: ModifierName, description: string): Option {
  return completionValues(new Option(`--${kind}-modality <m>`, description), MODALITIES[kind]);
}

export const verb = describeVerb({
  summary: 'A due-date charge: debtor, discount, fine and interest',
  formats: LIST_FORMATS,
  examples: [
    'pix charge duedate --amount 150 --due 2030-12-10 --debtor-name "Ana Souza" --debtor-cpf 123.456.789-09',
    'pix charge duedate --amount 1.500,00 --due +30d --debtor-name "Ana Souza" --debtor-cpf 12345678909 \\\n' +
      '      --discount +20d=5% --fine 2% --interest 1% --expire-after-days 30',
    'pix charge duedate --body charge.json --amount 200 --qr-png charge.png --no-qr',
    'jq -c ".[]" customers.json | while read -r c; do echo "$c" | pix charge duedate --body - --json; done',
  ],
  exits: ['usage', 'auth', 'not_found', 'rejected', 'unavailable', 'unknown_outcome'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--amount <reais>', 'amount in reais, at least 5,00 (150, 150,50 or 1.234,56)')
    .option('--due <date>', 'due date: YYYY-MM-DD, today, tomorrow or +N days (+30d); not in the past');
  addKeyFlags(command).option('--expire-after-days <n>', 'days after the due date until the charge expires');
  for (const row of DEBTOR_FIELDS) command.option(row.flag, row.help);
  command
    .option(
      '--discount <date=value>',
      `discount until DATE (repeatable): 5% or R$ 5,00 (a bare number: %); a bare VALUE for the per-day modalities`,
      collect,
    )
    .addOption(modalityOption('discount', `discount modality (default ${DEFAULT_MODALITY.discount})`))
    .option('--abatement <value>', 'abatement: R$ 10,00 (a bare number: reais), or a percentage (5%)')
    .addOption(modalityOption('abatement', `FIXED_VALUE or PERCENT (default ${DEFAULT_MODALITY.abatement})`))
    .option('--fine <value>', 'fine after the due date: R$ 2,50 (a bare number: reais), or a percentage (2%)')
    .addOption(modalityOption('fine', `FIXED_VALUE or PERCENT (default ${DEFAULT_MODALITY.fine})`))
    .option(
      '--interest <value>',
      'interest after the due date: 1% a month (a bare number: %), or R$ 0,10 a day',
    )
    .addOption(modalityOption('interest', `interest modality (default ${DEFAULT_MODALITY.interest})`))
    .option(
      '--body <file>',
      'a whole JSON request (API field names; `-` reads stdin); flags override its fields',
    );
  addWaitFlags(addCommonTailFlags(command), true).action(async (_options, self: Command) => {
    await runDueDate(
      parseOptions(dueDateOptionsSchema, createCommandOptions(self, deps), { timeout: '--wait' }),
      deps,
    );
  });
}
