import { createHash } from 'node:crypto';

/**
 * The digest pix keeps for a BR Code: the journal records it instead of the code (which is never
 * stored for a payment), and a batch compares rows by it. SHA-256 of the trimmed code, hex.
 */
export function emvHash(emv: string): string {
  return createHash('sha256').update(emv.trim(), 'utf8').digest('hex');
}
