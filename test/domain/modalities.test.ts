import { describe, expect, it } from 'vitest';
import { MODALITIES, parseModality } from '../../src/domain/modalities.js';
import { closest } from '../../src/domain/words.js';
import { refusalOf } from '../helpers/domain.js';

describe('parseModality', () => {
  it('passes every known modality as it is', () => {
    for (const [kind, list] of Object.entries(MODALITIES)) {
      for (const modality of list)
        expect(parseModality(kind as keyof typeof MODALITIES, modality)).toBe(modality);
    }
  });

  it("maps the natural spelling to the provider's PERCENTAGE_PER_DAYWORKING_DAYS", () => {
    expect(parseModality('interest', 'PERCENTAGE_PER_DAY_WORKING_DAYS')).toBe(
      'PERCENTAGE_PER_DAYWORKING_DAYS',
    );
    expect(parseModality('interest', ' PERCENTAGE_PER_DAYWORKING_DAYS ')).toBe(
      'PERCENTAGE_PER_DAYWORKING_DAYS',
    );
  });

  it('passes an unknown UPPER_CASE string far from every known one (the caller warns)', () => {
    expect(parseModality('fine', 'NEW_FINE_KIND')).toBe('NEW_FINE_KIND');
  });

  it.each([
    ['interest', 'PERCENTAGE_PER_MONTH_WORKING_DAY', 'did you mean PERCENTAGE_PER_MONTH_WORKING_DAYS?'],
    ['interest', 'PERCENTAGE_PER_YAER_CALENDAR_DAYS', 'did you mean PERCENTAGE_PER_YEAR_CALENDAR_DAYS?'],
    ['interest', 'PERCENTAGE_PER_DAY_WORKING_DAY', 'did you mean PERCENTAGE_PER_DAYWORKING_DAYS?'],
    ['fine', 'PERCENTAGE', 'did you mean PERCENT?'],
    ['fine', 'FIXED_VALEU', 'did you mean FIXED_VALUE?'],
    ['fine', 'percent', 'did you mean PERCENT?'],
    ['abatement', 'Fixed Value', 'did you mean FIXED_VALUE?'],
    ['discount', 'percentage-date-reported', 'did you mean PERCENTAGE_DATE_REPORTED?'],
  ] as const)('%s %j → refused: %s', (kind, text, hint) => {
    expect(refusalOf(() => parseModality(kind, text)).hint).toBe(hint);
  });

  it("refuses another object's modality, listing this one's", () => {
    const refusal = refusalOf(() => parseModality('interest', 'PERCENT'));
    expect(refusal.message).toBe('"PERCENT" is a modality of fine and abatement, not of interest');
    expect(refusal.hint).toMatch(/^use one of VALUE_CALENDAR_DAYS, /);
  });

  it('refuses lower case or other characters with the list when nothing is close', () => {
    const refusal = refusalOf(() => parseModality('fine', 'per-day'));
    expect(refusal.message).toMatch(/is not a modality: modalities are the API's UPPER_CASE strings/);
    expect(refusal.hint).toBe('use one of FIXED_VALUE, PERCENT');
  });
});

describe('closest', () => {
  it('finds a typo within 3 edits (a swap of neighbours is one), and nothing for unrelated words', () => {
    expect(closest('PERCNET', ['PERCENT', 'FIXED_VALUE'])).toBe('PERCENT');
    expect(closest('FIXED', ['PERCENT', 'FIXED_VALUE'])).toBeUndefined();
    expect(closest('XYZ', ['PERCENT'])).toBeUndefined();
    expect(closest('AB', ['XY'])).toBeUndefined();
  });
});
