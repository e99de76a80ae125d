/**
 * Institution names by ISPB or COMPE code, from @brazilian-utils' copy of BACEN's STR participants
 * list (about 40 kB). Nothing runs at import beyond loading that table; import this module lazily
 * (`await import('../domain/banks.js')`) from code on a start-up path.
 */
import { getBankByCode } from '@brazilian-utils/brazilian-utils/get-bank-by-code';
import { getBankByIspb } from '@brazilian-utils/brazilian-utils/get-bank-by-ispb';

/**
 * The institution's name for an ISPB (8 digits, e.g. `18236120`) or a COMPE code (3 digits, e.g.
 * `260`; `1` and `001` both work), or `undefined` when it is neither or not in the list. The list
 * holds only participants that also have a COMPE code, so some ISPBs of payment institutions are
 * unknown.
 */
export function institutionName(codeOrIspb: string): string | undefined {
  const value = codeOrIspb.trim();
  if (/^\d{8}$/.test(value)) return getBankByIspb(value)?.name;
  if (/^\d{1,3}$/.test(value)) return getBankByCode(value)?.name;
  return undefined;
}
