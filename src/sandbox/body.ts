/**
 * Small readers of untrusted JSON, shared by the areas of the sandbox account (statement.ts, charges.ts,
 * consultations.ts, transfers.ts): each problem is an ApiFailure (failure.ts).
 */
import { type Centavos, centavosFromApi } from '../domain/money.js';
import { UUID_PATTERN } from '../domain/pixkey.js';
import { ApiFailure, DATE, invalid, MAX_AMOUNT, MIN_CHARGE } from './failure.js';
import type { NameValue, SandboxState } from './model.js';

// Web Crypto's global, reached on first use: node:crypto is not loaded by a command that only reads the
// sandbox (an embedded `pix statement`).
export const randomUUID = (): string => globalThis.crypto.randomUUID();
const randomBytes = (length: number): Uint8Array => globalThis.crypto.getRandomValues(new Uint8Array(length));

export type Body = Record<string, unknown>;

export function asBody(value: unknown): Body {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('o corpo deve ser um objeto JSON');
  }
  return value as Body;
}

export function optionalString(body: Body, field: string, max = 1000): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${field} deve ser texto`);
  if (Array.from(value).length > max) throw invalid(`${field} deve ter no máximo ${max} caracteres`);
  return value;
}

export function requiredString(body: Body, field: string, max = 1000): string {
  const value = optionalString(body, field, max);
  if (value === undefined || value.trim() === '') throw invalid(`${field} é obrigatório`);
  return value;
}

/**
 * True unless `value` is the double nearest to a number with at most two decimals. An absolute tolerance
 * on `value * 100` would refuse large valid amounts (610338098.7 * 100 = 61033809869.99999): instead the
 * centavos are rounded and divided back, which gives exactly the double JSON.parse made of the decimal.
 */
export function hasMoreThanTwoDecimals(value: number): boolean {
  return Math.round(value * 100) / 100 !== value;
}

/** A charge amount: 400 when missing or not a number, 422 when below 5.00 or not in centavos. */
export function chargeAmount(body: Body): Centavos {
  const value = body.amount;
  if (value === undefined || value === null) throw invalid('amount é obrigatório');
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid('amount deve ser um número');
  if (hasMoreThanTwoDecimals(value) || value * 100 > MAX_AMOUNT) {
    throw new ApiFailure(422, 'INVALID_AMOUNT', 'Valor da cobrança inválido');
  }
  const centavos = centavosFromApi(value);
  if (centavos < MIN_CHARGE) {
    throw new ApiFailure(422, 'INVALID_AMOUNT', 'Valor da cobrança inválido: o mínimo é 5,00');
  }
  return centavos;
}

export function additionalInformation(body: Body): NameValue[] | undefined {
  const value = body.additionalInformation;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalid('additionalInformation deve ser uma lista');
  if (value.length > 50) throw invalid('additionalInformation aceita no máximo 50 itens');
  return value.map((item, index) => {
    const entry = typeof item === 'object' && item !== null ? (item as Body) : undefined;
    if (!entry || typeof entry.name !== 'string' || typeof entry.value !== 'string' || entry.name === '') {
      throw invalid(`additionalInformation[${index}] deve ter name e value (texto)`);
    }
    return { name: entry.name, value: entry.value };
  });
}

export function payerQuestion(body: Body): string | undefined {
  const value = optionalString(body, 'payerQuestion', Number.POSITIVE_INFINITY);
  if (value !== undefined && Array.from(value).length > 140) {
    throw invalid('payerQuestion deve ter no máximo 140 caracteres');
  }
  return value;
}

export function isRealDate(text: string): boolean {
  return DATE.test(text) && new Date(`${text}T00:00:00.000Z`).toISOString().slice(0, 10) === text;
}

export function findKey(state: SandboxState, body: Body) {
  const id = requiredString(body, 'pixKeyId');
  if (!UUID_PATTERN.test(id)) throw invalid('pixKeyId deve ser um UUID');
  const key = state.keys.find((candidate) => candidate.id === id);
  if (!key) throw new ApiFailure(404, 'PIX_KEY_NOT_FOUND', 'Chave PIX não encontrada');
  return key;
}

/** `length` random decimal digits. */
export function randomDigits(length: number): string {
  const bytes = randomBytes(length);
  let text = '';
  for (let i = 0; i < length; i++) text += String(bytes[i]! % 10);
  return text;
}

export function randomAlnum(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length);
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[bytes[i]! % alphabet.length];
  return text;
}
