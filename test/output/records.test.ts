import { describe, expect, it } from 'vitest';
import { type Column, createListWriter, csvField } from '../../src/output/records.js';
import { createTable } from '../../src/output/table.js';
import { createTestIO } from '../helpers/io.js';

interface Row {
  id: string;
  name: string;
  cents: number;
}

const columns: Column<Row>[] = [
  { header: 'Id', human: (row) => row.id, machine: (row) => row.id },
  { header: 'Name', human: (row) => row.name.toUpperCase(), machine: (row) => row.name },
  { header: 'Amount', human: (row) => `R$ ${row.cents}`, machine: (row) => (row.cents / 100).toFixed(2) },
];
const data: Row[] = [
  { id: 'a', name: 'Ana, "a"', cents: 1050 },
  { id: 'b', name: 'Bia\tB\nline', cents: -7 },
];

async function write(
  format: 'json' | 'ndjson' | 'csv' | 'table',
  human: boolean,
  pretty = false,
  rows: Row[] = data,
  batched = false,
) {
  const test = createTestIO();
  const writer = createListWriter(test.io.stdout, {
    openTable: (tableColumns) => createTable(tableColumns, { width: 80, wide: false }),
    timeZone: 'America/Sao_Paulo',
    format,
    human,
    pretty,
    columns,
    listField: 'results',
    raw: (row) => row,
  });
  await writer.begin(rows.length);
  if (batched) {
    // As an export writes: a page at a time, an empty page (every id a duplicate) included.
    await writer.writeMany(rows.slice(0, 1));
    await writer.writeMany([]);
    await writer.writeMany(rows.slice(1));
  } else {
    for (const row of rows) await writer.write(row);
  }
  await writer.end();
  return test.stdout();
}

describe('list writer', () => {
  it('writes a batch of records exactly as it writes them one by one, in every format', async () => {
    // Server text with a line separator, a bidi override and DEL: made safe once per batch, as per record.
    const hostile: Row[] = [
      ...data,
      { id: 'c', name: 'line\u2028sep \u202e evil \u007f', cents: 1 },
      { id: 'd', name: 'plain', cents: 2 },
    ];
    for (const [format, human, pretty] of [
      ['json', false, false],
      ['json', false, true],
      ['ndjson', false, false],
      ['csv', false, false],
      ['table', false, false],
      ['table', true, false],
    ] as const) {
      const one = await write(format, human, pretty, hostile, false);
      expect(
        await write(format, human, pretty, hostile, true),
        `${format} human=${human} pretty=${pretty}`,
      ).toBe(one);
      if (format !== 'table' && format !== 'csv') {
        expect(one).not.toMatch(/[\u2028\u202e\u007f]/);
      }
    }
    const pretty = JSON.parse(await write('json', false, true, hostile, true)) as { results: Row[] };
    expect(pretty.results).toEqual(hostile);
  });

  it('json: one document with total and the records, compact or pretty, parsing to the same value', async () => {
    const compact = await write('json', false);
    expect(compact).toBe(`${JSON.stringify({ total: 2, results: data })}\n`);
    expect(JSON.parse(await write('json', false, true))).toEqual({ total: 2, results: data });
  });

  it('json: an empty list is still a document', async () => {
    const test = createTestIO();
    const writer = createListWriter(test.io.stdout, {
      openTable: (tableColumns) => createTable(tableColumns, { width: 80, wide: false }),
      timeZone: 'America/Sao_Paulo',
      format: 'json',
      human: false,
      pretty: true,
      columns,
      listField: 'results',
      raw: (row) => row,
    });
    await writer.begin(0);
    await writer.end();
    expect(JSON.parse(test.stdout())).toEqual({ total: 0, results: [] });
  });

  it('ndjson: one raw record per line', async () => {
    const lines = (await write('ndjson', false)).trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(data);
  });

  it('csv: RFC 4180 with a header, quoted fields and CRLF', async () => {
    expect(await write('csv', false)).toBe(
      'Id,Name,Amount\r\na,"Ana, ""a""",10.50\r\nb,"Bia\tB\nline",-0.07\r\n',
    );
  });

  it('piped table: tab-separated machine values, no header, tabs and newlines inside cells escaped', async () => {
    expect(await write('table', false)).toBe('a\tAna, "a"\t10.50\nb\tBia\\u0009B\\u000aline\t-0.07\n');
  });

  it('terminal table: a header and the human values', async () => {
    const text = await write('table', true);
    expect(text).toContain('Amount');
    expect(text).toContain('ANA, "A"');
    expect(text).toContain('R$ 1050');
  });

  it('csvField leaves plain values alone and empties missing ones', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField(12.5)).toBe('12.5');
    expect(csvField(undefined)).toBe('');
  });
});
