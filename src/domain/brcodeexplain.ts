/**
 * What each field of a decoded BR Code means, in English, for `pix emv decode` (`domain/brcode.ts`
 * decodes it): the key and its type, the amount, the merchant, the txid, the CRC.
 */

import {
  type BrCodeField,
  type DecodedBrCode,
  hasPixGui,
  MAX_MERCHANT_CITY,
  MAX_MERCHANT_NAME,
  NO_TXID,
} from './brcode.js';
import { isMerchantAccount, num } from './brcodenames.js';
import { formatBRL } from './money.js';
import { UUID_PATTERN } from './pixkey.js';

// ---------------------------------------------------------------------------------------------
// Explain

export interface ExplainedField {
  /** `54`, or `26.01` for a sub-field. */
  path: string;
  name: string;
  value: string;
  meaning: string;
}

function describeKey(key: string): string {
  if (/^\d{11}$/.test(key)) return 'PIX key of the receiver: a CPF (11 digits)';
  if (/^[0-9A-Z]{12}\d{2}$/.test(key)) return 'PIX key of the receiver: a CNPJ (14 characters)';
  if (/^\+\d{12,13}$/.test(key)) return 'PIX key of the receiver: a phone number (E.164)';
  if (key.includes('@')) return 'PIX key of the receiver: an e-mail address';
  if (UUID_PATTERN.test(key)) {
    return 'PIX key of the receiver: a random key (EVP)';
  }
  return 'PIX key of the receiver (not in a form pix recognises; the bank will check it)';
}

function meaningOf(path: string, field: BrCodeField, decoded: DecodedBrCode): string {
  const v = field.value;
  const [parent, child] = path.includes('.') ? path.split('.') : [path, undefined];
  if (child !== undefined && parent !== undefined) {
    if (isMerchantAccount(parent)) {
      const isPix = hasPixGui(decoded.fields.find((f) => f.id === parent)?.children);
      if (child === '00')
        return isPix ? 'identifies this template as PIX' : `identifies a payment scheme other than PIX`;
      if (!isPix) return 'data of a payment scheme other than PIX (ignored)';
      if (child === '01') return describeKey(v);
      if (child === '02') return 'free text the receiver wrote for the payer';
      if (child === '03')
        return 'ISPB of the withdrawal facilitator: this is a Pix Saque (cash withdrawal) code';
      if (child === '25') {
        return 'dynamic charge: the payer’s bank fetches the amount and the details from this URL (https://…)';
      }
      return 'sub-field not defined by the PIX manual';
    }
    if (parent === '62') {
      if (child === '05') {
        return v === NO_TXID
          ? 'no transaction id (*** marker)'
          : 'transaction id (txid) the receiver uses to reconcile the payment';
      }
      if (child === '50') return 'payment system specific data';
      return 'additional data';
    }
    if (parent === '64') {
      if (child === '00') return 'language of the alternate name and city';
      if (child === '01') return 'receiver name in the alternate language';
      if (child === '02') return 'receiver city in the alternate language';
      return 'language template data';
    }
    return 'template data';
  }
  const over = (max: number) =>
    Array.from(v).length > max ? ` (longer than the ${max} characters the manual allows)` : '';
  switch (field.id) {
    case '00':
      return `payload format version ${v}`;
    case '01':
      return v === '12'
        ? 'dynamic: the code is meant to be paid once'
        : 'static: the code may be paid more than once';
    case '52':
      return v === '0000' ? 'merchant category code: not informed' : `merchant category code ${v}`;
    case '53':
      return v === '986' ? 'currency: Brazilian real (BRL, ISO 4217 986)' : `currency ISO 4217 ${v}`;
    case '54':
      return decoded.amount === undefined
        ? 'amount'
        : `amount to pay: ${formatBRL(decoded.amount)}${decoded.kind === 'dynamic' ? ' (the URL is the source of truth)' : ''}`;
    case '58':
      return v === 'BR' ? 'country: Brazil' : `country ${v}`;
    case '59':
      return `name of the receiver${over(MAX_MERCHANT_NAME)}`;
    case '60':
      return `city of the receiver${over(MAX_MERCHANT_CITY)}`;
    case '61':
      return 'postal code (CEP) of the receiver';
    case '62':
      return 'additional data (template)';
    case '63':
      return `CRC16-CCITT checksum: matches the content`;
    case '64':
      return 'receiver name and city in another language (template)';
  }
  if (isMerchantAccount(field.id)) {
    return field === decoded.fields.find((f) => f.id === field.id) && hasPixGui(field.children)
      ? `PIX account of the receiver (template): ${decoded.kind === 'dynamic' ? 'dynamic code with a URL' : 'static code with a key'}`
      : 'merchant account of a payment scheme other than PIX (template)';
  }
  const n = num(field.id);
  if (n >= 2 && n <= 25) return 'merchant account of a card network (not PIX; ignored)';
  if (n >= 80) return 'unreserved template (not used by PIX; ignored)';
  return 'field not defined by the BR Code manual (ignored)';
}

/** Every field of a decoded code, in order, with an English explanation for `pix emv decode`. */
export function explainBrCode(decoded: DecodedBrCode): ExplainedField[] {
  const out: ExplainedField[] = [];
  for (const field of decoded.fields) {
    out.push({
      path: field.id,
      name: field.name,
      value: field.value,
      meaning: meaningOf(field.id, field, decoded),
    });
    for (const child of field.children ?? []) {
      const path = `${field.id}.${child.id}`;
      out.push({ path, name: child.name, value: child.value, meaning: meaningOf(path, child, decoded) });
    }
  }
  if (!decoded.fields.some((f) => f.id === '54')) {
    // Say so where field 54 would have been: before the first top-level field with a higher id.
    const at = out.findIndex((row) => !row.path.includes('.') && row.path > '54');
    out.splice(at === -1 ? out.length : at, 0, {
      path: '54',
      name: 'Transaction Amount',
      value: '',
      meaning:
        decoded.kind === 'dynamic'
          ? 'absent: the amount comes from the URL'
          : 'absent: the payer chooses the amount',
    });
  }
  return out;
}
