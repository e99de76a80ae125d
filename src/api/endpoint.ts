/**
 * What an API endpoint is, as each resource declares it once (src/api/resources/): its name, path, method,
 * the retry policy (architecture rule 7), the answer's schema and, for a write, what a 2xx answer proves;
 * and what a request adds to it (path parameters, query, body). `api/client.ts` sends them.
 */

import type * as z from '../zod.js';
import type { Verdict } from './outcomes.js';

export type EndpointName = 'auth' | 'statement' | 'keys' | 'charge' | 'emv' | 'dict' | 'transfer' | 'api';

/** One API endpoint, declared once in src/api/resources/. */
export interface Endpoint<T> {
  name: EndpointName;
  /** What failed, in the user's words: "listing PIX keys". */
  what: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  path: string;
  /**
   * `safe`: reads and consultations, retried on network errors, 429, 502, 503, 504.
   * `never`: charges and the transfer. Never retried, and a failure after sending is an unknown outcome (exit 7).
   */
  retry: 'safe' | 'never';
  /** The answer's schema: a constant of the resource's module, made when that module is first imported. */
  schema: () => z.ZodMiniType<T>;
  /** False only for the token endpoint (whose answer is itself a credential). */
  authenticated?: boolean;
  /** `pix api`: a 2xx answer with no body (HEAD, 204) is `null`, not an unreadable answer. */
  emptyOk?: boolean;
  /**
   * Writes only: what a 2xx answer that passed the schema proves (api/outcomes.ts). A refusal becomes a
   * `rejected` error (exit 5), an answer that proves nothing an `unknown_outcome` (exit 7).
   */
  verdict?: (value: T) => Verdict;
}

/** What error reporting needs of an endpoint, whatever its answer type. */
export type EndpointPolicy = Pick<Endpoint<unknown>, 'what' | 'retry'>;

export interface RequestInput {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /**
   * Once it has left, the request is not cancelled by the command's signal (Ctrl-C) but waits for its answer
   * (still bounded by --timeout), so what it did is known: a batch's rows in flight when the operator
   * stops it. A second Ctrl-C still ends pix at once. Nothing starts after the signal either way.
   */
  finishOnSignal?: boolean;
  /** `pix api -H`: headers besides pix's own (never a credential: domain/apipath.ts). */
  headers?: Record<string, string>;
  /** `pix api -i`: the final answer's status and its headers as --verbose shows them (allowlisted, redacted). */
  seen?: (status: number, headers: string[]) => void;
}
