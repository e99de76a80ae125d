import { describe, expect, it } from 'vitest';
import { formatDocument, maskDocument, parseCnpj, parseCpf, parseTaxId } from '../../src/domain/documents.js';
import { reasonOf } from '../helpers/domain.js';

// Independent check-digit arithmetic (Receita Federal's modulo 11), to cross-check the library.
function cpfDigits(base9: string): string {
  let out = base9;
  for (const start of [10, 11]) {
    const sum = Array.from(out).reduce((acc, d, i) => acc + Number(d) * (start - i), 0);
    const rest = (sum * 10) % 11;
    out += String(rest === 10 ? 0 : rest);
  }
  return out;
}

// Alphanumeric CNPJ: each character is worth its ASCII code minus 48; weights 2..9 from the right.
function cnpjDigits(base12: string): string {
  let out = base12;
  for (let round = 0; round < 2; round++) {
    const values = Array.from(out).map((c) => c.charCodeAt(0) - 48);
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[values.length - 1 - i]! * ((i % 8) + 2);
    const rest = sum % 11;
    out += String(rest < 2 ? 0 : 11 - rest);
  }
  return out;
}

describe('reference arithmetic', () => {
  it('agrees with known documents', () => {
    expect(cpfDigits('123456789')).toBe('12345678909');
    expect(cpfDigits('280012389')).toBe('28001238938'); // Receita's worked example
    expect(cnpjDigits('112223330001')).toBe('11222333000181');
    expect(cnpjDigits('12ABC34501DE')).toBe('12ABC34501DE35'); // Receita's alphanumeric example
  });
});

describe('parseCpf', () => {
  it('accepts with or without punctuation', () => {
    expect(parseCpf('123.456.789-09')).toBe('12345678909');
    expect(parseCpf('12345678909')).toBe('12345678909');
    expect(parseCpf(' 123 456 789 09 ')).toBe('12345678909');
    expect(parseCpf('280.012.389-38')).toBe('28001238938');
  });

  it('accepts every CPF built with the reference arithmetic', () => {
    for (let n = 1; n < 1000; n += 37) {
      const base = String(n * 987_654 + 12_345)
        .padStart(9, '0')
        .slice(0, 9);
      const cpf = cpfDigits(base);
      if (/^(\d)\1{10}$/.test(cpf)) continue;
      expect(parseCpf(cpf)).toBe(cpf);
    }
  });

  it('refuses wrong check digits', () => {
    expect(reasonOf(() => parseCpf('123.456.789-00'))).toBe(
      '"123.456.789-00" is not a valid CPF: check digits do not match',
    );
    expect(reasonOf(() => parseCpf('12345678919'))).toMatch(/check digits do not match/);
  });

  it('refuses a wrong length, letters, empty and repeated digits', () => {
    expect(reasonOf(() => parseCpf('1234567890'))).toBe('a CPF must have 11 digits, "1234567890" has 10');
    expect(reasonOf(() => parseCpf('123.456.789-091'))).toMatch(/must have 11 digits/);
    expect(reasonOf(() => parseCpf('123.456.78a-09'))).toMatch(/only digits/);
    expect(reasonOf(() => parseCpf(''))).toMatch(/required/);
    expect(reasonOf(() => parseCpf('111.111.111-11'))).toMatch(/all digits are the same/);
  });
});

describe('parseCnpj', () => {
  it('accepts numeric CNPJs with or without punctuation', () => {
    expect(parseCnpj('11.222.333/0001-81')).toBe('11222333000181');
    expect(parseCnpj('11222333000181')).toBe('11222333000181');
    expect(parseCnpj('22.840.215/0001-53')).toBe('22840215000153');
  });

  it('accepts alphanumeric CNPJs, in any case, upper-cased', () => {
    expect(parseCnpj('12.ABC.345/01DE-35')).toBe('12ABC34501DE35');
    expect(parseCnpj('12abc34501de35')).toBe('12ABC34501DE35');
    expect(parseCnpj('Q0.SLF.MBD/7VX4-39')).toBe('Q0SLFMBD7VX439');
    for (const base of ['ABCDEFGHIJKL', 'Z9Y8X7W6V5U4', '000000000ZZZ', 'PIXCLI000001']) {
      expect(parseCnpj(cnpjDigits(base))).toBe(cnpjDigits(base));
    }
  });

  it('refuses wrong check digits', () => {
    expect(reasonOf(() => parseCnpj('11.222.333/0001-80'))).toBe(
      '"11.222.333/0001-80" is not a valid CNPJ: check digits do not match',
    );
    expect(reasonOf(() => parseCnpj('12.ABC.345/01DE-36'))).toMatch(/check digits do not match/);
  });

  it('refuses a wrong length, letters in the check digits, other characters, repeated digits', () => {
    expect(reasonOf(() => parseCnpj('11.222.333/0001-8'))).toBe(
      'a CNPJ must have 14 characters, "11.222.333/0001-8" has 13',
    );
    expect(reasonOf(() => parseCnpj('12ABC34501DE3X'))).toMatch(/last 2 characters .* must be digits/);
    expect(reasonOf(() => parseCnpj('11_222_333_0001_81'))).toMatch(/only letters, digits/);
    expect(reasonOf(() => parseCnpj('00.000.000/0000-00'))).toMatch(/all digits are the same/);
    expect(reasonOf(() => parseCnpj(''))).toMatch(/required/);
  });
});

describe('parseTaxId', () => {
  it('tells a CPF from a CNPJ by length', () => {
    expect(parseTaxId('123.456.789-09')).toEqual({ type: 'CPF', digits: '12345678909' });
    expect(parseTaxId('11.222.333/0001-81')).toEqual({ type: 'CNPJ', digits: '11222333000181' });
    expect(parseTaxId('12.abc.345/01de-35')).toEqual({ type: 'CNPJ', digits: '12ABC34501DE35' });
  });

  it('passes on the reason of the document it looks like', () => {
    expect(reasonOf(() => parseTaxId('123.456.789-00'))).toMatch(
      /not a valid CPF: check digits do not match/,
    );
    expect(reasonOf(() => parseTaxId('11.222.333/0001-80'))).toMatch(/not a valid CNPJ: check digits/);
  });

  it('says what lengths are expected', () => {
    expect(reasonOf(() => parseTaxId('12345'))).toBe(
      '"12345" has 5 characters: a CPF must have 11 digits and a CNPJ 14 characters',
    );
    expect(reasonOf(() => parseTaxId('1234567890A'))).toMatch(/11 characters: a CPF must have 11 digits/);
    expect(reasonOf(() => parseTaxId('12#45'))).toMatch(/only letters, digits/);
    expect(reasonOf(() => parseTaxId(' '))).toMatch(/required/);
  });
});

describe('maskDocument and formatDocument', () => {
  it('masks a CPF and a CNPJ, with or without punctuation', () => {
    expect(maskDocument('12345678909')).toBe('***.456.789-**');
    expect(maskDocument('123.456.789-09')).toBe('***.456.789-**');
    expect(maskDocument('11222333000181')).toBe('**.222.333/0001-**');
    expect(maskDocument('12ABC34501DE35')).toBe('**.ABC.345/01DE-**');
  });

  it('keeps values the server already masked, and unknown values, as they are', () => {
    expect(maskDocument('***.456.789-**')).toBe('***.456.789-**');
    expect(maskDocument('***456789**')).toBe('***456789**');
    expect(maskDocument('abc')).toBe('abc');
  });

  it('formats for display', () => {
    expect(formatDocument('12345678909')).toBe('123.456.789-09');
    expect(formatDocument('11222333000181')).toBe('11.222.333/0001-81');
    expect(formatDocument('12abc34501de35')).toBe('12.ABC.345/01DE-35');
    expect(formatDocument('xyz')).toBe('xyz');
  });
});
