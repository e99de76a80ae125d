import { describe, expect, it } from 'vitest';
import {
  createTable,
  distinctWidth,
  LAYOUT_SAMPLE,
  layoutColumns,
  renderTable,
  type TableColumn,
} from '../../src/output/table.js';
import { cutToWidth, displayWidth } from '../../src/output/width.js';

const COLUMNS: TableColumn[] = [
  { header: 'Date', kind: 'date' },
  { header: 'Type', kind: 'enum', priority: 3 },
  { header: 'Amount', kind: 'money' },
  { header: 'Method', kind: 'enum', priority: 4 },
  { header: 'Counterparty' },
  { header: 'Id', kind: 'id', priority: 2 },
];

function row(index: number, name = 'Maria Oliveira Santos da Silva Pereira'): string[] {
  return [
    '2025-03-09 10:04',
    'OUTCOME',
    `-R$ ${index},00`,
    'PIX',
    name,
    `0c7e3d1a-1111-4222-8333-${String(index).padStart(12, '0')}`,
  ];
}

const widths = (text: string) => text.trimEnd().split('\n').map(displayWidth);

describe('display width', () => {
  it('counts columns as a terminal shows them', () => {
    expect(displayWidth('São Paulo')).toBe(9);
    expect(displayWidth('Sa\u0303o')).toBe(3);
    expect(displayWidth('東京')).toBe(4);
    expect(displayWidth('👩‍💻 ok')).toBe(5);
  });

  it('cuts to a width with …, never splitting a grapheme or a wide character', () => {
    expect(cutToWidth('Mercado Bom Preço', 10)).toBe('Mercado B…');
    expect(cutToWidth('東京都庁', 6)).toBe('東京…');
    expect(displayWidth(cutToWidth('東京都庁', 6))).toBeLessThanOrEqual(6);
    expect(cutToWidth('short', 10)).toBe('short');
  });
});

describe('table layout', () => {
  it('everything fits: natural widths, nothing left out', () => {
    const text = renderTable(COLUMNS, [row(1)], { width: 200, wide: false });
    expect(text).toContain('Maria Oliveira Santos da Silva Pereira');
    expect(text).toContain('0c7e3d1a-1111-4222-8333-000000000001');
  });

  it.each([60, 80, 100, 120])('at %i columns no line is wider', (width) => {
    const table = createTable(COLUMNS, { width, wide: false });
    let text = '';
    for (let index = 0; index < 150; index++) text += table.row(row(index));
    text += table.end();
    for (const lineWidth of widths(text)) expect(lineWidth).toBeLessThanOrEqual(width);
  });

  it('shortens ids first, then text with …, and leaves out the least important columns last', () => {
    const text = renderTable(COLUMNS, [row(1)], { width: 80, wide: false });
    expect(text).toContain('0c7e3d1a…');
    expect(text).toMatch(/Maria Oliveira Santos d?… │/);
    expect(text).toContain('OUTCOME');
    expect(text).not.toContain('Method');
    const table = createTable(COLUMNS, { width: 80, wide: false });
    table.row(row(1));
    table.end();
    expect(table.hidden).toEqual(['Method']);
  });

  it('money and dates are never cut; on a narrow screen whole columns go, largest priority number first', () => {
    // Date 16 + Amount 9 + Counterparty shortened to 16 + borders 10 = 51.
    const layout = layoutColumns(COLUMNS, [16, 7, 9, 6, 38, 36], { width: 52, wide: false });
    expect(layout.shown.map((index) => COLUMNS[index]!.header)).toEqual(['Date', 'Amount', 'Counterparty']);
    expect(layout.widths).toEqual([16, 9, 17]);
    const narrower = layoutColumns(COLUMNS, [16, 7, 9, 6, 38, 36], { width: 50, wide: false });
    expect(narrower.shown.map((index) => COLUMNS[index]!.header)).toEqual(['Date', 'Amount']);
  });

  it('--wide: every column in full whatever the width', () => {
    const text = renderTable(COLUMNS, [row(1)], { width: 40, wide: true });
    expect(text).toContain('Method');
    expect(text).toContain('0c7e3d1a-1111-4222-8333-000000000001');
    expect(text).toContain('Maria Oliveira Santos da Silva Pereira');
  });

  it('a later row wider than the sample is cut to the layout, not widening the table', () => {
    const table = createTable(COLUMNS, { width: 100, wide: false });
    let text = '';
    for (let index = 0; index < LAYOUT_SAMPLE; index++) text += table.row(row(index, 'Ana'));
    const late = table.row(row(999, 'A name far longer than anything in the first hundred rows'));
    text += late + table.end();
    expect(new Set(widths(text)).size).toBe(1);
    expect(late).toContain('…');
  });

  it('streams: holds only the layout sample, then returns each row as it comes', () => {
    const table = createTable(COLUMNS, { width: 120, wide: false });
    for (let index = 0; index < LAYOUT_SAMPLE - 1; index++) expect(table.row(row(index))).toBe('');
    expect(table.held).toBe(LAYOUT_SAMPLE - 1);
    const first = table.row(row(LAYOUT_SAMPLE));
    expect(first.split('\n').filter((line) => line.startsWith('│ 2025'))).toHaveLength(LAYOUT_SAMPLE);
    expect(table.held).toBe(0);
    for (let index = 0; index < 300; index++) {
      const text = table.row(row(index));
      expect(text.split('\n')).toHaveLength(2);
      expect(table.held).toBe(0);
    }
    expect(table.end()).toMatch(/^└/);
  });

  it('server text is sanitized before it is measured and painted', () => {
    const text = renderTable(
      [{ header: 'Name' }, { header: 'Amount', kind: 'money' }],
      [['evil\u001b[2Jname', { text: 'R$ 1,00', paint: (value) => `<${value}>` }]],
      { width: 80, wide: false },
    );
    expect(text).not.toContain('\u001b');
    expect(text).toContain('evil\\u001b[2Jname');
    expect(text).toContain('<R$ 1,00>');
  });

  it('plain style (details): no borders, no header, two spaces between columns', () => {
    const text = renderTable([{ header: 'Field', kind: 'enum' }, { header: 'Value' }], [['Id', 'abc']], {
      width: 80,
      wide: false,
      style: 'plain',
    });
    expect(text).toBe('Id  abc\n');
  });
});

describe('shortened ids say so, and keep the part that tells them apart', () => {
  it('an id column shortened to fit is named (the note on stderr); one that fits is not', () => {
    const narrow = createTable(COLUMNS, { width: 80, wide: false });
    narrow.row(row(1));
    narrow.end();
    expect(narrow.shortened).toEqual(['Id']);
    const wide = createTable(COLUMNS, { width: 200, wide: false });
    wide.row(row(1));
    wide.end();
    expect(wide.shortened).toEqual([]);
  });

  it('ids that share a long start (the sandbox keys) keep enough to be told apart, here whole', () => {
    expect(distinctWidth(['5f0b6a52-aaaa', '9c1d0e77-bbbb'])).toBe(2);
    expect(distinctWidth(['5f0b6a52-7a8e-01', '5f0b6a52-7a8e-02'])).toBe(17);
    expect(distinctWidth(['E999-abc', 'E999-xyz'], true)).toBe(2);
    expect(distinctWidth(['only-one'])).toBe(0);
    const columns: TableColumn[] = [{ header: 'Key' }, { header: 'Id', kind: 'id' }];
    const ids = [1, 2, 3, 4].map((n) => `5f0b6a52-7a8e-4c1f-9d3b-1a2b3c4d5e0${n}`);
    const text = renderTable(
      columns,
      ids.map((id) => ['loja-com-um-nome-bem-comprido@sandbox.pix.local', id]),
      { width: 70, wide: false },
    );
    for (const id of ids) expect(text).toContain(id);
  });

  it('an endToEndId (keepEnd) keeps its end: every one starts E + the institution + the date', () => {
    const columns: TableColumn[] = [
      { header: 'id' },
      { header: 'endToEndId', kind: 'id', keepEnd: true },
      { header: 'receiver' },
    ];
    const ids = ['E99999999202611241000abcdefghijk', 'E99999999202611241000zyxwvutsrqp'];
    const text = renderTable(
      columns,
      ids.map((id, index) => [`row-${index}`, id, 'Maria Oliveira Santos da Silva Pereira de Souza']),
      { width: 60, wide: false },
    );
    expect(text).toMatch(/…[a-k]+ │/);
    expect(text).toMatch(/…[p-z]+ │/);
    expect(text).not.toContain('E9999999');
  });
});

describe('wrapped columns (detail views): long text wrapped in its cell at word boundaries, never cut', () => {
  const columns = [
    { header: 'Field', kind: 'enum' as const },
    { header: 'Meaning', wrap: true },
  ];
  const meaning = 'dynamic: the code is meant to be paid once, and its details come from a URL';

  it.each([false, true])(
    'at 40 columns (--wide %s): several lines in the cell, the whole text, within the width',
    (wide) => {
      const text = renderTable(columns, [['01', meaning]], { width: 40, wide });
      const lines = text.trimEnd().split('\n');
      expect(lines.every((line) => displayWidth(line) <= 40)).toBe(true);
      const cells = lines.slice(3, -1).map((line) => line.split('│')[2]!.trim());
      expect(cells.length).toBeGreaterThan(1);
      expect(cells.join(' ')).toBe(meaning);
      expect(text).not.toContain('…');
    },
  );

  it('without wrap the same cell is cut with …, as before', () => {
    const text = renderTable([columns[0]!, { header: 'Meaning' }], [['01', meaning]], {
      width: 40,
      wide: false,
    });
    expect(text).toContain('…');
    expect(text.trimEnd().split('\n')).toHaveLength(5);
  });
});
