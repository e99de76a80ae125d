import type { Dispatcher } from 'undici';
import type { Settings } from '../config/types.js';
import type { Deps } from '../deps.js';
import { interruptedError, PixError, stopSignalOf } from '../errors.js';
import type * as z from '../zod.js';
import type { TokenProvider } from './auth.js';
import { httpError, UNKNOWN_OUTCOME_HINT } from './errors.js';
import { type AttemptOutcome, isRetryable, MAX_RETRIES, parseRetryAfter, retryDelay } from './retry.js';
import { createDispatcher } from './transport.js';

export type EndpointName = 'auth' | 'statement' | 'keys' | 'charge' | 'emv' | 'dict' | 'transfer';

/** One API endpoint, declared once in src/api/resources/. */
export interface Endpoint<T> {
  name: EndpointName;
  /** What failed, in the user's words: "listing PIX keys". */
  what: string;
  method: 'GET' | 'POST';
  path: string;
  /**
   * `safe`: reads and consultations, retried on network errors, 429, 502, 503, 504.
   * `never`: charges and the transfer. Never retried, and a failure after sending is an unknown outcome (exit 7).
   */
  retry: 'safe' | 'never';
  /** Built lazily so zod schemas cost nothing until a request is made. */
  schema: () => z.ZodMiniType<T>;
  /** False only for the token endpoint. */
  authenticated?: boolean;
}

/** What error reporting needs of an endpoint, whatever its answer type. */
type EndpointPolicy = Pick<Endpoint<unknown>, 'what' | 'retry'>;

export interface RequestInput {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

export interface ApiClient {
  readonly baseUrl: string;
  readonly settings: Settings;
  request<T>(endpoint: Endpoint<T>, input?: RequestInput): Promise<T>;
  /** POST /auth/token with client credentials; used by the token provider and by `pix login`. */
  mintToken(clientKey: string, clientSecret: string): Promise<{ clientToken: string; expiresIn: number }>;
  /** Throws an `auth` PixError when the server refuses the credentials. */
  verifyCredentials(): Promise<void>;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request that failed below HTTP; `sent` is false only when we know no byte reached the server. */
class NetworkFailure extends Error {
  constructor(
    readonly sent: boolean,
    readonly timedOut: boolean,
    readonly code: string | undefined,
    /** deps.signal (Ctrl-C, SIGTERM) cancelled it. */
    readonly interrupted = false,
  ) {
    super(code ?? 'network failure');
  }
}

const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
]);

const REDACTED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
]);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Replaces every secret in a string the server sent back, in case it echoes one. */
function scrub<T>(value: T, secrets: readonly string[]): T {
  const live = secrets.filter((secret) => secret.length >= 4);
  if (live.length === 0 || value === undefined) return value;
  let text = JSON.stringify(value);
  if (!live.some((secret) => text.includes(secret))) return value;
  for (const secret of live) text = text.split(secret).join('[redacted]');
  return JSON.parse(text) as T;
}

function buildPath(path: string, query: RequestInput['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {}))
    if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

function describeIssues(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unexpected shape';
  const where = issue.path.length ? issue.path.join('.') : 'body';
  // zod says "Invalid input: expected string, received undefined"; users read "missing (expected string)".
  const reason = issue.message
    .replace(/^Invalid input: expected (.+), received undefined$/, 'missing (expected $1)')
    .replace(/^Invalid input: /, '');
  return `unexpected shape at ${where}: ${reason}`;
}

export async function createApiClient(deps: Deps, settings: Settings): Promise<ApiClient> {
  const { io, globals } = deps;
  let baseUrl = settings.baseUrl.value;
  if (settings.sandbox) {
    const { startEmbeddedSandbox } = await import('../sandbox/embedded.js');
    const sandbox = await startEmbeddedSandbox(deps.env);
    deps.defer(() => sandbox.close());
    baseUrl = sandbox.baseUrl;
    io.stderr.write('sandbox: simulated account, no real money moves\n');
  }
  const origin = new URL(baseUrl);
  const prefix = origin.pathname.replace(/\/+$/, '');
  const timeoutMs = globals.timeoutMs;
  let dispatcher: Dispatcher | undefined = deps.dispatcher;
  const secrets: string[] = [];

  const getDispatcher = async (): Promise<Dispatcher> => {
    if (!dispatcher) {
      const pool = await createDispatcher(origin, settings, deps.env, timeoutMs);
      deps.defer(() => pool.close());
      dispatcher = pool;
    }
    return dispatcher;
  };

  const log = (line: string) => {
    if (globals.verbose) io.stderr.write(`${line}\n`);
  };
  const logHeaders = (arrow: string, headers: Record<string, string | string[] | undefined>) => {
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const shown = REDACTED_HEADERS.has(name.toLowerCase()) ? '[redacted]' : String(value);
      log(`${arrow} ${name}: ${shown}`);
    }
  };

  async function send(
    method: string,
    path: string,
    token: string | undefined,
    body: unknown,
  ): Promise<RawResponse> {
    const pool = await getDispatcher();
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'pix-cli' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const url = `${origin.origin}${path}`;
    // Ctrl-C before the request left: nothing was sent.
    if (deps.signal.aborted) throw new NetworkFailure(false, false, undefined, true);
    log(`> ${method} ${url}`);
    logHeaders('>', headers);
    // Timed only for --verbose: reading performance loads Node's perf_hooks, which a plain run need not pay for.
    const started = globals.verbose ? performance.now() : 0;
    const elapsed = () => Math.round(performance.now() - started);
    const controller = new AbortController();
    // --timeout bounds the whole exchange: connecting, the headers and the body.
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const cancel = () => controller.abort();
    deps.signal.addEventListener('abort', cancel, { once: true });
    try {
      const response = await pool.request({
        origin: origin.origin,
        path,
        method: method as Dispatcher.HttpMethod,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      if (globals.verbose) {
        log(`< ${response.statusCode} (${elapsed()} ms)`);
        logHeaders('<', response.headers);
      }
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      const code = errorCode(error);
      const interrupted = deps.signal.aborted;
      const timedOut = !interrupted && (controller.signal.aborted || /TIMEOUT/.test(code ?? ''));
      if (globals.verbose) {
        const why = interrupted ? 'interrupted' : timedOut ? 'timeout' : (code ?? 'error');
        log(`< failed after ${elapsed()} ms: ${why}`);
      }
      throw new NetworkFailure(
        !(code !== undefined && NOT_SENT_CODES.has(code)),
        timedOut,
        code,
        interrupted,
      );
    } finally {
      clearTimeout(timer);
      deps.signal.removeEventListener('abort', cancel);
    }
  }

  function networkError(endpoint: EndpointPolicy, failure: NetworkFailure): PixError {
    if (failure.interrupted) {
      const signal = stopSignalOf(deps.signal);
      if (endpoint.retry === 'never' && failure.sent) {
        // It may have reached the server: what is known is "unknown"; the exit code says it was a signal.
        return new PixError('unknown_outcome', `${endpoint.what}: interrupted after it was sent`, {
          signal,
          hint: UNKNOWN_OUTCOME_HINT,
        });
      }
      return interruptedError(
        signal,
        endpoint.what,
        endpoint.retry === 'never' ? 'nothing was sent' : undefined,
      );
    }
    const cause = failure.timedOut
      ? `no answer within ${timeoutMs / 1000}s`
      : failure.code === 'ECONNREFUSED'
        ? `cannot connect to ${origin.host}`
        : `the connection failed (${failure.code ?? 'network error'})`;
    if (endpoint.retry === 'never' && failure.sent) {
      return new PixError('unknown_outcome', `${endpoint.what}: ${cause}`, { hint: UNKNOWN_OUTCOME_HINT });
    }
    const hint =
      endpoint.retry === 'never'
        ? 'nothing was sent; it is safe to try again'
        : 'check the network and the base URL, or raise --timeout';
    return new PixError('unavailable', `${endpoint.what}: ${cause}`, { hint });
  }

  function unreadable(endpoint: EndpointPolicy, status: number, reason: string, body: unknown): PixError {
    const write = endpoint.retry === 'never';
    return new PixError(
      write ? 'unknown_outcome' : 'unavailable',
      `${endpoint.what}: the answer could not be read (${reason})`,
      {
        status,
        server: body,
        hint: write ? UNKNOWN_OUTCOME_HINT : 'the server sent something unexpected; try again later',
      },
    );
  }

  function parseBody(text: string): { ok: true; value: unknown } | { ok: false } {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      return { ok: false };
    }
  }

  let tokenProvider: TokenProvider | undefined;
  const getTokenProvider = async (): Promise<TokenProvider> => {
    if (!tokenProvider) {
      const { createTokenProvider } = await import('./auth.js');
      tokenProvider = createTokenProvider(
        settings,
        await deps.config(),
        client.mintToken,
        deps.clock,
        (text) => deps.io.stderr.write(`warning: ${text}\n`),
      );
    }
    return tokenProvider;
  };

  async function currentToken(): Promise<string | undefined> {
    if (settings.sandbox) return 'sandbox';
    const token = await (await getTokenProvider()).token();
    if (token === undefined) throw (await import('./auth.js')).noCredentialsError(settings.profile);
    secrets.push(token);
    return token;
  }

  const client: ApiClient = {
    baseUrl,
    settings,
    async request<T>(endpoint: Endpoint<T>, input: RequestInput = {}): Promise<T> {
      const path = buildPath(prefix + endpoint.path, input.query);
      const write = endpoint.retry === 'never';
      let token = endpoint.authenticated === false ? undefined : await currentToken();
      let refreshed = false;
      for (let retry = 0; ; retry++) {
        let response: RawResponse;
        try {
          response = await send(endpoint.method, path, token, input.body);
        } catch (error) {
          if (!(error instanceof NetworkFailure)) throw error;
          const outcome: AttemptOutcome = { kind: 'network' };
          if (
            !error.interrupted &&
            endpoint.retry === 'safe' &&
            retry < MAX_RETRIES &&
            isRetryable(outcome)
          ) {
            await deps.sleep(retryDelay(retry + 1, undefined, deps.random())!);
            continue;
          }
          throw networkError(endpoint, error);
        }
        const parsed = parseBody(response.text);
        const body = scrub(parsed.ok ? parsed.value : response.text, secrets);
        if (response.status === 401 && token !== undefined && !refreshed && !settings.sandbox) {
          // A 401 means nothing was applied, so even a write may be sent again with a fresh token, once.
          refreshed = true;
          const fresh = await (await getTokenProvider()).refresh();
          if (fresh !== undefined) {
            secrets.push(fresh);
            token = fresh;
            retry--;
            continue;
          }
        }
        if (response.status < 200 || response.status >= 300) {
          const outcome: AttemptOutcome = { kind: 'status', status: response.status };
          if (endpoint.retry === 'safe' && retry < MAX_RETRIES && isRetryable(outcome)) {
            const header = response.headers['retry-after'];
            const retryAfter = parseRetryAfter(Array.isArray(header) ? header[0] : header, deps.clock.now());
            const delay = retryDelay(retry + 1, retryAfter, deps.random());
            if (delay !== undefined) {
              await deps.sleep(delay);
              continue;
            }
          }
          if (!parsed.ok && response.status >= 500) {
            // An HTML 502 page from a proxy: say so in one line instead of quoting the page.
            throw httpError(endpoint.what, response.status, undefined, write);
          }
          throw httpError(endpoint.what, response.status, body, write);
        }
        if (!parsed.ok) throw unreadable(endpoint, response.status, 'not JSON', undefined);
        const result = endpoint.schema().safeParse(parsed.value);
        if (!result.success) {
          throw unreadable(endpoint, response.status, describeIssues(result.error as z.core.$ZodError), body);
        }
        return result.data;
      }
    },
    async mintToken(clientKey, clientSecret) {
      secrets.push(clientSecret);
      const { tokenEndpoint } = await import('./resources/auth.js');
      const minted = await client.request(tokenEndpoint, { body: { clientKey, clientSecret } });
      secrets.push(minted.clientToken);
      return minted;
    },
    async verifyCredentials() {
      const { listKeys } = await import('./resources/keys.js');
      await listKeys(client, { limit: 1, offset: 0 });
    },
  };
  return client;
}
