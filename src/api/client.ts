import { interruptedError, PixError, stopSignalOf } from '../errors.js';
import type * as z from '../zod.js';
import { type BodyText, MAX_BODY_BYTES, parseBody, readBounded } from './body.js';
import type { ApiClient, ApiClientOptions } from './clienttypes.js';
import type { Endpoint, EndpointPolicy, RequestInput } from './endpoint.js';
import {
  describeIssues,
  errorCode,
  httpError,
  NetworkFailure,
  NOT_SENT_CODES,
  networkHint,
  UNKNOWN_OUTCOME_HINT,
  unreadable,
} from './errors.js';
import { createPager } from './pager.js';
import { tokenEndpoint } from './resources/auth.js';
import { type AttemptOutcome, isRetryable, MAX_RETRIES, parseRetryAfter, retryDelay } from './retry.js';
import { createSecretScanner, redactParsed, type SecretScanner } from './secrets.js';
import type { ApiTransport } from './transport.js';
import { REDACTED_HEADERS, SHOWN_RESPONSE_HEADERS } from './verbose.js';

export type { ApiClient, ApiClientOptions, TokenSource } from './clienttypes.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, or its size when it was longer than MAX_BODY_BYTES (then it was not read). */
  body: BodyText;
}

const MAX_BODY_MIB = MAX_BODY_BYTES / (1024 * 1024);

function buildPath(path: string, query: RequestInput['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {}))
    if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** What one client holds: its options, where it points, the secrets it knows, the server's clock. */
interface ClientState {
  readonly options: ApiClientOptions;
  readonly origin: URL;
  readonly prefix: string;
  /** Every secret this client knows; each answer's text is checked against them once, before parsing. */
  readonly secrets: SecretScanner;
  transport: Promise<ApiTransport> | undefined;
  /** The server's clock against the account's, from the Date of its latest answer (serverTime). */
  serverOffsetMs: number | undefined;
  /** The cancels of the requests in flight that do not finish on a signal (cancelOnSignal). */
  readonly cancels: Set<() => void>;
  readonly cancelAll: () => void;
}

function transportOf(c: ClientState): Promise<ApiTransport> {
  c.transport ??= c.options.transport();
  return c.transport;
}

function observeDate(c: ClientState, headers: Record<string, string | string[] | undefined>): void {
  const value = headers.date;
  const ms = Date.parse(String(Array.isArray(value) ? value[0] : (value ?? '')));
  if (Number.isFinite(ms)) c.serverOffsetMs = ms - c.options.clock.now().getTime();
}

function log(c: ClientState, line: string): void {
  if (c.options.verbose) c.options.stderr.write(`${line}\n`);
}

function logRequestHeaders(c: ClientState, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    log(c, `> ${name}: ${REDACTED_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value}`);
  }
}

/** A response's headers as people may see them: the allowlisted ones, secrets redacted; others `[not shown]`. */
function shownHeaders(c: ClientState, headers: Record<string, string | string[] | undefined>): string[] {
  const { sanitize } = c.options;
  return Object.entries(headers)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => {
      const shown = SHOWN_RESPONSE_HEADERS.has(name.toLowerCase())
        ? sanitize(c.secrets.redact(String(value)))
        : '[not shown]';
      return `${sanitize(name, 64)}: ${shown}`;
    });
}

/**
 * Ctrl-C cancels the requests in flight (those not finishing on a signal) through ONE listener on the
 * command's signal, added while any is in flight and removed when none is: one per request would put
 * --concurrency listeners on that one AbortSignal, and Node warns of a leak from the 11th
 * (MaxListenersExceededWarning) though each is removed when its request ends.
 */
function cancelOnSignal(c: ClientState, cancel: () => void): () => void {
  const { signal } = c.options;
  if (c.cancels.size === 0) signal.addEventListener('abort', c.cancelAll, { once: true });
  c.cancels.add(cancel);
  return () => {
    c.cancels.delete(cancel);
    if (c.cancels.size === 0) signal.removeEventListener('abort', c.cancelAll);
  };
}

/** One request as it goes out: the method, path, token, body and extra headers. */
interface Outgoing {
  method: Endpoint<unknown>['method'];
  path: string;
  token: string | undefined;
  body: unknown;
  finishOnSignal: boolean;
  extra: Record<string, string>;
}

function requestHeaders(out: Outgoing): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': 'pix-cli',
    ...out.extra,
  };
  if (out.body !== undefined) headers['content-type'] = 'application/json';
  if (out.token !== undefined) headers.authorization = `Bearer ${out.token}`;
  return headers;
}

/** What a request that threw proves: sent or not, timed out, interrupted (and, with --verbose, said). */
function sendFailure(
  c: ClientState,
  error: unknown,
  out: Outgoing,
  controller: AbortController,
  elapsed: () => number,
): NetworkFailure {
  const code = errorCode(error);
  const interrupted = c.options.signal.aborted && !out.finishOnSignal;
  const timedOut = !interrupted && (controller.signal.aborted || /TIMEOUT/.test(code ?? ''));
  if (c.options.verbose) {
    const why = interrupted ? 'interrupted' : timedOut ? 'timeout' : (code ?? 'error');
    log(c, `< failed after ${elapsed()} ms: ${why}`);
  }
  return new NetworkFailure(!(code !== undefined && NOT_SENT_CODES.has(code)), timedOut, code, interrupted);
}

async function send(c: ClientState, out: Outgoing): Promise<RawResponse> {
  const { signal, timeoutMs, verbose } = c.options;
  const sender = await transportOf(c);
  const headers = requestHeaders(out);
  // Ctrl-C before the request left: nothing was sent.
  if (signal.aborted) throw new NetworkFailure(false, false, undefined, true);
  log(c, `> ${out.method} ${c.origin.origin}${out.path}`);
  logRequestHeaders(c, headers);
  // Timed only for --verbose: reading performance loads Node's perf_hooks, which a plain run need not pay for.
  const started = verbose ? performance.now() : 0;
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  // --timeout bounds the whole exchange: connecting, the headers and the body.
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const release = out.finishOnSignal ? undefined : cancelOnSignal(c, () => controller.abort());
  try {
    const response = await sender.request({
      origin: c.origin.origin,
      path: out.path,
      method: out.method,
      headers,
      body: out.body === undefined ? null : JSON.stringify(out.body),
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    observeDate(c, response.headers);
    const text = await readBounded(
      response.body,
      response.headers['content-length'],
      MAX_BODY_BYTES,
      response.headers['content-encoding'],
    );
    if (verbose) {
      log(c, `< ${response.statusCode} (${elapsed()} ms)`);
      for (const line of shownHeaders(c, response.headers)) log(c, `< ${line}`);
      if (!text.ok) {
        log(c, `< body of ${text.bytes} bytes not read (${text.reason ?? `over ${MAX_BODY_MIB} MiB`})`);
      }
    }
    return { status: response.statusCode, headers: response.headers, body: text };
  } catch (error) {
    throw sendFailure(c, error, out, controller, elapsed);
  } finally {
    clearTimeout(timer);
    release?.();
  }
}

function networkError(c: ClientState, endpoint: EndpointPolicy, failure: NetworkFailure): PixError {
  if (failure.interrupted) {
    const stopped = stopSignalOf(c.options.signal);
    if (endpoint.retry === 'never' && failure.sent) {
      // It may have reached the server: what is known is "unknown"; the exit code says it was a signal.
      return new PixError('unknown_outcome', `${endpoint.what}: interrupted after it was sent`, {
        signal: stopped,
        hint: UNKNOWN_OUTCOME_HINT,
      });
    }
    return interruptedError(
      stopped,
      endpoint.what,
      endpoint.retry === 'never' ? 'nothing was sent' : undefined,
    );
  }
  const cause = failure.timedOut
    ? `no answer within ${c.options.timeoutMs / 1000}s`
    : failure.code === 'ECONNREFUSED'
      ? `cannot connect to ${c.origin.host}`
      : `the connection failed (${failure.code ?? 'network error'})`;
  if (endpoint.retry === 'never' && failure.sent) {
    return new PixError('unknown_outcome', `${endpoint.what}: ${cause}`, { hint: UNKNOWN_OUTCOME_HINT });
  }
  const hint =
    endpoint.retry === 'never'
      ? `nothing was sent; it is safe to try again (${networkHint(failure)})`
      : networkHint(failure);
  return new PixError('unavailable', `${endpoint.what}: ${cause}`, { hint });
}

/** A 2xx answer of a write, judged by what it proves (api/outcomes.ts). */
function judge<T>(c: ClientState, endpoint: Endpoint<T>, status: number, value: T, body: unknown): T {
  const verdict = endpoint.verdict?.(value);
  if (verdict === undefined || verdict.applied === true) return value;
  if (verdict.applied === false) {
    throw new PixError(
      'rejected',
      `${endpoint.what}: refused with status ${c.options.sanitize(verdict.status, 40)}`,
      {
        status,
        server: body,
        hint: 'the server says it was not applied; nothing changed',
      },
    );
  }
  throw unreadable(endpoint, status, verdict.why, body);
}

async function currentToken(c: ClientState): Promise<string> {
  const token = await c.options.tokens.token();
  if (c.options.tokens.secret) c.secrets.add(token);
  return token;
}

/** An answer's text with the secrets checked (once, on the raw text) and its bounded parse. */
function readAnswer<T>(
  c: ClientState,
  endpoint: Endpoint<T>,
  response: RawResponse,
): { text: string | undefined; parsed: ReturnType<typeof parseBody> } {
  const ok = response.status >= 200 && response.status < 300;
  if (!response.body.ok) {
    return {
      text: undefined,
      parsed: { ok: false, reason: response.body.reason || `larger than ${MAX_BODY_MIB} MiB` },
    };
  }
  // The token endpoint's answer is the credential itself: it is used, never shown.
  const credential = ok && endpoint.authenticated === false;
  const text = credential ? response.body.text : c.secrets.redact(response.body.text, response.body.raw);
  let parsed = parseBody(text);
  if (parsed.ok && !credential && c.secrets.active && text.includes('\\')) {
    // JSON escapes can spell a secret the raw text does not show: check the strings they make.
    parsed = { ok: true, value: redactParsed(parsed.value, c.secrets.redact) };
  }
  return { text, parsed };
}

/** Waits before asking a failed read again, and says so; false when it is not to be asked again. */
async function waitToRetry<T>(c: ClientState, endpoint: Endpoint<T>, response: RawResponse, retry: number) {
  const outcome: AttemptOutcome = { kind: 'status', status: response.status };
  if (endpoint.retry !== 'safe' || retry >= MAX_RETRIES || !isRetryable(outcome)) return false;
  const header = response.headers['retry-after'];
  const retryAfter = parseRetryAfter(Array.isArray(header) ? header[0] : header, c.options.clock.now());
  const delay = retryDelay(retry + 1, retryAfter, c.options.random());
  if (delay === undefined) return false;
  await c.options.sleep(delay);
  return true;
}

/**
 * Everything done with an answer once it arrived: the secret check (once, on the raw text), the bounded
 * parse, the status, the schema and the verdict. Returns the value, or undefined when a read should be
 * asked again (it has waited already).
 */
async function handle<T>(
  c: ClientState,
  endpoint: Endpoint<T>,
  response: RawResponse,
  retry: number,
): Promise<{ value: T } | undefined> {
  const { status } = response;
  const { text, parsed } = readAnswer(c, endpoint, response);
  const body = parsed.ok ? parsed.value : text;
  if (status < 200 || status >= 300) {
    if (await waitToRetry(c, endpoint, response, retry)) return undefined;
    // An HTML page from a proxy (a 502, a 301): say so in one line instead of quoting the page.
    throw httpError(endpoint.what, status, parsed.ok ? body : undefined, endpoint.retry === 'never');
  }
  if (!parsed.ok && endpoint.emptyOk && response.body.ok && response.body.text.trim() === '') {
    return { value: null as T };
  }
  if (!parsed.ok) throw unreadable(endpoint, status, parsed.reason, undefined);
  let result: ReturnType<z.ZodMiniType<T>['safeParse']>;
  try {
    result = endpoint.schema().safeParse(parsed.value);
  } catch (error) {
    // zod lists every invalid value and gathers the lists with push(...issues): an answer with some
    // 200,000 of them (600 kB of `[],`) overflows the stack there. That is the answer's shape, not a bug.
    if (!(error instanceof RangeError)) throw error;
    throw unreadable(endpoint, status, 'too many invalid values to list', undefined);
  }
  if (!result.success) {
    throw unreadable(endpoint, status, describeIssues(result.error), body);
  }
  return { value: judge(c, endpoint, status, result.data, body) };
}

/** Sends one attempt; a network failure that may be tried again waits and gives undefined. */
async function attempt(
  c: ClientState,
  endpoint: EndpointPolicy,
  out: Outgoing,
  retry: number,
): Promise<RawResponse | undefined> {
  try {
    return await send(c, out);
  } catch (error) {
    if (!(error instanceof NetworkFailure)) throw error;
    const outcome: AttemptOutcome = { kind: 'network' };
    if (!error.interrupted && endpoint.retry === 'safe' && retry < MAX_RETRIES && isRetryable(outcome)) {
      await c.options.sleep(retryDelay(retry + 1, undefined, c.options.random())!);
      return undefined;
    }
    throw networkError(c, endpoint, error);
  }
}

async function request<T>(c: ClientState, endpoint: Endpoint<T>, input: RequestInput): Promise<T> {
  const write = endpoint.retry === 'never';
  const out: Outgoing = {
    method: endpoint.method,
    path: buildPath(c.prefix + endpoint.path, input.query),
    token: endpoint.authenticated === false ? undefined : await currentToken(c),
    body: input.body,
    finishOnSignal: input.finishOnSignal ?? false,
    extra: input.headers ?? {},
  };
  let refreshed = false;
  for (let retry = 0; ; retry++) {
    const response = await attempt(c, endpoint, out, retry);
    if (response === undefined) continue;
    if (response.status === 401 && out.token !== undefined && !refreshed) {
      // A 401 proves nothing was applied (api/outcomes.ts), so even a write may be sent again with a
      // fresh token, once: the only time pix sends a transfer or charge again. A static token cannot be
      // refreshed: the 401 stands (exit 3).
      refreshed = true;
      const fresh = await c.options.tokens.refresh(out.token);
      if (fresh !== undefined) {
        if (c.options.tokens.secret) c.secrets.add(fresh);
        out.token = fresh;
        retry--;
        continue;
      }
    }
    let handled: { value: T } | undefined;
    try {
      handled = await handle(c, endpoint, response, retry);
    } catch (error) {
      // After a write was sent, nothing may end as a crash: what is not a PixError proves nothing.
      if (!write || error instanceof PixError) throw error;
      throw unreadable(endpoint, response.status, String((error as Error)?.message ?? error), undefined);
    }
    if (handled) {
      input.seen?.(response.status, shownHeaders(c, response.headers));
      return handled.value;
    }
  }
}

export async function createApiClient(options: ApiClientOptions): Promise<ApiClient> {
  const origin = new URL(options.baseUrl);
  const cancels = new Set<() => void>();
  const c: ClientState = {
    options,
    origin,
    prefix: origin.pathname.replace(/\/+$/, ''),
    secrets: createSecretScanner(),
    transport: undefined,
    serverOffsetMs: undefined,
    cancels,
    cancelAll: () => {
      for (const cancel of cancels) cancel();
    },
  };
  for (const secret of options.secrets) c.secrets.add(secret);
  const client: ApiClient = {
    baseUrl: options.baseUrl,
    clock: options.clock,
    serverTime: () =>
      c.serverOffsetMs === undefined ? undefined : new Date(options.clock.now().getTime() + c.serverOffsetMs),
    pager: createPager(options.pageLimits),
    request: (endpoint, input = {}) => request(c, endpoint, input),
    async mintToken(clientKey, clientSecret) {
      c.secrets.add(clientSecret);
      const minted = await client.request(tokenEndpoint, { body: { clientKey, clientSecret } });
      c.secrets.add(minted.clientToken);
      return minted;
    },
  };
  return client;
}
