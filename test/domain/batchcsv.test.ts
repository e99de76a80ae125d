import { describe, expect, it } from 'vitest';
import { type CsvRecord, detectDelimiter, readCsvRecords } from '../../src/domain/batchcsv.js';

/** The records without `quoted`, which its own test checks. */
function records(text: string, delimiter: ',' | ';' = ','): Omit<CsvRecord, 'quoted'>[] {
  const out: Omit<CsvRecord, 'quoted'>[] = [];
  readCsvRecords(text, delimiter, ({ quoted, ...record }) => {
    expect(quoted).toHaveLength(record.fields.length);
    out.push(record);
  });
  return out;
}

describe('readCsvRecords', () => {
  it('says which fields were written in double quotes', () => {
    const quoted: boolean[][] = [];
    readCsvRecords('a,"b",c\n"10",50,"x""y"z\n', ',', (record) => quoted.push(record.quoted));
    expect(quoted).toEqual([
      [false, true, false],
      [true, false, true],
    ]);
  });

  it('splits records on LF and on CRLF, and fields on the delimiter', () => {
    expect(records('a,b\n1,2\n')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
    ]);
    expect(records('a,b\r\n1,2\r\n')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
    ]);
    expect(records('a;b\n1;2,5', ';')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2,5'] },
    ]);
  });

  it('reads a last record without a line break, and empty fields at either end', () => {
    expect(records('a,b\n,x,')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['', 'x', ''] },
    ]);
  });

  it('gives a blank line as one empty field, numbered', () => {
    expect(records('a\n\r\n\nb')).toEqual([
      { line: 1, fields: ['a'] },
      { line: 2, fields: [''] },
      { line: 3, fields: [''] },
      { line: 4, fields: ['b'] },
    ]);
  });

  it('unquotes RFC 4180 fields: delimiters, doubled quotes, line breaks (CRLF kept as written)', () => {
    const text =
      'id,description\n1,"Comissão, março"\n2,"Pedido ""especial"""\n3,"two\nlines"\r\n4,"a\r\nb",""\n5,x';
    expect(records(text)).toEqual([
      { line: 1, fields: ['id', 'description'] },
      { line: 2, fields: ['1', 'Comissão, março'] },
      { line: 3, fields: ['2', 'Pedido "especial"'] },
      { line: 4, fields: ['3', 'two\nlines'] },
      { line: 6, fields: ['4', 'a\r\nb', ''] },
      { line: 8, fields: ['5', 'x'] },
    ]);
  });

  it('keeps a quote inside an unquoted field as a character', () => {
    expect(records('1,5" tube\n')).toEqual([{ line: 1, fields: ['1', '5" tube'] }]);
  });

  it('reports text after a closing quote on that record and goes on', () => {
    expect(records('1,"abc"def,3\n2,ok')).toEqual([
      { line: 1, fields: ['1', 'abcdef', '3'], error: 'field 2 has text after its closing quote' },
      { line: 2, fields: ['2', 'ok'] },
    ]);
  });

  it('reports a quote never closed, naming the line it opened on', () => {
    expect(records('a,b\n1,"never\nclosed\n2,x')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      {
        line: 2,
        fields: ['1', 'never\nclosed\n2,x'],
        error: 'a quoted field opened on line 2 is never closed',
      },
    ]);
  });

  it('skips a UTF-8 byte order mark', () => {
    expect(records('\uFEFFid,key\n')).toEqual([{ line: 1, fields: ['id', 'key'] }]);
  });

  it('reads nothing from an empty text', () => {
    expect(records('')).toEqual([]);
    expect(records('\uFEFF')).toEqual([]);
  });
});

describe('detectDelimiter', () => {
  it('is a comma unless the first line has semicolons and no comma', () => {
    expect(detectDelimiter('id,key,amount\n')).toBe(',');
    expect(detectDelimiter('id;key;amount\n1;a;10,50\n')).toBe(';');
    expect(detectDelimiter('id\n1;2\n')).toBe(',');
    expect(detectDelimiter('')).toBe(',');
  });

  it('looks past blank lines and a BOM, and ignores quoted delimiters', () => {
    expect(detectDelimiter('\uFEFF\n\r\nid;key\n')).toBe(';');
    expect(detectDelimiter('"a,b";key\n')).toBe(';');
  });
});
