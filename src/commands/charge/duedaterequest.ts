/**
 * The request of `pix charge duedate` (commands/charge/duedate.ts): the debtor's fields (one row per
 * field, from which the flags, the `--body` schema and the merge are made), a `--body` file read and
 * checked, and the flags laid over it, every rule checked before anything is sent.
 */

import {
  DEFAULT_MODALITY,
  type DueDateChargeInput,
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
  withRef,
} from '../../domain/charge-values.js';
import { parseTaxId } from '../../domain/documents.js';
import {
  DATED_DISCOUNTS,
  isPercentModality,
  MONEY_MODALITY,
  type ModifierName,
  PERCENT_MODALITY,
} from '../../domain/modalities.js';
import { parseEmail } from '../../domain/pixkey.js';
import { formatDayForMessage, parseDateOnly, parseDay } from '../../domain/when.js';
import { usageError } from '../../errors.js';
import * as z from '../../zod.js';
import { fileName, readInputFile } from '../shared/files.js';
import { fromDomain, fromDomainNumber } from '../shared/flags.js';
import type { DueDateOptions, RawDiscount } from './duedate.js';
import { parseAt } from './shared.js';

/** The CPF (or CNPJ) of the debtor, bare digits. */
const parseDocument = (text: string) => parseTaxId(text).digits;

/**
 * The debtor object of API §2.4, one row per field: the request field, its flag and how it is checked.
 * The flags schema, the `--body` schema, the Commander options and the merge are all made from it.
 */
export const DEBTOR_FIELDS = [
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

export type DebtorOption = (typeof DEBTOR_FIELDS)[number]['option'];

export function optionalStrings<K extends string>(keys: (row: (typeof DEBTOR_FIELDS)[number]) => K) {
  return Object.fromEntries(
    DEBTOR_FIELDS.map((row) => [keys(row), z.optional(fromDomain(row.parse))]),
  ) as Record<K, z.ZodMiniOptional<ReturnType<typeof fromDomain<string>>>>;
}

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

export async function readBody(source: string, deps: Deps): Promise<DueDateBody> {
  const text = (await readInputFile(source, deps, "the charge's JSON", '--body')).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw usageError('--body', `${fileName(source)} is not JSON (${(error as Error).message})`);
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
  if (due.value < today) {
    throw usageError(
      due.where,
      `${formatDayForMessage(due.value)} is in the past (today is ${formatDayForMessage(today)})`,
    );
  }
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
  const info = withRef(options.info.length ? options.info : body.additionalInformation, options.ref);
  if (info?.length) input.additionalInformation = info;
  const discount = discountModifier(options, body, due.value, today, warnings);
  if (discount) input.amountDiscount = discount;
  for (const kind of ['abatement', 'fine', 'interest'] as const) {
    const modifier = simpleModifier(kind, options, body, warnings);
    if (modifier) input[API_OBJECT[kind]] = modifier;
  }
  return input;
}
