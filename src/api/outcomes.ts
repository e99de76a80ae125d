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
import { formatBRL } from '../domain/money.js';
import { type ErrorKind, PixError } from '../errors.js';

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

/** Kinds the API client raises for a write only when nothing was applied (a refusal, or nothing sent). */
const NOT_APPLIED_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  'usage',
  'auth',
  'not_found',
  'rejected',
  'unavailable',
  'interrupted',
]);

/**
 * What the journal records for a charge or transfer that ended in `error`: `failed` only when the error
 * proves nothing was applied; anything else — an unknown outcome, a crash, an error pix does not know —
 * is `unknown`.
 */
export function journalStateOf(error: unknown): 'failed' | 'unknown' {
  return error instanceof PixError && NOT_APPLIED_KINDS.has(error.kind) ? 'failed' : 'unknown';
}

// ---------------------------------------------------------------------------------------------
// Answers checked against requests

/**
 * A field of a write's 2xx answer that contradicts the request: the server says it did something other
 * than what was asked (another amount, another receiver, no id to find it by). Such an answer proves
 * nothing about what was applied: an unknown outcome (exit 7), journaled with both values so the
 * duplicate guard holds the payment until the operator resolves it. `sent` and `got` are as the API
 * speaks them (amounts in reais); `got` is the server's value, cut short when it is a long text.
 */
export interface Anomaly {
  field: string;
  sent: string | number | null;
  got: string | number | null;
  /** A transfer's amount: the fee the same answer names (reais), shown beside it. */
  fee?: number;
}

/** A server value as the journal may keep it: a number, a text of at most 120 characters, or null. */
function given(value: unknown): string | number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string') return value.length > 120 ? `${value.slice(0, 120)}…` : value;
  return value === undefined || value === null ? null : `(${typeof value})`;
}

/**
 * An answer's amount (reais) that is not the amount sent (centavos): another value, or not a number.
 * `centavos / 100` is the double nearest the decimal amount, as the request wrote it (centavosToApi) and
 * as JSON reads it back, so equal amounts are equal numbers, however large.
 */
function amountDiffers(answered: unknown, sentCentavos: number): boolean {
  return answered !== sentCentavos / 100;
}

const present = (value: unknown) => value !== undefined && value !== null;
const blank = (value: unknown) => typeof value !== 'string' || value.trim() === '';

/**
 * What a transfer's accepted answer (API §2.8: id, endToEndId, amount, fee, status) contradicts in its
 * request: the amount (when the answer carries one), the endToEndId (the consultation's, which names the
 * receiver), or a missing id. `amountCentavos` is what the operator confirmed, sent or not (a dynamic
 * code's amount is the code's own).
 */
export function transferAnomalies(
  sent: { endToEndId: string; amountCentavos: number },
  answer: { id?: unknown; endToEndId?: unknown; amount?: unknown; fee?: unknown },
): Anomaly[] {
  const anomalies: Anomaly[] = [];
  if (present(answer.amount) && amountDiffers(answer.amount, sent.amountCentavos)) {
    const fee = typeof answer.fee === 'number' && Number.isFinite(answer.fee) ? { fee: answer.fee } : {};
    anomalies.push({ field: 'amount', sent: sent.amountCentavos / 100, got: given(answer.amount), ...fee });
  }
  if (present(answer.endToEndId) && String(answer.endToEndId).trim() !== sent.endToEndId) {
    anomalies.push({ field: 'endToEndId', sent: sent.endToEndId, got: given(answer.endToEndId) });
  }
  if (blank(answer.id)) anomalies.push({ field: 'id', sent: null, got: given(answer.id) });
  return anomalies;
}

/** What a created charge (API §2.2) contradicts in its request: the amount, the key's id, a missing id. */
export function chargeAnomalies(
  sent: { amountCentavos: number; keyId: string },
  answer: { id?: unknown; amount?: unknown; pixKeyId?: unknown },
): Anomaly[] {
  const anomalies: Anomaly[] = [];
  if (amountDiffers(answer.amount, sent.amountCentavos)) {
    anomalies.push({ field: 'amount', sent: sent.amountCentavos / 100, got: given(answer.amount) });
  }
  if (present(answer.pixKeyId) && String(answer.pixKeyId).trim().toLowerCase() !== sent.keyId.toLowerCase()) {
    anomalies.push({ field: 'pixKeyId', sent: sent.keyId, got: given(answer.pixKeyId) });
  }
  if (blank(answer.id)) anomalies.push({ field: 'id', sent: null, got: given(answer.id) });
  return anomalies;
}

/** `R$ 1.234,56` for an amount in reais as the API gives it; anything else quoted as it came. */
function shownAmount(value: string | number | null): string {
  if (typeof value !== 'number') return value === null ? 'none' : `"${value}"`;
  const centavos = Math.round(value * 100);
  return Number.isSafeInteger(centavos) && Math.abs(value * 100 - centavos) <= 1e-6
    ? formatBRL(centavos)
    : String(value);
}

/**
 * The anomalies in one line for people: `amount: sent R$ 10,00, the server answered R$ 1.000,00`. The
 * server's values are raw here; the error output sanitizes them (main.ts), as all server text.
 */
export function describeAnomalies(anomalies: readonly Anomaly[], what: 'transfer' | 'charge'): string {
  return anomalies
    .map((anomaly) => {
      if (anomaly.field === 'id') return `no ${what} id in the answer`;
      const show = anomaly.field === 'amount' ? shownAmount : (v: string | number | null) => `"${v ?? ''}"`;
      const fee = anomaly.fee === undefined ? '' : ` with a fee of ${shownAmount(anomaly.fee)}`;
      return `${anomaly.field}: sent ${show(anomaly.sent)}, the server answered ${show(anomaly.got)}${fee}`;
    })
    .join('; ');
}
