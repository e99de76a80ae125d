/**
 * `pix api PATH`: the path checked before anything is sent, and the path sent rebuilt from what was
 * checked, so no spelling reaches the server that the check did not see. Pure.
 *
 * The path is relative to the API's base (`/api/financial/v1`; giving that prefix too is the same). It
 * is percent-decoded until it stops changing (`%252e` is `%2e` is `.`), `\` is `/`, `.` and `..` are
 * resolved (past the base is refused), and segments are compared in lower case. What `pix api` may not
 * do is decided on those segments: money moves only through `pix pay` and `pix charge`, whose journal
 * and guards `pix api` would skip.
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
  const segments: string[] = [];
  for (const segment of decoded.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) throw new InvalidValue(`"${input}" goes above the API's base (${API_BASE})`);
      segments.pop();
    } else segments.push(segment);
  }
  // The base given too: `/api/financial/v1/pix/keys` is `/pix/keys`.
  const lower = segments.map((segment) => segment.toLowerCase());
  if (BASE_SEGMENTS.every((segment, index) => lower[index] === segment))
    segments.splice(0, BASE_SEGMENTS.length);
  if (segments.length === 0) throw new InvalidValue(`"${input}" names no endpoint, e.g. /pix/keys`);
  return { segments, path: `/${segments.map(encodeURIComponent).join('/')}`, query };
}

const READS = new Set(['GET', 'HEAD']);

/**
 * Why `pix api` will not send `method` to `path` (one sentence naming what to use), or undefined. Money
 * endpoints (everything under `pix-cash-out` and `pix-cash-in`) take only GET and HEAD; the token
 * endpoint nothing.
 */
export function apiRefusal(method: string, path: ApiPath): string | undefined {
  const [first, second] = path.segments.map((segment) => segment.toLowerCase());
  if (first === 'auth')
    return '`pix login` gets tokens: pix api sends the stored credentials itself and never asks for one';
  if (READS.has(method)) return undefined;
  if (first === 'pix-cash-out') {
    return 'money moves only through `pix pay key|qr|batch`, with their checks, confirmation and journal';
  }
  if (first === 'pix-cash-in') {
    const command =
      second === 'duedate' ? 'duedate' : second === 'immediate' ? 'immediate' : 'immediate|duedate';
    return `charges are created only with \`pix charge ${command}\`, which keeps them in the journal`;
  }
  return undefined;
}

/** Reads and the two consultations may be sent again after a failure (as the commands do); nothing else. */
export function apiRetrySafe(method: string, path: ApiPath): boolean {
  if (READS.has(method)) return true;
  const lower = path.segments.map((segment) => segment.toLowerCase()).join('/');
  return method === 'POST' && (lower === 'pix/emv/consult' || lower === 'pix/dict/consult');
}

/** Request headers `-H` may not set: the credential pix sends itself, and ways to change the method. */
const FORBIDDEN_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'content-length',
  'transfer-encoding',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
]);

/** `-H 'Name: value'` → [name, value]; a forbidden or malformed header is refused. */
export function parseHeader(text: string): [string, string] {
  const at = text.indexOf(':');
  const name = at === -1 ? '' : text.slice(0, at).trim();
  const value = at === -1 ? '' : text.slice(at + 1).trim();
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || /[\r\n\u0000]/.test(value)) {
    throw new InvalidValue(`"${text}" is not a header: write 'Name: value'`);
  }
  if (FORBIDDEN_HEADERS.has(name.toLowerCase())) {
    throw new InvalidValue(`${name} cannot be set: pix sends the credentials and chooses the method itself`);
  }
  return [name.toLowerCase(), value];
}
