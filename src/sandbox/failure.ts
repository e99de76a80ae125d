/**
 * How the sandbox account refuses: every refusal is an ApiFailure carrying the HTTP status, a code and a
 * Portuguese message; and the magic values and limits the areas of the account share.
 */
import type { Centavos } from '../domain/money.js';

export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiFailure';
    this.status = status;
    this.code = code;
  }
}

export function invalid(message: string): ApiFailure {
  return new ApiFailure(400, 'INVALID_REQUEST', `Requisição inválida: ${message}`);
}

export const MAGIC = {
  /** A charge of this amount is refused with 403 (IP not authorised). */
  chargeForbiddenAmount: 403_00,
  /** A transfer of this amount is refused with 422 (invalid payment amount). */
  transferInvalidAmount: 422_00,
  /** A transfer of this amount fails with 400 (an error occurred during the transfer). */
  transferErrorAmount: 400_00,
} as const;

export const MIN_CHARGE: Centavos = 5_00;
export const MAX_AMOUNT: Centavos = 1_000_000_000_00;
export const DEFAULT_IMMEDIATE_EXPIRY_MS = 24 * 3_600_000;
export const DEFAULT_EXPIRATION_AFTER_PAYMENT = 30;
export const SETTLE_AFTER_MS = 2_000;
/** The host of the dynamic-charge URLs: fixed, so a code stays resolvable whatever port served it. */
export const QR_HOST = 'sandbox.pix.local';
export const QR_URL = /^(?:https?:\/\/)?sandbox\.pix\.local\/qr\/v2\/([A-Za-z0-9]{1,35})$/;
export const DATE = /^\d{4}-\d{2}-\d{2}$/;
export const END_TO_END = /^E\d{8}\d{12}[A-Za-z0-9]{11}$/;
