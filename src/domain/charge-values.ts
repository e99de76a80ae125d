/**
 * The values of a charge as a person types them (contract §2) or `--body` gives them, parsed offline:
 * each parser returns the value in the form pix sends and throws InvalidValue with a reason (the
 * caller names the flag or field). Used by `pix charge immediate` and `pix charge duedate`.
 */
import { getStateNameByCode } from '@brazilian-utils/brazilian-utils/get-state-name-by-code';
import { parseDuration } from './duration.js';
import { InvalidValue } from './invalid.js';
import {
  isKnownModality,
  isPercentModality,
  MODALITIES,
  type ModifierName,
  parseModality,
} from './modalities.js';
import { type Centavos, formatBRL, parseAmount, parseReaisNumber } from './money.js';
import { UUID_PATTERN } from './pixkey.js';

/** A name and its value (`--info NAME=VALUE`): the API's additionalInformation item. */
export interface NameValue {
  name: string;
  value: string;
}

/** A discount, abatement, fine or interest: an amount in centavos or a percentage, by its modality. */
export type ModifierValue = { kind: 'money'; centavos: Centavos } | { kind: 'percent'; percent: number };

/** API §8: the minimum amount of a charge. */
export const MIN_CHARGE: Centavos = 500;
/** API §8: payerQuestion length. */
export const MAX_QUESTION = 140;

/** A charge's amount: typed (`--amount`, parseAmount's forms) or a JSON number of reais (`--body`). */
export function parseChargeAmount(value: string | number): Centavos {
  const centavos = typeof value === 'number' ? parseReaisNumber(value) : parseAmount(value);
  if (centavos < MIN_CHARGE) {
    throw new InvalidValue(`"${value}" is below ${formatBRL(MIN_CHARGE)}, the minimum of a charge`);
  }
  return centavos;
}

export function parseUuid(text: string): string {
  const value = text.trim();
  if (!UUID_PATTERN.test(value))
    throw new InvalidValue(`"${text}" is not a UUID (see the Id column of \`pix keys\`)`);
  return value;
}

/**
 * A key id as the operator gives it: the whole UUID, or its start as a narrow table shows it (at least 4
 * characters; a trailing `…` copied along is dropped), resolved against the account's keys later.
 */
export function parseKeyIdOrStart(text: string): string {
  const value = text.trim().replace(/…$/, '');
  if (UUID_PATTERN.test(value)) return value;
  if (!/^[0-9a-f][0-9a-f-]{3,35}$/i.test(value)) {
    throw new InvalidValue(
      `"${text}" is not a key id: a UUID, or its first characters as \`pix keys\` shows them (at least 4)`,
    );
  }
  return value.toLowerCase();
}

export function parseText(text: string): string {
  const value = text.trim();
  if (value === '') throw new InvalidValue('must not be empty');
  return value;
}

export function parseQuestion(text: string): string {
  const value = parseText(text);
  const length = Array.from(value).length;
  if (length > MAX_QUESTION) {
    throw new InvalidValue(`is ${length} characters long; the API takes at most ${MAX_QUESTION}`);
  }
  return value;
}

/** `--info NAME=VALUE`: split at the first `=`, both sides non-empty. */
export function parseInfo(text: string): NameValue {
  const at = text.indexOf('=');
  const name = at === -1 ? '' : text.slice(0, at).trim();
  const value = at === -1 ? '' : text.slice(at + 1).trim();
  if (name === '' || value === '') throw new InvalidValue(`"${text}" is not NAME=VALUE`);
  return { name, value };
}

/** A Brazilian state's two-letter code (UF), any case → upper case. */
export function parseState(text: string): string {
  const value = text.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(value) || getStateNameByCode(value) === null) {
    throw new InvalidValue(`"${text}" is not a Brazilian state's two-letter code (UF), e.g. SP`);
  }
  return value;
}

/** A CEP: 8 digits, with or without the dash or dot → 8 digits. */
export function parsePostalCode(text: string): string {
  const value = text.trim().replace(/[.\-\s]/g, '');
  if (!/^\d{8}$/.test(value)) throw new InvalidValue(`"${text}" is not a CEP (8 digits, e.g. 01310-100)`);
  return value;
}

/** A value written as a percentage, `2%` or `2,5 %`: it selects a percentage modality (duedate). */
export function isPercentText(value: string | number): boolean {
  return typeof value === 'string' && /%\s*$/.test(value);
}

/** A value written in reais, `R$ 2,00` or `R$2`: it selects a fixed-amount modality (duedate). */
export function isMoneyText(value: string | number): boolean {
  return typeof value === 'string' && /^\s*R\$/i.test(value);
}

/** A percentage in 0–100, dot or comma, at most 4 decimals (interest per day can be 0.033), `%` optional. */
export function parsePercent(text: string): number {
  const value = text.trim().replace(/\s*%$/, '');
  if (!/^\d{1,3}(?:[.,]\d{1,4})?$/.test(value))
    throw new InvalidValue(`"${text}" is not a percentage (0 to 100)`);
  const percent = Number(value.replace(',', '.'));
  if (percent > 100) throw new InvalidValue(`"${text}" is more than 100%`);
  return percent;
}

/**
 * amountPerc is a percentage for PERCENT* modalities and an amount in reais for the others; `value` is
 * typed text (a flag) or a JSON number (`--body`). A `2%` given to a modality in reais is refused.
 */
export function parseModifierValue(modality: string, value: string | number): ModifierValue {
  if (isPercentModality(modality)) {
    if (isMoneyText(value)) {
      throw new InvalidValue(`"${value}" is an amount in reais, but ${modality} takes a percentage`);
    }
    return { kind: 'percent', percent: parsePercent(String(value)) };
  }
  if (isPercentText(value)) {
    throw new InvalidValue(`"${value}" is a percentage, but ${modality} takes an amount in reais`);
  }
  return {
    kind: 'money',
    centavos: typeof value === 'number' ? parseReaisNumber(value) : parseAmount(value),
  };
}

/**
 * Contract §2: the API's own modality strings (parseModality: aliases mapped to the provider's
 * spelling, typos and lower case refused with a did-you-mean); an unknown UPPER_CASE string is
 * accepted (see modalityWarning).
 */
export function modalityParser(kind: ModifierName): (text: string) => string {
  return (text) => parseModality(kind, text);
}

export function modalityWarning(kind: ModifierName, modality: string, where: string): string | undefined {
  if (isKnownModality(kind, modality)) return undefined;
  return `${where}: ${modality} is not one of the ${kind} modalities pix knows (${MODALITIES[kind].join(', ')}); sending it as is`;
}

export interface Expiration {
  value: number;
  unit: 'minutes' | 'hours' | 'days';
  /** Set when seconds were rounded up to whole minutes. */
  note?: string;
}

/**
 * `--expires-in` → the API's {value, unit}. The API has no seconds: a whole number of minutes in
 * seconds (`120s`) is converted exactly; anything else (`90s`) is rounded UP to whole minutes, so the
 * charge never expires earlier than asked, and a note says so.
 */
export function parseExpiresIn(text: string): Expiration {
  const duration = parseDuration(text);
  switch (duration.unit) {
    case 'm':
      return { value: duration.value, unit: 'minutes' };
    case 'h':
      return { value: duration.value, unit: 'hours' };
    case 'd':
      return { value: duration.value, unit: 'days' };
    default: {
      const minutes = Math.ceil(duration.value / 60);
      if (minutes * 60 === duration.value) return { value: minutes, unit: 'minutes' };
      const plural = minutes === 1 ? 'minute' : 'minutes';
      return {
        value: minutes,
        unit: 'minutes',
        note: `--expires-in: the API counts minutes, so ${text.trim()} was rounded up to ${minutes} ${plural}`,
      };
    }
  }
}
