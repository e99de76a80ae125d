import * as z from '../../zod.js';
import type { ApiClient } from '../client.js';
import type { Endpoint } from '../endpoint.js';
import { transferVerdict } from '../outcomes.js';

/**
 * The two-step payments of API §4.4–§4.6. The consultations are reads (retried); the transfer is
 * never retried, and a failure after it was sent is an unknown outcome (the client maps it to exit 7).
 * Schemas are loose: unknown fields pass through, statuses and types are open strings.
 */

const money = z.nullish(z.number());
const text = z.nullish(z.string());

/** API §2.6. Only what a payment cannot do without is required: the endToEndId and the receiver's name. */
const emvConsultSchema = z.looseObject({
  type: text,
  endToEndId: z.string().check(z.minLength(1)),
  payerQuestion: text,
  additionalInfo: z.nullish(z.array(z.looseObject({ key: text, value: text }))),
  amount: z.nullish(
    z.looseObject({
      original: money,
      final: money,
      abatement: money,
      discount: money,
      interest: money,
      fine: money,
      canModifyFinalAmount: z.nullish(z.boolean()),
    }),
  ),
  receiver: z.looseObject({ name: z.string(), participant: text, documentNumber: text }),
  debtor: z.nullish(z.looseObject({ name: text, documentNumber: text })),
  calendar: z.nullish(z.looseObject({ expirationDate: text })),
});

/**
 * API §2.7. The response spells `endtoEndId` with a lower-case t; `endToEndId` is accepted too
 * (contract §6), and one of them must be there.
 */
const dictConsultSchema = z
  .looseObject({
    key: text,
    keyType: text,
    endtoEndId: text,
    endToEndId: text,
    account: z.nullish(z.looseObject({ participant: text, accountType: text, branch: text, account: text })),
    owner: z.looseObject({ name: z.string(), type: text, tradeName: text, documentNumber: text }),
  })
  .check(
    z.refine((value) => Boolean(value.endToEndId || value.endtoEndId), {
      message: 'no endToEndId (nor endtoEndId)',
      path: ['endToEndId'],
    }),
  );

/**
 * API §2.8. Only the shape is checked here: an answer carrying none of a transfer's own fields (id,
 * endToEndId, status) is not a transfer result — a proxy's or another service's JSON — so it fails the
 * schema and the client reports an unknown outcome (exit 7), never a success. What a well-formed answer
 * proves is the endpoint's verdict (api/outcomes.ts): applied only with an accepted status (PENDING, …),
 * refused with a failure status (REJECTED, …), unknown otherwise.
 */
const transferSchema = z
  .looseObject({
    id: text,
    endToEndId: text,
    amount: money,
    fee: money,
    status: text,
  })
  .check(
    z.refine((value) => Boolean(value.id || value.endToEndId || value.status), {
      message: 'none of id, endToEndId, status: not a transfer result',
      path: ['id'],
    }),
  );

export type EmvConsultation = z.infer<typeof emvConsultSchema>;
export type DictConsultation = z.infer<typeof dictConsultSchema>;
export type TransferResult = z.infer<typeof transferSchema>;

export const emvConsultEndpoint: Endpoint<EmvConsultation> = {
  name: 'emv',
  what: 'consulting the QR code',
  method: 'POST',
  path: '/api/financial/v1/pix/emv/consult',
  retry: 'safe',
  schema: () => emvConsultSchema,
};

export const dictConsultEndpoint: Endpoint<DictConsultation> = {
  name: 'dict',
  what: 'consulting the PIX key',
  method: 'POST',
  path: '/api/financial/v1/pix/dict/consult',
  retry: 'safe',
  schema: () => dictConsultSchema,
};

export const transferEndpoint: Endpoint<TransferResult> = {
  name: 'transfer',
  what: 'sending the transfer',
  method: 'POST',
  path: '/api/financial/v1/pix-cash-out/transfer',
  retry: 'never',
  schema: () => transferSchema,
  verdict: transferVerdict,
};

export function consultEmv(client: ApiClient, emv: string): Promise<EmvConsultation> {
  return client.request(emvConsultEndpoint, { body: { emv } });
}

export function consultKey(client: ApiClient, key: string): Promise<DictConsultation> {
  return client.request(dictConsultEndpoint, { body: { key } });
}

/** The endToEndId of a key consultation, whichever way the server spelt it. */
export function dictEndToEndId(consultation: DictConsultation): string {
  return (consultation.endToEndId || consultation.endtoEndId)!;
}

/** `amount` is reais as the API speaks them (centavosToApi), present only when the flow requires or allows it. */
export function sendTransfer(
  client: ApiClient,
  body: { endToEndId: string; amount?: number },
  options: { finishOnSignal?: boolean } = {},
): Promise<TransferResult> {
  return client.request(transferEndpoint, { body, ...options });
}
