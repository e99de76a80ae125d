/**
 * A PIX key typed by a user: detected, checked and normalised to the form the DICT stores.
 * Check digits, phone numbering and e-mail syntax come from @brazilian-utils; the detection order
 * and the reasons are ours, because its getPixKeyInfo answers only `null` for a bad key and the
 * command line must say why ("check digits do not match", "not a mobile number").
 */
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

/**
 * 11 bare digits: a CPF, or refused with the CPF's own reason and how a phone is written; never taken for
 * the mobile number they may also be.
 */
function cpfOrRefusal(text: string, digits: string): PixKey {
  try {
    return { type: 'CPF', key: parseCpf(text) };
  } catch (error) {
    // Written with a CPF's dots, it was meant as a CPF: only the CPF's reason.
    if (!(error instanceof InvalidValue) || text.includes('.')) throw error;
    const phone = isValidMobilePhone(digits) ? ` (+55${digits})` : '';
    throw new InvalidValue(`${error.message}; a phone is written +55…${phone}`);
  }
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

/** The key types `--key-type` and a batch file's `key_type` column name, as typed (lower case). */
export const KEY_TYPE_NAMES = ['cpf', 'cnpj', 'phone', 'email', 'evp'] as const;

/** `cpf`, `Phone`, `EVP`… → the DICT's type; anything else is refused naming the five. */
export function parseKeyType(text: string): PixKeyType {
  const name = text.trim().toLowerCase();
  if (!(KEY_TYPE_NAMES as readonly string[]).includes(name)) {
    throw new InvalidValue(`"${text}" is not a key type (${KEY_TYPE_NAMES.join(', ')})`);
  }
  return name.toUpperCase() as PixKeyType;
}

/** A phone key as people type it (`+55 11 91234-5678`, `(11) 91234-5678`, `11912345678`, `5511…`). */
function typedPhone(text: string): PixKey {
  const trimmed = text.trim();
  const plus = trimmed.startsWith('+');
  const rest = plus ? trimmed.slice(1) : trimmed;
  if (rest === '' || !DIGITS_AND_MASK.test(rest)) throw new InvalidValue(`"${text}" is not a phone number`);
  const digits = rest.replace(/\D/g, '');
  if (plus && !digits.startsWith('55')) {
    throw new InvalidValue(`"${text}" is not a Brazilian number: PIX phone keys start with +55`);
  }
  return phoneKey(text, digits);
}

function typedEmail(text: string): PixKey {
  const email = parseEmail(text).toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH) {
    throw new InvalidValue(
      `"${text}" is longer than the ${MAX_EMAIL_LENGTH} characters of an e-mail PIX key`,
    );
  }
  return { type: 'EMAIL', key: email };
}

/** A key of a type the user named (`--key-type`, a batch file's `key_type`): no guessing at all. */
function keyOfType(text: string, type: PixKeyType): PixKey {
  switch (type) {
    case 'CPF':
      return { type, key: parseCpf(text) };
    case 'CNPJ':
      return { type, key: parseCnpj(text) };
    case 'PHONE':
      return typedPhone(text);
    case 'EMAIL':
      return typedEmail(text);
    case 'EVP':
      if (!UUID_PATTERN.test(text.trim())) {
        throw new InvalidValue(`"${text}" is not a random key: expected a UUID, 8-4-4-4-12 hex digits`);
      }
      return { type, key: text.trim().toLowerCase() };
  }
}

/**
 * How a typed key is read, for people (the man pages of `pix pay key` and `pix keys show`): the rules
 * parsePixKey follows, in order, unless the user named the key's type.
 */
export const KEY_RULES: readonly string[] = [
  'with @: an e-mail key, lower-cased entirely (the DICT admits no capitals);',
  'a UUID (8-4-4-4-12 hex digits): a random key (EVP), lower-cased;',
  'starting with + or with an (area code): a phone; only +55 numbers are PIX keys, sent as +55…;',
  '14 letters or digits, with or without . / -: a CNPJ, numeric or alphanumeric;',
  '11 digits otherwise: a CPF, refused when its check digits fail, never taken for the mobile number it may also be (a typo in a CPF would pay whoever owns that phone): write a phone +55… or (11) …;',
  '12 or 13 digits after 55 or 0055: a phone without its +.',
];

/**
 * Detects and validates a PIX key, as people type keys, by KEY_RULES above, and refuses a key that could be
 * two things (`type`, when the user named one, skips the detection). The same rule for `pix pay key`, batch
 * files and workbooks.
 */
export function parsePixKey(text: string, type?: PixKeyType): PixKey {
  const trimmed = text.trim();
  if (trimmed === '')
    throw new InvalidValue('a PIX key is required (CPF, CNPJ, +55 phone, e-mail or random key)');
  if (type !== undefined) return keyOfType(text, type);

  if (trimmed.includes('@')) return typedEmail(text);

  if (UUID_PATTERN.test(trimmed)) return { type: 'EVP', key: trimmed.toLowerCase() };
  if (/^[0-9a-f]{32}$/i.test(trimmed)) {
    throw new InvalidValue(`"${text}" looks like a random key without its dashes (write it as 8-4-4-4-12)`);
  }

  if (trimmed.startsWith('+')) return typedPhone(text);

  if (DIGITS_AND_MASK.test(trimmed)) {
    const digits = trimmed.replace(/\D/g, '');
    if (trimmed.includes('(')) return phoneKey(text, digits);
    if (digits.length === 14) return { type: 'CNPJ', key: parseCnpj(trimmed) };
    if (digits.length === 11) return cpfOrRefusal(text, digits);
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

/**
 * Whether a key consultation's `key` is the key asked: the DICT may spell it its own way (a CPF with its
 * mask, an e-mail's capitals), so it is read as the type asked and compared normalised. Nothing, or a key
 * that is not one of that type, does not answer for it.
 */
export function answersForKey(asked: PixKey, answered: unknown): boolean {
  if (typeof answered !== 'string' || answered.trim() === '') return false;
  try {
    return parsePixKey(answered, asked.type).key === asked.key;
  } catch (error) {
    if (error instanceof InvalidValue) return false;
    throw error;
  }
}
