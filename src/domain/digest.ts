import { createHash } from 'node:crypto';

/**
 * A BR Code as the duplicate guard compares it: without the whitespace around it, and with the CRC's
 * hex digits in upper case. The CRC is over the text before it, so `…6304abcd` and `…6304ABCD` are the
 * same code (the bank accepts both); the rest is left as written (names are case-sensitive text).
 */
export function canonicalEmv(emv: string): string {
  const code = emv.trim();
  const crc = code.length - 4;
  return code.slice(crc - 4, crc) === '6304' ? code.slice(0, crc) + code.slice(crc).toUpperCase() : code;
}

/**
 * The digest pix keeps for a BR Code: the journal records it instead of the code (which is never
 * stored for a payment), and a batch compares rows by it. SHA-256 of the canonical code, hex: the same
 * code written with a lower-case CRC has the same digest (a code already paid stays paid).
 */
export function emvHash(emv: string): string {
  return createHash('sha256').update(canonicalEmv(emv), 'utf8').digest('hex');
}
