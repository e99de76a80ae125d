import { readFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import {
  createDueDateCharge,
  DEFAULT_MODALITY,
  type DueDateChargeInput,
  dueDateChargeBody,
  type ModifierValue,
} from '../../api/resources/charges.js';
import type { Deps } from '../../context.js';
import {
  isMoneyText,
  isPercentText,
  modalityParser,
  modalityWarning,
  parseChargeAmount,
  parseModifierValue,
  parsePostalCode,
  parseQuestion,
  parseState,
  parseText,
  parseUuid,
} from '../../domain/charge-values.js';
import { parseTaxId } from '../../domain/documents.js';
import type { DueDateModifiers } from '../../domain/duedate.js';
import { InvalidValue } from '../../domain/invalid.js';
import {
  DATED_DISCOUNTS,
  isPercentModality,
  MODALITIES,
  MONEY_MODALITY,
  type ModifierName,
  PERCENT_MODALITY,
} from '../../domain/modalities.js';
import { parseEmail } from '../../domain/pixkey.js';
import { parseDateOnly, parseDay, todayIn } from '../../domain/when.js';
import { usageError } from '../../errors.js';
import { journaledCharge } from '../../journal/record.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { collect, fromDomain, fromDomainNumber, integerFlag, parseOptions } from '../shared/flags.js';
import { addExamples, completionValues } from '../shared/help.js';
import {
  addCommonTailFlags,
  addKeyFlags,
  checkQrPngTarget,
  deliverCharge,
  parseAt,
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
interface RawDiscount {
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

/** The CPF (or CNPJ) of the debtor, bare digits. */
const parseDocument = (text: string) => parseTaxId(text).digits;

/**
 * The debtor object of API §2.4, one row per field: the request field, its flag and how it is checked.
 * The flags schema, the `--body` schema, the Commander options and the merge are all made from it.
 */
const DEBTOR_FIELDS = [
  {
    field: 'name',
    option: 'debtorName',
    flag: '--debtor-name <name>',
    help: "debtor's full name (required)",
    parse: parseText,
  },
  {
    field: 'cpf',
    option: 'debtorCpf',
    flag: '--debtor-cpf <cpf>',
    help: "debtor's CPF (or CNPJ), check digits verified (required)",
    parse: parseDocument,
  },
  {
    field: 'email',
    option: 'debtorEmail',
    flag: '--debtor-email <email>',
    help: "debtor's e-mail",
    parse: parseEmail,
  },
  {
    field: 'publicArea',
    option: 'debtorStreet',
    flag: '--debtor-street <street>',
    help: "debtor's street address",
    parse: parseText,
  },
  {
    field: 'city',
    option: 'debtorCity',
    flag: '--debtor-city <city>',
    help: "debtor's city",
    parse: parseText,
  },
  {
    field: 'state',
    option: 'debtorState',
    flag: '--debtor-state <uf>',
    help: "debtor's state, two letters (SP)",
    parse: parseState,
  },
  {
    field: 'postalCode',
    option: 'debtorPostalCode',
    flag: '--debtor-postal-code <cep>',
    help: "debtor's CEP, 8 digits",
    parse: parsePostalCode,
  },
] as const;

type DebtorField = (typeof DEBTOR_FIELDS)[number]['field'];
type DebtorOption = (typeof DEBTOR_FIELDS)[number]['option'];

function optionalStrings<K extends string>(keys: (row: (typeof DEBTOR_FIELDS)[number]) => K) {
  return Object.fromEntries(
    DEBTOR_FIELDS.map((row) => [keys(row), z.optional(fromDomain(row.parse))]),
  ) as Record<K, z.ZodMiniOptional<ReturnType<typeof fromDomain<string>>>>;
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

// ---------------------------------------------------------------------------------------------
// --body: a whole API §4.3 request, checked with the same rules as the flags. Unknown fields are
// refused so that a typo (`dueDate` for `duedate`) is not silently dropped.

function modifierBodySchema(kind: ModifierName) {
  return z.strictObject({
    modality: z.optional(fromDomain(modalityParser(kind))),
    amountPerc: z.optional(z.number()),
  });
}

const bodySchema = z.strictObject({
  pixKeyId: z.optional(fromDomain(parseUuid)),
  amount: z.optional(fromDomainNumber(parseChargeAmount)),
  duedate: z.optional(fromDomain(parseDateOnly)),
  expirationAfterPayment: z.optional(z.number().check(z.int(), z.gte(1))),
  debtor: z.optional(z.strictObject(optionalStrings<DebtorField>((row) => row.field))),
  payerQuestion: z.optional(fromDomain(parseQuestion)),
  description: z.optional(fromDomain(parseText)),
  amountDiscount: z.optional(
    z.strictObject({
      modality: z.optional(fromDomain(modalityParser('discount'))),
      discountDateFixed: z.optional(
        z.array(z.strictObject({ date: fromDomain(parseDateOnly), amountPerc: z.number() })),
      ),
      amountPerc: z.optional(z.number()),
    }),
  ),
  amountAbatement: z.optional(modifierBodySchema('abatement')),
  amountFine: z.optional(modifierBodySchema('fine')),
  amountInterest: z.optional(modifierBodySchema('interest')),
  additionalInformation: z.optional(
    z.array(z.strictObject({ name: fromDomain(parseText), value: fromDomain(parseText) })),
  ),
});

type DueDateBody = z.output<typeof bodySchema>;

async function readBody(source: string, deps: Deps): Promise<DueDateBody> {
  let text: string;
  try {
    text = source === '-' ? (await deps.io.stdin.readAll()).toString('utf8') : await readFile(source, 'utf8');
  } catch (error) {
    throw usageError(
      '--body',
      `cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw usageError(
      '--body',
      `${source === '-' ? 'stdin' : source} is not JSON (${(error as Error).message})`,
    );
  }
  const result = bodySchema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  throw usageError('--body', `${where}${issue.message}`);
}

// ---------------------------------------------------------------------------------------------
// Flags over body: each flag replaces the one field of the request it maps to.

interface Sourced<T> {
  value: T;
  /** How the user gave it: `--fine` or `--body: amountFine.amountPerc`. */
  where: string;
}

function pick<T>(
  flag: T | undefined,
  flagName: string,
  body: T | undefined,
  bodyField: string,
): Sourced<T> | undefined {
  if (flag !== undefined) return { value: flag, where: flagName };
  if (body !== undefined) return { value: body, where: `--body: ${bodyField}` };
  return undefined;
}

function required<T>(value: Sourced<T> | undefined, flag: string, bodyField: string): Sourced<T> {
  if (value === undefined) throw usageError(flag, `is required (or "${bodyField}" in --body)`);
  return value;
}

const API_OBJECT: Record<
  ModifierName,
  'amountDiscount' | 'amountAbatement' | 'amountFine' | 'amountInterest'
> = {
  discount: 'amountDiscount',
  abatement: 'amountAbatement',
  fine: 'amountFine',
  interest: 'amountInterest',
};

/**
 * The modality of one modifier object: the flag's, else the body's, else, when the value is written
 * with `%` (`--fine 2%`), the object's percentage modality, else its default. A warning is added when
 * it is not one of contract §6; a `%` value with an explicit modality in reais is a usage error.
 */
function modalityOf(
  kind: ModifierName,
  options: DueDateOptions,
  body: DueDateBody,
  values: Array<Sourced<string | number>>,
  warnings: string[],
): string {
  const object = API_OBJECT[kind];
  const percent = values.find((value) => isPercentText(value.value));
  const reais = values.find((value) => isMoneyText(value.value));
  if (percent && reais) {
    throw usageError(
      reais.where,
      `"${reais.value}" is in reais and "${percent.value}" (${percent.where}) a percentage: one ${kind} has one unit`,
    );
  }
  const chosen = pick(
    options[`${kind}Modality`],
    `--${kind}-modality`,
    body[object]?.modality,
    `${object}.modality`,
  );
  if (chosen === undefined) {
    return percent ? PERCENT_MODALITY[kind] : reais ? MONEY_MODALITY[kind] : DEFAULT_MODALITY[kind];
  }
  if (reais && isPercentModality(chosen.value)) {
    throw usageError(
      reais.where,
      `"${reais.value}" is in reais, but ${chosen.where} is ${chosen.value}, which takes a percentage`,
      `drop the R$, or give a modality in reais (${MONEY_MODALITY[kind]})`,
    );
  }
  if (percent && !isPercentModality(chosen.value)) {
    throw usageError(
      percent.where,
      `"${percent.value}" is a percentage, but ${chosen.where} is ${chosen.value}, which takes an amount in reais`,
      `drop the %, or give a percentage modality (${PERCENT_MODALITY[kind]})`,
    );
  }
  const warning = modalityWarning(kind, chosen.value, chosen.where);
  if (warning) warnings.push(warning);
  return chosen.value;
}

function simpleModifier(
  kind: Exclude<ModifierName, 'discount'>,
  options: DueDateOptions,
  body: DueDateBody,
  warnings: string[],
): { modality: string; value: ModifierValue } | undefined {
  const object = API_OBJECT[kind];
  const raw = pick<string | number>(
    options[kind],
    `--${kind}`,
    body[object]?.amountPerc,
    `${object}.amountPerc`,
  );
  if (raw === undefined) {
    if (options[`${kind}Modality`] !== undefined) throw usageError(`--${kind}-modality`, `needs --${kind}`);
    if (body[object] !== undefined) throw usageError('--body', `${object}.amountPerc is required`);
    return undefined;
  }
  const modality = modalityOf(kind, options, body, [raw], warnings);
  return { modality, value: parseAt(raw.where, (value) => parseModifierValue(modality, value), raw.value) };
}

function discountModifier(
  options: DueDateOptions,
  body: DueDateBody,
  duedate: string,
  today: string,
  warnings: string[],
): DueDateChargeInput['amountDiscount'] {
  const fromBody = body.amountDiscount;
  let entries: RawDiscount[];
  let where: string;
  if (options.discount.length) {
    entries = options.discount;
    where = '--discount';
  } else {
    where = '--body: amountDiscount';
    entries =
      fromBody?.discountDateFixed?.map((entry) => ({ date: entry.date, value: entry.amountPerc })) ??
      (fromBody?.amountPerc === undefined ? [] : [{ value: fromBody.amountPerc }]);
  }
  if (entries.length === 0) {
    if (options.discountModality !== undefined) throw usageError('--discount-modality', 'needs --discount');
    if (fromBody !== undefined)
      throw usageError('--body', 'amountDiscount needs discountDateFixed or amountPerc');
    return undefined;
  }
  const values = entries.map((entry) => ({ value: entry.value, where }));
  const modality = modalityOf('discount', options, body, values, warnings);
  const dated = DATED_DISCOUNTS.has(modality) || entries.some((entry) => entry.date !== undefined);
  if (!dated) {
    if (entries.length > 1)
      throw usageError(where, `${modality} takes one value (no dates); give --discount once`);
    const value = parseAt(where, (text) => parseModifierValue(modality, text), entries[0]!.value);
    return { modality, value };
  }
  const seen = new Set<string>();
  const discountDateFixed = entries.map((entry) => {
    if (entry.date === undefined)
      throw usageError(where, `${modality} takes DATE=VALUE entries, e.g. ${duedate}=5`);
    const date = parseAt(where, (text) => parseDay(text, today), entry.date);
    if (date > duedate) throw usageError(where, `${date} is after the due date ${duedate}`);
    if (seen.has(date)) throw usageError(where, `${date} is given twice`);
    seen.add(date);
    return {
      date,
      value: parseAt(where, (text) => parseModifierValue(modality, text), entry.value),
    };
  });
  return { modality, discountDateFixed };
}

/** Each debtor field from its flag, else from the body; name and CPF are required. */
function debtorOf(options: DueDateOptions, body: DueDateBody): DueDateChargeInput['debtor'] {
  const debtor: Partial<Record<DebtorField, string>> = {};
  for (const row of DEBTOR_FIELDS) {
    const flag = row.flag.split(' ')[0]!;
    const value = pick(options[row.option], flag, body.debtor?.[row.field], `debtor.${row.field}`);
    if (value === undefined && (row.field === 'name' || row.field === 'cpf')) {
      required(value, flag, `debtor.${row.field}`);
    }
    if (value !== undefined) debtor[row.field] = value.value;
  }
  return debtor as DueDateChargeInput['debtor'];
}

/** Flags and body → the request, every rule checked; nothing has been sent yet. */
export function buildDueDateRequest(
  options: DueDateOptions,
  body: DueDateBody,
  today: string,
  warnings: string[],
): Omit<DueDateChargeInput, 'pixKeyId'> {
  const amount = required(pick(options.amount, '--amount', body.amount, 'amount'), '--amount', 'amount');
  const typed = required(pick(options.due, '--due', body.duedate, 'duedate'), '--due', 'duedate');
  const due = { ...typed, value: parseAt(typed.where, (text) => parseDay(text, today), typed.value) };
  if (due.value < today) throw usageError(due.where, `${due.value} is in the past (today is ${today})`);
  const input: Omit<DueDateChargeInput, 'pixKeyId'> = {
    amount: amount.value,
    duedate: due.value,
    debtor: debtorOf(options, body),
  };
  const days = options.expireAfterDays ?? body.expirationAfterPayment;
  if (days !== undefined) input.expirationAfterPayment = days;
  const question = options.question ?? body.payerQuestion;
  if (question !== undefined) input.payerQuestion = question;
  if (body.description !== undefined) input.description = body.description;
  const info = options.info.length ? options.info : body.additionalInformation;
  if (info?.length) input.additionalInformation = info;
  const discount = discountModifier(options, body, due.value, today, warnings);
  if (discount) input.amountDiscount = discount;
  for (const kind of ['abatement', 'fine', 'interest'] as const) {
    const modifier = simpleModifier(kind, options, body, warnings);
    if (modifier) input[API_OBJECT[kind]] = modifier;
  }
  return input;
}

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
  addExamples(
    command,
    [
      'pix charge duedate --amount 150 --due 2030-12-10 --debtor-name "Ana Souza" --debtor-cpf 123.456.789-09',
      'pix charge duedate --amount 1.500,00 --due +30d --debtor-name "Ana Souza" --debtor-cpf 12345678909 \\\n' +
        '      --discount +20d=5% --fine 2% --interest 1% --expire-after-days 30',
      'pix charge duedate --body charge.json --amount 200 --qr-png charge.png --no-qr',
      'jq -c ".[]" customers.json | while read -r c; do echo "$c" | pix charge duedate --body - --json; done',
    ],
    ['usage', 'auth', 'not_found', 'rejected', 'unavailable', 'unknown_outcome'],
  );
}
