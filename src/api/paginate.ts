/**
 * The engine of the pager (api/pager.ts, the one paging rule): every record of a list from an offset, a page
 * at a time and several at once, in the server's order, repeated ids dropped; and whether a read was whole.
 */

/** One page as the list endpoints return it, whatever the array is called. */
export interface Page<T> {
  total: number;
  items: T[];
}

export interface PaginateOptions<T> {
  /** Records asked for per request. */
  pageSize: number;
  /** Pages in flight at once. */
  concurrency: number;
  startOffset?: number;
  idOf(item: T): string;
  onProgress?(fetched: number, total: number): void;
}

export interface PaginateSummary {
  /** The total announced by the first page. */
  total: number;
  /** Where the export started (--offset): the first page announced `total - startOffset` records from there. */
  startOffset: number;
  /** The total announced by the last page fetched; differs from `total` when the list moved meanwhile. */
  finalTotal: number;
  /** Whether any page announced another total than the first: the list moved while it was read. */
  moved: boolean;
  yielded: number;
  duplicatesDropped: number;
}

export interface Pagination<T> {
  /** The total the first page announced. */
  total: number;
  /**
   * Every record in API order, the first page's included, a page at a time (ids already seen left out,
   * so a page may be empty): a consumer does its per-page work once, not once per record. Returns the
   * summary when done.
   */
  pages: AsyncGenerator<T[], PaginateSummary>;
}

/**
 * Every record of a paginated list, in API order. Reads `total` from the first page (fetched before
 * this resolves, so a JSON writer can start with it), then fetches the remaining pages `concurrency` at
 * a time and yields them in order, dropping ids already seen. When the server returns fewer records
 * than asked (a cap lower than our page size), it adapts: the first page sets the real page size, and a
 * later short page is completed with follow-up requests.
 *
 * It stops at the first page that brings nothing new (empty, or only ids already seen) before the
 * announced total, launching nothing more: a server whose total is a lie gets a handful of requests, not
 * one per page up to its total. The summary then shows the shortfall (`shortfall`: exit 6, "received N
 * of M").
 */
export async function paginate<T>(
  fetchPage: (offset: number, limit: number) => Promise<Page<T>>,
  options: PaginateOptions<T>,
): Promise<Pagination<T>> {
  const start = options.startOffset ?? 0;
  const first = await fetchPage(start, options.pageSize);
  return { total: first.total, pages: remainingPages(fetchPage, options, start, first) };
}

/** A list being read after its first page: what remainingPages's steps below share (rule 14). */
interface Reading<T> {
  readonly fetchPage: (offset: number, limit: number) => Promise<Page<T>>;
  readonly options: PaginateOptions<T>;
  readonly first: Page<T>;
  readonly start: number;
  readonly summary: PaginateSummary;
  /**
   * A repeated id comes from the list shifting under the export: new records at the top push the end of
   * the pages just read into the next. The ids of the two pages before are what that overlap needs (a
   * shift of up to two pages, more than a list moves while it is read), so memory stays two pages, not
   * one id per record of the whole export.
   */
  readonly recent: Set<string>[];
  /** Records received, repeated ones included (for onProgress). */
  fetched: number;
  /** The page size the server keeps to (its first page's, if shorter than ours). */
  pageSize: number;
  /** The first page's total: where the pages launched in order stop. */
  end: number;
  nextOffset: number;
  /**
   * Pages fetched or being fetched, in API order. A request is launched as soon as any other finishes
   * (not only the oldest: one slow page must not idle the other slots), while at most `concurrency` are
   * running and at most twice that many pages wait to be read, so memory stays bounded.
   */
  readonly queue: Promise<Page<T>>[];
  running: number;
  /** A failed page or a consumer that stopped reading: launch nothing more. */
  stopped: boolean;
}

/** The page's records not seen in it or in the two pages before; counts the rest as dropped. */
function fresh<T>(reading: Reading<T>, items: T[]): T[] {
  const { recent, summary, options } = reading;
  const kept: T[] = [];
  const current = new Set<string>();
  for (const item of items) {
    const id = options.idOf(item);
    // One hash lookup in this page's set, not two (has, then add): the Set did not grow, so the id was there.
    const before = current.size;
    current.add(id);
    if (current.size === before || recent.some((page) => page.has(id))) summary.duplicatesDropped++;
    else kept.push(item);
  }
  recent.push(current);
  if (recent.length > 2) recent.shift();
  summary.yielded += kept.length;
  return kept;
}

/** Fills [offset, offset + limit) even when the server hands out less than asked. */
async function fetchRange<T>(reading: Reading<T>, offset: number, limit: number): Promise<Page<T>> {
  const items: T[] = [];
  let total = reading.end;
  while (items.length < limit) {
    const page = await reading.fetchPage(offset + items.length, limit - items.length);
    total = page.total;
    if (page.items.length === 0) break;
    items.push(...page.items);
  }
  return { total, items };
}

/** Launches pages while a slot and the window allow, up to the first total (Reading.queue). */
function launch<T>(reading: Reading<T>): void {
  const { options, queue, pageSize, end } = reading;
  const window = options.concurrency * 2;
  while (
    !reading.stopped &&
    reading.running < options.concurrency &&
    queue.length < window &&
    reading.nextOffset < end
  ) {
    reading.running++;
    const task = fetchRange(reading, reading.nextOffset, Math.min(pageSize, end - reading.nextOffset));
    // The rejection is observed when its turn comes; this only stops Node calling it unhandled meanwhile.
    task.then(
      () => {
        reading.running--;
        launch(reading);
      },
      () => {
        reading.running--;
      },
    );
    queue.push(task);
    reading.nextOffset += pageSize;
  }
}

/** A page's total, noted: the list moved when it differs from the first page's. */
function noteTotal<T>(reading: Reading<T>, total: number): void {
  reading.summary.finalTotal = total;
  if (total !== reading.first.total) reading.summary.moved = true;
}

/**
 * The pages up to the first total, in order, `concurrency` at a time. Returns false when a page brought
 * nothing new before the total: the pages in flight are let go, and nothing more is asked.
 */
async function* pagesInOrder<T>(reading: Reading<T>): AsyncGenerator<T[], boolean> {
  const { queue } = reading;
  try {
    launch(reading);
    while (queue.length > 0) {
      // The page stays in the queue (and counts against the window) until it has arrived.
      const page = await queue[0]!;
      queue.shift();
      const kept = fresh(reading, page.items);
      if (kept.length === 0) return false;
      launch(reading);
      noteTotal(reading, page.total);
      reading.fetched += page.items.length;
      reading.options.onProgress?.(reading.fetched, reading.end);
      yield kept;
    }
    return true;
  } finally {
    // Here, not in the caller: a page that finishes meanwhile launches nothing (a caller's finally comes a
    // turn of the event loop later).
    reading.stopped = true;
  }
}

/**
 * The list grew while it was read: records pushed past the first total (new ones at the top shift the rest
 * down) are fetched too, up to the total announced last, once: a list that keeps growing is not followed
 * forever.
 */
async function* pagesGrown<T>(reading: Reading<T>): AsyncGenerator<T[], void> {
  const grownTo = reading.summary.finalTotal;
  for (let offset = Math.max(reading.end, reading.start + reading.first.items.length); offset < grownTo; ) {
    const page = await fetchRange(reading, offset, Math.min(reading.pageSize, grownTo - offset));
    noteTotal(reading, page.total);
    const kept = fresh(reading, page.items);
    if (kept.length === 0) break;
    offset += page.items.length;
    reading.fetched += page.items.length;
    reading.options.onProgress?.(reading.fetched, grownTo);
    yield kept;
  }
}

async function* remainingPages<T>(
  fetchPage: (offset: number, limit: number) => Promise<Page<T>>,
  options: PaginateOptions<T>,
  start: number,
  first: Page<T>,
): AsyncGenerator<T[], PaginateSummary> {
  const summary: PaginateSummary = {
    total: first.total,
    startOffset: start,
    finalTotal: first.total,
    moved: false,
    yielded: 0,
    duplicatesDropped: 0,
  };
  const reading: Reading<T> = {
    fetchPage,
    options,
    first,
    start,
    summary,
    recent: [],
    fetched: first.items.length,
    pageSize: Math.min(options.pageSize, first.items.length),
    end: first.total,
    nextOffset: start + first.items.length,
    queue: [],
    running: 0,
    stopped: false,
  };
  options.onProgress?.(reading.fetched, first.total);
  yield fresh(reading, first.items);
  if (first.items.length === 0) return summary;
  if (yield* pagesInOrder(reading)) yield* pagesGrown(reading);
  return summary;
}

/** How a read fell short of a whole list: the records received and expected, and a total that moved. */
export interface Shortfall {
  received: number;
  expected: number;
  /** The total the first page announced and the last one did, when they differ (or moved between). */
  moved?: { from: number; to: number };
}

/**
 * Whether a read ended short of the whole list: fewer records than the first page's total announced from
 * the read's offset (repeated ids dropped), or a total that moved while it was read. What pix chose when the
 * total moves: the list is incomplete either way. A list that grew is read to its new end (remainingPages),
 * but the records that made it grow are in pages read already when they sit at the top; a list that shrank
 * shifted later records to offsets already read. Only reading it again gives a whole list. Undefined when
 * the read is whole.
 */
export function shortfall(summary: PaginateSummary): Shortfall | undefined {
  const expected = Math.max(0, summary.total - summary.startOffset);
  const moved = summary.moved || summary.finalTotal !== summary.total;
  if (summary.yielded >= expected && !moved) return undefined;
  return {
    received: summary.yielded,
    expected,
    ...(moved ? { moved: { from: summary.total, to: summary.finalTotal } } : {}),
  };
}
