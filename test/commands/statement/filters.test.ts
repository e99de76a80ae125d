import { beforeEach, describe, expect, it } from 'vitest';
import { FOLLOW_PAGE } from '../../../src/commands/statement/follow.js';
import { run } from '../../../src/main.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { createTestIO, ndjsonIds as ids } from '../../helpers/io.js';
import { intercept, mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';
import { pixWith } from '../../helpers/pix.js';

const PATH = '/api/financial/v1/account/transactions';
const NOW = new Date('2025-03-10T15:00:00.000Z');

const entry = (
  id: string,
  type: 'INCOME' | 'OUTCOME',
  amount: number,
  name: string,
  documentNumber: string,
) => ({
  id,
  type,
  amount,
  fee: type === 'OUTCOME' ? 1.5 : 0,
  status: 'CONFIRMED',
  method: 'PIX',
  confirmedAt: '2025-03-09T13:04:05.000Z',
  ...(type === 'INCOME'
    ? { creditor: { name, bank: '001', documentNumber } }
    : { debtor: { name, bank: '237', documentNumber } }),
});
const maria = entry('in-maria', 'INCOME', 150.5, 'Maria Conceição Santos', '52998224725');
const joao = entry('in-joao', 'INCOME', 10, 'João Pereira Lima', '39053344705');
const mercado = entry('out-mercado', 'OUTCOME', -200, 'Mercado Bom Preço Ltda', '04252011000110');
const page = [maria, joao, mercado];

const mock = mockAgentPerTest();
let env: Record<string, string>;
beforeEach(() => {
  env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: ORIGIN, PIX_TOKEN: 'test-token-filters' };
});

const pix = pixWith(() => ({ columns: 80, env, dispatcher: mock.agent, clock: { now: () => NOW } }));

describe('pix statement filters', () => {
  it.each([
    [
      ['--type', 'income'],
      ['in-maria', 'in-joao'],
    ],
    [['--type', 'outcome'], ['out-mercado']],
    [['--counterparty', 'conceicao'], ['in-maria']],
    [['--counterparty', '04.252.011'], ['out-mercado']],
    [
      ['--min', '100'],
      ['in-maria', 'out-mercado'],
    ],
    [
      ['--max', '150,50'],
      ['in-maria', 'in-joao'],
    ],
    [['--type', 'income', '--min', 'R$ 100'], ['in-maria']],
  ])('%j keeps only the matching entries of the page', async (flags, expected) => {
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 3, results: page });
    const result = await pix(['statement', '-o', 'ndjson', ...flags]);
    expect(result.code, result.stderr).toBe(0);
    expect(ids(result.stdout)).toEqual(expected);
  });

  it('the totals line counts only what is shown; the next-page hint repeats the filters', async () => {
    intercept(mock, PATH, { limit: '3', offset: '0' }, { total: 9, results: page });
    const result = await pix(['statement', '--limit', '3', '--type', 'income', '--counterparty', 'João P']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toContain('in-joao');
    expect(result.stderr).toContain('1 entry: in 10.00, out 0.00, fees 0.00, net 10.00');
    expect(result.stderr).toContain(
      "showing 1-3 of 9 (1 matched the filters, 2 left out; --all filters every entry); next: pix statement --type income --counterparty 'João P' --limit 3 --offset 3",
    );
  });

  it('a page where nothing matches, on a terminal: said, zero totals, and the next page', async () => {
    intercept(mock, PATH, { limit: '3', offset: '0' }, { total: 9, results: page });
    const result = await pix(['statement', '--limit', '3', '--counterparty', 'nobody'], { tty: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    // Wrapped to the terminal's 80 columns at a space.
    expect(result.stderr.replaceAll('\n', ' ')).toContain(
      'no entries match the filters among entries 1-3 of 9 (3 left out): the filters apply to this page; add --all to filter every entry',
    );
    expect(result.stderr).toContain('0 entries: in R$ 0,00, out R$ 0,00, fees R$ 0,00, net R$ 0,00');
    expect(result.stderr).toContain('next: pix statement --counterparty nobody --limit 3 --offset 3');
  });

  it('--json: the page object with only the entries kept', async () => {
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 3, results: page });
    const result = await pix(['statement', '--json', '--type', 'outcome']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ total: 3, results: [mercado] });
  });

  it('--all: every page filtered, CSV rows and totals only for what is shown', async () => {
    const pinned = { dateFrom: '2000-01-01T00:00:00.000Z', dateTo: NOW.toISOString() };
    intercept(mock, PATH, { ...pinned, limit: '2', offset: '0' }, { total: 3, results: page.slice(0, 2) });
    intercept(mock, PATH, { ...pinned, limit: '1', offset: '2' }, { total: 3, results: page.slice(2) });
    const result = await pix(['statement', '--all', '--limit', '2', '-o', 'csv', '--min', '100']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\r\n');
    expect(rows).toHaveLength(3); // header + maria + mercado
    expect(rows[1]).toContain('in-maria');
    expect(rows[2]).toContain('out-mercado');
  });

  it('--follow prints only what matches, from the first page and later polls', async () => {
    const reply = (results: unknown[]) =>
      mock.agent
        .get(ORIGIN)
        .intercept({ path: PATH, method: 'GET', query: { limit: String(FOLLOW_PAGE), offset: '0' } })
        .reply(200, { total: results.length, results } as object, {
          headers: { 'content-type': 'application/json' },
        });
    const later = entry('in-maria-2', 'INCOME', 99, 'MARIA Conceicao', '52998224725');
    reply(page);
    reply([later, ...page]);
    const controller = new AbortController();
    let sleeps = 0;
    const test = createTestIO({ tty: false, columns: 80 });
    const code = await run(['statement', '--follow', '-o', 'ndjson', '--counterparty', 'maria'], {
      io: test.io,
      env,
      dispatcher: mock.agent,
      clock: { now: () => NOW },
      signal: controller.signal,
      sleep: async () => {
        if (++sleeps === 2) controller.abort('SIGINT');
      },
    });
    expect(code, test.stderr()).toBe(130);
    expect(ids(test.stdout())).toEqual(['in-maria', 'in-maria-2']);
  });

  it.each([
    [['--type', 'in'], '--type: "in" is not an entry type'],
    [['--min', '-5'], '--min: '],
    [['--max', '1,234'], '--max: '],
    [['--min', '10', '--max', '5'], '--max: is less than --min'],
    [['--counterparty', ' '], '--counterparty: needs a name or a document'],
    [['--follow', '--min', 'abc'], '--min: '],
  ])('%j is exit 2 naming the flag, before anything is read', async (flags, message) => {
    const result = await pix(['statement', ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: ${message}`);
    expect(result.stdout).toBe('');
  });
});
