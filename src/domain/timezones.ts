/**
 * Time zones with Intl only (no date library), for `domain/when.ts`: whether a zone exists and the one a
 * misspelt name meant, the wall clock in a zone at an instant, and the instant a zone's wall clock names
 * (the earliest in an overlap, the first after a gap). Nothing reads the clock.
 */

import { InvalidValue } from './invalid.js';
import { closest } from './words.js';

const DAY_MS = 86_400_000;

export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True for an IANA zone Intl knows (`America/Sao_Paulo`, `UTC`, `Europe/Lisbon`). */
/** The IANA zone closest to a misspelt one (`America/Manus` → `America/Manaus`), as a did-you-mean. */
export function meantTimeZone(zone: string): string | undefined {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const byCase = zones.find((known) => known.toLowerCase() === zone.toLowerCase());
  const near = byCase ?? closest(zone, zones);
  return near === undefined ? undefined : `did you mean ${near}?`;
}

export function isValidTimeZone(timeZone: string): boolean {
  if (timeZone.trim() === '') return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

export function assertTimeZone(timeZone: string): void {
  if (!isValidTimeZone(timeZone)) {
    throw new InvalidValue(
      `"${timeZone}" is not a time zone (use an IANA name such as America/Sao_Paulo)`,
      meantTimeZone(timeZone),
    );
  }
}

/** The wall clock in `timeZone` at instant `ms`. */
export function wallAt(ms: number, timeZone: string): Wall {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
    millisecond: new Date(ms).getUTCMilliseconds(),
  };
}

export function wallToUtcMs(w: Wall): number {
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, w.millisecond);
  return d.getTime();
}

/**
 * The wall clock of `timeZone` at instant `ms`, as the UTC milliseconds of those same fields: what a
 * spreadsheet's zone-less date cell holds (output/xlsx.ts).
 */
export function wallClockMs(ms: number, timeZone: string): number {
  return wallToUtcMs(wallAt(ms, timeZone));
}

/** Offset of `timeZone` from UTC at instant `ms`, in milliseconds (-3 h for São Paulo today). */
function offsetAt(ms: number, timeZone: string): number {
  const w = wallAt(ms, timeZone);
  return wallToUtcMs({ ...w, millisecond: 0 }) - (ms - new Date(ms).getUTCMilliseconds());
}

/**
 * The instant a wall-clock time happens in `timeZone`. In an overlap (clocks set back) the earlier
 * instant wins; in a gap (clocks set forward, e.g. Brazil's old DST starting at midnight) the
 * first instant after the gap wins, so the start of such a day is its first existing moment.
 */
export function wallToInstant(w: Wall, timeZone: string): number {
  const guess = wallToUtcMs(w);
  const offsets = new Set([
    offsetAt(guess - DAY_MS, timeZone),
    offsetAt(guess, timeZone),
    offsetAt(guess + DAY_MS, timeZone),
  ]);
  const candidates = [...offsets].map((o) => guess - o).sort((a, b) => a - b);
  const exact = candidates.find((t) => wallToUtcMs(wallAt(t, timeZone)) === guess);
  if (exact !== undefined) return exact;
  // In a gap: the earliest candidate whose wall clock is later than asked.
  const later = candidates.find((t) => wallToUtcMs(wallAt(t, timeZone)) > guess);
  return later ?? candidates[candidates.length - 1]!;
}
