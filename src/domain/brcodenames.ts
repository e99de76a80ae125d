/**
 * The English names of a BR Code's fields (`domain/brcode.ts`): the top-level fields, the PIX merchant
 * account template's, the additional data's and the language template's, by id.
 */

// ---------------------------------------------------------------------------------------------
// Field names

const TOP_NAMES: Record<string, string> = {
  '00': 'Payload Format Indicator',
  '01': 'Point of Initiation Method',
  '52': 'Merchant Category Code',
  '53': 'Transaction Currency',
  '54': 'Transaction Amount',
  '55': 'Tip or Convenience Indicator',
  '56': 'Value of Convenience Fee Fixed',
  '57': 'Value of Convenience Fee Percentage',
  '58': 'Country Code',
  '59': 'Merchant Name',
  '60': 'Merchant City',
  '61': 'Postal Code',
  '62': 'Additional Data Field Template',
  '63': 'CRC',
  '64': 'Merchant Information — Language Template',
};

const PIX_NAMES: Record<string, string> = {
  '00': 'Globally Unique Identifier (GUI)',
  '01': 'PIX Key',
  '02': 'Additional Information (description)',
  '03': 'Withdrawal Facilitator ISPB (fss)',
  '25': 'URL (location of the dynamic charge)',
};

const ADDITIONAL_NAMES: Record<string, string> = {
  '01': 'Bill Number',
  '02': 'Mobile Number',
  '03': 'Store Label',
  '04': 'Loyalty Number',
  '05': 'Reference Label (txid)',
  '06': 'Customer Label',
  '07': 'Terminal Label',
  '08': 'Purpose of Transaction',
  '09': 'Additional Consumer Data Request',
  '50': 'Payment System Specific Template',
};

const LANGUAGE_NAMES: Record<string, string> = {
  '00': 'Language Preference',
  '01': 'Merchant Name — Alternate Language',
  '02': 'Merchant City — Alternate Language',
};

export function num(id: string): number {
  return Number(id);
}

export function isMerchantAccount(id: string): boolean {
  return num(id) >= 26 && num(id) <= 51;
}

export function isTemplate(id: string): boolean {
  const n = num(id);
  return (n >= 26 && n <= 51) || n === 62 || n === 64 || (n >= 80 && n <= 99);
}

export function topName(id: string): string {
  const n = num(id);
  if (TOP_NAMES[id]) return TOP_NAMES[id];
  if (n >= 2 && n <= 25) return 'Merchant Account Information (card networks)';
  if (n >= 26 && n <= 51) return 'Merchant Account Information';
  if (n >= 65 && n <= 79) return 'RFU for EMVCo';
  if (n >= 80 && n <= 99) return 'Unreserved Template';
  return 'Unknown field';
}

export function childName(parentId: string, id: string, pix: boolean): string {
  if (isMerchantAccount(parentId)) {
    if (id === '00') return PIX_NAMES['00']!;
    return (pix && PIX_NAMES[id]) || 'Payment network specific';
  }
  if (parentId === '62')
    return ADDITIONAL_NAMES[id] ?? (num(id) >= 50 ? 'Payment System Specific Template' : 'RFU for EMVCo');
  if (parentId === '64') return LANGUAGE_NAMES[id] ?? 'RFU for EMVCo';
  return id === '00' ? 'Globally Unique Identifier (GUI)' : 'Context specific data';
}
