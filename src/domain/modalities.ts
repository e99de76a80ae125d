import { InvalidValue } from './invalid.js';
import { closest } from './words.js';

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
