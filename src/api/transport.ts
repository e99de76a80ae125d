import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import type { Settings } from '../config/types.js';
import type { Env } from '../deps.js';
import { usageError } from '../errors.js';

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function readPem(path: string, key: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw usageError(key, `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

function proxyFor(env: Env): { httpsProxy?: string; httpProxy?: string; noProxy?: string } | undefined {
  const pick = (name: string) => env[name] ?? env[name.toLowerCase()];
  const httpsProxy = pick('HTTPS_PROXY');
  const httpProxy = pick('HTTP_PROXY');
  if (!httpsProxy && !httpProxy) return undefined;
  const noProxy = pick('NO_PROXY');
  return {
    ...(httpsProxy ? { httpsProxy } : {}),
    ...(httpProxy ? { httpProxy } : {}),
    ...(noProxy ? { noProxy } : {}),
  };
}

/**
 * One connection pool for the command's origin, with the profile's client certificate (mTLS) and the
 * timeouts of `--timeout`; through HTTPS_PROXY/HTTP_PROXY (minus NO_PROXY) when set, never for loopback.
 * Extra CAs come from NODE_EXTRA_CA_CERTS, which Node itself reads.
 */
export async function createDispatcher(
  baseUrl: URL,
  settings: Settings,
  env: Env,
  timeoutMs: number,
): Promise<Dispatcher> {
  const { Pool, EnvHttpProxyAgent } = await import('undici');
  const connect = {
    timeout: timeoutMs,
    ...(settings.tls
      ? { cert: readPem(settings.tls.cert, 'tls-cert'), key: readPem(settings.tls.key, 'tls-key') }
      : {}),
  };
  const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  const proxy = isLoopbackHost(baseUrl.hostname) ? undefined : proxyFor(env);
  if (proxy) return new EnvHttpProxyAgent({ ...proxy, connect, ...timeouts });
  return new Pool(baseUrl.origin, { connect, ...timeouts, connections: 8 });
}
