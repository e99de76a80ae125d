/**
 * A PIX key typed by a user: detected, checked and normalised to the form the DICT stores.
 * Check digits, phone numbering and e-mail syntax come from @brazilian-utils; the detection order
 * and the reasons are ours, because its getPixKeyInfo answers only `null` for a bad key and the
 * command line must say why ("check digits do not match", "not a mobile number").
 */
import { isValidCpf } from '@brazilian-utils/brazilian-utils/is-valid-cpf';
import { isValidEmail } from '@brazilian-utils/brazilian-utils/is-valid-email';
import { isValidMobilePhone } from '@brazilian-utils/brazilian-utils/is-valid-mobile-phone';
import { parseCnpj, parseCpf } from './documents.js';
import { InvalidValue } from './invalid.js';
import { counted } from './words.js';

export type PixKeyType = 'CPF' | 'CNPJ' | 'PHONE' | 'EMAIL' | 'EVP';

export interface PixKey {
  type: PixKeyType;
  /** CPF: 11 digits; CNPJ: 14 upper-case characters; PHONE: E.164 `+55…`; EMAIL: lower-case; EVP: lower-case UUID. */
  key: string;
}

/** The DICT's limit for an e-mail key (and for any key inside a BR Code). */
export const MAX_EMAIL_LENGTH = 77;

/** A UUID in its 8-4-4-4-12 hex form: EVP keys, and the ids of keys, charges and transfers. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Digits with the punctuation of phone and document masks.
const DIGITS_AND_MASK = /^[\d\s.()/-]+$/;

/**
 * An e-mail address for a person (e.g. `--debtor-email`): trimmed, syntax checked, domain
 * lower-cased (the local part is case-sensitive by the RFC and is kept as typed).
 */
export function parseEmail(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new InvalidValue('an e-mail address is required');
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) throw new InvalidValue(`"${text}" is not an e-mail address: it needs a name, @ and a domain`);
  if (at === trimmed.length - 1)
    throw new InvalidValue(`"${text}" is not an e-mail address: nothing after the @`);
  const email = `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
  if (!isValidEmail(email)) {
    throw new InvalidValue(
      /\s/.test(email)
        ? `"${text}" is not an e-mail address: it contains spaces`
        : `"${text}" is not an e-mail address`,
    );
  }
  return email;
}

function phoneKey(text: string, digits: string): PixKey {
  // `+55 11 91234-5678`, `5511912345678`, `0055…` → national 11 digits. (11 digits starting with 55
  // are area code 55 itself, e.g. 55 99123-4567 in Rio Grande do Sul.)
  const national = digits.length > 11 ? digits.replace(/^(?:00)?55/, '') : digits;
  if (national.length === 10) {
    throw new InvalidValue(
      `"${text}" looks like a landline number; PIX phone keys are mobile numbers (area code and 9 digits)`,
    );
  }
  if (national.length !== 11) {
    throw new InvalidValue(`"${text}" is not a phone number: expected +55, a 2-digit area code and 9 digits`);
  }
  if (!isValidMobilePhone(national)) {
    throw new InvalidValue(
      `"${text}" is not a Brazilian mobile number (area code, then 9 digits starting with 9)`,
    );
  }
  return { type: 'PHONE', key: `+55${national}` };
}

/**
 * Detects and validates a PIX key:
 * - contains `@` → EMAIL (lower-cased entirely: the DICT's e-mail format admits no capitals);
 * - a UUID (8-4-4-4-12 hex) → EVP, lower-cased;
 * - starts with `+` or has a `(`area code`)` → PHONE; only `+55` numbers are PIX keys;
 * - 14 letters/digits (with or without `.`, `/`, `-`) → CNPJ, numeric or alphanumeric;
 * - 11 digits are ambiguous (a CPF and a mobile number both have 11). Rule: a valid CPF (check digits
 *   match) is a CPF; otherwise a valid mobile number is a PHONE; otherwise the CPF's reason is given.
 *   Writing `+55` or `(11)` forces PHONE. The chance a mobile number also passes as a CPF is about 1
 *   in 100, so people paying a phone key should type it with `+55`;
 * - 12–13 digits after `55` or `0055` → PHONE without the `+` (14 digits stay a CNPJ).
 */
export function parsePixKey(text: string): PixKey {
  const trimmed = text.trim();
  if (trimmed === '')
    throw new InvalidValue('a PIX key is required (CPF, CNPJ, +55 phone, e-mail or random key)');

  if (trimmed.includes('@')) {
    const email = parseEmail(trimmed).toLowerCase();
    if (email.length > MAX_EMAIL_LENGTH) {
      throw new InvalidValue(
        `"${text}" is longer than the ${MAX_EMAIL_LENGTH} characters of an e-mail PIX key`,
      );
    }
    return { type: 'EMAIL', key: email };
  }

  if (UUID_PATTERN.test(trimmed)) return { type: 'EVP', key: trimmed.toLowerCase() };
  if (/^[0-9a-f]{32}$/i.test(trimmed)) {
    throw new InvalidValue(`"${text}" looks like a random key without its dashes (write it as 8-4-4-4-12)`);
  }

  if (trimmed.startsWith('+')) {
    const rest = trimmed.slice(1);
    if (!DIGITS_AND_MASK.test(rest)) throw new InvalidValue(`"${text}" is not a phone number`);
    const digits = rest.replace(/\D/g, '');
    if (!digits.startsWith('55')) {
      throw new InvalidValue(`"${text}" is not a Brazilian number: PIX phone keys start with +55`);
    }
    return phoneKey(text, digits);
  }

  if (DIGITS_AND_MASK.test(trimmed)) {
    const digits = trimmed.replace(/\D/g, '');
    if (trimmed.includes('(')) return phoneKey(text, digits);
    if (digits.length === 14) return { type: 'CNPJ', key: parseCnpj(trimmed) };
    if (digits.length === 11) {
      if (isValidCpf(digits)) return { type: 'CPF', key: digits };
      if (isValidMobilePhone(digits)) return { type: 'PHONE', key: `+55${digits}` };
      parseCpf(trimmed); // throws the CPF's own reason (check digits, repeated digits)
    }
    if (/^(?:00)?55\d{10,11}$/.test(digits)) return phoneKey(text, digits);
    if (digits.length === 10) return phoneKey(text, digits);
    throw new InvalidValue(
      `"${text}" has ${counted(digits.length, 'digit')}: a CPF has 11, a CNPJ 14, a phone key is +55 and 11 digits`,
    );
  }

  const compact = trimmed.replace(/[.\-/\s]/g, '');
  if (/^[0-9A-Za-z]{14}$/.test(compact) && /\d/.test(compact))
    return { type: 'CNPJ', key: parseCnpj(trimmed) };

  throw new InvalidValue(
    `"${text}" is not a PIX key: expected a CPF, a CNPJ, a +55 phone, an e-mail or a random key (UUID)`,
  );
}
