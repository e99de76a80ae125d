import * as z from '../../zod.js';
import type { ApiClient } from '../client.js';
import type { Endpoint } from '../endpoint.js';
import { listPageSchema } from '../listpage.js';
import type { ListSource, PagesOptions, ReadAllOptions } from '../pager.js';
import type { Pagination } from '../paginate.js';

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

/**
 * API §4.1: the array is named `results` here, `result` in the key list (API §4.7), which is read too (a
 * server that names both alike is one the document allows: docs/api.md); pix's page names it `results`.
 */
const statementPageSchema = listPageSchema(statementEntrySchema, 'results', 'result');

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
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
}

/** A range of the statement: full ISO 8601 instants (API §4.1 wants both or neither). */
export interface StatementRange {
  dateFrom: string;
  dateTo: string;
}

/** One request, as the pager sizes it: only the pager asks (api/pager.ts, the one paging rule). */
function readStatement(client: ApiClient, query: StatementQuery): Promise<StatementPage> {
  return client.request(statementEndpoint, {
    query: { dateFrom: query.dateFrom, dateTo: query.dateTo, limit: query.limit, offset: query.offset },
  });
}

/** The statement (of `range`, else all of it) as the pager reads lists; `answered` sees each raw answer. */
export function statementSource(
  client: ApiClient,
  range?: StatementRange,
  answered?: (page: StatementPage) => void,
): ListSource<StatementEntry> {
  return {
    list: 'statement',
    async fetch(offset, limit) {
      const page = await readStatement(client, { ...range, limit, offset });
      answered?.(page);
      return { total: page.total, items: page.results };
    },
    idOf: (entry) => entry.id,
  };
}

/**
 * One page as a person asked for it (`pix statement --limit N --offset M`): the API's object of the first
 * answer, its `results` every entry the page holds (as many requests as the server's page size needs).
 */
export async function statementPage(client: ApiClient, query: StatementQuery): Promise<StatementPage> {
  let first: StatementPage | undefined;
  const range = query.dateFrom === undefined || query.dateTo === undefined ? undefined : query;
  const source = statementSource(
    client,
    range && { dateFrom: range.dateFrom!, dateTo: range.dateTo! },
    (page) => {
      first ??= page;
    },
  );
  const page = await client.pager.page(source, query.offset, query.limit);
  return { ...first!, total: page.total, results: page.items };
}

/**
 * Every entry of `range` (all of the statement without one), a page at a time: concurrently, in the API's
 * order, repeated ids dropped, stopping at a page that brings nothing new (api/paginate.ts; its summary
 * says whether the read was whole).
 */
export function statementPages(
  client: ApiClient,
  range: StatementRange | undefined,
  options: PagesOptions,
): Promise<Pagination<StatementEntry>> {
  return client.pager.pages(statementSource(client, range), options);
}

/**
 * Every entry confirmed from `from` to `to`, or an incomplete read (exit 6, nothing returned): what a
 * decision is made on (the guard of payments, the books, pix listen's windows) is the whole window or
 * nothing.
 */
export function statementWindow(
  client: ApiClient,
  from: Date | string,
  to: Date | string,
  read: Omit<ReadAllOptions, 'what'> & { what?: string },
): Promise<StatementEntry[]> {
  const iso = (at: Date | string) => (typeof at === 'string' ? at : at.toISOString());
  return client.pager.all(statementSource(client, { dateFrom: iso(from), dateTo: iso(to) }), {
    what: 'the statement',
    ...read,
  });
}
