/**
 * A BR Code written from its parts (`domain/brcode.ts` reads them): the text behind a PIX QR code, for
 * the sandbox's charges and batch files, with the CRC (`domain/crc16.ts`) closing it.
 */

import { type BrCodeInput, MAX_MERCHANT_CITY, MAX_MERCHANT_NAME, NO_TXID, PIX_GUI } from './brcode.js';
import { crc16 } from './crc16.js';
import { InvalidValue } from './invalid.js';
import { formatDecimal } from './money.js';

// ---------------------------------------------------------------------------------------------
// Encode

function tlv(id: string, value: string): string {
  const length = Array.from(value).length;
  if (length === 0) throw new InvalidValue(`field ${id} would be empty`);
  if (length > 99) throw new InvalidValue(`field ${id} would be ${length} characters long; at most 99 fit`);
  return `${id}${String(length).padStart(2, '0')}${value}`;
}

function truncate(text: string, max: number): string {
  return Array.from(text).slice(0, max).join('');
}

/**
 * Builds a BR Code with its CRC. Exactly one of `pixKey` (static) or `url` (dynamic, written without
 * `https://`) is required. The merchant name is cut to 25 characters and the city to 15 (the
 * manual's limits); the description is cut to what still fits in the 99-character PIX template.
 * Field 01 is written when `pointOfInitiation` is given, and as `12` for a URL; a static code
 * without it omits field 01 as BACEN's own example does. Characters are kept as given (no accent
 * folding); lengths count characters.
 */
export function encodeBrCode(input: BrCodeInput): string {
  const hasKey = input.pixKey !== undefined && input.pixKey !== '';
  const hasUrl = input.url !== undefined && input.url !== '';
  if (hasKey === hasUrl) throw new InvalidValue('a BR Code needs exactly one of a PIX key or a URL');
  const name = truncate(input.merchantName.trim(), MAX_MERCHANT_NAME);
  const city = truncate(input.merchantCity.trim(), MAX_MERCHANT_CITY);
  if (name === '') throw new InvalidValue('the merchant name is empty');
  if (city === '') throw new InvalidValue('the merchant city is empty');
  const txid = input.txid ?? NO_TXID;
  if (txid !== NO_TXID && !/^[A-Za-z0-9]{1,25}$/.test(txid)) {
    throw new InvalidValue(`txid "${txid}" must be 1 to 25 letters and digits`);
  }
  if (input.amount !== undefined && (!Number.isSafeInteger(input.amount) || input.amount <= 0)) {
    throw new InvalidValue(`amount ${input.amount} must be a positive whole number of centavos`);
  }

  let account = tlv('00', PIX_GUI) + (hasKey ? tlv('01', input.pixKey!) : tlv('25', input.url!));
  if (input.description) {
    const room = 99 - Array.from(account).length - 4;
    const description = truncate(input.description, room);
    if (description !== '') account += tlv('02', description);
  }
  const poi = input.pointOfInitiation ?? (hasUrl ? '12' : undefined);

  let code = tlv('00', '01');
  if (poi) code += tlv('01', poi);
  code += tlv('26', account);
  code += tlv('52', '0000');
  code += tlv('53', '986');
  if (input.amount !== undefined) code += tlv('54', formatDecimal(input.amount));
  code += tlv('58', 'BR');
  code += tlv('59', name);
  code += tlv('60', city);
  if (input.postalCode) code += tlv('61', input.postalCode);
  code += tlv('62', tlv('05', txid));
  code += '6304';
  return code + crc16(code);
}
