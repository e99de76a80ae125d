import { readFileSync } from 'node:fs';
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
 * rejection. Node's HTTP client is one (createConnection), an undici Dispatcher another (a proxy, a test's
 * MockAgent); the embedded
 * sandbox answering in-process is another (sandbox/embedded.ts). A rejection is classified by the client as undici's are:
 * by the error's `code`, or as a timeout or an interruption when its own signal was aborted.
 */
export interface ApiTransport {
  request(options: TransportRequest): Promise<TransportResponse>;
}

/** Answered by the transport when it gave up before the connection was made: nothing was sent. */
export const NOT_CONNECTED = 'PIX_NOT_CONNECTED';
/** No connection within `--timeout`: nothing was sent. */
export const CONNECT_TIMEOUT = 'PIX_CONNECT_TIMEOUT';

/** The transport of a real API, with what ends it when the command is done. */
export interface Connection extends ApiTransport {
  close(): Promise<void>;
}

/**
 * The connection pool of the command's origin: Node's own HTTP client (node:http or node:https, reached with
 * process.getBuiltinModule so no ES module facade is built), up to 8 connections kept alive, with the
 * profile's client certificate (mTLS), a localhost name resolved to loopback by pix itself, and `--timeout`
 * on connecting (the client bounds the whole exchange). Through HTTPS_PROXY/HTTP_PROXY (minus NO_PROXY), never
 * for loopback, it is undici's EnvHttpProxyAgent instead, loaded only then. Extra CAs come from
 * NODE_EXTRA_CA_CERTS, which Node itself reads.
 *
 * Why not undici for every request: a one-request command would load all of it (its package entry point
 * brings fetch, WebSocket, caches and mocks, ≈ 110 ms of CPU on Node 20) and compile llhttp's WebAssembly
 * (≈ 60 ms on Node 20), where Node's built-in client is already in the binary (docs/performance.md).
 */
export async function createConnection(
  baseUrl: URL,
  /** The client certificate and key files (mutual TLS), if any. */
  tls: { cert: string; key: string } | undefined,
  env: Env,
  timeoutMs: number,
): Promise<Connection> {
  const pem = tls ? { cert: readPem(tls.cert, 'tls-cert'), key: readPem(tls.key, 'tls-key') } : {};
  // A localhost name (plain http allowed) resolves to loopback by pix itself, never through DNS.
  const lookup = isLocalhostName(baseUrl.hostname) ? { lookup: localhostLookup } : {};
  const proxy = isLoopbackHost(baseUrl.hostname) ? undefined : proxyFor(env);
  if (proxy) {
    // undici is CommonJS: its module.exports is the default export (Node's rule, and the bundle's).
    const { EnvHttpProxyAgent } = (await import('undici')).default;
    const agent = new EnvHttpProxyAgent({
      ...proxy,
      connect: { timeout: timeoutMs, ...lookup, ...pem },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return { request: (options) => agent.request(options), close: () => agent.close() };
  }
  const secure = baseUrl.protocol === 'https:';
  const http = secure ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8, ...pem });
  const port = baseUrl.port === '' ? (secure ? 443 : 80) : Number(baseUrl.port);
  return {
    request: (options) =>
      new Promise<TransportResponse>((resolve, reject) => {
        const { signal } = options;
        let connected = false;
        const fail = (error: unknown) => {
          const code = (error as { code?: unknown } | null)?.code;
          // Given up before a connection existed (Ctrl-C, --timeout): provably nothing sent. A refusal of the
          // connection keeps its own code (ECONNREFUSED, ENOTFOUND, a certificate's), which says why.
          if (!connected && (code === undefined || code === 'ABORT_ERR' || code === 'ECONNRESET')) {
            reject(
              Object.assign(new Error('no connection was made', { cause: error }), { code: NOT_CONNECTED }),
            );
          } else reject(error);
        };
        if (signal.aborted) return fail(new Error('aborted before the request left'));
        const headers = { ...options.headers };
        if (options.body !== null) headers['content-length'] = String(Buffer.byteLength(options.body));
        const request = http.request(
          {
            agent,
            host: baseUrl.hostname.replace(/^\[(.*)\]$/, '$1'),
            port,
            method: options.method,
            path: options.path,
            headers,
            signal,
            ...lookup,
          },
          (response) => {
            resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: response });
          },
        );
        request.on('socket', (socket) => {
          // A socket kept alive is connected already; a new one is until it says so, within --timeout.
          if (!socket.connecting) {
            connected = true;
            return;
          }
          const timer = setTimeout(
            () => request.destroy(new Error(`no connection within ${timeoutMs} ms`)),
            timeoutMs,
          );
          socket.once(secure ? 'secureConnect' : 'connect', () => {
            connected = true;
            clearTimeout(timer);
          });
          socket.once('close', () => clearTimeout(timer));
        });
        request.on('error', fail);
        request.end(options.body ?? undefined);
      }),
    close: async () => agent.destroy(),
  };
}
