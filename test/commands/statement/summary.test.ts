import { beforeEach, describe, expect, it } from 'vitest';
import { defaultUnit } from '../../../src/commands/statement/summary.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { intercept, mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';
import { pixWith } from '../../helpers/pix.js';
import { renderTerminal } from '../../helpers/terminal.js';

const PATH = '/api/financial/v1/account/transactions';
// 12:00 in São Paulo on 2025-03-10.
const NOW = new Date('2025-03-10T15:00:00.000Z');
// February 2025 in São Paulo (UTC-3), as parseMonth sends it.
const FEBRUARY = { dateFrom: '2025-02-01T03:00:00.000Z', dateTo: '2025-03-01T02:59:59.999Z' };

let serial = 0;
const entry = (confirmedAt: string, amount: number, fee = 0) => ({
  id: `e-${++serial}`,
  type: amount < 0 ? 'OUTCOME' : 'INCOME',
  amount,
  fee,
  status: 'CONFIRMED',
  confirmedAt,
});

// 0.1 + 0.2 in reais is not 0.3 in floating point; in centavos it is 30.
const ENTRIES = [
  entry('2025-02-03T12:00:00.000Z', 0.1), // Monday, week 6
  entry('2025-02-04T12:00:00.000Z', 0.2),
  entry('2025-02-09T23:30:00.000Z', -50.25, 1.5), // Sunday 20:30 in São Paulo: still week 6
  entry('2025-02-10T02:30:00.000Z', 1234.56), // Sunday 23:30 in São Paulo: week 6, not 7
  entry('2025-02-28T20:00:00.000Z', -10, 0.5), // week 9
];

const mock = mockAgentPerTest();
let env: Record<string, string>;
beforeEach(() => {
  env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: ORIGIN, PIX_TOKEN: 'test-token-summary' };
});
function interceptPage(
  range: { dateFrom: string; dateTo: string },
  results: unknown[],
  offset = 0,
  total?: number,
  limit = 100,
) {
  intercept(
    mock,
    PATH,
    { ...range, limit: String(limit), offset: String(offset) },
    {
      total: total ?? results.length,
      results,
    },
  );
}

const onAgent = pixWith(() => ({ env, dispatcher: mock.agent, clock: { now: () => NOW } }));
/** On a terminal, in colour (CLICOLOR_FORCE): the chart as a person sees it. */
const pix = (argv: string[], options: { tty?: boolean; columns?: number } = {}) =>
  onAgent(argv, { ...options, ...(options.tty ? { env: { CLICOLOR_FORCE: '1' } } : {}) });

describe('pix statement summary', () => {
  it('--json: every ISO week of the month in the profile zone, sums exact in centavos, the total', async () => {
    interceptPage(FEBRUARY, ENTRIES);
    const result = await pix(['statement', 'summary', '--month', '2025-02', '--by', 'week', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      periods: [
        { period: '2025-W05', count: 0, income: 0, outcome: 0, fees: 0, net: 0 },
        { period: '2025-W06', count: 4, income: 1234.86, outcome: -50.25, fees: 1.5, net: 1183.11 },
        { period: '2025-W07', count: 0, income: 0, outcome: 0, fees: 0, net: 0 },
        { period: '2025-W08', count: 0, income: 0, outcome: 0, fees: 0, net: 0 },
        { period: '2025-W09', count: 1, income: 0, outcome: -10, fees: 0.5, net: -10.5 },
      ],
      total: { count: 5, income: 1234.86, outcome: -60.25, fees: 2, net: 1172.61 },
    });
  });

  it('reads every page of the range (the flags may follow `summary`)', async () => {
    const many = Array.from({ length: 250 }, (_, i) =>
      entry(new Date(Date.parse('2025-02-01T03:00:00.000Z') + i * 3_600_000).toISOString(), 1.01),
    );
    interceptPage(FEBRUARY, many.slice(0, 100), 0, 250);
    interceptPage(FEBRUARY, many.slice(100, 200), 100, 250);
    interceptPage(FEBRUARY, many.slice(200), 200, 250, 50); // the last page asks only for what is left
    const result = await pix([
      'statement',
      'summary',
      '--from',
      '2025-02-01',
      '--to',
      '2025-02-28',
      '-o',
      'ndjson',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows).toHaveLength(28); // 28 days: --by day for a month or less
    expect(rows[0]).toEqual({
      period: '2025-02-01',
      count: 24,
      income: 24.24,
      outcome: 0,
      fees: 0,
      net: 24.24,
    });
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(250);
  });

  it('-o csv: a header and one row per period, plain decimals; piped: the same as TSV without header', async () => {
    interceptPage(FEBRUARY, ENTRIES);
    const csv = await pix(['statement', 'summary', '--month', '2025-02', '--by', 'month', '-o', 'csv']);
    expect(csv.stdout).toBe(
      'period,count,income,outcome,fees,net\r\n2025-02,5,1234.86,-60.25,2.00,1172.61\r\n',
    );
    interceptPage(FEBRUARY, ENTRIES);
    const tsv = await pix(['statement', 'summary', '--month', '2025-02', '--by', 'month']);
    expect(tsv.stdout).toBe('2025-02\t5\t1234.86\t-60.25\t2.00\t1172.61\n');
  });

  it('on a terminal: the chart, coloured, within the width, shown unwrapped by an 80-column terminal', async () => {
    interceptPage(FEBRUARY, ENTRIES);
    const result = await pix(['statement', 'summary', '--month', '2025-02', '--by', 'week'], {
      tty: true,
      columns: 80,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('\u001b[32m');
    const { lines } = await renderTerminal(result.stdout.replaceAll('\n', '\r\n'), 80, 40);
    const shown = lines.filter((line) => line !== '');
    expect(shown[0]).toBe('Income and outcome by week, 2025-02-01 to 2025-02-28 (America/Sao_Paulo)');
    // One terminal line per line written: nothing wrapped.
    expect(shown).toHaveLength(result.stdout.trimEnd().split('\n').length);
    expect(shown.join('\n')).toMatch(/^2025-W06 in {2}█+ +R\$ 1\.234,86$/m);
    expect(shown.join('\n')).toContain('total: 5 entries');
  });

  it('without flags: the current month up to now, by day', async () => {
    interceptPage({ dateFrom: '2025-03-01T03:00:00.000Z', dateTo: NOW.toISOString() }, []);
    const result = await pix(['statement', 'summary', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    const periods = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).period);
    expect(periods).toEqual(
      Array.from({ length: 10 }, (_, i) => `2025-03-${String(i + 1).padStart(2, '0')}`),
    );
  });

  it('says so when the server sends entries outside the range', async () => {
    interceptPage(FEBRUARY, [...ENTRIES, entry('2025-03-05T12:00:00.000Z', 99)]);
    const result = await pix(['statement', 'summary', '--month', '2025-02', '--json']);
    expect(JSON.parse(result.stdout).total.count).toBe(5);
    expect(result.stderr).toContain('warning: 1 entries outside the range');
  });

  it.each([
    [['--by', 'year'], '--by'],
    [['--from', 'tomorrow'], '--from'], // --from alone runs until now: a day still to come is refused
    [['--month', '2025-13'], '--month'],
    [['--from', '1700-01-01', '--to', '2025-01-01', '--by', 'day'], '--by'],
  ])('refuses %j with one line naming %s, exit 2, nothing sent', async (argv, flag) => {
    const result = await pix(['statement', 'summary', ...argv]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^error: ${flag}`));
  });

  // The list's paging and filters are not the summary's (a summary of all would pass for a filtered one).
  it.each([['--limit', '5'], ['--type', 'income'], ['--min', '10'], ['--follow']])(
    'refuses the list flag %s as unknown, saying whose it is, exit 2',
    async (flag, ...value) => {
      const result = await pix(['statement', 'summary', flag, ...value]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `error: unknown option '${flag}'\nhint: ${flag} is a flag of \`pix statement list\`, not of \`pix statement summary\`\n`,
      );
    },
  );
});

describe('defaultUnit', () => {
  it('days up to a month, weeks up to half a year, months beyond', () => {
    const range = (days: number) => ({
      dateFrom: '2025-01-01T03:00:00.000Z',
      dateTo: new Date(Date.parse('2025-01-01T03:00:00.000Z') + days * 86_400_000 - 1).toISOString(),
    });
    expect(defaultUnit(range(31))).toBe('day');
    expect(defaultUnit(range(32))).toBe('week');
    expect(defaultUnit(range(183))).toBe('week');
    expect(defaultUnit(range(184))).toBe('month');
  });
});
