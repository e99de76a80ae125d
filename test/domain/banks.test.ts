import { describe, expect, it } from 'vitest';
import { institutionName } from '../../src/domain/banks.js';

describe('institutionName', () => {
  it('finds a bank by ISPB', () => {
    expect(institutionName('00000000')).toBe('Banco do Brasil S.A.');
    expect(institutionName('60701190')).toBe('ITAÚ UNIBANCO S.A.');
    expect(institutionName('00416968')).toBe('Banco Inter S.A.');
    expect(institutionName(' 18236120 ')).toMatch(/^NU PAGAMENTOS/);
  });

  it('finds a bank by COMPE code, with or without leading zeros', () => {
    expect(institutionName('001')).toBe('Banco do Brasil S.A.');
    expect(institutionName('1')).toBe('Banco do Brasil S.A.');
    expect(institutionName('077')).toBe('Banco Inter S.A.');
    expect(institutionName('341')).toBe('ITAÚ UNIBANCO S.A.');
    expect(institutionName('104')).toBe('CAIXA ECONOMICA FEDERAL');
  });

  it('answers undefined for unknown or malformed values', () => {
    expect(institutionName('99999999')).toBeUndefined();
    expect(institutionName('999')).toBeUndefined();
    expect(institutionName('0041696')).toBeUndefined(); // 7 digits: neither form
    expect(institutionName('abc')).toBeUndefined();
    expect(institutionName('')).toBeUndefined();
  });
});
