import * as z from '../../zod.js';
import type { ApiClient, Endpoint } from '../client.js';

/** API §2.9. keyType stays an open string: the API lists more types than its example shows. */
export const registeredKeySchema = z.looseObject({
  id: z.string(),
  key: z.string(),
  keyType: z.string(),
  createdAt: z.string(),
});

/** API §4.7: the array is named `result` here (`results` in the statement). */
const keyPageSchema = z.looseObject({
  total: z.number().check(z.int(), z.nonnegative()),
  result: z.array(registeredKeySchema),
});

export type RegisteredKey = z.infer<typeof registeredKeySchema>;
export type KeyPage = z.infer<typeof keyPageSchema>;

export const keysEndpoint: Endpoint<KeyPage> = {
  name: 'keys',
  what: 'listing PIX keys',
  method: 'GET',
  path: '/api/financial/v1/pix/keys',
  retry: 'safe',
  schema: () => keyPageSchema,
};

export function listKeys(client: ApiClient, page: { limit: number; offset: number }): Promise<KeyPage> {
  return client.request(keysEndpoint, { query: { limit: page.limit, offset: page.offset } });
}
