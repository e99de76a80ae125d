/**
 * What the API client is and what it is made from (api/client.ts createApiClient makes it): its own module,
 * so the client's code and the shapes it promises are each read in one place.
 */
import type { Clock } from '../context.js';
import type { Endpoint, RequestInput } from './endpoint.js';
import type { PageLimitStore, Pager } from './pager.js';
import type { ApiTransport } from './transport.js';

/**
 * Where the bearer token of each request comes from (config/tokens.ts: a stored token, or one minted from
 * client credentials and cached), as the composition root (src/wiring.ts) makes it.
 */
export interface TokenSource {
  /** The token to send; throws the error a person should see when there is none (exit 3). */
  token(): Promise<string>;
  /** After a 401 on `rejected`: another token, or undefined when none can be had (the 401 stands). */
  refresh(rejected: string): Promise<string | undefined>;
  /**
   * Whether its tokens are secrets, redacted wherever an answer echoes them (--verbose, errors, JSON). Only
   * a bearer that grants nothing, which any text may contain, is not.
   */
  readonly secret: boolean;
}

/**
 * What the client needs, and no more. The composition root (src/wiring.ts) makes it from the settings and the
 * command's deps; which API is behind the transport (the embedded sandbox, a real one) the client never knows.
 */
export interface ApiClientOptions {
  /** The API's base URL, canonical (api/url.ts); a path after the host prefixes every endpoint's. */
  baseUrl: string;
  /**
   * Where requests go, asked for once, at the first request (so a command that fails before sending loads no
   * HTTP client): a connection pool (api/transport.ts), an in-process answer, a test's MockAgent.
   */
  transport(): Promise<ApiTransport>;
  tokens: TokenSource;
  /** Secrets known before any request (a client secret): never shown, whatever an answer echoes. */
  secrets: readonly string[];
  /**
   * Server text made safe for a person, at most `max` characters (output/sanitize.ts safeText, given by the
   * composition root: the one sanitizer, architecture rule 11): --verbose's headers, a refusal's status.
   */
  sanitize(text: string, max?: number): string;
  /** `--timeout`: the bound on each exchange, connecting, headers and body. */
  timeoutMs: number;
  /** `--verbose`: each request and answer is logged, secrets redacted, to `stderr`. */
  verbose: boolean;
  /** Where --verbose lines and warnings go. */
  stderr: { write(text: string): unknown };
  /** Ctrl-C and SIGTERM: cancels the requests in flight (but those that finish on a signal). */
  signal: AbortSignal;
  /** The account's clock (the sandbox's when the API is the sandbox: src/wiring.ts), read by Retry-After too. */
  clock: Clock;
  /** The waits between retries. */
  sleep(ms: number): Promise<void>;
  /** In [0, 1): backoff jitter. */
  random(): number;
  /**
   * The largest pages this base URL took before (api/pager.ts), kept by the wiring with the profile's
   * cache; without one, the pager learns again in each command.
   */
  pageLimits?: PageLimitStore;
}

export interface ApiClient {
  readonly baseUrl: string;
  /** The account's time, as given: the sandbox's clock when the API is the sandbox, else the local clock. */
  readonly clock: Clock;
  /**
   * The server's time as its answers tell it (their `Date` header, RFC 9110 §6.6.1), run on by `clock`
   * since the last one; undefined before any answer with a readable Date. Whole seconds: the header's.
   */
  serverTime(): Date | undefined;
  /** Every read of a list goes through this (api/pager.ts: the one paging rule). */
  readonly pager: Pager;
  request<T>(endpoint: Endpoint<T>, input?: RequestInput): Promise<T>;
  /** POST /auth/token with client credentials; used by the token provider and by `pix login`. */
  mintToken(clientKey: string, clientSecret: string): Promise<{ clientToken: string; expiresIn: number }>;
}
