import { describe, expect, it } from 'vitest';
import { faceFactor, textWidth } from '../../src/domain/xlsxwidths.js';

describe('the width a spreadsheet draws a cell text at, in digits of the workbook font', () => {
  it('digits are one each, separators half, letters at their widest among Calibri, Arial and DejaVu Sans', () => {
    expect(textWidth('1234567890', false)).toBe(10);
    expect(textWidth('1.234,50', false)).toBe(7);
    expect(textWidth('mallory@example.com', false)).toBeCloseTo(19.06, 2);
    // Bold, still in digits of the regular face: DejaVu Sans Bold's digits are 9 % wider.
    expect(textWidth('1234', true)).toBeCloseTo(4.4, 5);
    // An accented letter is its letter; a character the tables do not know counts as 2.5.
    expect(textWidth('é', false)).toBe(textWidth('e', false));
    expect(textWidth('中', false)).toBe(2.5);
  });

  it("a cell in another face than the workbook's is as much wider as its digits may be where it is read", () => {
    expect(faceFactor('Calibri', 'calibri')).toBe(1);
    expect(faceFactor('Carlito', 'Calibri')).toBe(1);
    // LibreOffice saves its own DejaVu Sans as the workbook font: Calibri cells are never wider than its digits.
    expect(faceFactor('Calibri', 'DejaVu Sans')).toBe(1);
    // The other way, where Calibri is drawn as Carlito: DejaVu's digits are 25 % wider.
    expect(faceFactor('DejaVu Sans', 'Calibri')).toBeCloseTo(0.636 / 0.507, 5);
    expect(faceFactor('Arial', 'Calibri')).toBeCloseTo(0.556 / 0.507, 5);
    expect(faceFactor('Verdana', 'Calibri')).toBe(1.3);
    expect(faceFactor('Aptos Narrow', 'Aptos Narrow')).toBe(1.1);
  });
});
