/**
 * Names as people and banks write them: `JOAO PEDRO OLIVEIRA` on a statement, `João Pedro Oliveira` in a
 * consultation, `joão  pedro oliveira` in a spreadsheet are one name. The ONE place text is folded for
 * comparison (names, headers, filters): accents removed (NFD, marks dropped), lower case, runs of white
 * space as one, trimmed. Pure.
 */

/** Lower case, accents removed, runs of white space as one: `JOSÉ  da Silva` → `jose da silva`. */
export function foldName(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Whether two names are the same name as folded (an empty or missing name is never the same as anything). */
export function sameName(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const folded = foldName(a);
  return folded !== '' && folded === foldName(b);
}
