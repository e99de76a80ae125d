/**
 * The headers `--verbose` shows (`api/client.ts` logs them): the request headers that carry a credential,
 * shown as `[redacted]`, and the response headers shown at all, an allowlist.
 */

/** Request headers pix sends that carry a credential: logged as `[redacted]` by --verbose. */
export const REDACTED_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

/**
 * Response headers --verbose shows (the server's own headers are hostile text too: one echoing the token,
 * `x-debug-authorization` or `www-authenticate … token="…"`, is named with `[not shown]`). Request ids are
 * what a provider's support desk asks for.
 */
export const SHOWN_RESPONSE_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'date',
  'retry-after',
  'x-request-id',
  'request-id',
  'x-correlation-id',
  'correlation-id',
  'x-trace-id',
  'traceparent',
  'x-amzn-requestid',
  'x-amz-request-id',
  'cf-ray',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
]);
