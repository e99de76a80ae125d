/**
 * BR Code: the EMV® QR Code (Merchant Presented Mode) profile of the BACEN "Manual de Padrões para
 * Iniciação do Pix", the text behind a PIX QR code and behind "Pix copia e cola".
 *
 * Written here rather than taken from @brazilian-utils (whose getPixPayloadInfo/generatePixPayload
 * the tests use as an independent check) because:
 * - its parser answers `null` without saying what is wrong or where, and `pix emv decode` / `pix pay qr`
 *   must tell the user "CRC mismatch" or "field 54 declares 6 characters but 4 remain";
 * - `pix emv decode` explains every field, so the decoder keeps the whole TLV tree with positions;
 * - its generator takes the amount as a float of reais (pix keeps integer centavos), folds accents
 *   to ASCII and decides field 01 itself, while the sandbox needs to choose it.
 *
 * Lengths in the TLV count characters (Unicode code points), as the manual's examples do; the CRC
 * is computed over the UTF-8 bytes.
 *
 * Here the decoder; the field names are in `brcodenames.ts`, the CRC in `crc16.ts`, the explanation of
 * each field in `brcodeexplain.ts` and the encoder in `brcodeencode.ts`.
 */

import { childName, isMerchantAccount, isTemplate, topName } from './brcodenames.js';
import { crc16 } from './crc16.js';
import { InvalidValue } from './invalid.js';
import type { Centavos } from './money.js';
import { counted } from './words.js';

export interface BrCodeField {
  /** Two-digit field id, e.g. `54`. */
  id: string;
  /** English name of the field, e.g. `Transaction Amount`. */
  name: string;
  /** The raw value (for templates: the raw text of all their sub-fields). */
  value: string;
  /** Character (code point) index of the field's id in the whole code. */
  position: number;
  /** Sub-fields of a template (26–51, 62, 64, 80–99). */
  children?: BrCodeField[];
}

export interface DecodedBrCode {
  fields: BrCodeField[];
  payloadFormat: string;
  /** `11` static (may be paid more than once), `12` dynamic (paid once), or absent. */
  pointOfInitiation: '11' | '12' | undefined;
  /** `dynamic` when the merchant account information carries a URL (sub 25) instead of a key (sub 01). */
  kind: 'static' | 'dynamic';
  pixKey?: string;
  url?: string;
  /** Sub-field 02 of the PIX template: free text shown to the payer. */
  description?: string;
  merchantCategoryCode?: string;
  amount?: Centavos;
  currency: string;
  countryCode: string;
  merchantName: string;
  merchantCity: string;
  postalCode?: string;
  /** 62/05, absent when the code carries the `***` marker (no transaction id). */
  txid?: string;
  /** The four hex digits of field 63 as written in the code, upper-cased. */
  crc: string;
  /**
   * Each rule of the BR Code manual the code breaks without being damaged (a merchant name over 25
   * characters, a URL with its `https://`, no field 62, a txid with `_`, an amount written `10.`):
   * payer apps accept such codes, so decoding does too and says so here (`--strict` refuses them).
   */
  warnings: string[];
}

export interface BrCodeInput {
  pixKey?: string;
  url?: string;
  description?: string;
  amount?: Centavos;
  merchantName: string;
  merchantCity: string;
  postalCode?: string;
  txid?: string;
  pointOfInitiation?: '11' | '12';
}

export const PIX_GUI = 'br.gov.bcb.pix';
export const MAX_MERCHANT_NAME = 25;
export const MAX_MERCHANT_CITY = 15;
export const NO_TXID = '***';

// ---------------------------------------------------------------------------------------------
// TLV walk

interface RawField {
  id: string;
  value: string;
  position: number;
}

/**
 * Splits `chars[start..end)` into id(2) length(2) value(length) triples. `where` names the enclosing
 * template for messages ("field" at the top level, "field 26, sub-field" inside one).
 */
function walk(chars: string[], start: number, end: number, where: (id: string) => string): RawField[] {
  const out: RawField[] = [];
  let i = start;
  while (i < end) {
    const remaining = end - i;
    const id = chars.slice(i, i + 2).join('');
    if (remaining < 2) {
      throw new InvalidValue(
        `${where('').trimEnd()} at character ${i} is cut short: "${id}" is not a field id and length`,
      );
    }
    if (!/^\d\d$/.test(id)) {
      throw new InvalidValue(`${where('').trimEnd()} at character ${i}: id "${id}" is not two digits`);
    }
    if (remaining < 4) {
      throw new InvalidValue(`${where(id)} at character ${i} is cut short: no room for its 2-digit length`);
    }
    const len = chars.slice(i + 2, i + 4).join('');
    if (!/^\d\d$/.test(len)) {
      throw new InvalidValue(`${where(id)} at character ${i}: length "${len}" is not a 2-digit number`);
    }
    const length = Number(len);
    const left = remaining - 4;
    if (length > left) {
      throw new InvalidValue(
        `${where(id)} at character ${i} declares ${counted(length, 'character')} but ${left} remain${left === 1 ? 's' : ''}`,
      );
    }
    if (length === 0) throw new InvalidValue(`${where(id)} at character ${i} is empty (length 00)`);
    out.push({ id, value: chars.slice(i + 4, i + 4 + length).join(''), position: i });
    i += 4 + length;
  }
  return out;
}

function findChild(field: BrCodeField | undefined, id: string): BrCodeField | undefined {
  return field?.children?.find((c) => c.id === id);
}

/** Whether a merchant account template's sub-fields carry the PIX GUI in sub-field 00 (any case). */
export function hasPixGui(children: ReadonlyArray<{ id: string; value: string }> | undefined): boolean {
  return (children ?? []).some((c) => c.id === '00' && c.value.toLowerCase() === PIX_GUI);
}

const AMOUNT = /^(\d{1,10})(?:\.(\d{0,2}))?$/;

/** Field 54 (`10`, `10.5`, `10.50`, and `10.` which payer apps accept) to centavos, without floats. */
function amountToCentavos(value: string, position: number): Centavos {
  const match = AMOUNT.exec(value);
  if (!match) {
    throw new InvalidValue(
      `field 54 (amount) at character ${position}: "${value}" is not an amount (digits, a dot, at most 2 decimals)`,
    );
  }
  return Number(match[1]) * 100 + (match[2] ? Number(match[2].padEnd(2, '0')) : 0);
}

const TXID = /^[0-9A-Za-z]{1,25}$/;

/** The rules of the manual a structurally sound code breaks, one sentence each (no text of the code in them). */
function brokenRules(fields: BrCodeField[], decoded: DecodedBrCode, crcText: string): string[] {
  const warnings: string[] = [];
  const byId = (id: string) => fields.find((f) => f.id === id);
  const length = (field: BrCodeField) => Array.from(field.value).length;
  const at = (field: BrCodeField) => `at character ${field.position}`;
  if (!byId('52'))
    warnings.push('field 52 (merchant category code) is missing; the manual requires it (0000)');
  for (const [id, what, max] of [
    ['59', 'merchant name', MAX_MERCHANT_NAME],
    ['60', 'merchant city', MAX_MERCHANT_CITY],
  ] as const) {
    const field = byId(id)!;
    if (length(field) > max) {
      warnings.push(
        `field ${id} (${what}) ${at(field)} has ${length(field)} characters; the manual allows ${max}`,
      );
    }
  }
  const amount = byId('54');
  if (amount?.value.endsWith('.')) {
    warnings.push(`field 54 (amount) ${at(amount)} ends in a dot; the manual writes 10 or 10.00`);
  }
  if (decoded.url !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(decoded.url)) {
    warnings.push('the URL (sub-field 25) starts with a scheme (https://); the manual writes it without one');
  }
  const additional = byId('62');
  const txid = findChild(additional, '05');
  if (!additional) {
    warnings.push(
      'field 62 (additional data) is missing; the manual requires it, with *** when there is no txid',
    );
  } else if (!txid) {
    warnings.push(
      `field 62 ${at(additional)} has no sub-field 05 (txid); the manual requires it, *** when there is none`,
    );
  } else if (txid.value !== NO_TXID && !TXID.test(txid.value)) {
    warnings.push(
      `the txid (62.05) ${at(txid)} ${length(txid) > 25 ? `has ${length(txid)} characters` : 'has characters other than letters and digits'}; the manual allows 1 to 25 letters and digits`,
    );
  }
  if (crcText !== crcText.toUpperCase())
    warnings.push('the CRC (field 63) is in lower case; the manual writes it in upper case');
  return warnings;
}

/** The code's TLV fields, each template's sub-fields named (a PIX template's by the PIX rules). */
function readFields(chars: string[]): BrCodeField[] {
  const top = walk(chars, 0, chars.length, (id) => (id ? `field ${id}` : 'field'));
  return top.map((raw) => {
    const field: BrCodeField = {
      id: raw.id,
      name: topName(raw.id),
      value: raw.value,
      position: raw.position,
    };
    if (isTemplate(raw.id)) {
      const base = raw.position + 4;
      const subs = walk(chars, base, base + Array.from(raw.value).length, (id) =>
        id ? `field ${raw.id}, sub-field ${id}` : `field ${raw.id}, sub-field`,
      );
      const pix = isMerchantAccount(raw.id) && hasPixGui(subs);
      field.children = subs.map((s) => ({
        id: s.id,
        name: childName(raw.id, s.id, pix),
        value: s.value,
        position: s.position,
      }));
    }
    return field;
  });
}

/** Field 63, last, 4 hex digits over everything before those digits: the CRC as written (upper case). */
function checkCrc(chars: string[], fields: readonly BrCodeField[]): { field: BrCodeField; written: string } {
  const crcField = fields.find((f) => f.id === '63');
  if (!crcField)
    throw new InvalidValue('field 63 (CRC) is missing: the code must end in 6304 and 4 hex digits');
  if (fields[fields.length - 1] !== crcField) {
    throw new InvalidValue(`field 63 (CRC) at character ${crcField.position} must be the last field`);
  }
  if (!/^[0-9A-Fa-f]{4}$/.test(crcField.value)) {
    throw new InvalidValue(
      `field 63 (CRC) at character ${crcField.position}: "${crcField.value}" is not 4 hex digits`,
    );
  }
  const written = crcField.value.toUpperCase();
  const computed = crc16(chars.slice(0, crcField.position + 4).join(''));
  if (written !== computed) {
    throw new InvalidValue(`CRC mismatch: code ends in ${written}, content gives ${computed}`);
  }
  return { field: crcField, written };
}

/** Field 00 first and `01`; field 01, when present, 11 or 12. */
function checkHeader(fields: readonly BrCodeField[]): { format: BrCodeField; poi: BrCodeField | undefined } {
  const format = fields.find((f) => f.id === '00');
  if (!format) throw new InvalidValue('field 00 (payload format indicator) is missing');
  if (fields[0] !== format)
    throw new InvalidValue('field 00 (payload format indicator) must be the first field');
  if (format.value !== '01') {
    throw new InvalidValue(`field 00 (payload format indicator) is "${format.value}", expected "01"`);
  }
  const poi = fields.find((f) => f.id === '01');
  if (poi && poi.value !== '11' && poi.value !== '12') {
    throw new InvalidValue(
      `field 01 (point of initiation) at character ${poi.position} is "${poi.value}", expected 11 or 12`,
    );
  }
  return { format, poi };
}

/** The merchant account template with the PIX GUI, and its key (static) or URL (dynamic): one of them. */
function pixAccountOf(fields: readonly BrCodeField[]): { account: BrCodeField; key?: string; url?: string } {
  const accounts = fields.filter((f) => isMerchantAccount(f.id));
  const account = accounts.find((f) => (findChild(f, '00')?.value ?? '').toLowerCase() === PIX_GUI);
  if (!account) {
    if (accounts.length === 0) {
      throw new InvalidValue(`field 26 (merchant account information with GUI ${PIX_GUI}) is missing`);
    }
    const first = accounts[0]!;
    const gui = findChild(first, '00');
    throw new InvalidValue(
      gui
        ? `field ${first.id} at character ${first.position}: GUI is "${gui.value}", expected ${PIX_GUI}`
        : `field ${first.id} at character ${first.position}: sub-field 00 (GUI ${PIX_GUI}) is missing`,
    );
  }
  const key = findChild(account, '01')?.value;
  const url = findChild(account, '25')?.value;
  if (key !== undefined && url !== undefined) {
    throw new InvalidValue(
      `field ${account.id} at character ${account.position} carries both a PIX key (01) and a URL (25); it must carry one`,
    );
  }
  if (key === undefined && url === undefined) {
    throw new InvalidValue(
      `field ${account.id} at character ${account.position} carries neither a PIX key (01) nor a URL (25)`,
    );
  }
  return { account, ...(key === undefined ? {} : { key }), ...(url === undefined ? {} : { url }) };
}

/** A field the code must carry (exit 2 naming it when it does not). */
function required(fields: readonly BrCodeField[], id: string, what: string): BrCodeField {
  const found = fields.find((f) => f.id === id);
  if (!found) throw new InvalidValue(`field ${id} (${what}) is missing`);
  return found;
}

/**
 * Parses and checks a BR Code. Strict where a typo or damage shows (CRC, TLV structure, GUI, payload
 * format, amount characters, key and URL both present); lenient where real codes in the wild are
 * (merchant name/city longer than the manual allows, field 62 or 52 missing, a txid with `_`, a URL
 * with `https://`, an amount `10.`, a lower-case hex CRC): each such rule broken is in `warnings`.
 * Throws InvalidValue saying what is wrong and where (character positions count from 0). Its steps:
 * the fields, the CRC, the header, the PIX template, then what a payer reads.
 */
export function decodeBrCode(text: string): DecodedBrCode {
  const trimmed = text.trim();
  if (trimmed === '') throw new InvalidValue('the code is empty');
  const chars = Array.from(trimmed);
  const fields = readFields(chars);
  const crc = checkCrc(chars, fields);
  const { format, poi } = checkHeader(fields);
  const pix = pixAccountOf(fields);
  const currency = required(fields, '53', 'transaction currency');
  if (currency.value !== '986') {
    throw new InvalidValue(
      `field 53 (currency) at character ${currency.position} is "${currency.value}"; PIX codes are in reais (986)`,
    );
  }
  const byId = (id: string) => fields.find((f) => f.id === id);
  const decoded: DecodedBrCode = {
    fields,
    payloadFormat: format.value,
    pointOfInitiation: poi?.value as '11' | '12' | undefined,
    kind: pix.url !== undefined ? 'dynamic' : 'static',
    currency: currency.value,
    countryCode: required(fields, '58', 'country code').value,
    merchantName: required(fields, '59', 'merchant name').value,
    merchantCity: required(fields, '60', 'merchant city').value,
    crc: crc.written,
    warnings: [],
  };
  if (pix.key !== undefined) decoded.pixKey = pix.key;
  if (pix.url !== undefined) decoded.url = pix.url;
  const description = findChild(pix.account, '02')?.value;
  if (description !== undefined) decoded.description = description;
  const mcc = byId('52')?.value;
  if (mcc !== undefined) decoded.merchantCategoryCode = mcc;
  const amountField = byId('54');
  if (amountField) decoded.amount = amountToCentavos(amountField.value, amountField.position);
  const postal = byId('61')?.value;
  if (postal !== undefined) decoded.postalCode = postal;
  const txid = findChild(byId('62'), '05')?.value;
  if (txid !== undefined && txid !== NO_TXID) decoded.txid = txid;
  decoded.warnings = brokenRules(fields, decoded, crc.field.value);
  return decoded;
}
