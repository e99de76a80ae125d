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
import { createSecretScanner, redactParsed } from './secrets.js';
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

export async function createApiClient(options: ApiClientOptions): Promise<ApiClient> {
  const { baseUrl, tokens, timeoutMs, verbose, stderr, signal, sanitize } = options;
  const origin = new URL(baseUrl);
  const prefix = origin.pathname.replace(/\/+$/, '');
  // Every secret this client knows; each answer's text is checked against them once, before parsing.
  const secrets = createSecretScanner();
  for (const secret of options.secrets) secrets.add(secret);

  let transport: Promise<ApiTransport> | undefined;
  const getTransport = (): Promise<ApiTransport> => {
    transport ??= options.transport();
    return transport;
  };

  // The server's clock against the account's, from the Date of its latest answer (serverTime).
  let serverOffsetMs: number | undefined;
  const observeDate = (headers: Record<string, string | string[] | undefined>) => {
    const value = headers.date;
    const ms = Date.parse(String(Array.isArray(value) ? value[0] : (value ?? '')));
    if (Number.isFinite(ms)) serverOffsetMs = ms - options.clock.now().getTime();
  };

  const log = (line: string) => {
    if (verbose) stderr.write(`${line}\n`);
  };
  const logRequestHeaders = (headers: Record<string, string>) => {
    for (const [name, value] of Object.entries(headers)) {
      log(`> ${name}: ${REDACTED_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value}`);
    }
  };
  /** A response's headers as people may see them: the allowlisted ones, secrets redacted; others `[not shown]`. */
  const shownHeaders = (headers: Record<string, string | string[] | undefined>): string[] =>
    Object.entries(headers)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => {
        const shown = SHOWN_RESPONSE_HEADERS.has(name.toLowerCase())
          ? sanitize(secrets.redact(String(value)))
          : '[not shown]';
        return `${sanitize(name, 64)}: ${shown}`;
      });
  const logResponseHeaders = (headers: Record<string, string | string[] | undefined>) => {
    for (const line of shownHeaders(headers)) log(`< ${line}`);
  };

  // Ctrl-C cancels the requests in flight (those not finishing on a signal) through ONE listener on the
  // command's signal, added while any is in flight and removed when none is: one per request would put
  // --concurrency listeners on that one AbortSignal, and Node warns of a leak from the 11th
  // (MaxListenersExceededWarning) though each is removed when its request ends.
  const cancels = new Set<() => void>();
  const cancelAll = () => {
    for (const cancel of cancels) cancel();
  };
  const cancelOnSignal = (cancel: () => void): (() => void) => {
    if (cancels.size === 0) signal.addEventListener('abort', cancelAll, { once: true });
    cancels.add(cancel);
    return () => {
      cancels.delete(cancel);
      if (cancels.size === 0) signal.removeEventListener('abort', cancelAll);
    };
  };

  async function send(
    method: Endpoint<unknown>['method'],
    path: string,
    token: string | undefined,
    body: unknown,
    finishOnSignal = false,
    extra: Record<string, string> = {},
  ): Promise<RawResponse> {
    const sender = await getTransport();
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'pix-cli', ...extra };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const url = `${origin.origin}${path}`;
    // Ctrl-C before the request left: nothing was sent.
    if (signal.aborted) throw new NetworkFailure(false, false, undefined, true);
    log(`> ${method} ${url}`);
    logRequestHeaders(headers);
    // Timed only for --verbose: reading performance loads Node's perf_hooks, which a plain run need not pay for.
    const started = verbose ? performance.now() : 0;
    const elapsed = () => Math.round(performance.now() - started);
    const controller = new AbortController();
    // --timeout bounds the whole exchange: connecting, the headers and the body.
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const release = finishOnSignal ? undefined : cancelOnSignal(() => controller.abort());
    try {
      const response = await sender.request({
        origin: origin.origin,
        path,
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      observeDate(response.headers);
      const text = await readBounded(
        response.body,
        response.headers['content-length'],
        MAX_BODY_BYTES,
        response.headers['content-encoding'],
      );
      if (verbose) {
        log(`< ${response.statusCode} (${elapsed()} ms)`);
        logResponseHeaders(response.headers);
        if (!text.ok) {
          log(`< body of ${text.bytes} bytes not read (${text.reason ?? `over ${MAX_BODY_MIB} MiB`})`);
        }
      }
      return { status: response.statusCode, headers: response.headers, body: text };
    } catch (error) {
      const code = errorCode(error);
      const interrupted = signal.aborted && !finishOnSignal;
      const timedOut = !interrupted && (controller.signal.aborted || /TIMEOUT/.test(code ?? ''));
      if (verbose) {
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
      release?.();
    }
  }

  function networkError(endpoint: EndpointPolicy, failure: NetworkFailure): PixError {
    if (failure.interrupted) {
      const stopped = stopSignalOf(signal);
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
      ? `no answer within ${timeoutMs / 1000}s`
      : failure.code === 'ECONNREFUSED'
        ? `cannot connect to ${origin.host}`
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
  function judge<T>(endpoint: Endpoint<T>, status: number, value: T, body: unknown): T {
    const verdict = endpoint.verdict?.(value);
    if (verdict === undefined || verdict.applied === true) return value;
    if (verdict.applied === false) {
      throw new PixError(
        'rejected',
        `${endpoint.what}: refused with status ${sanitize(verdict.status, 40)}`,
        {
          status,
          server: body,
          hint: 'the server says it was not applied; nothing changed',
        },
      );
    }
    throw unreadable(endpoint, status, verdict.why, body);
  }

  async function currentToken(): Promise<string> {
    const token = await tokens.token();
    if (tokens.secret) secrets.add(token);
    return token;
  }

  /**
   * Everything done with an answer once it arrived: the secret check (once, on the raw text), the bounded
   * parse, the status, the schema and the verdict. Returns the value, or undefined when a read should be
   * asked again (it has waited already).
   */
  async function handle<T>(
    endpoint: Endpoint<T>,
    response: RawResponse,
    retry: number,
  ): Promise<{ value: T } | undefined> {
    const write = endpoint.retry === 'never';
    const { status } = response;
    const ok = status >= 200 && status < 300;
    let text: string | undefined;
    let parsed: ReturnType<typeof parseBody> = {
      ok: false,
      reason: (!response.body.ok && response.body.reason) || `larger than ${MAX_BODY_MIB} MiB`,
    };
    if (response.body.ok) {
      // The token endpoint's answer is the credential itself: it is used, never shown.
      const credential = ok && endpoint.authenticated === false;
      text = credential ? response.body.text : secrets.redact(response.body.text, response.body.raw);
      parsed = parseBody(text);
      if (parsed.ok && !credential && secrets.active && text.includes('\\')) {
        // JSON escapes can spell a secret the raw text does not show: check the strings they make.
        parsed = { ok: true, value: redactParsed(parsed.value, secrets.redact) };
      }
    }
    const body = parsed.ok ? parsed.value : text;

    if (!ok) {
      const outcome: AttemptOutcome = { kind: 'status', status };
      if (endpoint.retry === 'safe' && retry < MAX_RETRIES && isRetryable(outcome)) {
        const header = response.headers['retry-after'];
        const retryAfter = parseRetryAfter(Array.isArray(header) ? header[0] : header, options.clock.now());
        const delay = retryDelay(retry + 1, retryAfter, options.random());
        if (delay !== undefined) {
          await options.sleep(delay);
          return undefined;
        }
      }
      // An HTML page from a proxy (a 502, a 301): say so in one line instead of quoting the page.
      throw httpError(endpoint.what, status, parsed.ok ? body : undefined, write);
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
    return { value: judge(endpoint, status, result.data, body) };
  }

  const client: ApiClient = {
    baseUrl,
    clock: options.clock,
    serverTime: () =>
      serverOffsetMs === undefined ? undefined : new Date(options.clock.now().getTime() + serverOffsetMs),
    pager: createPager(options.pageLimits),
    async request<T>(endpoint: Endpoint<T>, input: RequestInput = {}): Promise<T> {
      const path = buildPath(prefix + endpoint.path, input.query);
      const write = endpoint.retry === 'never';
      let token = endpoint.authenticated === false ? undefined : await currentToken();
      let refreshed = false;
      for (let retry = 0; ; retry++) {
        let response: RawResponse;
        try {
          response = await send(
            endpoint.method,
            path,
            token,
            input.body,
            input.finishOnSignal,
            input.headers,
          );
        } catch (error) {
          if (!(error instanceof NetworkFailure)) throw error;
          const outcome: AttemptOutcome = { kind: 'network' };
          if (
            !error.interrupted &&
            endpoint.retry === 'safe' &&
            retry < MAX_RETRIES &&
            isRetryable(outcome)
          ) {
            await options.sleep(retryDelay(retry + 1, undefined, options.random())!);
            continue;
          }
          throw networkError(endpoint, error);
        }
        if (response.status === 401 && token !== undefined && !refreshed) {
          // A 401 proves nothing was applied (api/outcomes.ts), so even a write may be sent again with a
          // fresh token, once: the only time pix sends a transfer or charge again. A static token cannot be
          // refreshed: the 401 stands (exit 3).
          refreshed = true;
          const fresh = await tokens.refresh(token);
          if (fresh !== undefined) {
            if (tokens.secret) secrets.add(fresh);
            token = fresh;
            retry--;
            continue;
          }
        }
        let handled: { value: T } | undefined;
        try {
          handled = await handle(endpoint, response, retry);
        } catch (error) {
          // After a write was sent, nothing may end as a crash: what is not a PixError proves nothing.
          if (!write || error instanceof PixError) throw error;
          throw unreadable(endpoint, response.status, String((error as Error)?.message ?? error), undefined);
        }
        if (handled) {
          input.seen?.(response.status, shownHeaders(response.headers));
          return handled.value;
        }
      }
    },
    async mintToken(clientKey, clientSecret) {
      secrets.add(clientSecret);
      const minted = await client.request(tokenEndpoint, { body: { clientKey, clientSecret } });
      secrets.add(minted.clientToken);
      return minted;
    },
  };
  return client;
}
