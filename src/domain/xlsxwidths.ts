/**
 * How wide a spreadsheet draws a cell's text, for `domain/xlsxlayout.ts`: in widths of the default font's
 * digit `0`, the unit a workbook's column widths are written in (ECMA-376 part 1, 18.3.1.13), so the
 * measure does not depend on which font a reader has: LibreOffice without Calibri draws it in DejaVu Sans
 * and sizes the columns by DejaVu's digits, Excel by Calibri's.
 *
 * Each printable ASCII character counts as the widest it is, relative to its font's digit, among the faces a
 * reader draws a workbook in: Calibri (measured on Carlito, its metric twin), Arial (Liberation Sans) and
 * DejaVu Sans (LibreOffice's fallback), in regular and bold — from the fonts' own advance widths, rounded
 * up. So pix may find a text wider than a reader draws it (it then refuses a cell a reader sees whole),
 * never narrower, for those faces. An accented letter is its letter; any other character counts as 2.5
 * digits (a CJK ideograph or an em dash is about 2).
 */

/** Hundredths of a digit, for U+0020 to U+007E, regular or italic. */
const REGULAR = [
  50, 65, 80, 132, 100, 160, 135, 44, 62, 62, 99, 132, 50, 61, 50, 77, 100, 100, 100, 100, 100, 100, 100, 100,
  100, 100, 53, 53, 132, 132, 132, 100, 183, 120, 120, 130, 130, 120, 110, 140, 130, 50, 90, 120, 100, 169,
  130, 140, 120, 140, 130, 120, 110, 130, 120, 176, 120, 120, 110, 62, 77, 62, 132, 100, 79, 100, 104, 90,
  104, 100, 61, 100, 104, 46, 48, 92, 46, 158, 104, 105, 104, 104, 69, 90, 67, 104, 94, 142, 94, 94, 90, 100,
  91, 100, 132,
];
/** The same in bold, still in digits of the regular face (the column's unit). */
const BOLD = [
  55, 72, 87, 132, 110, 160, 140, 49, 72, 72, 99, 132, 60, 66, 60, 85, 110, 110, 110, 110, 110, 110, 110, 110,
  110, 110, 63, 63, 132, 132, 132, 110, 178, 130, 130, 130, 131, 120, 110, 140, 132, 59, 100, 130, 110, 173,
  132, 140, 120, 140, 130, 120, 110, 130, 122, 179, 122, 120, 114, 72, 85, 72, 132, 100, 79, 107, 113, 100,
  113, 107, 69, 113, 112, 54, 54, 105, 54, 164, 112, 110, 113, 113, 78, 100, 76, 112, 103, 148, 102, 103, 92,
  112, 94, 112, 132,
];
const OTHER = 250;

/** The faces the tables measure, by metric family (a face and its metric twins draw alike). */
const FAMILIES: Readonly<Record<string, Family>> = {
  calibri: 'calibri',
  carlito: 'calibri',
  arial: 'arial',
  'liberation sans': 'arial',
  arimo: 'arial',
  helvetica: 'arial',
  'dejavu sans': 'dejavu',
};
type Family = 'calibri' | 'arial' | 'dejavu';

/**
 * A digit's width (in ems) of each family where a workbook is read: Excel with Calibri and Arial, a face it
 * lacks drawn in Arial; LibreOffice on Linux without Carlito (Calibri drawn in DejaVu Sans), and with it.
 * The column unit is the Normal font's digit as drawn there, so a cell in another face is as much wider as
 * its digit is, in the same place.
 */
const READERS: ReadonlyArray<Readonly<Record<Family, number>>> = [
  { calibri: 0.507, arial: 0.556, dejavu: 0.556 },
  { calibri: 0.636, arial: 0.556, dejavu: 0.636 },
  { calibri: 0.507, arial: 0.556, dejavu: 0.636 },
];
/** Two faces the tables do not both measure: their digits may differ this much (0.5 to 0.65 em). */
const UNKNOWN_FACES = 1.3;
/** The Normal style's own face, unmeasured: the tables may not bound its characters. */
const UNMEASURED_FACE = 1.1;

/**
 * How much wider than the tables say a cell's text may be drawn, in digits of the Normal font, for the
 * cell's face and the Normal style's (at the same size).
 */
export function faceFactor(face: string, normal: string): number {
  const cell = face.trim().toLowerCase();
  const unit = normal.trim().toLowerCase();
  const [a, b] = [FAMILIES[cell], FAMILIES[unit]];
  if (a !== undefined && b !== undefined) return Math.max(...READERS.map((reader) => reader[a] / reader[b]));
  return cell === unit ? UNMEASURED_FACE : UNKNOWN_FACES;
}

/** The text's width in digits of its own font at its own size. */
export function textWidth(text: string, bold: boolean): number {
  const table = bold ? BOLD : REGULAR;
  let hundredths = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0x20 && code <= 0x7e) {
      hundredths += table[code - 0x20]!;
      continue;
    }
    const base = char.normalize('NFD').codePointAt(0)!;
    hundredths += base >= 0x20 && base <= 0x7e ? table[base - 0x20]! : OTHER;
  }
  return hundredths / 100;
}
