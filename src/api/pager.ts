/**
 * The one paging rule of pix (API §4.1, §4.7: `limit` and `offset`, a default of 10, no maximum shown): every
 * read of a list goes through the pager of its API client (createPager), which
 *
 * - never asks a server for more than MAX_PAGE_SIZE records in one request, nor more than the server was
 *   seen to take: a page size the server refuses (400) is narrowed down to the largest it accepts,
 *   which the pager then asks from that base URL on (kept between commands by the wiring: PageLimitStore);
 * - takes whatever a server hands out per request (a server that clamps pages below what was asked is
 *   followed at the offset it reached);
 * - judges a read whole or not (shortfall): a list read short of the total its server announced (a page
 *   shorter than the total implies that nothing completes, an empty page before the total) or whose total
 *   moved while it was read is incomplete. An export writes what arrived and exits 6; a read that decides
 *   something (the statement guard of payments, the books, the key list) decides nothing (exit 6).
 */
import { incompleteList, interruptedError, stopSignalOf } from '../errors.js';
import { type Page, type Pagination, paginate, shortfall } from './paginate.js';

/**
 * The most records pix asks for in one request. The document gives no maximum, only the default (10); 100
 * is the cap most payment APIs apply, and a server that takes less teaches the pager so (PageLimitStore).
 */
export const MAX_PAGE_SIZE = 100;
/** The API's own default page (API §4.1, §4.7): the size a server takes when none is asked. */
export const DEFAULT_PAGE_SIZE = 10;

/** A list endpoint as a resource hands it to the pager (api/resources/statement.ts, keys.ts). */
export interface ListSource<T> {
  /** Which list of the server (`statement`, `keys`): the largest page a server takes is learned per list. */
  list: string;
  /** One request: at most `limit` records from `offset`. */
  fetch(offset: number, limit: number): Promise<Page<T>>;
  idOf(item: T): string;
}

/**
 * Where the largest page a server took is kept between commands, for the base URL of one API client: the
 * wiring hands api/ one over the profile's cache (config/ is not api/'s to import: architecture rule 13).
 * A store that cannot be read or written is no store: the pager learns again.
 */
export interface PageLimitStore {
  read(list: string): Promise<number | undefined>;
  remember(list: string, limit: number): Promise<void>;
}

export interface ReadAllOptions {
  /** What is read, for the error: "the statement", "the key list". */
  what: string;
  /** What was not done because of it, for the hint: "nothing was sent; run it again". */
  consequence: string;
  /** Requests in flight at once (default 2). */
  concurrency?: number;
  /** Stops the read between two pages (interrupted: 130 or 143). */
  signal?: AbortSignal;
}

export interface PagesOptions {
  /** Records asked for per request, at most MAX_PAGE_SIZE (default): `--all --limit N`. */
  pageSize?: number;
  concurrency: number;
  startOffset?: number;
  onProgress?(fetched: number, total: number): void;
}

/** The paging of one API client: every list read of pix goes through it (the rule above). */
export interface Pager {
  /** One request: at most `limit` records from `offset`, and never more than the server takes. */
  request<T>(source: ListSource<T>, offset: number, limit: number): Promise<Page<T>>;
  /**
   * One page as a person asked for it (`--limit N --offset M`): up to `limit` records from `offset`, in as
   * many requests as the pager's page size needs; fewer when the list ends, or when a server answers a
   * request with fewer records than asked (its own page: the next page starts there).
   */
  page<T>(source: ListSource<T>, offset: number, limit: number): Promise<Page<T>>;
  /** Every record from `startOffset`, a page at a time (paginate); the summary judges it (shortfall). */
  pages<T>(source: ListSource<T>, options: PagesOptions): Promise<Pagination<T>>;
  /** Every record of the list, or an incomplete read: exit 6 (errors.ts incompleteList), nothing returned. */
  all<T>(source: ListSource<T>, options: ReadAllOptions): Promise<T[]>;
}

/** A refusal that may be about the page's size: 400, what both lists answer invalid parameters with (API §7). */
function refusesSize(error: unknown): boolean {
  const refusal = error as { kind?: unknown; status?: unknown } | null;
  return refusal?.kind === 'rejected' && refusal.status === 400;
}

/** What one client's pager knows of each list's page size (the steps below share it; rule 14). */
interface Paging {
  readonly store: PageLimitStore | undefined;
  /** The largest page each list takes, as stored or learned. */
  readonly caps: Map<string, Promise<number>>;
  /** A list whose page size is being learned: requests refused meanwhile wait for it. */
  readonly learning: Map<string, Promise<{ cap: number; page: Page<unknown> }>>;
}

function capOf(paging: Paging, list: string): Promise<number> {
  let cap = paging.caps.get(list);
  if (cap === undefined) {
    cap = (paging.store?.read(list) ?? Promise.resolve(undefined)).then(
      (stored) =>
        stored !== undefined && Number.isInteger(stored) && stored >= 1
          ? Math.min(stored, MAX_PAGE_SIZE)
          : MAX_PAGE_SIZE,
      () => MAX_PAGE_SIZE,
    );
    paging.caps.set(list, cap);
  }
  return cap;
}

/**
 * The largest page the server takes, after it refused `refused` records at `offset`: the document's
 * default first (the page any server must take), then halving the gap. When even one record is refused
 * the refusal is about something else, and `error` stands. Returns the page read at the size found.
 */
async function learn<T>(
  paging: Paging,
  source: ListSource<T>,
  offset: number,
  refused: number,
  error: unknown,
): Promise<{ cap: number; page: Page<T> }> {
  let good = 0;
  let bad = refused;
  let page: Page<T> | undefined;
  const attempt = async (limit: number) => {
    try {
      page = await source.fetch(offset, limit);
      good = limit;
    } catch (failure) {
      if (!refusesSize(failure)) throw failure;
      bad = limit;
    }
  };
  if (bad > DEFAULT_PAGE_SIZE) await attempt(DEFAULT_PAGE_SIZE);
  if (good === 0) await attempt(1);
  if (good === 0) throw error;
  while (bad - good > 1) await attempt(Math.floor((good + bad) / 2));
  paging.caps.set(source.list, Promise.resolve(good));
  await paging.store?.remember(source.list, good).catch(() => undefined);
  return { cap: good, page: page! };
}

async function request<T>(
  paging: Paging,
  source: ListSource<T>,
  offset: number,
  limit: number,
): Promise<Page<T>> {
  const asked = Math.max(1, Math.min(limit, await capOf(paging, source.list)));
  try {
    return await source.fetch(offset, asked);
  } catch (error) {
    if (!refusesSize(error) || asked <= 1) throw error;
    // Requests refused together learn once; the others ask again at the size learned.
    const running = paging.learning.get(source.list);
    if (running !== undefined) {
      await running.catch(() => undefined);
      if ((await capOf(paging, source.list)) < asked) return request(paging, source, offset, limit);
      throw error;
    }
    const learnt = learn(paging, source, offset, asked, error);
    paging.learning.set(source.list, learnt as Promise<{ cap: number; page: Page<unknown> }>);
    try {
      return (await learnt).page;
    } finally {
      paging.learning.delete(source.list);
    }
  }
}

async function page<T>(
  paging: Paging,
  source: ListSource<T>,
  offset: number,
  limit: number,
): Promise<Page<T>> {
  const items: T[] = [];
  let total = 0;
  for (;;) {
    const wanted = limit - items.length;
    const got = await request(paging, source, offset + items.length, wanted);
    total = got.total;
    items.push(...got.items);
    // A request answered with less than was asked is the server's page: the page shown ends there.
    const asked = Math.min(wanted, await capOf(paging, source.list));
    if (got.items.length < asked || items.length >= limit || offset + items.length >= got.total) break;
  }
  return { total, items };
}

function pages<T>(paging: Paging, source: ListSource<T>, options: PagesOptions): Promise<Pagination<T>> {
  return paginate((offset, limit) => request(paging, source, offset, limit), {
    pageSize: Math.min(options.pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE),
    concurrency: options.concurrency,
    idOf: (item) => source.idOf(item),
    ...(options.startOffset === undefined ? {} : { startOffset: options.startOffset }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
}

async function all<T>(paging: Paging, source: ListSource<T>, options: ReadAllOptions): Promise<T[]> {
  const { pages: read } = await pages(paging, source, { concurrency: options.concurrency ?? 2 });
  const items: T[] = [];
  for (;;) {
    if (options.signal?.aborted)
      throw interruptedError(stopSignalOf(options.signal), `reading ${options.what}`);
    const next = await read.next();
    if (next.done) {
      const short = shortfall(next.value);
      if (short) throw incompleteList(options.what, short, options.consequence);
      return items;
    }
    for (const item of next.value) items.push(item);
  }
}

/**
 * The pager of one API client (the rule at the top of this file). `store`: the largest pages this base URL
 * took before; without one, each command learns again.
 */
export function createPager(store?: PageLimitStore): Pager {
  const paging: Paging = { store, caps: new Map(), learning: new Map() };
  return {
    request: (source, offset, limit) => request(paging, source, offset, limit),
    page: (source, offset, limit) => page(paging, source, offset, limit),
    pages: (source, options) => pages(paging, source, options),
    all: (source, options) => all(paging, source, options),
  };
}
