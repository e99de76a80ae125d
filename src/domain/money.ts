import { InvalidValue } from './invalid.js';

/** Money inside pix is always an integer number of centavos. */
export type Centavos = number;

/** At most 13 digits of reais (R$ 9.999.999.999.999,99): every amount stays a safe integer of centavos. */
const MAX_REAIS_DIGITS = 13;

/** What an amount refusal suggests, naming every form parseAmount takes. */
export const AMOUNT_FORMS = 'amounts are reais: 10, 10,50, 10.50, 1.234,56 or R$ 1.234,56';

/** The forms parseAmount accepts, once `R$` is gone; group 1 is the reais, group 2 the decimals. */
const ACCEPTED: readonly RegExp[] = [
  // 10, 10.5, 10,50, 1234.56, 1234,56: no thousands separator, either decimal separator.
  /^(\d+)(?:[.,](\d{1,2}))?$/,
  // 1.234,56, 1.234.567,8: dot thousands in groups of three, comma decimals (how pix prints R$).
  /^(\d{1,3}(?:\.\d{3})+),(\d{1,2})$/,
];

function refuse(text: string, reason: string): never {
  throw new InvalidValue(`"${text}" ${reason}`, AMOUNT_FORMS);
}

/**
 * What to write instead of `whole` + `separator` + `decimals` (three or more): the amount without its
 * extra zeros (`0,500` → `0,50`), else the centavo below and the one above (`0,015` → `0,01 or 0,02`),
 * in the separator the user chose; below one centavo there is nothing below to suggest.
 */
function fewerDecimals(whole: string, separator: string, decimals: string): string {
  const reais = Number(whole);
  const cents = Number(decimals.slice(0, 2));
  const written = (centavos: number) =>
    `${Math.trunc(centavos / 100)}${separator}${String(centavos % 100).padStart(2, '0')}`;
  const below = reais * 100 + cents;
  if (/^0*$/.test(decimals.slice(2))) return `write ${written(below)}`;
  if (below === 0) return `the smallest amount is ${written(1)} (one centavo)`;
  return `write ${written(below)} or ${written(below + 1)}`;
}

/** Why an amount in none of the ACCEPTED forms is refused: the most useful reason first. */
function refusal(text: string, amount: string): never {
  // 0,001, 0.500: no thousands separator follows a leading zero, so these are three decimals, not
  // thousands (the ambiguity below would suggest 1 real, or "0.001,00").
  const decimals = /^(\d{1,13})([.,])(\d{3,})$/.exec(amount);
  if (decimals && (decimals[1]!.startsWith('0') || decimals[3]!.length > 3 || decimals[1]!.length > 3)) {
    refuse(text, `has more than 2 decimals: ${fewerDecimals(decimals[1]!, decimals[2]!, decimals[3]!)}`);
  }
  // 1.234, 10.505, 1,234: a thousands separator, or a third decimal? Either reading is plausible.
  const ambiguous = /^(\d{1,3})[.,](\d{3})$/.exec(amount);
  if (ambiguous) {
    const whole = `${ambiguous[1]}${ambiguous[2]}`;
    refuse(
      text,
      `is ambiguous: a thousands separator, or a third decimal (amounts have two)? For ${Number(whole)} reais write ${Number(whole)} or ${ambiguous[1]}.${ambiguous[2]},00`,
    );
  }
  if (/^\d{1,3}(?:\.\d{3})+$/.test(amount)) {
    const whole = amount.replaceAll('.', '');
    refuse(text, `has thousands dots but no decimal comma: write ${amount},00 or ${Number(whole)}`);
  }
  if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(amount)) {
    refuse(text, 'has comma thousands and dot decimals (as in English): write 1.234,56 or 1234.56');
  }
  if (/^\d+[.,]\d{3,}$/.test(amount) || /^\d{1,3}(?:\.\d{3})+,\d{3,}$/.test(amount)) {
    refuse(text, 'has more than 2 decimals');
  }
  refuse(text, 'is not an amount in reais');
}

/**
 * Parses an amount typed by a user into centavos without ever going through a float. Accepted (after
 * an optional `R$`, with or without a space): plain reais (`10`), a dot or a comma before at most two
 * decimals (`10.5`, `10,50`, `1234.56`), and the Brazilian form with dot thousands in groups of three
 * and comma decimals (`1.234,56`, what pix prints). Refused, each with a hint naming these forms:
 * signs, exponents, a third decimal, and what could be read two ways: `1.234` (one thousand, or one
 * real and 234 thousandths?), `1,234.56` (English thousands).
 */
export function parseAmount(text: string): Centavos {
  const trimmed = text.trim();
  // `--amount R$5` unquoted: the shell reads `$5` as a variable, so pix gets `R` (`R$10,50`: `R0,50`), and
  // `R$ 5` unquoted is two words, `R$` and `5`.
  const quote = "quote it: --amount 'R$ 5', or leave R$ out: --amount 5";
  if (/^R(?!\$)[\d.,]*$/i.test(trimmed)) {
    throw new InvalidValue(
      `"${text}" is not an amount: unquoted, the shell took $ and the digits after it`,
      quote,
    );
  }
  if (/^R\$$/i.test(trimmed)) {
    throw new InvalidValue(
      `"${text}" is not an amount: unquoted, the shell made R$ and the amount two words`,
      quote,
    );
  }
  const amount = trimmed.replace(/^R\$\s*/i, '');
  if (amount === '') throw new InvalidValue('an amount is required, e.g. 10,50', AMOUNT_FORMS);
  if (/^[-−]/.test(amount) || /^-\s*R\$/i.test(trimmed)) {
    throw new InvalidValue(`"${text}" is negative; amounts are positive reais`);
  }
  let match: RegExpExecArray | null = null;
  for (const form of ACCEPTED) {
    match = form.exec(amount);
    if (match) break;
  }
  if (!match) refusal(text, amount);
  const digits = match[1]!.replaceAll('.', '').replace(/^0+(?=\d)/, '');
  if (digits.length > MAX_REAIS_DIGITS) refuse(text, 'is too large (at most R$ 9.999.999.999.999,99)');
  const reais = Number(digits);
  const cents = match[2] === undefined ? 0 : Number(match[2].padEnd(2, '0'));
  const total = reais * 100 + cents;
  if (total <= 0) throw new InvalidValue(`"${text}" must be more than zero`);
  return total;
}

/**
 * An amount that arrives as a JSON number of reais (a `--body` request, in the API's own field types):
 * there the dot is a decimal point, never a thousands separator, so `10.123` has three decimals.
 */
export function parseReaisNumber(reais: number): Centavos {
  const text = String(reais);
  if (reais < 0) throw new InvalidValue(`${text} is negative; amounts are positive reais`);
  if (!/^\d+(?:\.\d+)?$/.test(text)) throw new InvalidValue(`${text} is not an amount in reais`);
  if (/\.\d{3,}$/.test(text)) throw new InvalidValue(`${text} has more than 2 decimals`);
  return parseAmount(text);
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
