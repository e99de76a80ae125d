/**
 * The PIX end-to-end identifier (BCB, Manual de Padrões para Iniciação do Pix): 32 characters,
 * `E` + the ISPB (8 digits) of the institution that created it + the UTC minute it was created
 * (`yyyyMMddHHmm`) + 11 letters or digits of that institution's own. A statement entry carries none
 * (API §2.1), so what a receipt says of one is read from the id the journal kept. Pure.
 */
import { InvalidValue } from './invalid.js';

export interface DecodedEndToEnd {
  endToEndId: string;
  /** The ISPB of the institution that created the id. */
  ispb: string;
  /** The UTC minute in the id, as an ISO instant (`2026-03-10T14:05:00.000Z`). */
  createdAt: string;
  /** The institution's own 11 characters. */
  sequence: string;
}

const END_TO_END = /^E(\d{8})(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})([A-Za-z0-9]{11})$/;

/** Decodes an endToEndId; throws InvalidValue naming what is wrong. */
export function decodeEndToEnd(text: string): DecodedEndToEnd {
  const id = text.trim();
  const m = END_TO_END.exec(id);
  if (!m) {
    throw new InvalidValue(
      `"${id.slice(0, 40)}" is not an endToEndId: E, an 8-digit ISPB, yyyyMMddHHmm (UTC) and 11 letters or digits (32 characters)`,
    );
  }
  const [year, month, day, hour, minute] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(year, month - 1, day, hour, minute);
  const date = new Date(ms);
  if (
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    year < 2020
  ) {
    throw new InvalidValue(
      `"${id}" is not an endToEndId: its minute ${m[2]}-${m[3]}-${m[4]} ${m[5]}:${m[6]} does not exist`,
    );
  }
  return { endToEndId: id, ispb: m[1]!, createdAt: date.toISOString(), sequence: m[7]! };
}
