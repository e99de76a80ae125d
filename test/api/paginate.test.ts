import { describe, expect, it } from 'vitest';
import { type Page, paginate, shortfall } from '../../src/api/paginate.js';
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

  it('a list that grew at the top while paging: the records pushed past the end are fetched, nothing is short', async () => {
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
    expect(shortfall(summary)).toBeUndefined();
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
    expect(shortfall(summary)).toEqual({ received: 22, expected: 25 });
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
