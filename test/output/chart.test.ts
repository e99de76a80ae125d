import { describe, expect, it } from 'vitest';
import { PeriodSummary } from '../../src/domain/periods.js';
import { parseMonth } from '../../src/domain/when.js';
import { bar, type ChartPalette, renderSummaryChart } from '../../src/output/chart.js';
import { renderTerminal } from '../helpers/terminal.js';

const rows = [
  { period: '2026-W10', income: 1_234_56, outcome: -402_10 },
  { period: '2026-W11', income: 3_518_90, outcome: -1_250_00 },
  { period: '2026-W12', income: 0, outcome: 0 },
  { period: '2026-W13', income: 987_65, outcome: -3_00 },
];
const total = { count: 42, income: 5_741_11, outcome: -1_655_10, fees: 12_50, net: 4_073_51 };
const title = 'Income and outcome by week, 2026-03-02 to 2026-03-29';

const linesOf = (text: string) => text.split('\n').slice(0, -1);
/** Colour as a real terminal gets it (SGR codes), and its removal. */
const ansi: ChartPalette = {
  green: (t) => `\u001b[32m${t}\u001b[39m`,
  red: (t) => `\u001b[31m${t}\u001b[39m`,
  dim: (t) => `\u001b[2m${t}\u001b[22m`,
};
const stripAnsi = (text: string) => text.replace(/\u001b\[\d+m/g, '');

describe('bar', () => {
  it('draws to the eighth of a column', () => {
    expect(bar(8, 8, 1)).toBe('█');
    expect(bar(1, 8, 1)).toBe('▏');
    expect(bar(4, 8, 1)).toBe('▌');
    expect(bar(7, 8, 1)).toBe('▉');
    expect(bar(3, 8, 2)).toBe('▊'); // 3/8 of 2 columns = 6 eighths
    expect(bar(5, 8, 1)).toBe('▋');
    expect(bar(11, 16, 2)).toBe('█▍'); // 11 eighths
    expect(bar(100, 100, 50)).toBe('█'.repeat(50));
  });

  it('shows any value above zero, never more than the columns, nothing for zero or less', () => {
    expect(bar(1, 1_000_000, 10)).toBe('▏');
    expect(bar(2, 1, 5)).toBe('█████');
    expect(bar(0, 100, 10)).toBe('');
    expect(bar(-5, 100, 10)).toBe('');
    expect(bar(5, 0, 10)).toBe('');
    expect(bar(5, 10, 0)).toBe('');
  });
});

describe('renderSummaryChart', () => {
  it('draws the README picture at 80 columns', () => {
    expect(renderSummaryChart(rows, total, { width: 80, title })).toBe(
      [
        'Income and outcome by week, 2026-03-02 to 2026-03-29',
        '2026-W10 in  ███████████████████                                     R$ 1.234,56',
        '         out ██████▏                                                  -R$ 402,10',
        '2026-W11 in  ██████████████████████████████████████████████████████  R$ 3.518,90',
        '         out ███████████████████▏                                   -R$ 1.250,00',
        '2026-W12 in                                                              R$ 0,00',
        '         out                                                             R$ 0,00',
        '2026-W13 in  ███████████████▏                                          R$ 987,65',
        '         out ▏                                                          -R$ 3,00',
        '────────────────────────────────────────────────────────────────────────────────',
        'total: 42 entries',
        '  in    R$ 5.741,11',
        '  out  -R$ 1.655,10',
        '  fees     R$ 12,50',
        '  net   R$ 4.073,51',
        '',
      ].join('\n'),
    );
  });

  it('scales every bar to the widest value, income and outcome alike', () => {
    const lines = linesOf(renderSummaryChart(rows, total, { width: 120 }));
    const eighths = (line: string) =>
      [...line].reduce((n, c) => n + (c === '█' ? 8 : '▏▎▍▌▋▊▉'.indexOf(c) + 1), 0);
    const widest = eighths(lines[2]!); // 2026-W11 income, the largest value
    expect(lines[2]).toContain('█'.repeat(widest / 8));
    for (const [index, value] of [
      [0, 1_234_56],
      [1, 402_10],
      [3, 1_250_00],
      [6, 987_65],
    ] as const) {
      expect(
        Math.abs(eighths(lines[index]!) - (value / 3_518_90) * widest),
        lines[index],
      ).toBeLessThanOrEqual(0.5);
    }
  });

  it.each([40, 80, 120, 200])(
    'fits %i columns, and a terminal of that width shows it unwrapped',
    async (width) => {
      const text = renderSummaryChart(rows, total, { width, title, palette: ansi });
      const plainLines = linesOf(stripAnsi(text));
      for (const line of plainLines) expect(line.length, line).toBeLessThanOrEqual(width);
      // Every amount is there, whole.
      for (const amount of [
        'R$ 1.234,56',
        '-R$ 402,10',
        'R$ 3.518,90',
        '-R$ 1.250,00',
        '-R$ 3,00',
        'R$ 4.073,51',
      ]) {
        expect(
          plainLines.some((line) => line.includes(amount)),
          amount,
        ).toBe(true);
      }
      const { lines } = await renderTerminal(text.replaceAll('\n', '\r\n'), width, 40);
      expect(lines).toEqual(plainLines.map((line) => line.trimEnd()));
    },
  );

  it('puts the totals on one line when they fit', () => {
    const lines = linesOf(renderSummaryChart(rows, total, { width: 120 }));
    expect(lines.at(-1)).toBe(
      'total: 42 entries  in R$ 5.741,11  out -R$ 1.655,10  fees R$ 12,50  net R$ 4.073,51',
    );
  });

  it('degrades on narrow terminals: label above the bars, then no bars, then lines cut', () => {
    const under = linesOf(renderSummaryChart(rows, total, { width: 30 }));
    expect(under.slice(0, 3)).toEqual([
      '2026-W10',
      '  in  ███▉         R$ 1.234,56',
      '  out █▎            -R$ 402,10',
    ]);
    const bare = linesOf(renderSummaryChart(rows, total, { width: 20 }));
    expect(bare.slice(0, 3)).toEqual(['2026-W10', ' in   R$ 1.234,56', ' out   -R$ 402,10']);
    expect(bare.join('')).not.toMatch(/[█▏▎▍▌▋▊▉]/);
    const cut = linesOf(renderSummaryChart(rows, total, { width: 12 }));
    expect(cut.slice(0, 3)).toEqual(['2026-W10', ' in   R$ 1.…', ' out   -R$ …']);
  });

  it('never writes a line wider than asked, from 1 to 200 columns, coloured or not', () => {
    const wide = [{ period: '2026-03-12', income: 123_456_789_012_34, outcome: -1 }];
    const many = {
      count: 1_000_000,
      income: 123_456_789_012_34,
      outcome: -1,
      fees: 0,
      net: 123_456_789_012_33,
    };
    for (let width = 1; width <= 200; width++) {
      for (const [chartRows, chartTotal] of [
        [rows, total],
        [wide, many],
      ] as const) {
        const text = stripAnsi(renderSummaryChart(chartRows, chartTotal, { width, title, palette: ansi }));
        for (const line of linesOf(text)) expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
      }
    }
  });

  it('paints bars and amounts with the palette given, and the text is the plain form', () => {
    const tags: ChartPalette = {
      green: (t) => `<g>${t}</g>`,
      red: (t) => `<r>${t}</r>`,
      dim: (t) => `<d>${t}</d>`,
    };
    const painted = renderSummaryChart(rows, total, { width: 80, title, palette: tags });
    expect(painted.replace(/<\/?[grd]>/g, '')).toBe(renderSummaryChart(rows, total, { width: 80, title }));
    expect(linesOf(painted)[1]).toBe(
      // 54 columns of bar, 19 drawn; a space; the amount right-aligned to 12 columns, its padding unpainted.
      `2026-W10<d> in  </d><g>${'█'.repeat(19)}</g>${' '.repeat(35 + 1 + 1)}<g>R$ 1.234,56</g>`,
    );
    expect(painted).toContain('<r>-R$ 1.655,10</r>');
    expect(painted).not.toMatch(/<[gr]> /); // no colour on alignment spaces
    expect(painted).toContain('<g>R$ 4.073,51</g>'); // net above zero
    // An empty bar is not painted (no colour codes around nothing).
    expect(painted).not.toContain('<g></g>');
  });

  it('shows a title with control characters escaped, cut to the width', () => {
    const lines = linesOf(renderSummaryChart([], total, { width: 30, title: 'March\u001b[2J report\u202e' }));
    expect(lines[0]).toBe('March\\u001b[2J report\\u202e');
    expect(linesOf(renderSummaryChart([], total, { width: 10, title: 'a long title here' }))[0]).toBe(
      'a long ti…',
    );
  });

  it('draws nothing but the totals without periods, and zero periods without bars', () => {
    const none = { count: 0, income: 0, outcome: 0, fees: 0, net: 0 };
    expect(renderSummaryChart([], none, { width: 80 })).toBe(
      'total: 0 entries  in R$ 0,00  out R$ 0,00  fees R$ 0,00  net R$ 0,00\n',
    );
    const summary = new PeriodSummary(
      'week',
      parseMonth('2026-03', 'America/Sao_Paulo'),
      'America/Sao_Paulo',
    );
    const text = renderSummaryChart(summary.periods(), summary.total(), { width: 80 });
    expect(text).not.toMatch(/[█▏▎▍▌▋▊▉]/);
    expect(linesOf(text)).toHaveLength(6 * 2 + 2);
    expect(text).toContain('total: 0 entries');
    expect(renderSummaryChart([], { ...none, count: 1 }, { width: 80 })).toMatch(/^total: 1 entry {2}in/);
  });
});
