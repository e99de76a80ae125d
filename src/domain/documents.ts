/**
 * CPF and CNPJ (numeric and the alphanumeric CNPJ of IN RFB nº 2.229/2024): typed by a user with or
 * without punctuation, checked, and normalised to bare characters. The check-digit arithmetic is
 * @brazilian-utils' (isValidCpf / isValidCnpj); this module adds the reason a value is refused,
 * which the library's booleans cannot give.
 */
import { formatCnpj } from '@brazilian-utils/brazilian-utils/format-cnpj';
import { formatCpf } from '@brazilian-utils/brazilian-utils/format-cpf';
import { isValidCnpj } from '@brazilian-utils/brazilian-utils/is-valid-cnpj';
import { isValidCpf } from '@brazilian-utils/brazilian-utils/is-valid-cpf';
import { InvalidValue } from './invalid.js';
import { counted } from './words.js';

export type TaxIdType = 'CPF' | 'CNPJ';

export interface TaxId {
  type: TaxIdType;
  /** 11 digits for a CPF; 14 characters (upper-case letters allowed in the first 12) for a CNPJ. */
  digits: string;
}

// The punctuation of the usual masks (000.000.000-00, 00.000.000/0000-00) and spaces.
const PUNCTUATION = /[.\-/\s]/g;

function strip(text: string): string {
  return text.trim().replace(PUNCTUATION, '');
}

/** `123.456.789-09` or `12345678909` → `12345678909`. */
export function parseCpf(text: string): string {
  const digits = strip(text);
  if (digits === '') throw new InvalidValue('a CPF is required (11 digits)');
  if (!/^\d+$/.test(digits))
    throw new InvalidValue(`"${text}" is not a CPF: only digits, dots and a dash are allowed`);
  if (digits.length !== 11)
    throw new InvalidValue(`a CPF must have 11 digits, "${text}" has ${digits.length}`);
  if (/^(\d)\1{10}$/.test(digits))
    throw new InvalidValue(`"${text}" is not a valid CPF (all digits are the same)`);
  if (!isValidCpf(digits)) throw new InvalidValue(`"${text}" is not a valid CPF: check digits do not match`);
  return digits;
}

/** `11.222.333/0001-81`, `12.ABC.345/01DE-35` (alphanumeric, any case) → bare upper-case 14 characters. */
export function parseCnpj(text: string): string {
  const value = strip(text).toUpperCase();
  if (value === '') throw new InvalidValue('a CNPJ is required (14 characters)');
  if (!/^[0-9A-Z]+$/.test(value)) {
    throw new InvalidValue(
      `"${text}" is not a CNPJ: only letters, digits, dots, a slash and a dash are allowed`,
    );
  }
  if (value.length !== 14)
    throw new InvalidValue(`a CNPJ must have 14 characters, "${text}" has ${value.length}`);
  if (!/^\d{2}$/.test(value.slice(12))) {
    throw new InvalidValue(`"${text}" is not a CNPJ: its last 2 characters (check digits) must be digits`);
  }
  const numeric = /^\d{14}$/.test(value);
  if (numeric && /^(\d)\1{13}$/.test(value)) {
    throw new InvalidValue(`"${text}" is not a valid CNPJ (all digits are the same)`);
  }
  if (!isValidCnpj(value, { version: numeric ? 1 : 2 })) {
    throw new InvalidValue(`"${text}" is not a valid CNPJ: check digits do not match`);
  }
  return value;
}

/** A CPF (11 digits) or a CNPJ (14 characters), told apart by length. */
export function parseTaxId(text: string): TaxId {
  const value = strip(text);
  if (value === '') throw new InvalidValue('a CPF (11 digits) or CNPJ (14 characters) is required');
  if (value.length === 11 && /^\d+$/.test(value)) return { type: 'CPF', digits: parseCpf(text) };
  if (value.length === 14) return { type: 'CNPJ', digits: parseCnpj(text) };
  if (!/^[0-9A-Za-z]+$/.test(value)) {
    throw new InvalidValue(`"${text}" is not a CPF or CNPJ: only letters, digits and . / - are allowed`);
  }
  throw new InvalidValue(
    `"${text}" has ${counted(value.length, 'character')}: a CPF must have 11 digits and a CNPJ 14 characters`,
  );
}

/** `123.456.789-09` / `11.222.333/0001-81` for display; anything else is returned as it is. */
export function formatDocument(doc: string): string {
  const value = strip(doc).toUpperCase();
  if (/^\d{11}$/.test(value)) return formatCpf(value);
  if (/^[0-9A-Z]{12}\d{2}$/.test(value)) return formatCnpj(value, { version: 2 });
  return doc;
}

/**
 * Masks a document for display: `***.456.789-**` for a CPF, `**.222.333/0001-**` for a CNPJ.
 * Values that already carry `*` (the server masks documents itself) and values that are neither a
 * CPF nor a CNPJ are returned as they are.
 */
export function maskDocument(doc: string): string {
  if (doc.includes('*')) return doc;
  const value = strip(doc).toUpperCase();
  if (/^\d{11}$/.test(value)) return formatCpf(value, { obfuscate: true });
  if (/^[0-9A-Z]{12}\d{2}$/.test(value)) return formatCnpj(value, { version: 2, obfuscate: true });
  return doc;
}

/** How many characters two documents must both show, and agree on, to be one person's. */
const MIN_SHOWN_IN_COMMON = 6;

/**
 * Whether two CPFs/CNPJs can be the same person's, as far as their masks let one see: the EMV consultation
 * masks the receiver's document (`***.456.789-**`), the key consultation and the statement give it whole.
 * Equal length once bare, every position both show equal, and at least 6 of them shown by both: a mask
 * that hides more than that proves nothing.
 */
export function documentsAgree(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const [x, y] = [strip(a).toUpperCase(), strip(b).toUpperCase()];
  if (x.length !== y.length || x.length === 0) return false;
  let shown = 0;
  for (let i = 0; i < x.length; i++) {
    if (x[i] === '*' || y[i] === '*') continue;
    if (x[i] !== y[i]) return false;
    shown++;
  }
  return shown >= MIN_SHOWN_IN_COMMON;
}

/**
 * A document as the BCB's PIX rules show the other side's to a payer: a person's CPF with its first three
 * and last two digits hidden (`***.456.789-**`); a company's CNPJ in full (`11.222.333/0001-81`), as it is
 * public. Values already masked (the server's) and anything else are returned as they are.
 */
export function bcbMaskDocument(doc: string): string {
  if (doc.includes('*')) return doc;
  const value = strip(doc).toUpperCase();
  if (/^\d{11}$/.test(value)) return formatCpf(value, { obfuscate: true });
  if (/^[0-9A-Z]{12}\d{2}$/.test(value)) return formatCnpj(value, { version: 2 });
  return doc;
}
