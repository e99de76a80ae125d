import { describe, expect, it } from 'vitest';
import {
  isPercentText,
  MAX_QUESTION,
  MIN_CHARGE,
  modalityParser,
  modalityWarning,
  parseChargeAmount,
  parseExpiresIn,
  parseInfo,
  parseModifierValue,
  parsePercent,
  parsePostalCode,
  parseQuestion,
  parseState,
  parseText,
  parseUuid,
} from '../../src/domain/charge-values.js';
import { reasonOf } from '../helpers/domain.js';

describe('parseChargeAmount: typed or a JSON number of reais, at least the minimum of a charge', () => {
  it.each([
    ['10', 1000],
    ['10,50', 1050],
    ['R$ 1.234,56', 123456],
    [5, 500],
    [10.5, 1050],
  ] as const)('%j → %d centavos', (value, centavos) => {
    expect(parseChargeAmount(value)).toBe(centavos);
  });

  it('refuses less than 5,00 (MIN_CHARGE), naming the minimum', () => {
    expect(MIN_CHARGE).toBe(500);
    expect(reasonOf(() => parseChargeAmount('4,99'))).toBe(
      '"4,99" is below R$ 5,00, the minimum of a charge',
    );
    expect(reasonOf(() => parseChargeAmount(1))).toBe('"1" is below R$ 5,00, the minimum of a charge');
  });
});

describe('the text values', () => {
  it('parseUuid: trimmed, or refused pointing at `pix keys`', () => {
    expect(parseUuid(' 123e4567-e12b-12d1-a456-426655440000 ')).toBe('123e4567-e12b-12d1-a456-426655440000');
    expect(reasonOf(() => parseUuid('abc'))).toBe('"abc" is not a UUID (see the Id column of `pix keys`)');
  });

  it('parseText: trimmed, never empty', () => {
    expect(parseText('  Ana  ')).toBe('Ana');
    expect(reasonOf(() => parseText('   '))).toBe('must not be empty');
  });

  it('parseQuestion: at most 140 characters, counted as people count them', () => {
    expect(MAX_QUESTION).toBe(140);
    expect(parseQuestion('é'.repeat(140))).toBe('é'.repeat(140));
    expect(parseQuestion('😀'.repeat(140))).toBe('😀'.repeat(140));
    expect(reasonOf(() => parseQuestion('a'.repeat(141)))).toBe(
      'is 141 characters long; the API takes at most 140',
    );
    expect(reasonOf(() => parseQuestion(' '))).toBe('must not be empty');
  });

  it('parseInfo: NAME=VALUE split at the first =, both sides non-empty', () => {
    expect(parseInfo(' Pedido = 42=b ')).toEqual({ name: 'Pedido', value: '42=b' });
    for (const text of ['Pedido', '=42', 'Pedido=', ' = ']) {
      expect(reasonOf(() => parseInfo(text))).toBe(`"${text}" is not NAME=VALUE`);
    }
  });

  it("parseState: a Brazilian state's two-letter code, any case → upper case", () => {
    expect(parseState(' sp ')).toBe('SP');
    expect(parseState('Am')).toBe('AM');
    for (const text of ['XX', 'S', 'SPA', '12']) {
      expect(reasonOf(() => parseState(text))).toBe(
        `"${text}" is not a Brazilian state's two-letter code (UF), e.g. SP`,
      );
    }
  });

  it('parsePostalCode: 8 digits, with or without dash, dot or spaces', () => {
    expect(parsePostalCode('01310-100')).toBe('01310100');
    expect(parsePostalCode('01.310-100')).toBe('01310100');
    expect(parsePostalCode(' 01310100 ')).toBe('01310100');
    expect(reasonOf(() => parsePostalCode('1310-100'))).toBe(
      '"1310-100" is not a CEP (8 digits, e.g. 01310-100)',
    );
  });
});

describe('percentages and modifier values', () => {
  it('isPercentText: typed text ending in %, never a JSON number', () => {
    expect(isPercentText('2%')).toBe(true);
    expect(isPercentText('2,5 %')).toBe(true);
    expect(isPercentText('2')).toBe(false);
    expect(isPercentText(2)).toBe(false);
  });

  it.each([
    ['2', 2],
    ['2,5%', 2.5],
    ['0.033', 0.033],
    ['100 %', 100],
    ['0', 0],
  ])('parsePercent(%j) → %d', (text, percent) => {
    expect(parsePercent(text)).toBe(percent);
  });

  it('parsePercent refuses what is not 0 to 100 with at most 4 decimals', () => {
    expect(reasonOf(() => parsePercent('100,5'))).toBe('"100,5" is more than 100%');
    for (const text of ['-1', 'abc', '1,23456', '1000']) {
      expect(reasonOf(() => parsePercent(text))).toMatch(
        /is not a percentage \(0 to 100\)|is more than 100%/,
      );
    }
  });

  it('parseModifierValue: a percentage for PERCENT* modalities, an amount in reais for the others', () => {
    expect(parseModifierValue('PERCENT', '2%')).toEqual({ kind: 'percent', percent: 2 });
    expect(parseModifierValue('PERCENT', 2)).toEqual({ kind: 'percent', percent: 2 });
    expect(parseModifierValue('FIXED_VALUE', '10,50')).toEqual({ kind: 'money', centavos: 1050 });
    expect(parseModifierValue('FIXED_VALUE', 10.5)).toEqual({ kind: 'money', centavos: 1050 });
    expect(reasonOf(() => parseModifierValue('FIXED_VALUE', '2%'))).toBe(
      '"2%" is a percentage, but FIXED_VALUE takes an amount in reais',
    );
  });

  it('modalityParser and modalityWarning: known modalities pass quietly, unknown upper case with a warning', () => {
    expect(modalityParser('fine')('PERCENT')).toBe('PERCENT');
    expect(modalityWarning('fine', 'PERCENT', '--fine-modality')).toBeUndefined();
    expect(modalityWarning('fine', 'NEW_KIND', '--fine-modality')).toBe(
      '--fine-modality: NEW_KIND is not one of the fine modalities pix knows (FIXED_VALUE, PERCENT); sending it as is',
    );
  });
});

describe('parseExpiresIn: the API counts minutes, hours or days', () => {
  it.each([
    ['30m', { value: 30, unit: 'minutes' }],
    ['2h', { value: 2, unit: 'hours' }],
    ['1d', { value: 1, unit: 'days' }],
    ['120s', { value: 2, unit: 'minutes' }],
  ])('%j → %j', (text, expiration) => {
    expect(parseExpiresIn(text)).toEqual(expiration);
  });

  it('seconds that are not whole minutes are rounded up, never down, and a note says so', () => {
    expect(parseExpiresIn('90s')).toEqual({
      value: 2,
      unit: 'minutes',
      note: '--expires-in: the API counts minutes, so 90s was rounded up to 2 minutes',
    });
    expect(parseExpiresIn('1s').note).toBe(
      '--expires-in: the API counts minutes, so 1s was rounded up to 1 minute',
    );
  });

  it('refuses what is not a duration', () => {
    expect(reasonOf(() => parseExpiresIn('soon'))).toBe('"soon" is not a duration (use 90s, 30m, 2h or 1d)');
  });
});
