/** Spreadsheet cell references (`B7`): the column letters of a 0-based index, and back. */

/** A column's letters: 0 → A, 25 → Z, 26 → AA. */
export function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return letters;
}

/** `B7` → column 1 (0-based), row 7; undefined when it is not a cell reference. */
export function parseRef(ref: string): { column: number; row: number } | undefined {
  const m = /^([A-Z]{1,3})(\d{1,7})$/.exec(ref);
  if (!m) return undefined;
  let column = 0;
  for (const letter of m[1]!) column = column * 26 + (letter.charCodeAt(0) - 64);
  return { column: column - 1, row: Number(m[2]) };
}
