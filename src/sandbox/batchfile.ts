/**
 * `pix sandbox batch-file`: a sample batch payout file the sandbox can pay, for trying `pix pay batch`.
 *
 * Deterministic: row i depends only on the seed and i (a file of N rows is the first N rows of any
 * longer one with the same seed), and its id carries the seed (`s1-000001`), so files of different
 * seeds never share ids (a rerun of the same file skips its paid rows; another seed's file does not).
 *
 * A mix of what operators pay: key rows (CPF and CNPJ, masked or bare, numeric and alphanumeric
 * CNPJs, e-mails, +55 phones in several spellings, random keys) and static BR Codes with and without
 * an amount, realistic amounts (R$ 5 to R$ 5.000, never the sandbox's magic transfer amounts) and
 * descriptions with accents, commas and quotes. `--with-errors` turns one row in five into a mistake
 * on purpose: one pix refuses offline (`invalid`), or one the sandbox refuses when paying (`refused`:
 * a key the DICT does not know, a magic amount); its id says which (`…-err-<kind>`).
 */
import type { TextBatchFormat } from '../domain/batch.js';
import { encodeBrCode } from '../domain/brcodeencode.js';
import { type Centavos, formatDecimal } from '../domain/money.js';
import { parsePixKey } from '../domain/pixkey.js';
import { MAGIC } from './failure.js';
import { COMPANIES, dictOwner, FIRST, LAST, MISSING_KEYS, withCnpjDigits, withCpfDigits } from './people.js';
import { prng, SEEDED_KEYS } from './seed.js';

export const MAX_SAMPLE_ROWS = 100_000;
export const SAMPLE_COLUMNS = ['id', 'key', 'emv', 'amount', 'description'] as const;

export type SampleErrors = 'invalid' | 'refused' | 'all';

export interface SampleOptions {
  rows: number;
  seed: number;
  /** Which mistakes to put in on purpose (one row in five); none when absent. */
  withErrors?: SampleErrors;
}

/**
 * What paying the row should give: `payable` is paid by the sandbox; `invalid` is refused offline
 * (pix pay batch exits 2); `not_payable` is refused at the consultation (404), `rejected` at the
 * transfer (400/422).
 */
export type SampleExpectation = 'payable' | 'invalid' | 'not_payable' | 'rejected';

export interface SampleRow {
  id: string;
  key?: string;
  emv?: string;
  /** As written in the file: text (`10.50`, `10,50`, `10`) or, in NDJSON, sometimes a number. */
  amount?: string | number;
  description?: string;
  expect: SampleExpectation;
  /** The mistake put in on purpose (the kind named in the id). */
  flaw?: string;
  /** What the row pays when it is paid (the file's amount or the code's). */
  pays?: Centavos;
}

// ---------------------------------------------------------------------------------------------
// Random parts

type Random = () => number;

function pick<T>(random: Random, list: ReadonlyArray<T>): T {
  return list[Math.floor(random() * list.length)]!;
}

function digits(random: Random, count: number, alphabet = '0123456789'): string {
  let text = '';
  for (let i = 0; i < count; i++) text += alphabet[Math.floor(random() * alphabet.length)];
  return text;
}

/** The random generator of row `index`: seeded from both, so rows do not depend on each other. */
function rowRandom(seed: number, index: number): Random {
  return prng((Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
}

const CITIES = [
  'SAO PAULO',
  'RIO DE JANEIRO',
  'BELO HORIZONTE',
  'CURITIBA',
  'PORTO ALEGRE',
  'RECIFE',
  'SALVADOR',
];
const DOMAINS = ['example.com', 'example.com.br', 'empresa.example', 'mail.example.org'];
// Area codes in use (the check of a mobile number knows them).
const AREA_CODES = [
  '11',
  '19',
  '21',
  '27',
  '31',
  '41',
  '47',
  '48',
  '51',
  '61',
  '62',
  '71',
  '81',
  '85',
  '91',
  '92',
];
const MONTHS = ['janeiro', 'fevereiro', 'março', 'abril', 'maio', 'junho'];
const PURPOSES = ['Reembolso de despesas', 'Comissão de vendas', 'Pagamento fornecedor', 'Frete', 'Aluguel'];

function description(random: Random): string | undefined {
  const purpose = pick(random, PURPOSES);
  const form = random();
  if (form < 0.3) return undefined;
  if (form < 0.55) return `${purpose} NF ${digits(random, 5)}`;
  if (form < 0.8) return `${purpose}, ${pick(random, MONTHS)}`;
  return `${purpose} (pedido "${digits(random, 4)}")`;
}

/** R$ 5,00 to R$ 5.000,00, spread evenly over the orders of magnitude; never a magic amount. */
function amount(random: Random): Centavos {
  const low = Math.log(5_00);
  const high = Math.log(5_000_00);
  let centavos = Math.round(Math.exp(low + random() * (high - low)));
  if (random() < 0.3) centavos = Math.max(5_00, Math.round(centavos / 100) * 100); // whole reais
  const magic: ReadonlyArray<number> = [
    MAGIC.transferErrorAmount,
    MAGIC.transferInvalidAmount,
    MAGIC.chargeForbiddenAmount,
  ];
  return magic.includes(centavos) ? centavos + 1 : centavos;
}

/** How an operator's spreadsheet may write an amount: `1234.56`, `1234,56`, `150`. */
function amountText(random: Random, centavos: Centavos): string {
  const decimal = formatDecimal(centavos);
  const form = random();
  if (centavos % 100 === 0 && form < 0.5) return decimal.slice(0, -3);
  return form < 0.75 ? decimal : decimal.replace('.', ',');
}

// Keys, each in its DICT form (what a BR Code carries) and as a person may type it.

interface SampleKey {
  dict: string;
  typed: string;
}

function cpf(random: Random): SampleKey {
  let nine = digits(random, 9);
  if (/^(\d)\1{8}$/.test(nine)) nine = `1${nine.slice(1)}`;
  const dict = withCpfDigits(nine);
  const typed =
    random() < 0.5 ? `${dict.slice(0, 3)}.${dict.slice(3, 6)}.${dict.slice(6, 9)}-${dict.slice(9)}` : dict;
  return { dict, typed };
}

function cnpj(random: Random): SampleKey {
  const alphanumeric = random() < 0.2;
  const base = alphanumeric ? digits(random, 8, '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ') : digits(random, 8);
  const dict = withCnpjDigits(`${base}0001`);
  const typed =
    random() < 0.5
      ? `${dict.slice(0, 2)}.${dict.slice(2, 5)}.${dict.slice(5, 8)}/${dict.slice(8, 12)}-${dict.slice(12)}`
      : dict;
  return { dict, typed };
}

function email(random: Random): SampleKey {
  const dict =
    `${pick(random, FIRST)}.${pick(random, LAST)}${digits(random, 3)}@${pick(random, DOMAINS)}`.toLowerCase();
  const typed = random() < 0.2 ? dict.replace(/^./, (c) => c.toUpperCase()) : dict;
  return { dict, typed };
}

function phone(random: Random): SampleKey {
  const area = pick(random, AREA_CODES);
  const number = `9${digits(random, 8)}`;
  const dict = `+55${area}${number}`;
  if (MISSING_KEYS.has(dict) || dict === SEEDED_KEYS.phone.key) return phone(random);
  const form = random();
  const typed =
    form < 0.4
      ? dict
      : form < 0.7
        ? `+55 ${area} ${number.slice(0, 5)}-${number.slice(5)}`
        : `+55 (${area}) ${number.slice(0, 5)}-${number.slice(5)}`;
  return { dict, typed };
}

function evp(random: Random): SampleKey {
  const hex = digits(random, 30, '0123456789abcdef');
  const variant = '89ab'[Math.floor(random() * 4)];
  const dict = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(12, 15)}-${variant}${hex.slice(15, 18)}-${hex.slice(18, 30)}`;
  return { dict, typed: random() < 0.1 ? dict.toUpperCase() : dict };
}

function anyKey(random: Random): SampleKey {
  const r = random();
  if (r < 0.25) return cpf(random);
  if (r < 0.4) return cnpj(random);
  if (r < 0.6) return email(random);
  if (r < 0.8) return phone(random);
  return evp(random);
}

/** A static code as its key's owner makes it: the merchant is the DICT's owner (contract §7.8), else made up. */
function staticCode(random: Random, key: string, fixed: Centavos | undefined): string {
  const legal = random() < 0.5;
  const madeUp = legal ? `${pick(random, COMPANIES)} Ltda` : `${pick(random, FIRST)} ${pick(random, LAST)}`;
  const name = MISSING_KEYS.has(key) ? madeUp : dictOwner(key, parsePixKey(key).type).receiver.name;
  return encodeBrCode({
    pixKey: key,
    merchantName: name.slice(0, 25).trim(),
    merchantCity: pick(random, CITIES),
    ...(fixed === undefined ? {} : { amount: fixed }),
    ...(random() < 0.5 ? { txid: digits(random, 12, 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789') } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// Rows

function idOf(seed: number, index: number): string {
  return `s${seed}-${String(index + 1).padStart(6, '0')}`;
}

function goodRow(random: Random, id: string): SampleRow {
  const r = random();
  if (r < 0.7) {
    const key = anyKey(random);
    const pays = amount(random);
    const text = description(random);
    return {
      id,
      key: key.typed,
      amount: amountText(random, pays),
      ...(text === undefined ? {} : { description: text }),
      expect: 'payable',
      pays,
    };
  }
  const pays = amount(random);
  if (r < 0.85) return { id, emv: staticCode(random, anyKey(random).dict, pays), expect: 'payable', pays };
  return {
    id,
    emv: staticCode(random, anyKey(random).dict, undefined),
    amount: amountText(random, pays),
    expect: 'payable',
    pays,
  };
}

type Flaw = (random: Random, row: { seed: number; index: number; id: string }) => Omit<SampleRow, 'flaw'>;

const missing = [...MISSING_KEYS];

/** Mistakes pix finds offline. */
const INVALID: Record<string, Flaw> = {
  'cpf-check-digits': (random, { id }) => {
    const good = cpf(random).dict;
    const bad = `${good.slice(0, 10)}${(Number(good[10]) + 1) % 10}`;
    return { id, key: bad, amount: amountText(random, amount(random)), expect: 'invalid' };
  },
  'duplicate-id': (random, { seed, index }) => ({
    id: idOf(seed, index - 1),
    key: evp(random).typed,
    amount: amountText(random, amount(random)),
    expect: 'invalid',
  }),
  'amount-3-decimals': (random, { id }) => ({
    id,
    key: email(random).typed,
    amount: '10.505',
    expect: 'invalid',
  }),
  'key-without-amount': (random, { id }) => ({ id, key: phone(random).typed, expect: 'invalid' }),
  'emv-bad-crc': (random, { id }) => {
    const code = staticCode(random, evp(random).dict, amount(random));
    const crc = code.slice(-4);
    return { id, emv: `${code.slice(0, -4)}${crc === '0000' ? '0001' : '0000'}`, expect: 'invalid' };
  },
  'amount-on-fixed-code': (random, { id }) => {
    const pays = amount(random);
    return {
      id,
      emv: staticCode(random, cpf(random).dict, pays),
      amount: formatDecimal(pays),
      expect: 'invalid',
    };
  },
  'description-on-code': (random, { id }) => ({
    id,
    emv: staticCode(random, email(random).dict, undefined),
    amount: amountText(random, amount(random)),
    description: 'Pagamento',
    expect: 'invalid',
  }),
  'bad-id': (random, { id }) => ({
    id: `${id} #${digits(random, 2)}`,
    key: cnpj(random).typed,
    amount: amountText(random, amount(random)),
    expect: 'invalid',
  }),
  'landline-phone': (random, { id }) => ({
    id,
    key: `+55 ${pick(random, AREA_CODES)} 3${digits(random, 3)}-${digits(random, 4)}`,
    amount: amountText(random, amount(random)),
    expect: 'invalid',
  }),
};

/** Mistakes only the sandbox finds (what a real bank would answer the same way). */
const REFUSED: Record<string, Flaw> = {
  'key-not-found': (random, { id, index }) => ({
    id,
    key: missing[index % missing.length]!,
    amount: amountText(random, amount(random)),
    expect: 'not_payable',
  }),
  'code-key-not-found': (random, { id, index }) => ({
    id,
    emv: staticCode(random, missing[index % missing.length]!, amount(random)),
    expect: 'not_payable',
  }),
  'transfer-error-amount': (random, { id }) => ({
    id,
    key: anyKey(random).typed,
    amount: formatDecimal(MAGIC.transferErrorAmount),
    expect: 'rejected',
  }),
  'invalid-payment-amount': (random, { id }) => ({
    id,
    key: anyKey(random).typed,
    amount: formatDecimal(MAGIC.transferInvalidAmount),
    expect: 'rejected',
  }),
};

/** The flaws of a set, alternating invalid and refused ones for `all`. */
function flawsOf(set: SampleErrors): Array<[string, Flaw]> {
  const invalid = Object.entries(INVALID);
  const refused = Object.entries(REFUSED);
  if (set === 'invalid') return invalid;
  if (set === 'refused') return refused;
  const mixed: Array<[string, Flaw]> = [];
  for (let i = 0; i < Math.max(invalid.length, refused.length); i++) {
    if (invalid[i]) mixed.push(invalid[i]!);
    if (refused[i]) mixed.push(refused[i]!);
  }
  return mixed;
}

/** The rows of a sample file. Rows 3, 8, 13, … carry the mistakes of `withErrors`, in turn. */
export function sampleRows(options: SampleOptions): SampleRow[] {
  const { seed } = options;
  const flaws = options.withErrors === undefined ? [] : flawsOf(options.withErrors);
  const rows: SampleRow[] = [];
  for (let index = 0; index < options.rows; index++) {
    const random = rowRandom(seed, index);
    const id = idOf(seed, index);
    if (flaws.length > 0 && index % 5 === 2) {
      const [kind, flaw] = flaws[Math.floor(index / 5) % flaws.length]!;
      const row = flaw(random, { seed, index, id: `${id}-err-${kind}` });
      rows.push({ ...row, flaw: kind });
    } else {
      rows.push(goodRow(random, id));
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** RFC 4180: quoted when it holds a comma, a quote, a line break or spaces at an end. */
function csvCell(value: string | number | undefined): string {
  if (value === undefined) return '';
  const text = String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The file's lines (each ending in `\n`): a CSV header and rows, or one JSON object per row. */
export function sampleLines(rows: ReadonlyArray<SampleRow>, format: TextBatchFormat): string[] {
  if (format === 'ndjson') {
    return rows.map((row, index) => {
      const { id, key, emv, description } = row;
      // Half of the amounts as JSON numbers (exact: at most 2 decimals), half as text.
      const amount =
        typeof row.amount === 'string' && index % 2 === 0 && /^\d+(?:\.\d{1,2})?$/.test(row.amount)
          ? Number(row.amount)
          : row.amount;
      return `${JSON.stringify({ id, key, emv, amount, description })}\n`;
    });
  }
  const lines = [`${SAMPLE_COLUMNS.join(',')}\n`];
  for (const row of rows) {
    lines.push(`${SAMPLE_COLUMNS.map((column) => csvCell(row[column])).join(',')}\n`);
  }
  return lines;
}
