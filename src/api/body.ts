/**
 * Reading an answer's body within bounds, before anything else looks at it: at most MAX_BODY_BYTES are
 * read (a longer body is abandoned, not buffered), and a JSON value nested deeper than MAX_JSON_DEPTH is
 * refused as soon as it is parsed (a 2xx with one field nested 6,000 levels deep would otherwise overflow
 * the stack of whatever later walks it — printing it with --json, say — after the money moved; V8's
 * JSON.parse itself does not recurse).
 *
 * The body bound is what bounds the cost of a hostile answer, deep or wide: parsing 8 MiB of nested
 * brackets takes ≈ 1.6 s and 400 MB, 8 MiB of `[],[],…` ≈ 0.6 s and 290 MB (Node 20 and 24). The worst
 * answer found within it is the wide one where the API wants objects: zod then lists 2.7 million
 * invalid values, ≈ 4.5 s and 1.2 GB before pix refuses it (exit 6). At the former 32 MiB bound that
 * answer took 26 s and 4 GB, whatever a depth check on the text said.
 */

/** The largest answer pix reads: 8 MiB (a statement page of 1,000 entries, pix's largest, is ≈ 250 kB). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** The deepest JSON nesting pix accepts; the API's objects are four levels deep. */
export const MAX_JSON_DEPTH = 100;

/**
 * The text of a body and the bytes it was decoded from, or why it was not read: the size of one too long
 * to read, or (`reason`) a compression it could not be decoded from.
 */
export type BodyText =
  | { ok: true; text: string; raw: Uint8Array }
  | { ok: false; bytes: number; reason?: string };

/** The compressions an answer may come in (RFC 9110 §8.4.1): whether a server uses one is not shown (API). */
const DECODERS = {
  gzip: 'gunzipSync',
  'x-gzip': 'gunzipSync',
  deflate: 'inflateSync',
  br: 'brotliDecompressSync',
} as const;

/**
 * The bytes of a body in `encoding` (the Content-Encoding header), decoded to at most `limit` bytes: a
 * small answer that inflates past the bound (a compression bomb) is as long as its inflated size.
 */
function decoded(raw: Buffer, encoding: string | string[] | undefined, limit: number): BodyText {
  const names = String(Array.isArray(encoding) ? encoding.join(',') : (encoding ?? ''))
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'identity');
  let bytes = raw;
  for (const name of names.reverse()) {
    const decoder = Object.hasOwn(DECODERS, name) ? DECODERS[name as keyof typeof DECODERS] : undefined;
    if (decoder === undefined) return { ok: false, bytes: raw.byteLength, reason: `compressed as ${name}` };
    // Loaded here: an answer that is not compressed (most) never loads zlib.
    const zlib = process.getBuiltinModule('node:zlib');
    try {
      bytes = zlib[decoder](bytes, { maxOutputLength: limit + 1 });
    } catch (error) {
      const tooLarge = (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
      return tooLarge
        ? { ok: false, bytes: limit + 1 }
        : { ok: false, bytes: raw.byteLength, reason: `not valid ${name}` };
    }
    if (bytes.byteLength > limit) return { ok: false, bytes: bytes.byteLength };
  }
  return { ok: true, text: bytes.toString('utf8'), raw: bytes };
}

/**
 * Reads `body` to its end, or stops (destroying it) as soon as it is longer than `limit` bytes, and decodes
 * it from its `encoding` (gzip, deflate or br), within the same bound.
 */
export async function readBounded(
  body: AsyncIterable<Uint8Array> & { destroy?(error?: Error): unknown },
  declaredLength: string | string[] | undefined,
  limit = MAX_BODY_BYTES,
  encoding?: string | string[],
): Promise<BodyText> {
  const declared = Number(Array.isArray(declaredLength) ? declaredLength[0] : declaredLength);
  if (Number.isFinite(declared) && declared > limit) {
    body.destroy?.();
    return { ok: false, bytes: declared };
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > limit) {
      body.destroy?.();
      return { ok: false, bytes };
    }
    chunks.push(chunk);
  }
  const raw = Buffer.concat(chunks, bytes);
  if (encoding !== undefined) return decoded(raw, encoding, limit);
  return { ok: true, text: raw.toString('utf8'), raw };
}

/**
 * True when a parsed JSON value nests arrays and objects deeper than `max` (the value itself is level 1).
 * Walks one level at a time, without recursion, so a hostile value cannot overflow the stack here either.
 */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  let level: object[] = typeof value === 'object' && value !== null ? [value] : [];
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > max) return true;
    const next: object[] = [];
    for (const node of level) {
      if (Array.isArray(node)) {
        for (const item of node) if (typeof item === 'object' && item !== null) next.push(item);
      } else {
        for (const key in node) {
          const item = (node as Record<string, unknown>)[key];
          if (typeof item === 'object' && item !== null) next.push(item);
        }
      }
    }
    level = next;
  }
  return false;
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; reason: string };

/** The JSON value of an answer's text, or why it cannot be read. */
export function parseBody(text: string): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (nestedDeeperThan(value)) return { ok: false, reason: `nested more than ${MAX_JSON_DEPTH} levels deep` };
  return { ok: true, value };
}
