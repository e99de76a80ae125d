import { eastAsianWidth } from 'get-east-asian-width';
import { describe, expect, it } from 'vitest';
import { cutToWidth, displayWidth } from '../../src/output/width.js';

describe('display width: the wide characters are those of get-east-asian-width', () => {
  it.each([
    ['U+4DC0 hexagram for the creative heaven', '\u{4DC0}'],
    ['U+1D300 Tai Xuan Jing monogram', '\u{1D300}'],
    ['U+1FA8A trombone (an emoji of Unicode 17)', '\u{1FA8A}'],
  ])('%s takes two columns, as terminals draw it (a hand-copied Unicode 15 table said one)', (_, char) => {
    expect(displayWidth(char)).toBe(2);
    expect(displayWidth(`a${char}b`)).toBe(4);
    expect(cutToWidth(`${char}${char}${char}`, 4)).toBe(`${char}…`);
  });

  it('a lone code point takes the width the package gives it, for every one it calls wide', () => {
    const disagree: string[] = [];
    for (let codePoint = 0x1100; codePoint <= 0x2ffff; codePoint++) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue; // surrogates are not characters
      if (eastAsianWidth(codePoint) !== 2) continue;
      if (displayWidth(String.fromCodePoint(codePoint)) !== 2) disagree.push(codePoint.toString(16));
    }
    expect(disagree).toEqual([]);
  });

  it('plain Latin text keeps the fast path: one column per character, cut with …', () => {
    expect(displayWidth('Padaria Pão Quente — Preço “bom”')).toBe(32);
    expect(cutToWidth('Padaria Pão Quente', 8)).toBe('Padaria…');
    expect(displayWidth('')).toBe(0);
  });
});
