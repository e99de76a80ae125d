import { describe, expect, it } from 'vitest';
import { institutionName, SANDBOX_INSTITUTION } from '../../src/domain/banks.js';
import { SANDBOX_BANK_CODE, SANDBOX_ISPB } from '../../src/sandbox/seed.js';

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
    expect(institutionName('99999998')).toBeUndefined();
    expect(institutionName('998')).toBeUndefined();
    expect(institutionName('0041696')).toBeUndefined(); // 7 digits: neither form
    expect(institutionName('abc')).toBeUndefined();
    expect(institutionName('')).toBeUndefined();
  });

  it("names the sandbox's institution (its all-nines ISPB and code are no real participant's)", () => {
    expect(SANDBOX_INSTITUTION).toMatchObject({ ispb: SANDBOX_ISPB, code: SANDBOX_BANK_CODE });
    expect(institutionName(SANDBOX_ISPB)).toBe('Sandbox PIX (simulated)');
    expect(institutionName(SANDBOX_BANK_CODE)).toBe('Sandbox PIX (simulated)');
  });
});
