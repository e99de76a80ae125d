import { describe, expect, it } from 'vitest';
import { describeSystemError } from '../../src/errors.js';
import { csvBrField, csvField } from '../../src/output/records.js';
import {
  escapeUnsafe,
  hasUnsafe,
  jsonSafe,
  MAX_SHOWN,
  safeText,
  spreadsheetSafe,
  truncate,
} from '../../src/output/sanitize.js';
import { renderTsv } from '../../src/output/table.js';

describe('escapeUnsafe', () => {
  it('shows every C0 control, DEL and C1 control escaped and visible', () => {
    for (let code = 0; code < 0x20; code++) {
      expect(escapeUnsafe(`a${String.fromCharCode(code)}b`)).toBe(
        `a\\u${code.toString(16).padStart(4, '0')}b`,
      );
    }
    for (let code = 0x7f; code <= 0x9f; code++) {
      expect(escapeUnsafe(String.fromCharCode(code))).toBe(`\\u00${code.toString(16)}`);
    }
  });

  it('escapes the bidi controls and invisible direction marks', () => {
    const bidi = [
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c,
    ];
    for (const code of bidi) {
      const out = escapeUnsafe(`x${String.fromCharCode(code)}y`);
      expect(out).toBe(`x\\u${code.toString(16).padStart(4, '0')}y`);
      expect(hasUnsafe(out)).toBe(false);
    }
  });

  it('turns a screen-clearing, text-hiding payload into inert text', () => {
    const hostile = '\u001b[2J\u001b[HPay R$ 10,00 to Ana? [y/N]\u001b[8m';
    const shown = escapeUnsafe(hostile);
    expect(shown).not.toMatch(/\u001b/);
    expect(shown).toBe('\\u001b[2J\\u001b[HPay R$ 10,00 to Ana? [y/N]\\u001b[8m');
  });

  it('leaves accents, emoji and ordinary punctuation alone', () => {
    const text = 'José Conceição — Pão & Café ☕ 100%';
    expect(escapeUnsafe(text)).toBe(text);
  });
});

describe('safeText and truncate', () => {
  it('cuts to the limit in code points, ending in …', () => {
    expect(safeText('a'.repeat(MAX_SHOWN + 10))).toHaveLength(MAX_SHOWN);
    expect(safeText('a'.repeat(MAX_SHOWN + 10)).endsWith('…')).toBe(true);
    expect(truncate('😀😀😀', 2)).toBe('😀…');
    expect(safeText(undefined)).toBe('');
    expect(safeText(42)).toBe('42');
  });
});

describe('jsonSafe', () => {
  it('re-spells the characters JSON leaves raw without changing the parsed value', () => {
    const value = { name: 'evil\u202egnp.exe\u009b31m\u2028' };
    const text = jsonSafe(JSON.stringify(value));
    expect(hasUnsafe(text)).toBe(false);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('CSV formula guard', () => {
  it('prefixes text cells a spreadsheet would evaluate, and leaves numbers alone', () => {
    expect(spreadsheetSafe('=HYPERLINK("http://x","y")')).toBe('\'=HYPERLINK("http://x","y")');
    for (const start of ['+', '-', '@', '\t', '\r'])
      expect(spreadsheetSafe(`${start}1+1`)).toBe(`'${start}1+1`);
    expect(spreadsheetSafe('-10.50')).toBe('-10.50');
    expect(spreadsheetSafe('Ana')).toBe('Ana');
  });

  it('-o csv is exact data (a phone key round-trips); -o csv-br guards formulas and shows controls', () => {
    expect(csvField('+5511987654321')).toBe('+5511987654321');
    expect(csvField('=1+2')).toBe('=1+2');
    expect(csvField('-10.50')).toBe('-10.50');
    expect(csvField(-3)).toBe('-3');
    expect(csvField('=A1,"x"')).toBe('"=A1,""x"""');
    const br = (value: string, kind?: 'money' | 'date') => csvBrField(value, kind, 'America/Sao_Paulo');
    expect(br('+5511987654321')).toBe("'+5511987654321");
    expect(br('=A1;"x"')).toBe('"\'=A1;""x"""');
    expect(br('a\u001bb\r\nc')).toBe('a\\u001bb\\u000d\\u000ac');
    expect(br('-1234.56', 'money')).toBe('-1234,56');
    expect(br('-1e9', 'money')).toBe("'-1e9");
    expect(br('2026-11-23T21:31:46.039Z', 'date')).toBe('23/11/2026 18:31:46');
    expect(br('2026-12-01', 'date')).toBe('01/12/2026');
    expect(br('soon', 'date')).toBe('soon');
  });
});

describe('TSV cells', () => {
  it('escape tabs, newlines and escapes so a cell never splits a row', () => {
    expect(renderTsv([['a\tb', 'c\nd', '\u001b[31mred']])).toBe('a\\u0009b\tc\\u000ad\t\\u001b[31mred\n');
  });
});

describe('describeSystemError', () => {
  it('names the failures a person can act on', () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      syscall: 'write',
      path: '/tmp/out.csv',
    });
    expect(describeSystemError(full)).toEqual({
      message: 'cannot write /tmp/out.csv: no space left on device',
      hint: 'free some disk space and run it again',
    });
    const readOnly = { code: 'EROFS', syscall: 'open', path: '/ro/config.json' };
    expect(describeSystemError(readOnly)?.message).toBe('cannot open /ro/config.json: read-only file system');
    expect(describeSystemError(new Error('plain'))).toBeUndefined();
    expect(describeSystemError({ code: 'ESOMETHINGELSE' })).toBeUndefined();
  });
});
