import * as z from '../../zod.js';
import type { ApiClient } from '../client.js';
import type { Endpoint } from '../endpoint.js';
import { listPageSchema } from '../listpage.js';
import type { ListSource } from '../pager.js';

/** API §2.9. keyType stays an open string: the API lists more types than its example shows. */
export const registeredKeySchema = z.looseObject({
  id: z.string(),
  key: z.string(),
  keyType: z.string(),
  createdAt: z.string(),
});

/**
 * API §4.7: the array is named `result` here, `results` in the statement (API §4.1), which is read too (a
 * server that names both alike is one the document allows: docs/api.md); pix's page names it `result`.
 */
const keyPageSchema = listPageSchema(registeredKeySchema, 'result', 'results');

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

/** One request, as the pager sizes it: only the pager asks (api/pager.ts, the one paging rule). */
function listKeys(client: ApiClient, page: { limit: number; offset: number }): Promise<KeyPage> {
  return client.request(keysEndpoint, { query: { limit: page.limit, offset: page.offset } });
}

/** The key list as the pager reads lists; `answered` sees each raw answer. */
export function keySource(client: ApiClient, answered?: (page: KeyPage) => void): ListSource<RegisteredKey> {
  return {
    list: 'keys',
    async fetch(offset, limit) {
      const page = await listKeys(client, { limit, offset });
      answered?.(page);
      return { total: page.total, items: page.result };
    },
    idOf: (key) => key.id,
  };
}

/** One page as a person asked for it (`pix keys --limit N --offset M`): the API's object of the first answer. */
export async function keyPage(client: ApiClient, page: { limit: number; offset: number }): Promise<KeyPage> {
  let first: KeyPage | undefined;
  const read = await client.pager.page(
    keySource(client, (answer) => {
      first ??= answer;
    }),
    page.offset,
    page.limit,
  );
  return { ...first!, total: read.total, result: read.items };
}

/**
 * Every key of the account (all pages). A list read short is refused (exit 6): it could make one key look
 * like the account's only one, or the account another one; `consequence` says what was not done.
 */
export function everyKey(client: ApiClient, consequence: string): Promise<RegisteredKey[]> {
  return client.pager.all(keySource(client), { what: 'the key list', consequence, concurrency: 4 });
}

/**
 * The cheapest authenticated read: throws an `auth` PixError when the server refuses the credentials. One
 * record, which any server's page size takes (not a read of the list: no pager).
 */
export async function verifyCredentials(client: ApiClient): Promise<void> {
  await listKeys(client, { limit: 1, offset: 0 });
}
