/**
 * What an answer proves (architecture rule 11): the ONE place that says, per endpoint, which answers
 * prove that a charge or the transfer was NOT applied, which prove that it was, and that anything else
 * after the request may have left proves nothing (an unknown outcome, exit 7, never forgotten by the
 * journal).
 *
 * Reads and consultations change nothing, so their failures are only "unavailable" (exit 6) or a refusal.
 * For writes (charges, the transfer) only an explicit refusal counts as "not applied":
 *
 * | answer                                              | write                   | read          |
 * |-----------------------------------------------------|-------------------------|---------------|
 * | 400, 422                                            | rejected (5)            | rejected (5)  |
 * | 401, 403                                            | auth (3)                | auth (3)      |
 * | 404                                                 | not_found (4)           | not_found (4) |
 * | 429 (the server refused before applying anything)   | unavailable (6)         | unavailable   |
 * | 2xx whose status is a failure value (REJECTED, …)   | rejected (5)            | —             |
 * | 2xx with an accepted status / a well-formed charge  | applied                 | —             |
 * | 3xx, 408, 409, 425, 499, 5xx, any other status      | unknown_outcome (7)     | unavailable / rejected (other 4xx) |
 * | 2xx with an unknown or missing status, wrong shape,  | unknown_outcome (7)     | unavailable   |
 * | not JSON, too large, too deep, a crash reading it    |                         |               |
 * | no answer (timeout, reset) after the request left   | unknown_outcome (7)     | unavailable   |
 * | Ctrl-C after the request left                       | unknown_outcome + signal (130) | interrupted |
 */
import type { ErrorKind } from '../errors.js';

/** Status values (of a transfer or a charge) that mean it was refused or undone: not applied. Upper case. */
export const FAILURE_STATUSES: ReadonlySet<string> = new Set([
  'REJECTED',
  'REFUSED',
  'DENIED',
  'DECLINED',
  'FAILED',
  'FAILURE',
  'ERROR',
  'CANCELED',
  'CANCELLED',
  'EXPIRED',
  'INVALID',
]);

/** Transfer statuses that mean it was accepted (in progress or settled): applied. Upper case. */
export const TRANSFER_ACCEPTED_STATUSES: ReadonlySet<string> = new Set([
  'PENDING',
  'CREATED',
  'ACCEPTED',
  'PROCESSING',
  'IN_PROCESS',
  'IN_PROGRESS',
  'SCHEDULED',
  'SENT',
  'COMPLETED',
  'CONFIRMED',
  'SETTLED',
  'DONE',
  'SUCCESS',
  'SUCCEEDED',
  'APPROVED',
  'EXECUTED',
  'PAID',
]);

const normalise = (status: string) => status.trim().toUpperCase();

/** HTTP statuses of a write that prove it was not applied, and the kind each one is. */
const WRITE_REFUSALS: ReadonlyMap<number, ErrorKind> = new Map<number, ErrorKind>([
  [400, 'rejected'],
  [401, 'auth'],
  [403, 'auth'],
  [404, 'not_found'],
  [422, 'rejected'],
  [429, 'unavailable'],
]);

/**
 * A non-2xx HTTP status → the contract's kind (§4). `write` is true for charges and the transfer: any
 * status not in the list of refusals may come from a request that was applied, so it is unknown_outcome.
 */
export function kindForStatus(status: number, write: boolean): ErrorKind {
  if (write) return WRITE_REFUSALS.get(status) ?? 'unknown_outcome';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 429 || status === 408 || status >= 500 || status < 400) return 'unavailable';
  return 'rejected';
}

/** What a 2xx answer of a write says about it. */
export type Verdict =
  | { applied: true }
  | { applied: false; status: string }
  | { applied: 'unknown'; why: string };

/** A transfer answered 2xx: applied only with an accepted status, refused with a failure status. */
export function transferVerdict(result: { status?: string | null | undefined }): Verdict {
  const status = result.status;
  if (typeof status !== 'string' || status.trim() === '') {
    return { applied: 'unknown', why: 'the answer carries no status' };
  }
  const word = normalise(status);
  if (FAILURE_STATUSES.has(word)) return { applied: false, status };
  if (TRANSFER_ACCEPTED_STATUSES.has(word)) return { applied: true };
  return { applied: 'unknown', why: `unknown status "${status}"` };
}

/**
 * A charge answered 2xx with its id and code (the schema checked them): it exists, whatever its open
 * status says (PENDING, ACTIVE, …), unless that status is a failure value.
 */
export function chargeVerdict(charge: { status: string }): Verdict {
  return FAILURE_STATUSES.has(normalise(charge.status))
    ? { applied: false, status: charge.status }
    : { applied: true };
}
