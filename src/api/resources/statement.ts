import * as z from '../../zod.js';
import type { ApiClient } from '../client.js';
import type { Endpoint } from '../endpoint.js';
import { type Pagination, paginate } from '../paginate.js';

/**
 * A counterparty of a statement entry (API §2.1). Every field is optional: the document names them but a
 * real account shows entries with a party cut short, and a statement must still print.
 */
const partySchema = z.looseObject({
  name: z.optional(z.string()),
  bank: z.optional(z.string()),
  documentNumber: z.optional(z.string()),
});

/**
 * API §2.1. `type`, `status` and `method` are open strings (the document shows only some values).
 * `amount` is signed reais (negative for OUTCOME); `creditor` is present on INCOME and `debtor` on
 * OUTCOME, and either may be missing. Unknown fields pass through to `--json`/ndjson untouched.
 */
export const statementEntrySchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  amount: z.number(),
  fee: z.optional(z.number()),
  status: z.string(),
  method: z.optional(z.string()),
  confirmedAt: z.string(),
  creditor: z.nullish(partySchema),
  debtor: z.nullish(partySchema),
});

/** API §4.1: the array is named `results` here (`result` in the key list). */
const statementPageSchema = z.looseObject({
  total: z.number().check(z.int(), z.nonnegative()),
  results: z.array(statementEntrySchema),
});

export type Party = z.infer<typeof partySchema>;
export type StatementEntry = z.infer<typeof statementEntrySchema>;
export type StatementPage = z.infer<typeof statementPageSchema>;

export const statementEndpoint: Endpoint<StatementPage> = {
  name: 'statement',
  what: 'reading the statement',
  method: 'GET',
  path: '/api/financial/v1/account/transactions',
  retry: 'safe',
  schema: () => statementPageSchema,
};

export interface StatementQuery {
  limit: number;
  offset: number;
  /** Full ISO 8601 instants. The API wants both or neither (API §4.1 rule 1). */
  dateFrom?: string;
  dateTo?: string;
}

export function readStatement(client: ApiClient, query: StatementQuery): Promise<StatementPage> {
  return client.request(statementEndpoint, {
    query: { dateFrom: query.dateFrom, dateTo: query.dateTo, limit: query.limit, offset: query.offset },
  });
}

/**
 * Every entry confirmed from `from` to `to`, a page at a time: concurrently, in the API's order, repeated ids
 * dropped, stopping at a page that brings nothing new (api/paginate.ts; its summary says how many arrived).
 */
export function statementPages(
  client: ApiClient,
  from: Date,
  to: Date,
  pageSize: number,
): Promise<Pagination<StatementEntry>> {
  return paginate(
    async (offset, limit) => {
      const page = await readStatement(client, {
        limit,
        offset,
        dateFrom: from.toISOString(),
        dateTo: to.toISOString(),
      });
      return { total: page.total, items: page.results };
    },
    { pageSize, concurrency: 2, idOf: (entry) => entry.id },
  );
}
