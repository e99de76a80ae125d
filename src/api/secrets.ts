/**
 * The secret check of every answer: no text pix shows or writes may hold 8 or more
 * consecutive characters of a secret it knows (the token, the client secret, a minted token), whether
 * the server echoes a secret whole, cut, or with something glued to it.
 *
 * How: every 8-character window of every secret is indexed once (a Set of windows), and every
 * 4-character gram of them (a Set of hashes and a bit filter); an answer's text is then scanned ONCE,
 * one gram probed every 5 characters, and the windows around a gram are compared only where it is a
 * secret's gram. The cost is linear in the text, whatever the number and length of the secrets, and
 * nothing is parsed or stringified for it.
 *
 * An answer's raw bytes, when given, are probed first the same way, 4 bytes every 5 (reading a
 * Uint8Array is ≈ 4× cheaper than `charCodeAt`): when every secret is ASCII, a window of 8 characters of
 * a secret is 8 bytes of the UTF-8 text and nothing else decodes to them, so bytes without a probed gram
 * of a secret prove the text clean, and only an answer with one is scanned as text. Every run of characters
 * covered by a matching window is replaced by `[redacted]` (which holds no JSON-special character, so
 * a JSON text stays JSON).
 */

/** Consecutive characters of a secret that may never be shown. */
export const SECRET_WINDOW = 8;
/** Shorter secrets are looked for whole; shorter than this, not at all (they would match everywhere). */
const MIN_SECRET = 4;
export const REDACTED = '[redacted]';

/**
 * The scan probes one 4-character gram every 5 characters: any 8 consecutive characters contain one
 * whole probed gram (of the 5 positions p…p+4 one is a multiple of 5, and its gram ends by p+7). Only
 * where a probed gram is a gram of a secret are the 8-character windows around it compared.
 */
const GRAM = 4;
const STRIDE = SECRET_WINDOW - GRAM + 1;
const FILTER_BITS = 16;
const FILTER_SIZE = 1 << FILTER_BITS;

/** FNV-1a over the GRAM (4) characters at `at`, unrolled: this is the scan's inner step. */
function gramHash(text: string, at: number): number {
  let hash = Math.imul(0x811c9dc5 ^ text.charCodeAt(at), 0x01000193);
  hash = Math.imul(hash ^ text.charCodeAt(at + 1), 0x01000193);
  hash = Math.imul(hash ^ text.charCodeAt(at + 2), 0x01000193);
  return Math.imul(hash ^ text.charCodeAt(at + 3), 0x01000193);
}

/** The bytes at `at`, packed into a small integer (distinct grams may share one: a candidate, not a match). */
function packedGram(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 7) | (bytes[at + 2]! << 14) | (bytes[at + 3]! << 21);
}

const byteSlot = (packed: number) => Math.imul(packed, 0x9e3779b1) >>> (32 - FILTER_BITS);

export interface SecretScanner {
  /** Remembers a secret (the same one twice costs nothing). */
  add(secret: string): void;
  /** True when at least one secret is known. */
  readonly active: boolean;
  /**
   * `text` with every piece of a known secret replaced by `[redacted]`; the same string when clean.
   * `bytes`, when given, must be the UTF-8 bytes `text` was decoded from.
   */
  redact(text: string, bytes?: Uint8Array): string;
}

/** `text` with each of `ranges` (sorted, apart) replaced by `[redacted]`; the same string when there are none. */
function redacted(text: string, ranges: ReadonlyArray<[number, number]>): string {
  if (ranges.length === 0) return text;
  let out = '';
  let from = 0;
  for (const [start, end] of ranges) {
    out += text.slice(from, start) + REDACTED;
    from = end;
  }
  return out + text.slice(from);
}

export function createSecretScanner(): SecretScanner {
  const secrets = new Set<string>();
  /** Every 8-character window of every secret. */
  const windows = new Set<string>();
  /** The hash of every 4-character gram of every secret, and a one-bit-per-slot filter of them. */
  const grams = new Set<number>();
  const filter = new Uint8Array(FILTER_SIZE);
  /** Secrets of MIN_SECRET to SECRET_WINDOW - 1 characters: looked for whole (native indexOf). */
  const short: string[] = [];
  /** The packed 4-byte grams of every secret, and their filter; usable while every secret is ASCII. */
  const byteGrams = new Set<number>();
  const byteFilter = new Uint8Array(FILTER_SIZE);
  let asciiOnly = true;

  /** False when `bytes` hold no probed gram of a secret: then no 8 characters of one are in the text. */
  function bytesMayHold(bytes: Uint8Array): boolean {
    for (let at = 0; at + GRAM <= bytes.length; at += STRIDE) {
      const packed = packedGram(bytes, at);
      if (byteFilter[byteSlot(packed)] === 1 && byteGrams.has(packed)) return true;
    }
    return false;
  }

  function covered(text: string, bytes: Uint8Array | undefined): Array<[number, number]> {
    const ranges: Array<[number, number]> = [];
    const mark = (start: number, end: number) => {
      const last = ranges[ranges.length - 1];
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else ranges.push([start, end]);
    };
    // The text is scanned for windows unless there are none to find or its bytes prove it clean.
    if (grams.size > 0 && (bytes === undefined || !asciiOnly || bytesMayHold(bytes))) {
      const lastWindow = text.length - SECRET_WINDOW;
      for (let at = 0; at + GRAM <= text.length; at += STRIDE) {
        const hash = gramHash(text, at);
        if (filter[hash >>> (32 - FILTER_BITS)] !== 1 || !grams.has(hash)) continue;
        // The windows that hold this gram, in order (so the ranges come out sorted).
        for (
          let start = Math.max(0, at - (SECRET_WINDOW - GRAM));
          start <= Math.min(at, lastWindow);
          start++
        ) {
          if (windows.has(text.slice(start, start + SECRET_WINDOW))) mark(start, start + SECRET_WINDOW);
        }
      }
    }
    if (short.length > 0) {
      const extra: Array<[number, number]> = [];
      for (const secret of short) {
        for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
          extra.push([at, at + secret.length]);
        }
      }
      if (extra.length > 0) {
        const all = [...ranges, ...extra].sort((a, b) => a[0] - b[0]);
        ranges.length = 0;
        for (const [start, end] of all) mark(start, end);
      }
    }
    return ranges;
  }

  return {
    add(secret) {
      if (secret.length < MIN_SECRET || secrets.has(secret)) return;
      secrets.add(secret);
      if (secret.length < SECRET_WINDOW) {
        short.push(secret);
        return;
      }
      for (let at = 0; at + SECRET_WINDOW <= secret.length; at++) {
        windows.add(secret.slice(at, at + SECRET_WINDOW));
      }
      for (let at = 0; at + GRAM <= secret.length; at++) {
        const hash = gramHash(secret, at);
        grams.add(hash);
        filter[hash >>> (32 - FILTER_BITS)] = 1;
      }
      const encoded = Buffer.from(secret, 'utf8');
      if (encoded.length !== secret.length) asciiOnly = false;
      for (let at = 0; at + GRAM <= encoded.length; at++) {
        const packed = packedGram(encoded, at);
        byteGrams.add(packed);
        byteFilter[byteSlot(packed)] = 1;
      }
    },
    get active() {
      return secrets.size > 0;
    },
    redact(text, bytes) {
      if (secrets.size === 0) return text;
      return redacted(text, covered(text, bytes));
    },
  };
}

/**
 * Applies `redact` to every string (keys too) of a parsed JSON value, in place where it can, without
 * recursion (an explicit stack), and returns the value. Used only for answers whose text holds JSON
 * escapes (a backslash): there the raw text does not spell the strings out, so a secret written as
 * `\u0074\u006f…` must be looked for in the parsed strings. Still linear in the size of the answer.
 */
export function redactParsed(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || value === null) return value;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item = node[i];
        if (typeof item === 'string') node[i] = redact(item);
        else if (typeof item === 'object' && item !== null) stack.push(item);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const item = node[key];
      const safeKey = redact(key);
      if (safeKey !== key) {
        delete node[key];
        node[safeKey] = item;
      }
      if (typeof item === 'string') node[safeKey] = redact(item);
      else if (typeof item === 'object' && item !== null) stack.push(item);
    }
  }
  return value;
}
