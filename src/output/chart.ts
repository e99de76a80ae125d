/**
 * The statement summary as a bar chart for people (`pix statement summary` on a terminal): per period
 * an income bar and an outcome bar, both scaled to the widest value of the chart, drawn with Unicode
 * block characters to an eighth of a column, the amount (`R$ 1.234,56`) at the end of each bar, and
 * the totals below.
 *
 *   2026-W10    in  ██████████████████████████████████▌        R$ 1.234,56
 *               out ███████████▎                                -R$ 402,10
 *
 * Every line fits `width` columns. Narrower terminals get, in turn: the label on a line of its own
 * above its two bars; no bars, only the amounts; and finally lines cut with `…`. A value above zero
 * always shows at least an eighth of a column, so no income or outcome looks like none.
 *
 * Pure: it returns text. Colour is our own palette, applied after the text is laid out (every piece
 * is our own text: labels, amounts, blocks; the optional title goes through the sanitizer first).
 */
import { type Centavos, formatBRL } from '../domain/money.js';
import { safeText, truncate } from './sanitize.js';

/** The colours the chart uses (output/format.ts's Palette has them); identity functions for none. */
export interface ChartPalette {
  green(text: string): string;
  red(text: string): string;
  dim(text: string): string;
}

/** One period of the chart (domain/periods PeriodSums has these fields). */
export interface ChartRow {
  period: string;
  income: Centavos;
  /** Negative or zero. */
  outcome: Centavos;
}

/** The totals printed under the bars (domain/periods Sums). */
export interface ChartTotal {
  count: number;
  income: Centavos;
  outcome: Centavos;
  fees: Centavos;
  net: Centavos;
}

export interface ChartOptions {
  /** Columns available; every line is at most this wide (at least 1 is assumed). */
  width: number;
  /** Colours; none (plain text) when absent. */
  palette?: ChartPalette | undefined;
  /** A first line, e.g. "Income and outcome by week, 2026-03-01 to 2026-03-31". */
  title?: string | undefined;
}

const plain = (text: string) => text;
export const PLAIN_CHART: ChartPalette = { green: plain, red: plain, dim: plain };

const FULL = '█';
/** An eighth of a column up to seven eighths: ▏▎▍▌▋▊▉. */
const PARTIAL = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const MARKER = 3; // "in " / "out"
/** The fewest columns worth drawing a bar in, beside the label and under it. */
const MIN_BAR_BESIDE = 8;
const MIN_BAR_UNDER = 4;

/** A bar of `value` on a scale where `max` fills `columns`, to the eighth of a column. */
export function bar(value: number, max: number, columns: number): string {
  if (value <= 0 || max <= 0 || columns <= 0) return '';
  const eighths = Math.min(columns * 8, Math.max(1, Math.round((value / max) * columns * 8)));
  return FULL.repeat(Math.floor(eighths / 8)) + PARTIAL[eighths % 8];
}

interface Line {
  /** Layout text (what the width counts). */
  text: string;
  /** The same with colour. */
  painted: string;
}

function line(parts: Piece[]): Line {
  return {
    text: parts.map(([text]) => text).join(''),
    painted: parts.map(([text, paint]) => (paint && text !== '' ? paint(text) : text)).join(''),
  };
}

type Piece = [string, ((text: string) => string) | undefined];

/** An amount right-aligned in `width` columns: the padding stays unpainted, only the figure is coloured. */
function amountPieces(amount: string, width: number, paint?: (text: string) => string): Piece[] {
  return [
    [' '.repeat(Math.max(0, width - amount.length)), undefined],
    [amount, paint],
  ];
}

/** The totals: on one line when it fits, else one figure a line, amounts aligned. */
function totalLines(total: ChartTotal, width: number, paint: ChartPalette): Line[] {
  const figures: Array<[string, Centavos, ((text: string) => string) | undefined]> = [
    ['in', total.income, paint.green],
    ['out', total.outcome, paint.red],
    ['fees', total.fees, undefined],
    ['net', total.net, total.net < 0 ? paint.red : total.net > 0 ? paint.green : undefined],
  ];
  const head = `total: ${total.count} ${total.count === 1 ? 'entry' : 'entries'}`;
  const oneLine: Piece[] = [[head, undefined]];
  for (const [name, value, colour] of figures)
    oneLine.push([`  ${name} `, undefined], [formatBRL(value), colour]);
  const single = line(oneLine);
  if (single.text.length <= width) return [single];
  const amountWidth = Math.max(...figures.map(([, value]) => formatBRL(value).length));
  return [
    line([[head, undefined]]),
    ...figures.map(([name, value, colour]) =>
      line([[`  ${name.padEnd(4)} `, undefined], ...amountPieces(formatBRL(value), amountWidth, colour)]),
    ),
  ];
}

/**
 * The chart of `rows` (oldest first) and `total`, as lines ending in `\n`. Plain text unless
 * `options.palette` paints it.
 */
export function renderSummaryChart(
  rows: readonly ChartRow[],
  total: ChartTotal,
  options: ChartOptions,
): string {
  const width = Math.max(1, Math.floor(options.width));
  const paint = options.palette ?? PLAIN_CHART;
  const lines: Line[] = [];
  if (options.title !== undefined) lines.push(line([[truncate(safeText(options.title), width), undefined]]));

  const labelWidth = Math.max(0, ...rows.map((row) => row.period.length));
  const amounts = rows.flatMap((row) => [formatBRL(row.income), formatBRL(row.outcome)]);
  const amountWidth = Math.max(0, ...amounts.map((text) => text.length));
  const max = Math.max(0, ...rows.flatMap((row) => [row.income, -row.outcome]));
  // label ␣ marker ␣ bar ␣ amount   |   ␣␣ marker ␣ bar ␣ amount (label above)
  const beside = width - labelWidth - MARKER - amountWidth - 3;
  const under = width - 2 - MARKER - amountWidth - 2;
  const layout = beside >= MIN_BAR_BESIDE ? 'beside' : under >= MIN_BAR_UNDER ? 'under' : 'bare';
  const barWidth = layout === 'beside' ? beside : layout === 'under' ? under : 0;

  for (const row of rows) {
    const sides: Array<[string, Centavos, (text: string) => string]> = [
      ['in', row.income, paint.green],
      ['out', row.outcome, paint.red],
    ];
    if (layout !== 'beside') lines.push(line([[row.period, undefined]]));
    sides.forEach(([marker, value, colour], index) => {
      const amount = formatBRL(value);
      const lead = layout === 'beside' ? (index === 0 ? row.period : '').padEnd(labelWidth) : ' ';
      if (layout === 'bare') {
        lines.push(
          line([[` ${marker.padEnd(MARKER)} `, paint.dim], ...amountPieces(amount, amountWidth, colour)]),
        );
        return;
      }
      const drawn = bar(Math.abs(value), max, barWidth);
      lines.push(
        line([
          [lead, undefined],
          [` ${marker.padEnd(MARKER)} `, paint.dim],
          [drawn, colour],
          [`${' '.repeat(barWidth - drawn.length)} `, undefined],
          ...amountPieces(amount, amountWidth, colour),
        ]),
      );
    });
  }

  const widest = Math.max(0, ...lines.map((l) => l.text.length));
  if (rows.length > 0) lines.push(line([['─'.repeat(Math.min(width, Math.max(widest, 1))), paint.dim]]));
  lines.push(...totalLines(total, width, paint));
  // The last guard: whatever the layout, no line is wider than asked (very narrow terminals).
  return lines
    .map((l) => (l.text.length <= width ? l.painted : truncate(l.text, width)))
    .map((text) => `${text}\n`)
    .join('');
}
