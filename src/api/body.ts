/**
 * Reading an answer's body within bounds, before anything else looks at it: at most MAX_BODY_BYTES are
 * read (a longer body is abandoned, not buffered), and a JSON text nested deeper than MAX_JSON_DEPTH is
 * not parsed (a 2xx with one field nested 6,000 levels deep would otherwise overflow the stack of
 * whatever later walks it — printing it with --json, say — after the money moved).
 */

/** The largest answer pix reads: 32 MiB (a statement page of 1,000 entries is well under 1 MiB). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** The deepest JSON nesting pix accepts; the API's objects are four levels deep. */
export const MAX_JSON_DEPTH = 100;

export type BodyText = { ok: true; text: string } | { ok: false; bytes: number };

/** Reads `body` to its end, or stops (destroying it) as soon as it is longer than `limit` bytes. */
export async function readBounded(
  body: AsyncIterable<Uint8Array> & { destroy?(error?: Error): unknown },
  declaredLength: string | string[] | undefined,
  limit = MAX_BODY_BYTES,
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
  return { ok: true, text: Buffer.concat(chunks, bytes).toString('utf8') };
}

/** True when the character at `at` is escaped (preceded by an odd number of backslashes). */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * True when the JSON text nests arrays and objects deeper than `max` (brackets inside strings do not
 * count). One pass; the inside of each string is skipped by a native search for its closing quote, so
 * the loop runs once per token rather than once per character. A text that is not JSON gives a
 * meaningless but harmless answer.
 */
export function nestedDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return false;
      i = end;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > max) return true;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return false;
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; reason: string };

/** The JSON value of an answer's text, or why it cannot be read. */
export function parseBody(text: string): ParsedBody {
  if (nestedDeeperThan(text)) return { ok: false, reason: `nested more than ${MAX_JSON_DEPTH} levels deep` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
}
