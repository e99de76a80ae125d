import { describe, expect, it } from 'vitest';
import { createPager, type ListSource, MAX_PAGE_SIZE, type PageLimitStore } from '../../src/api/pager.js';
import { type Page, paginate, shortfall } from '../../src/api/paginate.js';
import { PixError } from '../../src/errors.js';
import { until } from '../helpers/wait.js';

interface Row {
  id: string;
}

const rows = (count: number): Row[] => Array.from({ length: count }, (_, index) => ({ id: `r${index}` }));

/** A fake list endpoint over `data`, capping pages at `cap`, recording every call and the peak concurrency. */
function fakeList(data: Row[], cap = Number.POSITIVE_INFINITY) {
  const calls: Array<{ offset: number; limit: number }> = [];
  let active = 0;
  let peak = 0;
  const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => {
    calls.push({ offset, limit });
    active++;
    peak = Math.max(peak, active);
    // Later pages answer sooner, so order can only come from the paginator, not from timing.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 20 - offset / 10)));
    active--;
    return { total: data.length, items: data.slice(offset, offset + Math.min(limit, cap)) };
  };
  return { fetchPage, calls, peak: () => peak };
}

async function collect(pagination: Awaited<ReturnType<typeof paginate<Row>>>) {
  const out: Row[] = [];
  let next = await pagination.pages.next();
  for (; !next.done; next = await pagination.pages.next()) out.push(...next.value);
  return { out, summary: next.value };
}

describe('paginate', () => {
  it('yields every record once, in API order, with bounded concurrency', async () => {
    const list = fakeList(rows(95));
    const pagination = await paginate(list.fetchPage, {
      pageSize: 10,
      concurrency: 4,
      idOf: (row) => row.id,
    });
    expect(pagination.total).toBe(95);
    const { out, summary } = await collect(pagination);
    expect(out.map((row) => row.id)).toEqual(rows(95).map((row) => row.id));
    expect(summary).toMatchObject({ total: 95, finalTotal: 95, yielded: 95, duplicatesDropped: 0 });
    expect(list.calls).toHaveLength(10);
    expect(list.peak()).toBe(4);
  });

  it('adapts when the server caps pages below the page size', async () => {
    const list = fakeList(rows(50), 7);
    const { out } = await collect(
      await paginate(list.fetchPage, { pageSize: 20, concurrency: 3, idOf: (row) => row.id }),
    );
    expect(out.map((row) => row.id)).toEqual(rows(50).map((row) => row.id));
    expect(list.calls.every((call) => call.limit <= 20)).toBe(true);
  });

  it('completes a page that comes back short in the middle', async () => {
    const data = rows(30);
    let shortened = false;
    const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => {
      const take = offset === 10 && !shortened ? 4 : limit;
      if (offset === 10) shortened = true;
      return { total: data.length, items: data.slice(offset, offset + take) };
    };
    const { out } = await collect(
      await paginate(fetchPage, { pageSize: 10, concurrency: 2, idOf: (row) => row.id }),
    );
    expect(out.map((row) => row.id)).toEqual(data.map((row) => row.id));
  });

  it('drops duplicate ids when entries shift between pages, and reports a moved total', async () => {
    let data = rows(20);
    const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => {
      const page = { total: data.length, items: data.slice(offset, offset + limit) };
      // A new entry lands at the top after the first page: everything shifts down by one.
      if (offset === 0) data = [{ id: 'new' }, ...data];
      return page;
    };
    const { out, summary } = await collect(
      await paginate(fetchPage, { pageSize: 10, concurrency: 1, idOf: (row) => row.id }),
    );
    expect(new Set(out.map((row) => row.id)).size).toBe(out.length);
    expect(summary.duplicatesDropped).toBe(1);
    expect(summary.finalTotal).toBe(21);
  });

  it('a shift of more than a page (15 new entries after the first page of 10) still drops the 10 repeats of the first page', async () => {
    let data = rows(40);
    const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => {
      const page = { total: data.length, items: data.slice(offset, offset + limit) };
      if (offset === 0) data = [...rows(15).map((row) => ({ id: `new-${row.id}` })), ...data];
      return page;
    };
    const { out, summary } = await collect(
      await paginate(fetchPage, { pageSize: 10, concurrency: 1, idOf: (row) => row.id }),
    );
    expect(new Set(out.map((row) => row.id)).size).toBe(out.length);
    expect(summary.duplicatesDropped).toBe(10);
  });

  it('remembers the ids of the two pages before, not of the whole export: memory stays flat', async () => {
    // A server that answers page 5 with page 1 again: three pages back, past any shift of the list, so
    // the export does not hold the ids that would catch it (an export of 100,000 holds 200, not 100,000).
    const data = rows(60);
    const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => ({
      total: 60,
      items: data.slice(offset === 40 ? 0 : offset, (offset === 40 ? 0 : offset) + limit),
    });
    const { out, summary } = await collect(
      await paginate(fetchPage, { pageSize: 10, concurrency: 1, idOf: (row) => row.id }),
    );
    expect(summary.duplicatesDropped).toBe(0);
    expect(out.slice(40, 50).map((row) => row.id)).toEqual(data.slice(0, 10).map((row) => row.id));
  });

  it('starts at an offset and handles an empty list', async () => {
    const list = fakeList(rows(25));
    const { out } = await collect(
      await paginate(list.fetchPage, { pageSize: 10, concurrency: 2, startOffset: 5, idOf: (row) => row.id }),
    );
    expect(out[0]?.id).toBe('r5');
    expect(out).toHaveLength(20);
    const empty = await paginate(fakeList([]).fetchPage, {
      pageSize: 10,
      concurrency: 2,
      idOf: (row) => row.id,
    });
    expect(empty.total).toBe(0);
    expect((await collect(empty)).out).toEqual([]);
  });

  it('an export cut short by the server (empty pages from offset 500 of 1000) is short: received 500 of 1000', async () => {
    const data = rows(500);
    const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => ({
      total: 1000,
      items: data.slice(offset, offset + limit),
    });
    const { out, summary } = await collect(
      await paginate(fetchPage, { pageSize: 100, concurrency: 4, idOf: (row) => row.id }),
    );
    expect(out).toHaveLength(500);
    expect(shortfall(summary)).toEqual({ received: 500, expected: 1000 });
  });

  it.each([
    ['empty pages', (_offset: number) => [] as Row[]],
    ['the first page again', (_offset: number) => rows(100)],
  ])(
    'a total that lies (a million), then %s: stops at the first page with nothing new',
    async (_name, after) => {
      let calls = 0;
      const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => {
        calls++;
        return { total: 1_000_000, items: offset === 0 ? rows(limit) : after(offset).slice(0, limit) };
      };
      const { out, summary } = await collect(
        await paginate(fetchPage, { pageSize: 100, concurrency: 4, idOf: (row) => row.id }),
      );
      expect(out).toHaveLength(100);
      expect(shortfall(summary)).toEqual({ received: 100, expected: 1_000_000 });
      // The first page, and the pages already in flight when the first empty one was read (the window).
      expect(calls).toBeLessThanOrEqual(1 + 4 * 2);
    },
  );

  it('repeated ids do not count: a server repeating a page instead of the next is short', async () => {
    const data = rows(30);
    const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => ({
      total: 30,
      // Offset 20 answers the page of offset 10 again.
      items: data.slice(offset === 20 ? 10 : offset, (offset === 20 ? 10 : offset) + limit),
    });
    const { summary } = await collect(
      await paginate(fetchPage, { pageSize: 10, concurrency: 1, idOf: (row) => row.id }),
    );
    expect(summary.duplicatesDropped).toBe(10);
    expect(shortfall(summary)).toEqual({ received: 20, expected: 30 });
  });

  it('a list that grew at the top while paging: the records pushed past the end are fetched, and the read is incomplete (the new ones sit in pages read already)', async () => {
    let data = rows(20);
    const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => {
      const page = { total: data.length, items: data.slice(offset, offset + limit) };
      if (offset === 0) data = [{ id: 'new-1' }, { id: 'new-2' }, ...data];
      return page;
    };
    const { out, summary } = await collect(
      await paginate(fetchPage, { pageSize: 10, concurrency: 1, idOf: (row) => row.id }),
    );
    expect(out.map((row) => row.id).sort()).toEqual(
      rows(20)
        .map((row) => row.id)
        .sort(),
    );
    expect(summary.finalTotal).toBe(22);
    expect(shortfall(summary)).toEqual({ received: 20, expected: 20, moved: { from: 20, to: 22 } });
  });

  it('a list that shrank while paging is short (records shifted past the pages read), with an offset too', async () => {
    let data = rows(30);
    const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => {
      const page = { total: data.length, items: data.slice(offset, offset + limit) };
      if (offset === 5) data = data.slice(3); // three of the first records deleted meanwhile
      return page;
    };
    const { summary } = await collect(
      await paginate(fetchPage, { pageSize: 10, concurrency: 1, startOffset: 5, idOf: (row) => row.id }),
    );
    expect(summary.finalTotal).toBe(27);
    expect(shortfall(summary)).toEqual({ received: 22, expected: 25, moved: { from: 30, to: 27 } });
  });

  it('passes a failing page on, in its turn', async () => {
    const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => {
      if (offset === 20) throw new Error('page 3 failed');
      return { total: 40, items: rows(40).slice(offset, offset + limit) };
    };
    const pagination = await paginate(fetchPage, { pageSize: 10, concurrency: 4, idOf: (row) => row.id });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const page of pagination.pages) for (const row of page) seen.push(row.id);
      })(),
    ).rejects.toThrow('page 3 failed');
    expect(seen).toHaveLength(20);
  });
});

describe('paginate scheduling', () => {
  it('a slow page does not idle the other slots, and buffered pages stay bounded', async () => {
    const data = rows(200);
    const started: number[] = [];
    let releaseSlow: () => void = () => {};
    const fetchPage = async (offset: number, limit: number): Promise<Page<Row>> => {
      started.push(offset);
      // The page at offset 10 hangs until released; every other page answers at once.
      if (offset === 10) await new Promise<void>((resolve) => (releaseSlow = resolve));
      else await new Promise((resolve) => setImmediate(resolve));
      return { total: data.length, items: data.slice(offset, offset + limit) };
    };
    const pagination = await paginate(fetchPage, { pageSize: 10, concurrency: 2, idOf: (row) => row.id });
    const reading = collect(pagination);
    // While offset 10 hangs, the other slot kept fetching, up to the window of 2 × concurrency pages…
    await until(() => started.length - 1 >= 4, 'the other slot to fill the window');
    // …and no further, however many turns the event loop takes.
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(started.length - 1).toBe(4);
    releaseSlow();
    const { out } = await reading;
    expect(out.map((row) => row.id)).toEqual(data.map((row) => row.id));
  });
});

/** A list source over `data` whose server refuses (400) a `limit` above `max`, recording every request. */
function refusingSource(data: Row[], max: number, options: { clampAt?: number } = {}) {
  const asked: Array<{ offset: number; limit: number }> = [];
  const source: ListSource<Row> = {
    list: 'statement',
    async fetch(offset, limit) {
      asked.push({ offset, limit });
      if (limit > max) throw new PixError('rejected', 'reading: the request was refused', { status: 400 });
      const take = Math.min(limit, options.clampAt ?? limit);
      return { total: data.length, items: data.slice(offset, offset + take) };
    },
    idOf: (row) => row.id,
  };
  return { source, asked };
}

/** A PageLimitStore in memory (the wiring's is the config directory's page-limits.json). */
function memoryStore() {
  const kept = new Map<string, number>();
  const store: PageLimitStore = {
    read: async (list) => kept.get(list),
    remember: async (list, limit) => {
      kept.set(list, limit);
    },
  };
  return { store, kept };
}

describe('the pager: one paging rule for every list read', () => {
  it(`never asks more than ${MAX_PAGE_SIZE} records a request: a page of 250 is three requests`, async () => {
    const { source, asked } = refusingSource(rows(1000), Number.POSITIVE_INFINITY);
    const page = await createPager().page(source, 0, 250);
    expect(page.items.map((row) => row.id)).toEqual(rows(250).map((row) => row.id));
    expect(asked).toEqual([
      { offset: 0, limit: 100 },
      { offset: 100, limit: 100 },
      { offset: 200, limit: 50 },
    ]);
  });

  it.each([10, 37, 50, 99])(
    'a server that refuses pages above %i: the pager learns it, remembers it, and a later pager asks it at once',
    async (max) => {
      const { store, kept } = memoryStore();
      const first = refusingSource(rows(300), max);
      const read = await createPager(store).all(first.source, {
        what: 'the statement',
        consequence: 'nothing was sent',
      });
      expect(read).toHaveLength(300);
      expect(kept.get('statement')).toBe(max);
      // Learning costs a refusal and a halving of the gap: a handful of requests, once.
      const refused = first.asked.filter((call) => call.limit > max);
      expect(refused.length).toBeLessThanOrEqual(8);
      const later = refusingSource(rows(300), max);
      await createPager(store).all(later.source, { what: 'the statement', consequence: 'nothing was sent' });
      expect(later.asked.every((call) => call.limit <= max)).toBe(true);
      expect(later.asked).toHaveLength(Math.ceil(300 / max));
    },
  );

  it('a 400 that one record gets too is not about the page size: the refusal stands, nothing learned', async () => {
    const { store, kept } = memoryStore();
    const asked: number[] = [];
    const source: ListSource<Row> = {
      list: 'keys',
      async fetch(_offset, limit) {
        asked.push(limit);
        throw new PixError('rejected', 'listing PIX keys: the request was refused', { status: 400 });
      },
      idOf: (row) => row.id,
    };
    await expect(createPager(store).page(source, 0, 100)).rejects.toThrow(
      'listing PIX keys: the request was refused',
    );
    expect(asked).toEqual([100, 10, 1]);
    expect(kept.size).toBe(0);
  });

  it('a server that clamps pages (answers 30 whatever is asked) is read whole, at the offsets it reached', async () => {
    const { source } = refusingSource(rows(95), Number.POSITIVE_INFINITY, { clampAt: 30 });
    const read = await createPager().all(source, { what: 'the statement', consequence: 'nothing was sent' });
    expect(read.map((row) => row.id)).toEqual(rows(95).map((row) => row.id));
  });

  it.each([
    [
      'a short page (the 101st record never handed out)',
      (data: Row[], offset: number, limit: number) =>
        data.filter((_, index) => index !== 100).slice(offset, offset + limit),
      /the statement is incomplete: received 158 of 159 records the server announced/,
    ],
    [
      'an empty page before the total',
      (data: Row[], offset: number, limit: number) =>
        offset >= 100 ? [] : data.slice(offset, offset + limit),
      /the statement is incomplete: received 100 of 159 records the server announced/,
    ],
  ])('all(): %s is an incomplete read, exit 6, nothing returned', async (_name, answer, message) => {
    const data = rows(159);
    const source: ListSource<Row> = {
      list: 'statement',
      fetch: async (offset, limit) => ({ total: 159, items: answer(data, offset, limit) }),
      idOf: (row) => row.id,
    };
    const failure = await createPager()
      .all(source, { what: 'the statement', consequence: 'nothing was sent' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PixError);
    expect((failure as PixError).exitCode).toBe(6);
    expect((failure as PixError).message).toMatch(message);
    expect((failure as PixError).hint).toBe('nothing was sent');
  });

  it('all(): a total that changes mid-read is an incomplete read', async () => {
    let total = 150;
    const source: ListSource<Row> = {
      list: 'statement',
      async fetch(offset, limit) {
        const page = { total, items: rows(total).slice(offset, offset + limit) };
        total = 151; // a debit lands after the first page
        return page;
      },
      idOf: (row) => row.id,
    };
    await expect(
      createPager().all(source, { what: 'the statement', consequence: 'nothing was sent' }),
    ).rejects.toThrow("the statement is incomplete: the server's total changed while it was read (150 → 151");
  });
});
