import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/output/width.js';
import { createWordWrapper, wordLines } from '../../src/output/wrap.js';
import { renderTerminal } from '../helpers/terminal.js';

const NOTE =
  'note: 3 columns were left out to fit 80 columns (Reference, Counterparty, Description): --wide shows every column, or widen the terminal';

describe('wrapping at word boundaries', () => {
  it('wordLines: lines of at most the width, broken at spaces; a word wider than a line is split', () => {
    const lines = wordLines(NOTE, 40);
    expect(lines.every((line) => displayWidth(line) <= 40)).toBe(true);
    expect(lines.join(' ')).toBe(NOTE);
    expect(wordLines('short', 40)).toEqual(['short']);
    expect(wordLines('ação 5f0b6a52-1c2d-4e5f-8a9b-0c1d2e3f4a5b', 12)).toEqual([
      'ação',
      '5f0b6a52-1c2',
      'd-4e5f-8a9b-',
      '0c1d2e3f4a5b',
    ]);
  });

  it('a note on an 80-column terminal wraps between words, never inside one ("every colum/n")', async () => {
    const wrap = createWordWrapper(() => 80);
    const { lines } = await renderTerminal(wrap(`${NOTE}\n`).replaceAll('\n', '\r\n'), 80, 24);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join(' ')).toBe(NOTE);
    // Without it, the terminal itself breaks the line at column 80, inside a word.
    const { lines: raw } = await renderTerminal(`${NOTE}\r\n`, 80, 24);
    expect(raw.join(' ')).not.toBe(NOTE);
  });

  it('each write starts a line (after a question the answer and Enter did); \\r progress lines and JSON pass unchanged', () => {
    const wrap = createWordWrapper(() => 20);
    expect(wrap('Pay R$ 10,50? [y/N] ')).toBe('Pay R$ 10,50? [y/N] ');
    expect(wrap('payment cancelled; nothing was sent\n')).toBe('payment cancelled;\nnothing was sent\n');
    const json = '{"error":{"kind":"usage","message":"a long message of many words"}}\n';
    expect(wrap(json)).toBe(json); // a --json error on a terminal stays one JSON line
    expect(wrap('\r\u001b[2Kelapsed 1s, remaining 59s, a long progress')).toBe(
      '\r\u001b[2Kelapsed 1s, remaining 59s, a long progress',
    );
  });
});

describe('a command to copy is never broken by a newline', () => {
  const wrap = createWordWrapper(() => 40);
  it('a command in backticks moves to the next line whole', () => {
    const out = wrap('write the QR as a PNG with `pix charge show 1a2b3c4d --qr-png qr.png`');
    expect(out.split('\n')).toContain('`pix charge show 1a2b3c4d --qr-png qr.png`');
    expect(out.split('\n').every((line) => line.split('`').length !== 2)).toBe(true);
  });
  it('a line giving a bare command (a next-page hint) is left to the terminal', () => {
    const hint = 'showing 5 of 120; next page: pix statement --from 2020-01-01 --wide --limit 5 --offset 5';
    expect(wrap(hint)).toBe(hint);
    // Prose without a command is still wrapped between words.
    expect(wrap('every column of the table fits the terminal once the text is wrapped')).toContain('\n');
  });
});
