import { incompleteList } from '../../errors.js';
import * as z from '../../zod.js';
import type { ApiClient } from '../client.js';
import type { Endpoint } from '../endpoint.js';
import { paginate, shortfall } from '../paginate.js';

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

/**
 * Every key of the account (all pages). A list read short is refused (exit 6): it could make one key look
 * like the account's only one, or the account another one; `consequence` says what was not done.
 */
export async function everyKey(client: ApiClient, consequence: string): Promise<RegisteredKey[]> {
  const { pages } = await paginate(
    async (offset, limit) => {
      const page = await listKeys(client, { limit, offset });
      return { total: page.total, items: page.result };
    },
    { pageSize: 100, concurrency: 4, idOf: (key) => key.id },
  );
  const keys: RegisteredKey[] = [];
  let next = await pages.next();
  for (; !next.done; next = await pages.next()) keys.push(...next.value);
  const short = shortfall(next.value);
  if (short) throw incompleteList('the key list', short, consequence);
  return keys;
}

/** The cheapest authenticated read: throws an `auth` PixError when the server refuses the credentials. */
export async function verifyCredentials(client: ApiClient): Promise<void> {
  await listKeys(client, { limit: 1, offset: 0 });
}
