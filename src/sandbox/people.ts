/**
 * Who is on the other side in the sandbox: PIX key shapes, deterministic DICT owners, banks,
 * and CPF/CNPJ check digits (the sandbox must make valid documents from seeds, not only check them,
 * so it keeps the mod-11 arithmetic; its checks are strict DICT form: bare, upper-case, no masks).
 */
import { formatDocument, maskDocument as maskCpf } from '../domain/documents.js';
import type { PixKeyType } from '../domain/pixkey.js';
import { UUID_PATTERN } from '../domain/pixkey.js';
import type { Receiver } from './model.js';
import { SANDBOX_BANK_CODE, SANDBOX_ISPB } from './seed.js';

/** Institutions the sandbox knows: ISPB → COMPE bank code. */
export const BANKS: ReadonlyArray<{ ispb: string; code: string; name: string }> = [
  { ispb: '00000000', code: '001', name: 'Banco do Brasil' },
  { ispb: '60701190', code: '341', name: 'Itaú Unibanco' },
  { ispb: '60746948', code: '237', name: 'Bradesco' },
  { ispb: '00360305', code: '104', name: 'Caixa Econômica Federal' },
  { ispb: '18236120', code: '260', name: 'Nu Pagamentos' },
  { ispb: '90400888', code: '033', name: 'Santander' },
  { ispb: SANDBOX_ISPB, code: SANDBOX_BANK_CODE, name: 'Sandbox PIX' },
];

export function bankCode(ispb: string): string {
  return BANKS.find((bank) => bank.ispb === ispb)?.code ?? ispb.slice(0, 3);
}

// ---------------------------------------------------------------------------------------------
// Documents

function digitValue(char: string): number {
  return char.charCodeAt(0) - 48; // '0'..'9' → 0..9, 'A'..'Z' → 17..42 (alphanumeric CNPJ rule)
}

function mod11(body: string, weights: number[]): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += digitValue(body[i]!) * weights[i]!;
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

const CPF_W1 = [10, 9, 8, 7, 6, 5, 4, 3, 2];
const CPF_W2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_W1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_W2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

export function withCpfDigits(nine: string): string {
  const first = mod11(nine, CPF_W1);
  return `${nine}${first}${mod11(`${nine}${first}`, CPF_W2)}`;
}

export function withCnpjDigits(twelve: string): string {
  const first = mod11(twelve, CNPJ_W1);
  return `${twelve}${first}${mod11(`${twelve}${first}`, CNPJ_W2)}`;
}

export function isCpf(text: string): boolean {
  return /^\d{11}$/.test(text) && !/^(\d)\1{10}$/.test(text) && withCpfDigits(text.slice(0, 9)) === text;
}

/** Numeric or alphanumeric CNPJ (12 letters/digits and 2 check digits). */
export function isCnpj(text: string): boolean {
  return (
    /^[0-9A-Z]{12}\d{2}$/.test(text) &&
    !/^(\d)\1{13}$/.test(text) &&
    withCnpjDigits(text.slice(0, 12)) === text
  );
}

/**
 * How the sandbox's consults mask a document: a CPF as the CLI masks it (`***.456.789-**`), a CNPJ
 * shown whole (`11.222.333/0001-81`: a company's CNPJ is public). domain/documents.ts maskDocument
 * hides a CNPJ's ends too; the CLI applies it to what it shows.
 */
export function maskDocument(document: string): string {
  return document.length === 14 ? formatDocument(document) : maskCpf(document);
}

// ---------------------------------------------------------------------------------------------
// PIX keys

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+55\d{10,11}$/;

/**
 * The type of a well-formed key in DICT form (digits only for CPF/CNPJ, E.164 phone), else undefined.
 * Not domain/pixkey.ts parsePixKey: that one accepts what people type (masks, no +55, any case) and
 * normalises it, where the API takes the DICT form only and answers 400 for anything else.
 */
export function keyTypeOf(key: string): PixKeyType | undefined {
  if (UUID_PATTERN.test(key)) return 'EVP';
  if (PHONE.test(key)) return 'PHONE';
  if (key.length <= 77 && EMAIL.test(key)) return 'EMAIL';
  if (isCpf(key)) return 'CPF';
  if (isCnpj(key)) return 'CNPJ';
  return undefined;
}

/** Keys DICT answers 404 for (magic values, see README). */
export const MISSING_KEYS: ReadonlySet<string> = new Set([
  'naoexiste@sandbox.pix.local',
  '+5511900000404',
  '00000000-0000-0000-0000-000000000404',
]);

/** FNV-1a: a stable 32-bit hash of a key. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Names the sandbox gives people and companies (also used by `pix sandbox batch-file`). */
export const FIRST = [
  'Ana',
  'Bruno',
  'Camila',
  'Diego',
  'Eduarda',
  'Felipe',
  'Gabriela',
  'Henrique',
  'Isabela',
  'Lucas',
];
export const LAST = [
  'Almeida',
  'Barbosa',
  'Cardoso',
  'Dias',
  'Ferreira',
  'Gomes',
  'Moreira',
  'Rocha',
  'Teixeira',
];
export const COMPANIES = [
  'Comercial Aurora',
  'Tech Ipê',
  'Distribuidora Sol',
  'Café Serrano',
  'Oficina Central',
];

export interface DictOwner {
  receiver: Receiver;
  tradeName?: string;
  branch: string;
  account: string;
}

function digits(seed: number, count: number): string {
  let text = '';
  let value = seed;
  for (let i = 0; i < count; i++) {
    value = Math.imul(value ^ (value >>> 13), 0x5bd1e995) >>> 0;
    text += String(value % 10);
  }
  return text;
}

/**
 * The owner DICT answers for a well-formed key that is not the account's own: the same key, the same
 * owner — until the key moves (`generation`, pix sandbox move-key): then another owner at another bank
 * (a CPF or CNPJ key keeps its document, its holder's, and changes bank).
 */
export function dictOwner(key: string, type: PixKeyType, generation = 0): DictOwner {
  // An e-mail key whose name is a CPF (`52998224725@bank.example`) is that CPF's holder's: one person
  // with keys at two banks (each key picks its own bank), as the duplicate guards must know.
  const held = type === 'EMAIL' ? /^(\d{11})@/.exec(key)?.[1] : undefined;
  const holder = held !== undefined && isCpf(held) ? held : undefined;
  // `g` picks the account; `h` the person (a document key's holder never changes).
  const g = hash(generation === 0 ? key : `${key}#${generation}`);
  const h = type === 'CPF' || type === 'CNPJ' ? hash(key) : holder !== undefined ? hash(holder) : g;
  const legal = type === 'CNPJ' || (type !== 'CPF' && holder === undefined && h % 4 === 0);
  // Never the sandbox itself; each move goes to the next bank, so a moved key is always elsewhere.
  const bank = BANKS[(hash(key) + generation) % (BANKS.length - 1)]!;
  let documentNumber: string;
  if (holder !== undefined) documentNumber = holder;
  else if (type === 'CPF' || type === 'CNPJ') documentNumber = key;
  else if (legal) documentNumber = withCnpjDigits(`${digits(h, 8)}0001`);
  else documentNumber = withCpfDigits(digits(h, 9));
  const company = COMPANIES[h % COMPANIES.length]!;
  const name = legal
    ? `${company} Ltda`
    : `${FIRST[h % FIRST.length]} ${LAST[(h >>> 8) % LAST.length]} ${LAST[(h >>> 16) % LAST.length]}`;
  return {
    receiver: {
      name,
      participant: bank.ispb,
      documentNumber,
      type: legal ? 'LEGAL_PERSON' : 'NATURAL_PERSON',
    },
    ...(legal ? { tradeName: company } : {}),
    branch: digits(g >>> 3, 4),
    account: `${digits(g >>> 5, 6)}${digits(g >>> 7, 1)}`,
  };
}
