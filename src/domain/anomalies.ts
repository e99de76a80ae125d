/**
 * Answers checked against requests: what a write's 2xx answer contradicts in what was asked (another amount,
 * another receiver, no id to find it by). Pure: the API client says whether a write was applied
 * (api/outcomes.ts); the journal records these beside it (journal/record.ts).
 */
import { formatBRL } from './money.js';

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
