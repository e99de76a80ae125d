import { getPixKeyInfo } from '@brazilian-utils/brazilian-utils/get-pix-key-info';
import { describe, expect, it } from 'vitest';
import { answersForKey, parseEmail, parseKeyType, parsePixKey } from '../../src/domain/pixkey.js';
import { reasonOf } from '../helpers/domain.js';

describe('parsePixKey — each kind', () => {
  it('CPF with or without punctuation', () => {
    expect(parsePixKey('123.456.789-09')).toEqual({ type: 'CPF', key: '12345678909' });
    expect(parsePixKey(' 12345678909 ')).toEqual({ type: 'CPF', key: '12345678909' });
  });

  it('CNPJ, numeric and alphanumeric', () => {
    expect(parsePixKey('11.222.333/0001-81')).toEqual({ type: 'CNPJ', key: '11222333000181' });
    expect(parsePixKey('11222333000181')).toEqual({ type: 'CNPJ', key: '11222333000181' });
    expect(parsePixKey('12.abc.345/01de-35')).toEqual({ type: 'CNPJ', key: '12ABC34501DE35' });
    expect(parsePixKey('12ABC34501DE35')).toEqual({ type: 'CNPJ', key: '12ABC34501DE35' });
  });

  it('phone numbers in the usual ways, normalised to E.164', () => {
    for (const text of [
      '+5511912345678',
      '+55 11 91234-5678',
      '+55 (11) 91234-5678',
      '(11) 91234-5678',
      '(11)912345678',
      '5511912345678',
      '005511912345678',
    ]) {
      expect(parsePixKey(text), text).toEqual({ type: 'PHONE', key: '+5511912345678' });
    }
  });

  it('e-mail, lower-cased as the DICT stores it', () => {
    expect(parsePixKey('Fulano.Tal@Example.COM')).toEqual({ type: 'EMAIL', key: 'fulano.tal@example.com' });
    expect(parsePixKey(' pix+loja@gmail.com ')).toEqual({ type: 'EMAIL', key: 'pix+loja@gmail.com' });
  });

  it('EVP (random key), lower-cased', () => {
    expect(parsePixKey('71C7D9BE-4B85-4E43-9F1C-1F3B8B4E9A2D')).toEqual({
      type: 'EVP',
      key: '71c7d9be-4b85-4e43-9f1c-1f3b8b4e9a2d',
    });
    // BACEN's example key has version nibble 1: the DICT does not constrain the version.
    expect(parsePixKey('123e4567-e12b-12d1-a456-426655440000').type).toBe('EVP');
  });
});

describe('parsePixKey — 11 digits', () => {
  it('a valid CPF wins', () => {
    // 51998259765 is a valid CPF and also a valid mobile number in area 51.
    expect(parsePixKey('51998259765')).toEqual({ type: 'CPF', key: '51998259765' });
  });

  it('otherwise they are refused, never taken for the mobile number they also are: a CPF typo must not pay a phone', () => {
    expect(reasonOf(() => parsePixKey('11987654375'))).toBe(
      '"11987654375" is not a valid CPF: check digits do not match; a phone is written +55… (+5511987654375)',
    );
    expect(reasonOf(() => parsePixKey('11 91234-5678'))).toMatch(/not a valid CPF.*\(\+5511912345678\)$/);
  });

  it('+55 or an area code in parentheses forces a phone', () => {
    expect(parsePixKey('+5551998259765')).toEqual({ type: 'PHONE', key: '+5551998259765' });
    expect(parsePixKey('(51) 99825-9765')).toEqual({ type: 'PHONE', key: '+5551998259765' });
  });

  it('neither: the CPF reason is given', () => {
    expect(reasonOf(() => parsePixKey('12345678900'))).toBe(
      '"12345678900" is not a valid CPF: check digits do not match; a phone is written +55…',
    );
  });

  it('a named type is read as that type, never detected', () => {
    expect(parsePixKey('11912345678', 'PHONE')).toEqual({ type: 'PHONE', key: '+5511912345678' });
    expect(parsePixKey('+55 (11) 91234-5678', 'PHONE')).toEqual({ type: 'PHONE', key: '+5511912345678' });
    expect(parsePixKey('51998259765', 'PHONE')).toEqual({ type: 'PHONE', key: '+5551998259765' });
    expect(parsePixKey('519.982.597-65', 'CPF')).toEqual({ type: 'CPF', key: '51998259765' });
    expect(parsePixKey('11.222.333/0001-81', 'CNPJ')).toEqual({ type: 'CNPJ', key: '11222333000181' });
    expect(parsePixKey('Ana@Example.com', 'EMAIL')).toEqual({ type: 'EMAIL', key: 'ana@example.com' });
    expect(parsePixKey('71C7D9BE-4B85-4E43-9F1C-1F3B8B4E9A2D', 'EVP')).toEqual({
      type: 'EVP',
      key: '71c7d9be-4b85-4e43-9f1c-1f3b8b4e9a2d',
    });
    expect(reasonOf(() => parsePixKey('11912345678', 'CPF'))).toMatch(/not a valid CPF/);
    expect(reasonOf(() => parsePixKey('ana@example.com', 'PHONE'))).toMatch(/not a phone number/);
    expect(reasonOf(() => parsePixKey('+1 212 555 0100', 'PHONE'))).toMatch(/start with \+55/);
    expect(reasonOf(() => parsePixKey('11912345678', 'EMAIL'))).toMatch(/not an e-mail address/);
    expect(reasonOf(() => parsePixKey('11912345678', 'EVP'))).toMatch(/not a random key/);
    expect(reasonOf(() => parsePixKey('11912345678', 'CNPJ'))).toMatch(/CNPJ must have 14/);
  });

  it('parseKeyType takes the five names in any case', () => {
    expect(['cpf', 'CNPJ', 'Phone', 'email', 'EVP'].map(parseKeyType)).toEqual([
      'CPF',
      'CNPJ',
      'PHONE',
      'EMAIL',
      'EVP',
    ]);
    expect(reasonOf(() => parseKeyType('random'))).toBe(
      '"random" is not a key type (cpf, cnpj, phone, email, evp)',
    );
  });

  it('agrees with brazilian-utils on these (not on 11 digits that fail as a CPF: those are refused)', () => {
    for (const text of ['51998259765', '+5551998259765', '(11) 91234-5678', '123.456.789-09']) {
      const lib = getPixKeyInfo(text)!;
      expect(parsePixKey(text)).toEqual({ type: lib.type.toUpperCase(), key: lib.value });
    }
  });
});

describe('parsePixKey — refusals name the reason', () => {
  it.each([
    ['', /required/],
    ['+1 212 555 0100', /start with \+55/],
    ['+55 11 2345-6789', /landline/],
    ['(11) 2345-6789', /landline/],
    ['+55 11 1234-56789', /not a Brazilian mobile number/],
    ['+55 11 91234', /not a phone number/],
    ['+55abc', /not a phone number/],
    ['11.222.333/0001-80', /CNPJ: check digits do not match/],
    ['12.ABC.345/01DE-36', /CNPJ: check digits do not match/],
    ['123.456.789-00', /CPF: check digits do not match/],
    ['111.111.111-11', /all digits are the same/],
    ['12345', /has 5 digits: a CPF has 11, a CNPJ 14/],
    ['71c7d9be4b854e439f1c1f3b8b4e9a2d', /random key without its dashes/],
    ['fulano@', /nothing after the @/],
    ['@example.com', /needs a name, @ and a domain/],
    ['fulano@example', /not an e-mail address/],
    [`${'a'.repeat(70)}@example.com`, /longer than the 77 characters/],
    ['not a key', /not a PIX key: expected a CPF, a CNPJ, a \+55 phone, an e-mail or a random key/],
    ['71c7d9be-4b85-4e43-9f1c-1f3b8b4e9a2', /not a PIX key/],
  ])('%j', (text, reason) => {
    expect(reasonOf(() => parsePixKey(text))).toMatch(reason);
  });
});

describe('parseEmail', () => {
  it('lower-cases the domain only and trims', () => {
    expect(parseEmail(' Fulano.Tal@Example.COM ')).toBe('Fulano.Tal@example.com');
    expect(parseEmail('a@b.co')).toBe('a@b.co');
  });

  it('refuses what is not an address', () => {
    expect(reasonOf(() => parseEmail(''))).toMatch(/required/);
    expect(reasonOf(() => parseEmail('fulano'))).toMatch(/needs a name, @ and a domain/);
    expect(reasonOf(() => parseEmail('ful ano@example.com'))).toMatch(/contains spaces/);
    expect(reasonOf(() => parseEmail('a..b@example.com'))).toMatch(/not an e-mail address/);
  });
});

describe('parsePixKey — area code 55', () => {
  it('keeps 55 as an area code when the number has 11 digits', () => {
    expect(parsePixKey('(55) 99123-4567')).toEqual({ type: 'PHONE', key: '+5555991234567' });
    expect(parsePixKey('+55 55 99123-4567')).toEqual({ type: 'PHONE', key: '+5555991234567' });
  });
});

describe('answersForKey: a consultation answers for the key asked', () => {
  it('in the DICT spelling of the type asked; not another key, nothing, or a key of another type', () => {
    const cpf = parsePixKey('52998224725');
    expect(answersForKey(cpf, '529.982.247-25')).toBe(true);
    expect(answersForKey(cpf, '52998224725')).toBe(true);
    expect(answersForKey(cpf, '12345678909')).toBe(false);
    expect(answersForKey(cpf, undefined)).toBe(false);
    expect(answersForKey(cpf, '')).toBe(false);
    expect(answersForKey(cpf, 52998224725)).toBe(false);
    const email = parsePixKey('ana@example.com');
    expect(answersForKey(email, 'ANA@Example.com')).toBe(true);
    expect(answersForKey(email, 'outra@example.com')).toBe(false);
    const phone = parsePixKey('+5511912345678');
    expect(answersForKey(phone, '+55 11 91234-5678')).toBe(true);
    expect(answersForKey(phone, '11912345678')).toBe(true);
    expect(answersForKey(phone, '+5511912345679')).toBe(false);
  });
});
