/**
 * `pix api PATH`: the path checked before anything is sent, and the path sent rebuilt from what was
 * checked, so no spelling reaches the server that the check did not see. Pure.
 *
 * The path is relative to the API's base (`/api/financial/v1`; giving that prefix too is the same, twice
 * is refused). It is percent-decoded until it stops changing (`%252e` is `%2e` is `.`) and `\` is `/`;
 * then every segment must be plain ASCII letters, digits, `-`, `_` and `.`, neither only dots nor ending
 * in one: a server may read `pix-cash-out;x`, `pix-cash-out.`, `pix-cash-out%20` or `pıx-cash-out` as
 * `pix-cash-out`, so what pix cannot read exactly is not sent. What `pix api` may do is then a list of
 * what is allowed, never of what is forbidden: reads (GET, HEAD, with no body) anywhere but the token
 * endpoint, and one write, POST to the two consultations. Money moves only through `pix pay` and `pix
 * charge`, whose journal and guards `pix api` would skip.
 */
import { InvalidValue } from './invalid.js';

export const API_BASE = '/api/financial/v1';

export interface ApiPath {
  /** The segments after the base, decoded and resolved. */
  segments: string[];
  /** What is sent after the base: each segment percent-encoded again. */
  path: string;
  /** The query as given (`limit=5&offset=0`), parsed. */
  query: URLSearchParams;
}

const BASE_SEGMENTS = API_BASE.split('/').filter(Boolean);
/** A segment pix can read exactly as any server reads it (the dot rules are checked apart). */
const PLAIN_SEGMENT = /^[A-Za-z0-9._-]+$/;

function decodeUntilStable(text: string): string {
  let current = text;
  for (let round = 0; round < 8; round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      throw new InvalidValue(`"${text}" has a broken %-escape`);
    }
    if (next === current) return current;
    current = next;
  }
  throw new InvalidValue(`"${text}" is encoded too many times over`);
}

export function parseApiPath(input: string): ApiPath {
  const text = input.trim();
  if (text === '') throw new InvalidValue('a path is required, e.g. /pix/keys');
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) || text.startsWith('//')) {
    throw new InvalidValue(`"${input}" is a URL: give the path under the API's base, e.g. /pix/keys`);
  }
  const at = text.indexOf('?');
  const rawPath = at === -1 ? text : text.slice(0, at);
  const query = new URLSearchParams(at === -1 ? '' : text.slice(at + 1));
  const decoded = decodeUntilStable(rawPath).replaceAll('\\', '/');
  if (/[\u0000-\u001f\u007f#]/.test(decoded)) {
    throw new InvalidValue(`"${input}" holds a control character or a #`);
  }
  const segments = decoded.split('/').filter((segment) => segment !== '');
  for (const segment of segments) {
    if (!PLAIN_SEGMENT.test(segment) || /^\.+$/.test(segment) || segment.endsWith('.')) {
      throw new InvalidValue(
        `"${input}": the segment "${segment}" is not plain: only ASCII letters, digits, -, _ and . (not only dots, not ending in one)`,
      );
    }
  }
  // The base given too: `/api/financial/v1/pix/keys` is `/pix/keys`; given twice, it names no endpoint.
  const startsWithBase = () =>
    BASE_SEGMENTS.every((segment, index) => segments[index]?.toLowerCase() === segment);
  if (startsWithBase()) segments.splice(0, BASE_SEGMENTS.length);
  if (startsWithBase()) throw new InvalidValue(`"${input}" gives the API's base (${API_BASE}) twice`);
  if (segments.length === 0) throw new InvalidValue(`"${input}" names no endpoint, e.g. /pix/keys`);
  return { segments, path: `/${segments.map(encodeURIComponent).join('/')}`, query };
}

const READS = new Set(['GET', 'HEAD']);
/** The only writes `pix api` sends: the consultations (API §4.4, §4.6), which change nothing. */
const WRITABLE = new Set(['pix/emv/consult', 'pix/dict/consult']);

/**
 * Why `pix api` will not send `method` to `path` with or without a body (one sentence naming what to
 * use), or undefined. Allowed: GET and HEAD without a body, anywhere but the token endpoint; POST to the
 * two consultations. Everything else is refused, the money endpoints naming the command that moves it.
 */
export function apiRefusal(method: string, path: ApiPath, hasBody = false): string | undefined {
  const [first, second] = path.segments.map((segment) => segment.toLowerCase());
  if (first === 'auth')
    return '`pix login` gets tokens: pix api sends the stored credentials itself and never asks for one';
  if (READS.has(method)) {
    return hasBody
      ? `a ${method} carries no body: only the consultations are sent one, with POST`
      : undefined;
  }
  if (method === 'POST' && WRITABLE.has(path.segments.join('/'))) return undefined;
  if (first === 'pix-cash-out') {
    return 'money moves only through `pix pay key|qr|batch`, with their checks, confirmation and journal';
  }
  if (first === 'pix-cash-in') {
    const command =
      second === 'duedate' ? 'duedate' : second === 'immediate' ? 'immediate' : 'immediate|duedate';
    return `charges are created only with \`pix charge ${command}\`, which keeps them in the journal`;
  }
  return `pix api reads (GET, HEAD); its only write is POST to ${[...WRITABLE].map((p) => `/${p}`).join(' or ')}`;
}

/** Reads and the two consultations may be sent again after a failure (as the commands do); nothing else. */
export function apiRetrySafe(method: string, path: ApiPath): boolean {
  if (READS.has(method)) return true;
  return method === 'POST' && WRITABLE.has(path.segments.join('/'));
}

/**
 * Request headers `-H` may not set: the credential pix sends itself, the framing, and every way a proxy
 * or a framework lets a header change the method or the path a request is routed by.
 */
const FORBIDDEN_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'content-length',
  'transfer-encoding',
  'x-method-override',
  'x-original-url',
  'x-rewrite-url',
  'forwarded',
]);
const FORBIDDEN_HEADER_PREFIXES = ['x-http-method', 'x-forwarded-'];

/** `-H 'Name: value'` → [name, value]; a forbidden or malformed header is refused. */
export function parseHeader(text: string): [string, string] {
  const at = text.indexOf(':');
  const name = at === -1 ? '' : text.slice(0, at).trim();
  const value = at === -1 ? '' : text.slice(at + 1).trim();
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || /[\r\n\u0000]/.test(value)) {
    throw new InvalidValue(`"${text}" is not a header: write 'Name: value'`);
  }
  const lower = name.toLowerCase();
  if (FORBIDDEN_HEADERS.has(lower) || FORBIDDEN_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
    throw new InvalidValue(
      `${name} cannot be set: pix sends the credentials and chooses the method and the path itself`,
    );
  }
  return [name.toLowerCase(), value];
}
