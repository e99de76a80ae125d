import { InvalidValue } from './invalid.js';

/** Money inside pix is always an integer number of centavos. */
export type Centavos = number;

// Reais with at most two decimals, a dot or a comma as the separator, no thousands separators.
const AMOUNT = /^(\d{1,13})(?:[.,](\d{1,2}))?$/;

/**
 * Parses an amount typed by a user (`10`, `10.5`, `10,50`) into centavos without ever going
 * through a float. Rejects signs, exponents, thousands separators and a third decimal.
 */
export function parseAmount(text: string): Centavos {
  const trimmed = text.trim();
  if (trimmed === '') throw new InvalidValue('an amount is required, e.g. 10.50');
  const match = AMOUNT.exec(trimmed);
  if (!match) {
    if (/^-/.test(trimmed)) throw new InvalidValue(`"${text}" is negative; amounts are positive reais`);
    if (/^\d+[.,]\d{3,}$/.test(trimmed)) throw new InvalidValue(`"${text}" has more than 2 decimals`);
    throw new InvalidValue(`"${text}" is not an amount in reais (use 10, 10.5 or 10,50)`);
  }
  const reais = Number(match[1]);
  const cents = match[2] === undefined ? 0 : Number(match[2].padEnd(2, '0'));
  const total = reais * 100 + cents;
  if (total <= 0) throw new InvalidValue(`"${text}" must be more than zero`);
  return total;
}

/** The API speaks decimal reais (contract §6); this is the only place centavos become reais. */
export function centavosToApi(centavos: Centavos): number {
  assertCentavos(centavos);
  return centavos / 100;
}

/** Reads an API amount in reais back into centavos; rounding absorbs binary float noise like 10.499999. */
export function centavosFromApi(reais: number): Centavos {
  if (!Number.isFinite(reais)) throw new InvalidValue(`amount ${reais} is not a number`);
  return Math.round(reais * 100);
}

function assertCentavos(centavos: Centavos): void {
  if (!Number.isSafeInteger(centavos))
    throw new InvalidValue(`${centavos} is not a whole number of centavos`);
}

/** Plain decimal for machines: `1234.56`, `-0.07`. */
export function formatDecimal(centavos: Centavos): string {
  assertCentavos(centavos);
  const sign = centavos < 0 ? '-' : '';
  const abs = Math.abs(centavos);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Brazilian display for people: `R$ 1.234,56`, `-R$ 0,07`. */
export function formatBRL(centavos: Centavos): string {
  assertCentavos(centavos);
  const sign = centavos < 0 ? '-' : '';
  const abs = Math.abs(centavos);
  const whole = String(Math.trunc(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${sign}R$ ${whole},${String(abs % 100).padStart(2, '0')}`;
}

/** Reads `R$ 1.234,56` (the display form) back, so round trips can be checked. */
export function parseBRL(text: string): Centavos {
  const match = /^(-?)R\$ (\d{1,3}(?:\.\d{3})*),(\d{2})$/.exec(text.trim());
  if (!match) throw new InvalidValue(`"${text}" is not a R$ amount`);
  const value = Number(match[2]!.replaceAll('.', '')) * 100 + Number(match[3]);
  return match[1] === '-' ? -value : value;
}
