/**
 * Names as people and banks write them: `JOAO PEDRO OLIVEIRA` on a statement, `João Pedro Oliveira` in a
 * consultation, `joão  pedro oliveira` in a spreadsheet are one name. The ONE place text is folded for
 * comparison (names, headers, filters): accents removed (NFD, marks dropped), lower case, runs of white
 * space as one, trimmed. Pure.
 */

/**
 * Lower case, accents removed, runs of white space as one: `JOSÉ  da Silva` → `jose da silva`. With
 * `punctuation`, punctuation and symbols count as white space too (`Mercado Bom Preço, Ltda.` → `mercado
 * bom preco ltda`): what a bank's statement drops from a person's or a company's name.
 */
export function foldName(text: string, options: { punctuation?: boolean } = {}): string {
  const bare = text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  return (options.punctuation ? bare.replace(/[\p{P}\p{S}]/gu, ' ') : bare).replace(/\s+/g, ' ').trim();
}

/**
 * Whether two names of people or companies are the same name as banks write them: folded, punctuation
 * included (an empty or missing name is never the same as anything).
 */
export function sameName(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const folded = foldName(a, { punctuation: true });
  return folded !== '' && folded === foldName(b, { punctuation: true });
}
