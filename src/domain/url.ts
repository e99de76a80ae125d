/**
 * Base URLs and the hosts they name: the canonical form a base URL is stored and compared by, and which hosts
 * count as loopback (where plain http:// may go, and whose answers may set the sandbox's clock). Used by the
 * client and its transport, and by config/ when it reads a base URL from a flag, the environment or a profile.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { InvalidValue } from './invalid.js';

/** `localhost` and the names under `.localhost` (RFC 6761 §6.3), with or without a final dot. */
export function isLocalhostName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost');
}

/**
 * 127.0.0.0/8, [::1], and localhost names: the only hosts plain http:// may go to. A localhost name
 * counts because pix resolves it itself, to loopback (`localhostLookup`, which the connection uses), never
 * through DNS.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (isLocalhostName(host)) return true;
  if (host === '[::1]' || host === '::1') return true;
  const octets = host.split('.');
  return (
    octets.length === 4 &&
    octets[0] === '127' &&
    octets.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255)
  );
}

const LOOPBACK_ADDRESSES: readonly LookupAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/**
 * The address lookup of a connection to a localhost name: 127.0.0.1 and ::1, answered by pix itself (as
 * curl and browsers do), never by DNS or a hosts file, so a name that was let through as loopback cannot
 * be pointed elsewhere between the check and the connection. Same shape as `dns.lookup`.
 */
export function localhostLookup(
  _hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
  const wanted =
    family === 4 || family === 6
      ? LOOPBACK_ADDRESSES.filter((entry) => entry.family === family)
      : LOOPBACK_ADDRESSES;
  const [first] = wanted as [LookupAddress];
  if (options.all)
    callback(
      null,
      wanted.map((entry) => ({ ...entry })),
    );
  else callback(null, first.address, first.family);
}

/**
 * https://, or plain http:// to a loopback host only: what pix sends to a URL (the API's base URL, where
 * tokens go; `pix listen --forward-to`, where events with full CPFs and CNPJs go) never crosses a network
 * in clear. Throws InvalidValue with the reason.
 */
export function checkTransport(url: URL): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidValue(`"${url.protocol}" is not supported; use https://`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new InvalidValue(
      `plain http:// is only allowed to loopback addresses (127.0.0.1, localhost, [::1]); use https://${url.host}`,
    );
  }
}

/**
 * Checks a base URL and returns its canonical form (lower-case host, no final dot on the host, no default
 * port, no trailing slash), the form stored secrets and records are compared by: `https://API.example.com.:443/`
 * and `https://api.example.com` are one API. Which ACCOUNT a base URL reaches is another question, answered
 * by the API itself (commands/shared/account.ts). Throws InvalidValue with the reason.
 */
export function normalizeBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new InvalidValue(`"${text}" is not a valid URL (e.g. https://api.example.com)`);
  }
  checkTransport(url);
  if (url.username || url.password) throw new InvalidValue('must not contain a user name or password');
  if (url.search || url.hash) throw new InvalidValue('must not have a query or a fragment');
  // A fully qualified name's final dot names the same host (RFC 1034 §3.1); `new URL` keeps it.
  const hostname = url.hostname.replace(/\.$/, '');
  if (hostname === '') throw new InvalidValue('has no host name');
  const host = url.port === '' ? hostname : `${hostname}:${url.port}`;
  return `${url.protocol}//${host}${url.pathname.replace(/\/+$/, '')}`;
}
