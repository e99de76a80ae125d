/**
 * CRC16/CCITT-FALSE, the checksum that closes a BR Code (field 63): `domain/brcode.ts` checks it on
 * decode and `domain/brcodeencode.ts` writes it.
 */

// ---------------------------------------------------------------------------------------------
// CRC16/CCITT-FALSE

let crcTable: Uint16Array | undefined;

function table(): Uint16Array {
  if (crcTable) return crcTable;
  crcTable = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    crcTable[byte] = crc;
  }
  return crcTable;
}

/** CRC16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xor-out) of the UTF-8 bytes, as 4 upper-case hex digits. */
export function crc16(text: string): string {
  const t = table();
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(text))
    crc = ((crc << 8) & 0xffff) ^ t[((crc >> 8) ^ byte) & 0xff]!;
  return crc.toString(16).toUpperCase().padStart(4, '0');
}
