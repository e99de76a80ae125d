import type { ModifierName } from '../../domain/modalities.js';
import { type Centavos, centavosToApi } from '../../domain/money.js';
import * as z from '../../zod.js';
import type { ApiClient } from '../client.js';
import type { Endpoint } from '../endpoint.js';
import { chargeVerdict } from '../outcomes.js';

/**
 * API §2.2, returned by both charge endpoints. Statuses and types stay open strings (contract §6);
 * unknown fields are kept. Only what every charge must carry to be usable is required: a created
 * charge is never thrown away over an optional field.
 */
const chargeShape = z.looseObject({
  id: z.string(),
  amount: z.number(),
  status: z.string(),
  pixKey: z.optional(z.string()),
  pixKeyId: z.optional(z.string()),
  type: z.string(),
  emvqrcps: z.string(),
  transactionId: z.optional(z.union([z.number(), z.string()])),
  transactionIdentification: z.optional(z.string()),
  description: z.optional(z.string()),
  createdAt: z.optional(z.string()),
  dueDate: z.optional(z.string()),
  expiresAt: z.optional(z.string()),
  qrCodeDataUrl: z.optional(z.string()),
});

/**
 * Checks the shape but returns the server's own object, fields in the server's order, so `--json`
 * prints the API's charge exactly (a parsed copy would list the schema's fields first).
 */
export const chargeSchema = z.pipe(
  z.unknown().check(
    z.superRefine((value, context) => {
      const result = chargeShape.safeParse(value);
      if (result.success) return;
      for (const issue of result.error.issues) {
        context.addIssue({ code: 'custom', message: issue.message, path: issue.path });
      }
    }),
  ),
  z.transform((value) => value as z.infer<typeof chargeShape>),
);

export type Charge = z.infer<typeof chargeSchema>;

/** The due-date type is spelled DUEDATE_QRCODE in the API's example and DUE_DATE in its field list (contract §6). */
export function chargeTypeLabel(type: string): string {
  if (type === 'IMMEDIATE_QRCODE') return 'immediate';
  if (type === 'DUEDATE_QRCODE' || type === 'DUE_DATE') return 'due date';
  return type;
}

/** The modality used when only the value is given: the one the API document shows for each object (§2.3). */
export const DEFAULT_MODALITY: Record<ModifierName, string> = {
  discount: 'PERCENTAGE_DATE_REPORTED',
  abatement: 'FIXED_VALUE',
  fine: 'FIXED_VALUE',
  interest: 'PERCENTAGE_PER_MONTH_WORKING_DAYS',
};

/** `amountPerc` inside pix: money stays centavos until the request is written (architecture rule 6). */
export type ModifierValue = { kind: 'money'; centavos: Centavos } | { kind: 'percent'; percent: number };

export interface NameValue {
  name: string;
  value: string;
}

export interface ImmediateChargeInput {
  pixKeyId: string;
  amount: Centavos;
  expiration?: { value: number; unit: 'minutes' | 'hours' | 'days' };
  debtor?: { name: string; taxId: string };
  payerQuestion?: string;
  additionalInformation?: NameValue[];
}

export interface DueDateDebtor {
  name: string;
  cpf: string;
  email?: string;
  publicArea?: string;
  city?: string;
  state?: string;
  postalCode?: string;
}

export interface DueDateChargeInput {
  pixKeyId: string;
  amount: Centavos;
  duedate: string;
  expirationAfterPayment?: number;
  debtor: DueDateDebtor;
  payerQuestion?: string;
  /** Not in the request table of API §4.3, but §2.2 echoes a description "when one was supplied"; only `--body` can. */
  description?: string;
  amountDiscount?:
    | { modality: string; discountDateFixed: Array<{ date: string; value: ModifierValue }> }
    | { modality: string; value: ModifierValue };
  amountAbatement?: { modality: string; value: ModifierValue };
  amountFine?: { modality: string; value: ModifierValue };
  amountInterest?: { modality: string; value: ModifierValue };
  additionalInformation?: NameValue[];
}

export const immediateChargeEndpoint: Endpoint<Charge> = {
  name: 'charge',
  what: 'creating the charge',
  method: 'POST',
  path: '/api/financial/v1/pix-cash-in/immediate',
  retry: 'never',
  schema: () => chargeSchema,
  verdict: chargeVerdict,
};

export const dueDateChargeEndpoint: Endpoint<Charge> = {
  name: 'charge',
  what: 'creating the due-date charge',
  method: 'POST',
  path: '/api/financial/v1/pix-cash-in/duedate',
  retry: 'never',
  schema: () => chargeSchema,
  verdict: chargeVerdict,
};

function apiValue(value: ModifierValue): number {
  return value.kind === 'money' ? centavosToApi(value.centavos) : value.percent;
}

/** Drops undefined fields so the request carries only what was given. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

function modifierBody(modifier: { modality: string; value: ModifierValue } | undefined) {
  return modifier && { modality: modifier.modality, amountPerc: apiValue(modifier.value) };
}

/** The request body of API §4.2, amounts in reais. */
export function immediateChargeBody(input: ImmediateChargeInput): Record<string, unknown> {
  return defined({
    pixKeyId: input.pixKeyId,
    amount: centavosToApi(input.amount),
    expiration: input.expiration,
    debtor: input.debtor,
    payerQuestion: input.payerQuestion,
    additionalInformation: input.additionalInformation,
  });
}

/** The request body of API §4.3 (the request field is `duedate`; the answer's is `dueDate`). */
export function dueDateChargeBody(input: DueDateChargeInput): Record<string, unknown> {
  const discount = input.amountDiscount;
  return defined({
    pixKeyId: input.pixKeyId,
    amount: centavosToApi(input.amount),
    duedate: input.duedate,
    expirationAfterPayment: input.expirationAfterPayment,
    debtor: defined({ ...input.debtor }),
    payerQuestion: input.payerQuestion,
    description: input.description,
    amountDiscount:
      discount &&
      ('discountDateFixed' in discount
        ? {
            modality: discount.modality,
            discountDateFixed: discount.discountDateFixed.map((entry) => ({
              date: entry.date,
              amountPerc: apiValue(entry.value),
            })),
          }
        : modifierBody(discount)),
    amountAbatement: modifierBody(input.amountAbatement),
    amountFine: modifierBody(input.amountFine),
    amountInterest: modifierBody(input.amountInterest),
    additionalInformation: input.additionalInformation,
  });
}

export function createImmediateCharge(client: ApiClient, input: ImmediateChargeInput): Promise<Charge> {
  return client.request(immediateChargeEndpoint, { body: immediateChargeBody(input) });
}

export function createDueDateCharge(client: ApiClient, input: DueDateChargeInput): Promise<Charge> {
  return client.request(dueDateChargeEndpoint, { body: dueDateChargeBody(input) });
}
