import { readFileSync } from 'node:fs';
import type { Dispatcher, Pool } from 'undici';
import type { Env } from '../context.js';
import { isLocalhostName, isLoopbackHost, localhostLookup } from '../domain/url.js';
import { usageError } from '../errors.js';

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

/** One request, as the API client makes it. */
export interface TransportRequest {
  origin: string;
  /** The path with its query string. */
  path: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string | null;
  /** Aborted: a request not answered yet rejects with the signal's reason; a body being read throws it. */
  signal: AbortSignal;
  headersTimeout: number;
  bodyTimeout: number;
}

/** An answer: its status, its headers (lower-case names, content-length among them) and its body. */
export interface TransportResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array> & { destroy?(error?: Error): unknown };
}

/**
 * What the API client needs of a transport: each request (several may be under way) gets an answer or a
 * rejection. An undici Dispatcher is one (the Pool of createDispatcher, a test's MockAgent); the embedded
 * sandbox answering in-process is another (sandbox/embedded.ts). A rejection is classified by the client as undici's are:
 * by the error's `code`, or as a timeout or an interruption when its own signal was aborted.
 */
export interface ApiTransport {
  request(options: TransportRequest): Promise<TransportResponse>;
}

let loaded: Promise<typeof Pool> | undefined;

/**
 * Loads the part of undici a command uses (api/undici.ts), not all of it: `import('undici')` loads ~110
 * modules (mocks, caches, fetch, WebSocket...). On Node 20, llhttp's WebAssembly is compiled by Liftoff only,
 * V8's baseline compiler, which is quick to compile and plenty fast to run for an API client: with TurboFan
 * a one-request command takes twice as long there. Node 22 and 24 compile it lazily by themselves, and
 * loading node:v8 to set the flag would cost them ≈ 10 ms (figures: docs/performance.md).
 */
function loadPool(): Promise<typeof Pool> {
  loaded ??= (async () => {
    // Must be set before llhttp is compiled, i.e. before the first connection of the process.
    if (Number(process.versions.node.split('.')[0]) < 22) {
      process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
    }
    return (await import('./undici.js')).Pool;
  })();
  return loaded;
}

/**
 * One connection pool for the command's origin, with the profile's client certificate (mTLS) and the
 * timeouts of `--timeout`; through HTTPS_PROXY/HTTP_PROXY (minus NO_PROXY) when set, never for loopback.
 * Extra CAs come from NODE_EXTRA_CA_CERTS, which Node itself reads.
 */
export async function createDispatcher(
  baseUrl: URL,
  /** The client certificate and key files (mutual TLS), if any. */
  tls: { cert: string; key: string } | undefined,
  env: Env,
  timeoutMs: number,
): Promise<Dispatcher> {
  const Pool = await loadPool();
  const connect = {
    timeout: timeoutMs,
    // A localhost name (plain http allowed) resolves to loopback by pix itself, never through DNS.
    ...(isLocalhostName(baseUrl.hostname) ? { lookup: localhostLookup } : {}),
    ...(tls ? { cert: readPem(tls.cert, 'tls-cert'), key: readPem(tls.key, 'tls-key') } : {}),
  };
  // maxHeaderSize: Node's default (16 KiB), given here rather than read by undici from node:http.
  const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs, maxHeaderSize: 16 * 1024 };
  const proxy = isLoopbackHost(baseUrl.hostname) ? undefined : proxyFor(env);
  if (proxy) {
    const { default: EnvHttpProxyAgent } = await import('undici/lib/dispatcher/env-http-proxy-agent.js');
    return new EnvHttpProxyAgent({ ...proxy, connect, ...timeouts });
  }
  return new Pool(baseUrl.origin, { connect, ...timeouts, connections: 8 });
}
