/**
 * The ZIP container of an xlsx workbook, read as a spreadsheet application reads it: by its central
 * directory (what Excel and LibreOffice list), one part at a time, only the parts asked for. Bounded: a part
 * is inflated in small slices, its real size counted against the size the directory declares and against
 * the limits below, so a ZIP bomb is refused after at most a limit's worth of work, and the caller yields
 * to the event loop between slices (Ctrl-C and SIGTERM keep their turn). fflate inflates (its streaming
 * `Inflate`); the directory is read here because fflate's `unzipSync` gives no entry's offset, and only
 * with the offset can a part be inflated in slices and counted.
 */

import { crc32 } from 'node:zlib';
import { Inflate } from 'fflate';
import { InvalidValue } from './invalid.js';

/**
 * What one workbook may inflate to. A 100,000-row payout workbook (exceljs: a 20 MB sheet, 9.4 MB of
 * shared strings; 10–14× smaller compressed) passes with room to spare: a part may inflate to 128 MiB, the
 * parts read together to 256 MiB, and a part over 1 MiB to at most 200 times its compressed size (deflate
 * reaches 1,032×; a ZIP bomb lives there, XML does not).
 */
export const WORKBOOK_LIMITS = {
  partBytes: 128 * 1024 * 1024,
  totalBytes: 256 * 1024 * 1024,
  ratio: 200,
  ratioFloor: 1024 * 1024,
} as const;

/** Compressed bytes handed to the inflater at a time: at most ≈ 16 MiB come out of one slice. */
const SLICE = 16 * 1024;

export interface ZipEntry {
  name: string;
  /** The name as the directory writes it: the part's local header must write the same. */
  nameBytes: Uint8Array;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

export function notAWorkbook(why: string): InvalidValue {
  return new InvalidValue(`not an xlsx workbook (${why}): save it from the spreadsheet as .xlsx`);
}

const u16 = (bytes: Uint8Array, at: number) => bytes[at]! | (bytes[at + 1]! << 8);
const u32 = (bytes: Uint8Array, at: number) =>
  (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

/**
 * The entries of the central directory by name, lower-cased: part names are compared without regard to
 * case (OPC), so two entries that differ only in case are the same part twice. Refuses two entries of one
 * name (which of them a reader takes is up to the reader), encrypted or ZIP64 entries, and a directory
 * that runs past the file.
 */
export function readZipDirectory(bytes: Uint8Array): Map<string, ZipEntry> {
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (u32(bytes, at) === 0x06054b50 && at + 22 + u16(bytes, at + 20) === bytes.length) {
      end = at;
      break;
    }
  }
  if (end === -1) throw notAWorkbook('no ZIP directory at its end');
  const count = u16(bytes, end + 10);
  const size = u32(bytes, end + 12);
  let at = u32(bytes, end + 16);
  if (count === 0xffff || at === 0xffffffff) throw notAWorkbook('a ZIP64 archive, larger than a workbook');
  if (at + size > end) throw notAWorkbook('its ZIP directory runs past the file');
  const entries = new Map<string, ZipEntry>();
  for (let n = 0; n < count; n++) {
    if (at + 46 > end || u32(bytes, at) !== 0x02014b50) throw notAWorkbook('a damaged ZIP directory');
    const flags = u16(bytes, at + 8);
    const nameLength = u16(bytes, at + 28);
    const next = at + 46 + nameLength + u16(bytes, at + 30) + u16(bytes, at + 32);
    if (next > end) throw notAWorkbook('a damaged ZIP directory');
    const raw = bytes.subarray(at + 46, at + 46 + nameLength);
    let name: string;
    try {
      name = flags & 0x800 ? utf8.decode(raw) : latin1.decode(raw);
    } catch {
      throw notAWorkbook('a ZIP entry name that is not UTF-8');
    }
    const entry: ZipEntry = {
      name,
      nameBytes: raw,
      method: u16(bytes, at + 10),
      crc: u32(bytes, at + 16),
      compressedSize: u32(bytes, at + 20),
      size: u32(bytes, at + 24),
      localOffset: u32(bytes, at + 42),
    };
    if (flags & 1) throw notAWorkbook(`${name} is encrypted`);
    if (
      entry.compressedSize === 0xffffffff ||
      entry.size === 0xffffffff ||
      entry.localOffset === 0xffffffff
    ) {
      throw notAWorkbook('a ZIP64 archive, larger than a workbook');
    }
    const key = name.toLowerCase();
    if (entries.has(key)) {
      throw new InvalidValue(
        `the ZIP holds two entries named ${name}: a spreadsheet application reads one of them, and which is not certain`,
      );
    }
    entries.set(key, entry);
    at = next;
  }
  return entries;
}

/** How much the parts read so far inflated to: shared by every part of one workbook. */
export interface InflateBudget {
  used: number;
}

/**
 * Inflates one entry, handing `onChunk` each piece as it comes and awaiting `pause()` between slices.
 * Refuses a part that inflates past the limits or past (or short of) the size the directory declares, and
 * one whose CRC-32 is not the directory's.
 */
export async function inflateEntry(
  bytes: Uint8Array,
  entry: ZipEntry,
  budget: InflateBudget,
  onChunk: (chunk: Uint8Array) => void,
  pause: (done: number, total: number) => Promise<void>,
): Promise<void> {
  const { name } = entry;
  const tooBig = (size: number) =>
    new InvalidValue(
      `the part ${name} inflates to ${megabytes(size)}, more than a payout workbook holds (at most ${megabytes(WORKBOOK_LIMITS.partBytes)} a part, ${megabytes(WORKBOOK_LIMITS.totalBytes)} in all)`,
    );
  if (entry.size > WORKBOOK_LIMITS.partBytes || budget.used + entry.size > WORKBOOK_LIMITS.totalBytes) {
    throw tooBig(entry.size);
  }
  if (entry.size > WORKBOOK_LIMITS.ratioFloor && entry.size > WORKBOOK_LIMITS.ratio * entry.compressedSize) {
    throw new InvalidValue(
      `the part ${name} inflates ${Math.round(entry.size / Math.max(1, entry.compressedSize))} times its compressed size (at most ${WORKBOOK_LIMITS.ratio}): refused as a ZIP bomb`,
    );
  }
  const local = entry.localOffset;
  if (local + 30 > bytes.length || u32(bytes, local) !== 0x04034b50) throw notAWorkbook(`${name} is missing`);
  const nameLength = u16(bytes, local + 26);
  const localName = bytes.subarray(local + 30, local + 30 + nameLength);
  const sameName =
    localName.length === entry.nameBytes.length && localName.every((byte, i) => byte === entry.nameBytes[i]);
  if (!sameName || u16(bytes, local + 8) !== entry.method) {
    throw notAWorkbook(`${name} does not match its ZIP directory entry`);
  }
  const start = local + 30 + nameLength + u16(bytes, local + 28);
  const data = bytes.subarray(start, start + entry.compressedSize);
  if (start + entry.compressedSize > bytes.length) throw notAWorkbook(`${name} runs past the file`);

  let size = 0;
  let crc = 0;
  const take = (chunk: Uint8Array) => {
    size += chunk.length;
    if (size > entry.size) throw notAWorkbook(`${name} inflates past the size its ZIP entry declares`);
    crc = crc32(chunk, crc);
    onChunk(chunk);
  };
  if (entry.method === 0) {
    if (entry.compressedSize !== entry.size) throw notAWorkbook(`${name} is stored with two sizes`);
    for (let at = 0; at < data.length; at += SLICE * 16) {
      take(data.subarray(at, at + SLICE * 16));
      await pause(size, entry.size);
    }
  } else if (entry.method === 8) {
    const inflater = new Inflate((chunk) => take(chunk));
    try {
      for (let at = 0; at < data.length || at === 0; at += SLICE) {
        inflater.push(data.subarray(at, at + SLICE), at + SLICE >= data.length);
        await pause(size, entry.size);
      }
    } catch (error) {
      if (error instanceof InvalidValue) throw error;
      throw notAWorkbook(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  } else {
    throw notAWorkbook(`${name} is compressed with method ${entry.method}`);
  }
  if (size !== entry.size) throw notAWorkbook(`${name} inflates short of the size its ZIP entry declares`);
  if (crc !== entry.crc) throw notAWorkbook(`${name} is damaged (its CRC-32 does not match)`);
  budget.used += size;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
}
