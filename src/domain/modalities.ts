import { InvalidValue } from './invalid.js';

/**
 * The modality strings of the due-date charge's modifiers (contract §6), one list for the CLI that
 * validates them and the sandbox that prices them. Open in practice: the API may know more, so callers
 * pass unknown upper-case strings on with a warning rather than refusing them.
 */
export const MODALITIES = {
  discount: [
    'FIXED_VALUE_UNTIL_THE_DATES_INFORMED',
    'PERCENTAGE_DATE_REPORTED',
    'AMOUNT_PER_CALENDAR_DAY_ADVANCE',
    'AMOUNT_ADVANCE_BUSINESS_DAY',
    'PERCENTAGE_ADVANCE_CURRENT_DAY',
    'PERCENTAGE_ADVANCE_BUSINESS_DAY',
  ],
  interest: [
    'VALUE_CALENDAR_DAYS',
    'PERCENTAGE_PER_DAY_CALENDAR_DAYS',
    'PERCENTAGE_PER_MONTH_CALENDAR_DAYS',
    'PERCENTAGE_PER_YEAR_CALENDAR_DAYS',
    'VALUE_WORKING_DAYS',
    // Sic: the provider spells this one without an underscore before WORKING.
    'PERCENTAGE_PER_DAYWORKING_DAYS',
    'PERCENTAGE_PER_MONTH_WORKING_DAYS',
    'PERCENTAGE_PER_YEAR_WORKING_DAYS',
  ],
  fine: ['FIXED_VALUE', 'PERCENT'],
  abatement: ['FIXED_VALUE', 'PERCENT'],
} as const satisfies Record<string, readonly string[]>;

export type ModifierName = keyof typeof MODALITIES;

/** Discount modalities that take dated entries (discountDateFixed) instead of one value. */
export const DATED_DISCOUNTS: ReadonlySet<string> = new Set([
  'FIXED_VALUE_UNTIL_THE_DATES_INFORMED',
  'PERCENTAGE_DATE_REPORTED',
]);

/** Whether a modality's amountPerc is a percentage (else it is an amount in reais). */
export function isPercentModality(modality: string): boolean {
  return modality.startsWith('PERCENT');
}

/**
 * Spellings people naturally write for a modality the provider spells otherwise: alias → the
 * provider's own string, which is what is sent.
 */
export const MODALITY_ALIASES: Readonly<Record<string, string>> = {
  PERCENTAGE_PER_DAY_WORKING_DAYS: 'PERCENTAGE_PER_DAYWORKING_DAYS',
};

/**
 * The modality a value written with `%` (`--fine 2%`) selects when none is given: the percentage one
 * of each object. Interest and discount already default to a percentage modality (DEFAULT_MODALITY
 * of the charges resource), so `%` keeps them.
 */
export const PERCENT_MODALITY: Readonly<Record<ModifierName, string>> = {
  discount: 'PERCENTAGE_DATE_REPORTED',
  abatement: 'PERCENT',
  fine: 'PERCENT',
  interest: 'PERCENTAGE_PER_MONTH_WORKING_DAYS',
};

/**
 * The modality a value written in reais (`--interest 'R$ 2,00'`) selects when none is given: the fixed
 * amount one of each object. Fine and abatement already default to it.
 */
export const MONEY_MODALITY: Readonly<Record<ModifierName, string>> = {
  discount: 'FIXED_VALUE_UNTIL_THE_DATES_INFORMED',
  abatement: 'FIXED_VALUE',
  fine: 'FIXED_VALUE',
  interest: 'VALUE_CALENDAR_DAYS',
};

/** Whether `modality` is one pix knows for `kind` (the provider's spelling). */
export function isKnownModality(kind: ModifierName, modality: string): boolean {
  return (MODALITIES[kind] as readonly string[]).includes(modality);
}

/**
 * A modality typed by the user (`--fine-modality`, or `amountFine.modality` of `--body`) → the string
 * sent. Known modalities and aliases pass (aliases as the provider spells them). An unknown
 * UPPER_CASE string passes too (the API may know more; the caller warns), unless it is a typo of a
 * known one or a modality of another object: those are refused with a did-you-mean hint, as is
 * anything in lower case or with other characters.
 */
export function parseModality(kind: ModifierName, text: string): string {
  const value = text.trim();
  const known = MODALITIES[kind] as readonly string[];
  const list = `use one of ${known.join(', ')}`;
  if (/^[A-Z][A-Z0-9_]*$/.test(value)) {
    const alias = MODALITY_ALIASES[value];
    if (alias !== undefined && known.includes(alias)) return alias;
    if (known.includes(value)) return value;
    const near = closest(value, [...known, ...Object.keys(MODALITY_ALIASES)]);
    if (near !== undefined) {
      const meant = MODALITY_ALIASES[near] ?? near;
      throw new InvalidValue(`"${text}" is not one of the ${kind} modalities`, `did you mean ${meant}?`);
    }
    const others = (Object.keys(MODALITIES) as ModifierName[]).filter(
      (other) => other !== kind && isKnownModality(other, value),
    );
    if (others.length > 0) {
      throw new InvalidValue(`"${text}" is a modality of ${others.join(' and ')}, not of ${kind}`, list);
    }
    return value;
  }
  // `percent`, `per-day`, `Percent ` : the spelling a person means, in the API's UPPER_SNAKE_CASE.
  const upper = value.toUpperCase().replace(/[\s-]+/g, '_');
  const meant = known.includes(upper)
    ? upper
    : (MODALITY_ALIASES[upper] ?? closest(upper, [...known, ...Object.keys(MODALITY_ALIASES)]));
  const suggestion = meant === undefined ? list : `did you mean ${MODALITY_ALIASES[meant] ?? meant}?`;
  throw new InvalidValue(
    `"${text}" is not a modality: modalities are the API's UPPER_CASE strings`,
    suggestion,
  );
}

/**
 * The candidate closest to `word` by edit distance (insertions, deletions, substitutions and swaps of
 * neighbours), if it is close enough to be a typo: at most 3 edits, and more alike than not (the rule
 * Commander applies to mistyped commands and flags).
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    const length = Math.max(word.length, candidate.length);
    if (distance <= 3 && (length - distance) / length > 0.4 && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits of one substring). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]![j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
