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
