/**
 * A ledger's PostgreSQL URL, read as libpq reads one (docs/team.md), pure: no driver is loaded here, so
 * `pix auth status` can name the database without loading it. The URL is a secret (it may carry a
 * password): it is never printed, logged or put in an error; people are shown `postgres://HOST:PORT/DB`.
 *
 * TLS follows libpq's `sslmode`: `disable`; `allow` and `prefer` (encrypted when the server offers it,
 * the certificate not checked); `require` (encrypted, not checked, unless `sslrootcert` is given: then
 * checked as verify-ca, as libpq does); `verify-ca` (the chain against `sslrootcert`); `verify-full` (the
 * chain and the host name). `sslrootcert=system` trusts the system's CAs; without it the checked modes
 * use `~/.postgresql/root.crt` when it exists, else Node's CAs. `sslcert`/`sslkey`: a client certificate.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { InvalidValue } from '../domain/invalid.js';

export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
const SSL_MODES: readonly string[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

export interface LedgerUrl {
  host: string;
  port: number;
  database: string;
  user: string | undefined;
  password: string | undefined;
  sslmode: SslMode;
  sslrootcert: string | undefined;
  sslcert: string | undefined;
  sslkey: string | undefined;
  /** Seconds to wait for a connection (libpq's connect_timeout); pix's default is 10. */
  connectTimeout: number;
  /** Connections a pix process opens at most (`pool_max`, not libpq's: the pool is pix's). */
  poolMax: number | undefined;
  /** A Unix socket directory (libpq's `host=/path`). */
  socket: string | undefined;
}

const decode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new InvalidValue(
      'the ledger URL has a bad %-escape (the URL is not shown: it may hold a password)',
    );
  }
};

/** Why a URL cannot be read: never a part of it (a part may be, or hold, its password). */
const unreadable = (why: string) => new InvalidValue(`${why} (the URL is not shown: it may hold a password)`);

/** The parameters a ledger URL may carry (libpq's, and pool_max). */
const KNOWN_PARAMS = new Set([
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'connect_timeout',
  'pool_max',
  'host',
  'port',
  'dbname',
  'user',
  'password',
  'application_name',
]);

/** A ledger URL's query, decoded; a parameter pix does not know is refused without being named. */
function ledgerParams(query: string | undefined): Map<string, string> {
  const params = new Map<string, string>();
  for (const pair of (query ?? '').split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decode(equals < 0 ? pair : pair.slice(0, equals));
    params.set(name, decode(equals < 0 ? '' : pair.slice(equals + 1)));
  }
  for (const name of params.keys()) {
    if (!KNOWN_PARAMS.has(name))
      throw unreadable(
        `the ledger URL has a parameter pix does not know (it knows ${[...KNOWN_PARAMS].join(', ')})`,
      );
  }
  return params;
}

/**
 * `postgres[ql]://[user[:password]@][host][:port][/database][?param=value&…]`. A URL that does not read
 * as exactly that is refused, and nothing of it is shown or used: an `@`, `/`, `?` or `#` of a user or a
 * password must be percent-encoded, else part of the password would be taken for the host (and given to
 * the resolver) or the database. Unknown parameters are refused without being named.
 */
export function parseLedgerUrl(text: string): LedgerUrl {
  const trimmed = text.trim();
  const scheme = /^postgres(?:ql)?:\/\//.exec(trimmed);
  if (scheme === null) throw unreadable('not a postgres:// URL as libpq writes one');
  const rest = trimmed.slice(scheme[0].length);
  if (rest.includes('#')) throw unreadable("the ledger URL has a '#': percent-encode it as %23");
  const questionAt = rest.indexOf('?');
  const beforeQuery = questionAt < 0 ? rest : rest.slice(0, questionAt);
  const query = questionAt < 0 ? undefined : rest.slice(questionAt + 1);
  const slashAt = beforeQuery.indexOf('/');
  const authority = slashAt < 0 ? beforeQuery : beforeQuery.slice(0, slashAt);
  const rawDatabase = slashAt < 0 ? undefined : beforeQuery.slice(slashAt + 1);
  const ats = authority.split('@').length - 1;
  if (ats > 1 || rawDatabase?.includes('@'))
    throw unreadable(
      "the ledger URL has an '@' besides the one before its host: write an @ : / ? # of its user or password as %40 %3A %2F %3F %23",
    );
  const userAt = authority.lastIndexOf('@');
  const auth = userAt < 0 ? undefined : authority.slice(0, userAt);
  const hostPort = /^(\[[0-9A-Fa-f:.]*\]|[^:]*)(?::(\d*))?$/.exec(authority.slice(userAt + 1));
  if (hostPort === null) throw unreadable('the ledger URL has a host or port pix cannot read');
  const [, rawHost = '', rawPort] = hostPort;
  if (!/^(?:\[[0-9A-Fa-f:.]*\]|[A-Za-z0-9._~%-]*)$/.test(rawHost))
    throw unreadable('the ledger URL has a host name with characters a host name cannot have');
  let user: string | undefined;
  let password: string | undefined;
  if (auth !== undefined) {
    const colon = auth.indexOf(':');
    user = decode(colon < 0 ? auth : auth.slice(0, colon)) || undefined;
    password = colon < 0 ? undefined : decode(auth.slice(colon + 1));
  }
  const params = ledgerParams(query);
  let host = decode(rawHost.replace(/^\[|\]$/g, '')) || params.get('host') || 'localhost';
  let socket: string | undefined;
  if (host.startsWith('/')) {
    socket = host;
    host = 'localhost';
  }
  const port = Number(rawPort || params.get('port') || '5432');
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw unreadable('the ledger URL has a bad port');
  const sslmode = params.get('sslmode') ?? 'prefer';
  if (!SSL_MODES.includes(sslmode))
    throw unreadable(`the ledger URL's sslmode is not one of ${SSL_MODES.join(', ')}`);
  const number = (name: string, fallback: number | undefined) => {
    const given = params.get(name);
    if (given === undefined) return fallback;
    const value = Number(given);
    if (!Number.isInteger(value) || value < 1)
      throw new InvalidValue(`${name} must be a whole number above 0`);
    return value;
  };
  return {
    host,
    port,
    database: decode(rawDatabase ?? '') || params.get('dbname') || user || params.get('user') || 'postgres',
    user: user ?? params.get('user'),
    password: password ?? params.get('password'),
    sslmode: sslmode as SslMode,
    sslrootcert: params.get('sslrootcert'),
    sslcert: params.get('sslcert'),
    sslkey: params.get('sslkey'),
    connectTimeout: number('connect_timeout', 10)!,
    poolMax: number('pool_max', undefined),
    socket,
  };
}

/** What people are shown of a ledger: `postgres://HOST:PORT/DATABASE`, never a user or a password. */
export function describeLedger(url: LedgerUrl): string {
  const host = url.host.includes(':') ? `[${url.host}]` : url.host;
  return `postgres://${host}:${url.port}/${url.database}`;
}

/** `describeLedger` of a URL as given; a URL that cannot be read is described as such. */
export function describeLedgerText(text: string): string {
  try {
    return describeLedger(parseLedgerUrl(text));
  } catch {
    return 'postgres://(a URL pix cannot read)';
  }
}

/**
 * The TLS options of the URL's sslmode, in Node's terms (tls.connect), or `false` (no TLS) or `'prefer'`
 * (TLS when offered, unchecked). `home`: where libpq's default `~/.postgresql/root.crt` is looked for.
 */
export function tlsOptions(url: LedgerUrl, home: string | undefined): false | 'prefer' | ConnectionOptions {
  if (url.sslmode === 'disable') return false;
  if (url.sslmode === 'allow' || url.sslmode === 'prefer') return 'prefer';
  const options: ConnectionOptions = {};
  if (url.sslcert !== undefined) options.cert = readFileSync(url.sslcert);
  if (url.sslkey !== undefined) options.key = readFileSync(url.sslkey);
  let rootcert = url.sslrootcert;
  if (rootcert === undefined && url.sslmode !== 'require' && home !== undefined) {
    const fallback = join(home, '.postgresql', 'root.crt');
    try {
      options.ca = readFileSync(fallback);
    } catch {
      // libpq refuses here; Node's own CAs are what a managed server's certificate is signed by.
    }
  }
  if (rootcert === 'system') rootcert = undefined;
  else if (rootcert !== undefined) options.ca = readFileSync(rootcert);
  if (url.sslmode === 'require' && url.sslrootcert === undefined) {
    return { ...options, rejectUnauthorized: false };
  }
  if (url.sslmode === 'verify-full') {
    // The name checked is the URL's host (an address is checked against the certificate's IP names).
    const name = isIP(url.host) === 0 ? { servername: url.host } : {};
    return { ...options, rejectUnauthorized: true, host: url.host, ...name };
  }
  // verify-ca (and require with a root certificate): the chain, not the name.
  return { ...options, rejectUnauthorized: true, checkServerIdentity: () => undefined };
}
