/**
 * Confirmation of payee (contract §7.8): who the operator expects to pay — a CPF/CNPJ, a name, or both,
 * from a batch file's `document` and `name` columns or `--expect-document` / `--expect-name` — against
 * the owner the consultation answered. A key mistyped or moved to someone else then pays no one: the row
 * (or the payment) is refused naming both, before anything is sent. Also the weaker check of a static
 * code: the merchant name written in the code against the owner of the key it names. Pure.
 */
import { documentsAgree, formatDocument, maskDocument, parseTaxId } from './documents.js';
import { InvalidValue } from './invalid.js';
import { foldName, sameName } from './names.js';

/** Who the operator expects to pay; at least one of the two. */
export interface PayeeExpectation {
  /** A CPF (11 digits) or CNPJ (14 characters), bare (parseTaxId). */
  document?: string;
  name?: string;
}

/** The owner as a consultation answered: the key's (DICT) or the code's receiver. */
export interface ConsultedOwner {
  name: string;
  tradeName?: string | null | undefined;
  /** Whole (a key consultation) or masked by the server (`***.456.789-**`, a code's). */
  document?: string | null | undefined;
}

/** The longest expected name: a company's registered name with its trade name fits. */
export const MAX_EXPECTED_NAME = 200;
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** An expected name as typed: trimmed, not empty, one line, at most 200 characters. */
export function parseExpectedName(text: string): string {
  const name = text.trim();
  if (name === '') throw new InvalidValue('an expected name cannot be empty');
  const length = Array.from(name).length;
  if (length > MAX_EXPECTED_NAME)
    throw new InvalidValue(`${length} characters; at most ${MAX_EXPECTED_NAME}`);
  if (UNSAFE_TEXT.test(name))
    throw new InvalidValue('contains a line break, a control or an invisible direction character');
  return name;
}

/** An expected document as typed (with or without punctuation), checked: bare digits. */
export function parseExpectedDocument(text: string): string {
  return parseTaxId(text).digits;
}

function ownerWords(owner: ConsultedOwner): string {
  const trade = owner.tradeName && !sameName(owner.tradeName, owner.name) ? ` / ${owner.tradeName}` : '';
  const document = owner.document ? `, ${maskDocument(owner.document)}` : '';
  return `${owner.name}${trade}${document}`;
}

function expectedWords(expected: PayeeExpectation): string {
  return [expected.name, expected.document === undefined ? undefined : formatDocument(expected.document)]
    .filter((part) => part !== undefined)
    .join(', ');
}

/**
 * Why the consulted owner is not the one expected, or undefined when it is: the document compared as far
 * as the consultation's mask lets one see (documentsAgree: a mask that hides too much confirms nothing),
 * the name accent-, case- and space-insensitively against the owner's name or trade name. The sentence
 * names both (server text: sanitize it before showing it).
 */
export function payeeMismatch(expected: PayeeExpectation, owner: ConsultedOwner): string | undefined {
  const wrong: string[] = [];
  if (expected.document !== undefined) {
    if (!owner.document) wrong.push('the consultation gives no document to compare');
    else if (!documentsAgree(expected.document, owner.document)) wrong.push('the document differs');
  }
  if (
    expected.name !== undefined &&
    !sameName(expected.name, owner.name) &&
    !sameName(expected.name, owner.tradeName ?? undefined)
  ) {
    wrong.push('the name differs');
  }
  if (wrong.length === 0) return undefined;
  return `the receiver is ${ownerWords(owner)}, not the expected ${expectedWords(expected)} (${wrong.join(', ')})`;
}

/** Words that say nothing of who a business is: connectors and company forms. */
const EMPTY_WORDS = new Set([
  'da',
  'de',
  'do',
  'das',
  'dos',
  'e',
  'ltda',
  'me',
  'mei',
  'sa',
  'eireli',
  'epp',
]);

function words(name: string): string[] {
  return foldName(name)
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length >= 2 && !EMPTY_WORDS.has(word));
}

/**
 * Whether a static code's merchant name (field 59, at most 25 characters, often cut or abbreviated) shares a
 * word with the owner's name or trade name: equal once folded, or one the start of the other (a cut word,
 * three letters at least). `FULANO DE TAL` and `Eduarda Rocha Almeida` share nothing; `PADARIA S JOAO` and
 * `Padaria São João Ltda` do.
 */
export function merchantMatchesOwner(merchant: string, owner: ConsultedOwner): boolean {
  const theirs = [...words(owner.name), ...(owner.tradeName ? words(owner.tradeName) : [])];
  return words(merchant).some((word) =>
    theirs.some(
      (other) =>
        word === other ||
        (Math.min(word.length, other.length) >= 3 && (word.startsWith(other) || other.startsWith(word))),
    ),
  );
}
