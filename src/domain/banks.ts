/**
 * Institution names by ISPB or COMPE code, from @brazilian-utils' copy of BACEN's STR participants
 * list (about 40 kB). Nothing runs at import beyond loading that table; import this module lazily
 * (`await import('../domain/banks.js')`) from code on a start-up path.
 */
import { getBankByCode } from '@brazilian-utils/brazilian-utils/get-bank-by-code';
import { getBankByIspb } from '@brazilian-utils/brazilian-utils/get-bank-by-ispb';

/**
 * The institution of `pix sandbox`: all nines, which no BACEN participant has (ISPBs and COMPE codes
 * of real institutions are never all nines), so a real provider cannot be mistaken for it.
 */
export const SANDBOX_INSTITUTION = {
  ispb: '99999999',
  code: '999',
  name: 'Sandbox PIX (simulated)',
} as const;

/**
 * The institution's name for an ISPB (8 digits, e.g. `18236120`) or a COMPE code (3 digits, e.g.
 * `260`; `1` and `001` both work), or `undefined` when it is neither or not in the list. The list
 * holds only participants that also have a COMPE code, so some ISPBs of payment institutions are
 * unknown. The sandbox's institution is named too, as people see it in `pix pay` against the sandbox.
 */
export function institutionName(codeOrIspb: string): string | undefined {
  const value = codeOrIspb.trim();
  if (value === SANDBOX_INSTITUTION.ispb || value === SANDBOX_INSTITUTION.code)
    return SANDBOX_INSTITUTION.name;
  if (/^\d{8}$/.test(value)) return getBankByIspb(value)?.name;
  if (/^\d{1,3}$/.test(value)) return getBankByCode(value)?.name;
  return undefined;
}
