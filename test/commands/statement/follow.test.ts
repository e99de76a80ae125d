import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SKEW_MARGIN_MS } from '../../../src/commands/shared/clocks.js';
import { oldestFirst } from '../../../src/commands/shared/newentries.js';
import { FOLLOW_PAGE } from '../../../src/commands/statement/follow.js';
import { run } from '../../../src/main.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { type FakeServer, startFakeServer } from '../../helpers/fake-server.js';
import { createTestIO, ndjsonIds as ids } from '../../helpers/io.js';
import { mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';

const PATH = '/api/financial/v1/account/transactions';
const NOW = new Date('2025-03-10T15:00:00.000Z');

/** Entry number n, confirmed n minutes after 12:00 UTC on 2025-03-10. */
const entry = (n: number, extra: Record<string, unknown> = {}) => ({
  id: `e-${n}`,
  type: n % 2 === 0 ? 'OUTCOME' : 'INCOME',
  amount: n % 2 === 0 ? -n : n + 0.5,
  fee: 0,
  status: 'CONFIRMED',
  method: 'PIX',
  confirmedAt: new Date(Date.UTC(2025, 2, 10, 12, n)).toISOString(),
  creditor: { name: `Payer ${n}`, bank: '001', documentNumber: '52998224725' },
  ...extra,
});
/** A page as the API lists it: newest first. */
const newestFirst = (numbers: number[]) => numbers.map((n) => entry(n)).reverse();
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const mock = mockAgentPerTest();
let env: Record<string, string>;
beforeEach(() => {
  env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: ORIGIN, PIX_TOKEN: 'test-token-follow' };
});
/** The polls' window: from the start (the clock is fixed) less the margin, to it plus the margin. */
const WINDOW = {
  dateFrom: new Date(NOW.getTime() - SKEW_MARGIN_MS).toISOString(),
  dateTo: new Date(NOW.getTime() + SKEW_MARGIN_MS).toISOString(),
};
/**
 * Answers the next statement read at `offset`: the first screen's page (no range), or a poll's window
 * (WINDOW), in the order the test registers them.
 */
function reply(
  offset: number,
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
  limit = FOLLOW_PAGE,
) {
  mock.agent
    .get(ORIGIN)
    .intercept({
      path: (path) => {
        const url = new URL(path, ORIGIN);
        const query = Object.fromEntries(url.searchParams);
        const windowed = query.dateFrom === WINDOW.dateFrom && query.dateTo === WINDOW.dateTo;
        return (
          url.pathname === PATH &&
          query.offset === String(offset) &&
          query.limit === String(limit) &&
          (windowed || (query.dateFrom === undefined && query.dateTo === undefined))
        );
      },
      method: 'GET',
    })
    .reply(status, body as object, { headers: { 'content-type': 'application/json', ...headers } });
}

/**
 * Runs `pix statement --follow …` in-process with a fake sleep that records every wait and presses
 * Ctrl-C (aborts deps.signal) at the `stopAtSleep`-th wait of the follow loop's own length.
 */
async function follow(
  argv: string[],
  stopAtSleep: number,
  options: { tty?: boolean; columns?: number } = {},
) {
  const controller = new AbortController();
  const sleeps: number[] = [];
  const test = createTestIO({ tty: options.tty ?? false, columns: options.columns ?? 80 });
  const code = await run(['statement', '--follow', ...argv], {
    io: test.io,
    env: { ...env, ...(options.tty ? { CLICOLOR_FORCE: '1' } : {}) },
    dispatcher: mock.agent,
    clock: { now: () => NOW },
    signal: controller.signal,
    sleep: async (ms) => {
      sleeps.push(ms);
      if (sleeps.length === stopAtSleep) controller.abort('SIGINT');
    },
  });
  return { code, stdout: test.stdout(), stderr: test.stderr(), sleeps };
}

describe('pix statement --follow', () => {
  it('prints the newest --limit entries oldest first, then only new entries, every 5 s, and Ctrl-C exits 130', async () => {
    reply(0, { total: 3, results: newestFirst([1, 2, 3]) });
    reply(0, { total: 5, results: newestFirst([1, 2, 3, 4, 5]) });
    reply(0, { total: 5, results: newestFirst([1, 2, 3, 4, 5]) });
    const result = await follow(['-o', 'ndjson', '--limit', '2'], 3);
    expect(result.code, result.stderr).toBe(130);
    expect(ids(result.stdout)).toEqual(['e-2', 'e-3', 'e-4', 'e-5']);
    expect(result.sleeps).toEqual([5000, 5000, 5000]);
    expect(result.stderr).not.toContain('error');
  });

  it('--interval sets the poll; a burst larger than a page is read page by page, each entry once, in order', async () => {
    reply(0, { total: 2, results: newestFirst([1, 2]) });
    const burst = newestFirst(range(1, 2 + 150));
    reply(0, { total: burst.length, results: burst.slice(0, FOLLOW_PAGE) });
    reply(FOLLOW_PAGE, { total: burst.length, results: burst.slice(FOLLOW_PAGE) }, 200, {}, 52);
    const result = await follow(['-o', 'ndjson', '--interval', '2s', '--limit', '0'], 2);
    expect(result.code, result.stderr).toBe(130);
    expect(ids(result.stdout)).toEqual(range(3, 152).map((n) => `e-${n}`));
    expect(result.sleeps).toEqual([2000, 2000]);
  });

  it('an entry that shows up below known ones (confirmed earlier) is printed too, once', async () => {
    reply(0, { total: 2, results: newestFirst([1, 5]) });
    reply(0, { total: 3, results: newestFirst([1, 3, 5]) });
    reply(0, { total: 3, results: newestFirst([1, 3, 5]) });
    const result = await follow(['-o', 'ndjson'], 3);
    expect(ids(result.stdout)).toEqual(['e-1', 'e-5', 'e-3']);
  });

  it('429 with Retry-After: the client waits what the server asks, then follow backs off, says so, and carries on', async () => {
    reply(0, { total: 1, results: newestFirst([1]) });
    for (let i = 0; i < 3; i++) {
      reply(0, { message: 'slow down' }, 429, { 'retry-after': '7' });
    }
    reply(0, { total: 2, results: newestFirst([1, 2]) });
    // Sleeps: poll wait, two Retry-After waits of the client, the backed-off wait, then Ctrl-C.
    const result = await follow(['-o', 'ndjson'], 5);
    expect(result.code, result.stderr).toBe(130);
    expect(result.sleeps).toEqual([5000, 7000, 7000, 10_000, 5000]);
    expect(result.stderr).toMatch(/warning: .*too many requests; trying again in 10 s/);
    expect(ids(result.stdout)).toEqual(['e-1', 'e-2']);
  });

  it('piped without -o: TSV rows as they arrive; -o csv: the header once', async () => {
    reply(0, { total: 1, results: newestFirst([1]) });
    reply(0, { total: 2, results: newestFirst([1, 2]) });
    const tsv = await follow([], 2);
    expect(
      tsv.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t').at(-1)),
    ).toEqual(['e-1', 'e-2']);
    reply(0, { total: 1, results: newestFirst([1]) });
    reply(0, { total: 2, results: newestFirst([1, 2]) });
    const csv = await follow(['-o', 'csv'], 2);
    const lines = csv.stdout.split('\r\n');
    expect(lines[0]).toMatch(/^confirmedAt,type,amount/);
    expect(lines.slice(1, 3).map((line) => line.split(',').at(-1))).toEqual(['e-1', 'e-2']);
  });

  it('on a terminal: aligned rows that fit the width, server text escaped, amounts coloured', async () => {
    const hostile = entry(2, { debtor: { name: 'Evil\u001b[2JCo' }, creditor: undefined });
    reply(0, { total: 1, results: newestFirst([1]) });
    reply(0, { total: 2, results: [hostile, entry(1)] });
    const result = await follow([], 2, { tty: true, columns: 80 });
    expect(result.code, result.stderr).toBe(130);
    const plain = result.stdout.replace(/\u001b\[\d+m/g, '');
    const lines = plain.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^Date\s+Type\s+Amount/);
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(lines[1]).toContain('2025-03-10 09:01');
    expect(lines[2]).toContain('Evil\\u001b[2JCo');
    expect(result.stdout).not.toContain('\u001b[2J');
    expect(result.stdout).toContain('\u001b[31m');
    expect(result.stderr).toContain('Ctrl-C to stop');
  });

  it.each([
    [['-o', 'json'], '--follow: cannot write one JSON document'],
    [['--from', 'today', '--to', 'today'], '--from'],
    [['--all'], '--all'],
    [['--interval', '0s'], '--interval'],
    [['--limit', '-1'], '--limit'],
    [['--limit', '1001'], '--limit: 1001 is more than 1000'],
  ])('refuses %j with one line naming %s, exit 2, nothing sent', async (argv, flag) => {
    const result = await follow(argv, 1);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(flag);
    expect(result.stdout).toBe('');
  });

  it('--interval without --follow is a usage error', async () => {
    const test = createTestIO();
    const code = await run(['statement', '--interval', '3s'], { io: test.io, env, dispatcher: mock.agent });
    expect(code).toBe(2);
    expect(test.stderr()).toContain('--interval: only goes with --follow');
  });
});

describe('pix statement --follow, Ctrl-C during a read', () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('ends with exit 130 (the signal) and what was printed, without "interrupted" or "error"', async () => {
    const controller = new AbortController();
    let calls = 0;
    server = await startFakeServer(() => {
      calls++;
      if (calls === 1) return { kind: 'json', status: 200, body: { total: 1, results: [entry(1)] } };
      setTimeout(() => controller.abort('SIGINT'), 20);
      return { kind: 'hang' };
    });
    const test = createTestIO();
    const code = await run(['statement', '--follow', '-o', 'ndjson', '--interval', '1s'], {
      io: test.io,
      env: { ...env, PIX_BASE_URL: server.url },
      signal: controller.signal,
      sleep: async () => {},
    });
    expect(code, test.stderr()).toBe(130);
    expect(ids(test.stdout())).toEqual(['e-1']);
    expect(test.stderr()).not.toContain('interrupted');
    expect(test.stderr()).not.toContain('error');
  });
});

describe('oldestFirst', () => {
  it('sorts by confirmedAt and keeps the given order for the same instant', () => {
    const a = entry(1, { id: 'a' });
    const b = entry(1, { id: 'b' });
    expect(oldestFirst([entry(3), b, a, entry(2)]).map((e) => e.id)).toEqual(['b', 'a', 'e-2', 'e-3']);
  });
});
