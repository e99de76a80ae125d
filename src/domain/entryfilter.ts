import { InvalidValue } from './invalid.js';
import type { Centavos } from './money.js';
import { foldName as fold } from './names.js';

/**
 * Statement filters (`--type`, `--counterparty`, `--min`, `--max`). The API has none (API §4.1 takes a
 * range and a page), so they are applied to the entries each page brings: a page may show fewer rows
 * than `--limit`, and the totals count only what is shown.
 */
export interface EntryFilter {
  type?: 'INCOME' | 'OUTCOME' | undefined;
  /** Matched against the counterparty's name (case and accents ignored) or its document's digits. */
  counterparty?: string | undefined;
  /** Bounds on the entry's amount without its sign, in centavos, both inclusive. */
  min?: Centavos | undefined;
  max?: Centavos | undefined;
}

/** What a filter looks at, taken from an entry by the command (amount signed, as the statement has it). */
export interface EntryFacts {
  type: string;
  amount: Centavos;
  name?: string | undefined;
  document?: string | undefined;
}

export const ENTRY_TYPES = 'income (money in) or outcome (money out)';

export function parseEntryType(text: string): 'INCOME' | 'OUTCOME' {
  const word = text.trim().toLowerCase();
  if (word === 'income') return 'INCOME';
  if (word === 'outcome') return 'OUTCOME';
  throw new InvalidValue(`"${text}" is not an entry type`, `use ${ENTRY_TYPES}`);
}

export function parseCounterparty(text: string): string {
  const needle = fold(text);
  if (needle === '') throw new InvalidValue('needs a name or a document to look for');
  return text;
}

/** Names compared as folded (domain/names.ts). */
export { foldName as fold } from './names.js';

/** Refuses bounds that no amount can satisfy, naming the flag in the command layer. */
export function checkBounds(min: Centavos | undefined, max: Centavos | undefined): void {
  if (min !== undefined && max !== undefined && min > max) {
    throw new InvalidValue('is less than --min: no entry can match both');
  }
}

/** The predicate of a filter, or undefined when no filter was given (every entry is shown). */
export function entryPredicate(filter: EntryFilter): ((facts: EntryFacts) => boolean) | undefined {
  const { type, counterparty, min, max } = filter;
  if (type === undefined && counterparty === undefined && min === undefined && max === undefined) {
    return undefined;
  }
  const needle = counterparty === undefined ? undefined : fold(counterparty);
  // A needle of digits and document punctuation only (`123.456`, `12345678000199`) is looked for in the
  // document's digits; anything else in the name.
  const digits = needle !== undefined && /^[\d.\-/ ]+$/.test(needle) ? needle.replace(/\D/g, '') : undefined;
  return (facts) => {
    if (type !== undefined && facts.type.toUpperCase() !== type) return false;
    const size = Math.abs(facts.amount);
    if (min !== undefined && size < min) return false;
    if (max !== undefined && size > max) return false;
    if (needle === undefined) return true;
    if (digits !== undefined && digits !== '') {
      return (facts.document ?? '').replace(/\D/g, '').includes(digits);
    }
    return fold(facts.name ?? '').includes(needle);
  };
}
