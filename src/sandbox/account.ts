/**
 * What the sandbox account does, independent of HTTP: validate a request body, change the state,
 * and build the API's response objects (amounts in decimal reais on the wire, centavos inside).
 * Every refusal is an ApiFailure carrying the HTTP status, a code and a Portuguese message.
 */
import { decodeBrCode, encodeBrCode } from '../domain/brcode.js';
import {
  type Amounts,
  BRASILIA_TIME_ZONE,
  type BusinessDayTest,
  dueDateAmountsAt,
} from '../domain/duedate.js';
import { DATED_DISCOUNTS, MODALITIES } from '../domain/modalities.js';
import { type Centavos, centavosFromApi, centavosToApi } from '../domain/money.js';
import { UUID_PATTERN } from '../domain/pixkey.js';
import { addDays, startOfDay } from '../domain/when.js';
import { bankCode, dictOwner, hash, isCnpj, isCpf, keyTypeOf, MISSING_KEYS, maskDocument } from './people.js';
import {
  type ChargeModifier,
  COUNTERPARTS,
  type Consultation,
  insertEntry,
  type NameValue,
  type Party,
  type Receiver,
  type SandboxState,
  type StatementView,
  type StoredCharge,
  type StoredEntry,
} from './state.js';

// Web Crypto's global, reached on first use: node:crypto is not loaded by a command that only reads the
// sandbox (an embedded `pix statement`).
const randomUUID = (): string => globalThis.crypto.randomUUID();
const randomBytes = (length: number): Uint8Array => globalThis.crypto.getRandomValues(new Uint8Array(length));

// ---------------------------------------------------------------------------------------------
// Failures and magic values

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

function invalid(message: string): ApiFailure {
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
export const MAX_PAGE = 1000;
/** The host of the dynamic-charge URLs: fixed, so a code stays resolvable whatever port served it. */
export const QR_HOST = 'sandbox.pix.local';
const QR_URL = /^(?:https?:\/\/)?sandbox\.pix\.local\/qr\/v2\/([A-Za-z0-9]{1,35})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const END_TO_END = /^E\d{8}\d{12}[A-Za-z0-9]{11}$/;

// ---------------------------------------------------------------------------------------------
// Small readers of untrusted JSON

type Body = Record<string, unknown>;

export function asBody(value: unknown): Body {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('o corpo deve ser um objeto JSON');
  }
  return value as Body;
}

function optionalString(body: Body, field: string, max = 1000): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${field} deve ser texto`);
  if (Array.from(value).length > max) throw invalid(`${field} deve ter no máximo ${max} caracteres`);
  return value;
}

function requiredString(body: Body, field: string, max = 1000): string {
  const value = optionalString(body, field, max);
  if (value === undefined || value.trim() === '') throw invalid(`${field} é obrigatório`);
  return value;
}

/**
 * True unless `value` is the double nearest to a number with at most two decimals. An absolute tolerance
 * on `value * 100` would refuse large valid amounts (610338098.7 * 100 = 61033809869.99999): instead the
 * centavos are rounded and divided back, which gives exactly the double JSON.parse made of the decimal.
 */
function hasMoreThanTwoDecimals(value: number): boolean {
  return Math.round(value * 100) / 100 !== value;
}

/** A charge amount: 400 when missing or not a number, 422 when below 5.00 or not in centavos. */
function chargeAmount(body: Body): Centavos {
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

function additionalInformation(body: Body): NameValue[] | undefined {
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

function payerQuestion(body: Body): string | undefined {
  const value = optionalString(body, 'payerQuestion', Number.POSITIVE_INFINITY);
  if (value !== undefined && Array.from(value).length > 140) {
    throw invalid('payerQuestion deve ter no máximo 140 caracteres');
  }
  return value;
}

function isRealDate(text: string): boolean {
  return DATE.test(text) && new Date(`${text}T00:00:00.000Z`).toISOString().slice(0, 10) === text;
}

function findKey(state: SandboxState, body: Body) {
  const id = requiredString(body, 'pixKeyId');
  if (!UUID_PATTERN.test(id)) throw invalid('pixKeyId deve ser um UUID');
  const key = state.keys.find((candidate) => candidate.id === id);
  if (!key) throw new ApiFailure(404, 'PIX_KEY_NOT_FOUND', 'Chave PIX não encontrada');
  return key;
}

function randomAlnum(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length);
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[bytes[i]! % alphabet.length];
  return text;
}

// ---------------------------------------------------------------------------------------------
// Charges

/** Status of a charge at sandbox time `now`: PENDING becomes EXPIRED at expiresAt. */
export function chargeStatus(charge: StoredCharge, now: Date): string {
  if (charge.status !== 'PENDING') return charge.status;
  return now.getTime() >= Date.parse(charge.expiresAt) ? 'EXPIRED' : 'PENDING';
}

function newCharge(
  state: SandboxState,
  now: Date,
  fields: Omit<
    StoredCharge,
    'id' | 'status' | 'emvqrcps' | 'transactionId' | 'transactionIdentification' | 'createdAt'
  >,
): StoredCharge {
  if (fields.amount === MAGIC.chargeForbiddenAmount) {
    throw new ApiFailure(403, 'IP_NOT_AUTHORIZED', 'IP não autorizado');
  }
  const txid = randomAlnum(25);
  const emvqrcps = encodeBrCode({
    url: `${QR_HOST}/qr/v2/${txid}`,
    merchantName: state.account.name,
    merchantCity: state.account.city,
    ...(fields.kind === 'immediate' ? { amount: fields.amount } : {}),
    pointOfInitiation: '12',
  });
  const charge: StoredCharge = {
    id: randomUUID(),
    status: 'PENDING',
    emvqrcps,
    transactionId: state.nextTransactionId++,
    transactionIdentification: txid,
    createdAt: now.toISOString(),
    ...fields,
  };
  state.charges[charge.id] = charge;
  return charge;
}

/** The charge as the API shows it (without qrCodeDataUrl, which the server adds). */
export function chargeView(charge: StoredCharge, now: Date): Record<string, unknown> {
  return {
    id: charge.id,
    amount: centavosToApi(charge.amount),
    status: chargeStatus(charge, now),
    pixKey: charge.pixKey,
    pixKeyId: charge.pixKeyId,
    type: charge.kind === 'immediate' ? 'IMMEDIATE_QRCODE' : 'DUEDATE_QRCODE',
    emvqrcps: charge.emvqrcps,
    transactionId: charge.transactionId,
    transactionIdentification: charge.transactionIdentification,
    ...(charge.description === undefined ? {} : { description: charge.description }),
    createdAt: charge.createdAt,
    ...(charge.dueDate === undefined ? {} : { dueDate: charge.dueDate }),
    expiresAt: charge.expiresAt,
  };
}

const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** Checks of the immediate-charge body that need no state (run before taking the lock). */
export function validateImmediate(value: unknown) {
  const body = asBody(value);
  requiredString(body, 'pixKeyId');
  const amount = chargeAmount(body);
  const info = additionalInformation(body);
  const question = payerQuestion(body);
  const description = optionalString(body, 'description', 140);
  let debtor: Record<string, string> | undefined;
  if (body.debtor !== undefined && body.debtor !== null) {
    const raw = asBodyField(body.debtor, 'debtor');
    const name = requiredString(raw, 'name', 200);
    debtor = { name, taxId: debtorDocument(raw, 'taxId') };
  }
  let expiryMs = DEFAULT_IMMEDIATE_EXPIRY_MS;
  if (body.expiration !== undefined && body.expiration !== null) {
    const raw = asBodyField(body.expiration, 'expiration');
    const unit = raw.unit;
    const amountOf = raw.value;
    if (typeof unit !== 'string' || UNIT_MS[unit] === undefined) {
      throw invalid('expiration.unit deve ser minutes, hours ou days');
    }
    if (typeof amountOf !== 'number' || !Number.isInteger(amountOf) || amountOf <= 0 || amountOf > 525_600) {
      throw invalid('expiration.value deve ser um número inteiro positivo');
    }
    expiryMs = amountOf * UNIT_MS[unit]!;
  }
  return { body, amount, info, question, description, debtor, expiryMs };
}

/** The debtor's CPF or CNPJ (`taxId` of an immediate charge, `cpf` of a due-date one), without its mask. */
function debtorDocument(debtor: Body, field: 'taxId' | 'cpf'): string {
  const document = requiredString(debtor, field, 30).replace(/[.\-/\s]/g, '');
  if (!isCpf(document) && !isCnpj(document)) throw invalid(`debtor.${field} deve ser um CPF ou CNPJ válido`);
  return document;
}

function asBodyField(value: unknown, field: string): Body {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${field} deve ser um objeto`);
  }
  return value as Body;
}

export function createImmediate(
  state: SandboxState,
  now: Date,
  input: ReturnType<typeof validateImmediate>,
): StoredCharge {
  const key = findKey(state, input.body);
  return newCharge(state, now, {
    kind: 'immediate',
    amount: input.amount,
    pixKey: key.key,
    pixKeyId: key.id,
    ...(input.description === undefined ? {} : { description: input.description }),
    expiresAt: new Date(now.getTime() + input.expiryMs).toISOString(),
    ...(input.question === undefined ? {} : { payerQuestion: input.question }),
    ...(input.info === undefined ? {} : { additionalInformation: input.info }),
    ...(input.debtor === undefined ? {} : { debtor: input.debtor }),
  });
}

function modifier(
  body: Body,
  field: string,
  modalities: readonly string[],
  dueDate: string,
): ChargeModifier | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  const raw = asBodyField(value, field);
  if (typeof raw.modality !== 'string' || raw.modality === '')
    throw invalid(`${field}.modality é obrigatório`);
  if (!modalities.includes(raw.modality)) {
    throw new ApiFailure(
      422,
      'INVALID_CHARGE_DATA',
      `Dados da cobrança inválidos: ${field}.modality "${raw.modality}" não é aceita (use ${modalities.join(', ')})`,
    );
  }
  const result: ChargeModifier = { modality: raw.modality };
  const percentage = raw.modality.startsWith('PERCENT');
  const checkValue = (amount: unknown, where: string): number => {
    if (typeof amount !== 'number' || !Number.isFinite(amount)) throw invalid(`${where} deve ser um número`);
    if (amount < 0 || (percentage && amount > 100) || hasMoreThanTwoDecimals(amount)) {
      throw new ApiFailure(
        422,
        'INVALID_CHARGE_DATA',
        `Dados da cobrança inválidos: ${where} fora do permitido`,
      );
    }
    return amount;
  };
  if (field === 'amountDiscount' && DATED_DISCOUNTS.has(raw.modality)) {
    const list = raw.discountDateFixed;
    if (!Array.isArray(list) || list.length === 0 || list.length > 3) {
      throw invalid('amountDiscount.discountDateFixed deve ter de 1 a 3 itens {date, amountPerc}');
    }
    result.discountDateFixed = list.map((item, index) => {
      const entry = asBodyField(item, `amountDiscount.discountDateFixed[${index}]`);
      const date = entry.date;
      if (typeof date !== 'string' || !isRealDate(date)) {
        throw invalid(`amountDiscount.discountDateFixed[${index}].date deve ser uma data AAAA-MM-DD`);
      }
      if (date > dueDate) {
        throw new ApiFailure(
          422,
          'INVALID_CHARGE_DATA',
          'Dados da cobrança inválidos: a data do desconto não pode ser posterior ao vencimento',
        );
      }
      return {
        date,
        amountPerc: checkValue(entry.amountPerc, `amountDiscount.discountDateFixed[${index}].amountPerc`),
      };
    });
  } else {
    result.amountPerc = checkValue(raw.amountPerc, `${field}.amountPerc`);
  }
  return result;
}

/** Checks of the due-date body; `today` is the Brasília date at sandbox time. */
export function validateDueDate(value: unknown, today: string) {
  const body = asBody(value);
  requiredString(body, 'pixKeyId');
  const amount = chargeAmount(body);
  const dueDate = requiredString(body, 'duedate', 10);
  if (!isRealDate(dueDate)) throw invalid('duedate deve ser uma data AAAA-MM-DD');
  if (dueDate < today) {
    throw new ApiFailure(
      422,
      'INVALID_CHARGE_DATA',
      'Dados da cobrança inválidos: o vencimento deve ser hoje ou uma data futura',
    );
  }
  let expirationAfterPayment = DEFAULT_EXPIRATION_AFTER_PAYMENT;
  const rawExpiry = body.expirationAfterPayment;
  if (rawExpiry !== undefined && rawExpiry !== null) {
    if (typeof rawExpiry !== 'number' || !Number.isInteger(rawExpiry) || rawExpiry < 0 || rawExpiry > 3650) {
      throw invalid('expirationAfterPayment deve ser um número inteiro de dias (0 a 3650)');
    }
    expirationAfterPayment = rawExpiry;
  }
  if (body.debtor === undefined || body.debtor === null) throw invalid('debtor é obrigatório');
  const rawDebtor = asBodyField(body.debtor, 'debtor');
  const debtor: Record<string, string> = {
    name: requiredString(rawDebtor, 'name', 200),
    cpf: debtorDocument(rawDebtor, 'cpf'),
  };
  for (const field of ['city', 'publicArea', 'state', 'postalCode', 'email']) {
    const text = optionalString(rawDebtor, field, 200);
    if (text !== undefined) debtor[field] = text;
  }
  const terms = {
    amountDiscount: modifier(body, 'amountDiscount', MODALITIES.discount, dueDate),
    amountAbatement: modifier(body, 'amountAbatement', MODALITIES.abatement, dueDate),
    amountFine: modifier(body, 'amountFine', MODALITIES.fine, dueDate),
    amountInterest: modifier(body, 'amountInterest', MODALITIES.interest, dueDate),
  };
  const ab = terms.amountAbatement;
  if (ab?.modality === 'FIXED_VALUE' && centavosFromApi(ab.amountPerc ?? 0) >= amount) {
    throw new ApiFailure(
      422,
      'INVALID_CHARGE_DATA',
      'Dados da cobrança inválidos: abatimento maior que o valor',
    );
  }
  return {
    body,
    amount,
    dueDate,
    expirationAfterPayment,
    debtor,
    terms,
    info: additionalInformation(body),
    question: payerQuestion(body),
    description: optionalString(body, 'description', 140),
  };
}

export function createDueDate(
  state: SandboxState,
  now: Date,
  input: ReturnType<typeof validateDueDate>,
): StoredCharge {
  const key = findKey(state, input.body);
  const { terms } = input;
  return newCharge(state, now, {
    kind: 'duedate',
    amount: input.amount,
    pixKey: key.key,
    pixKeyId: key.id,
    ...(input.description === undefined ? {} : { description: input.description }),
    dueDate: input.dueDate,
    // Payable through the whole last day: expires at 00:00 (Brasília) after due date + N days.
    expiresAt: startOfDay(addDays(input.dueDate, input.expirationAfterPayment + 1), BRASILIA_TIME_ZONE),
    expirationAfterPayment: input.expirationAfterPayment,
    debtor: input.debtor,
    ...(input.question === undefined ? {} : { payerQuestion: input.question }),
    ...(input.info === undefined ? {} : { additionalInformation: input.info }),
    ...(terms.amountDiscount ? { amountDiscount: terms.amountDiscount } : {}),
    ...(terms.amountAbatement ? { amountAbatement: terms.amountAbatement } : {}),
    ...(terms.amountFine ? { amountFine: terms.amountFine } : {}),
    ...(terms.amountInterest ? { amountInterest: terms.amountInterest } : {}),
  });
}

/** An amount with no abatement, discount, fine or interest. */
function fixedAmounts(amount: Centavos): Amounts {
  return { original: amount, abatement: 0, discount: 0, fine: 0, interest: 0, final: amount };
}

/** What a charge asks for on sandbox day `now`. */
export function chargeAmounts(charge: StoredCharge, now: Date, isBusinessDay: BusinessDayTest): Amounts {
  if (charge.kind === 'immediate' || charge.dueDate === undefined) return fixedAmounts(charge.amount);
  return dueDateAmountsAt(
    {
      amount: charge.amount,
      dueDate: charge.dueDate,
      amountDiscount: charge.amountDiscount,
      amountAbatement: charge.amountAbatement,
      amountFine: charge.amountFine,
      amountInterest: charge.amountInterest,
    },
    now,
    isBusinessDay,
  );
}

function assertPayable(charge: StoredCharge, now: Date): void {
  const status = chargeStatus(charge, now);
  if (status === 'EXPIRED')
    throw new ApiFailure(400, 'CHARGE_EXPIRED', 'Cobrança expirada: não pode mais ser paga');
  if (status !== 'PENDING') throw new ApiFailure(400, 'CHARGE_ALREADY_PAID', 'Cobrança já paga');
}

// ---------------------------------------------------------------------------------------------
// Statement and keys

function wireParty(party: Party): Party {
  return { name: party.name, bank: party.bank, documentNumber: party.documentNumber };
}

export function entryView(entry: StoredEntry): Record<string, unknown> {
  return {
    id: entry.id,
    type: entry.type,
    amount: centavosToApi(entry.amount),
    fee: centavosToApi(entry.fee),
    status: entry.status,
    method: entry.method,
    confirmedAt: entry.confirmedAt,
    ...(entry.creditor ? { creditor: wireParty(entry.creditor) } : {}),
    ...(entry.debtor ? { debtor: wireParty(entry.debtor) } : {}),
  };
}

export function pageParams(query: URLSearchParams): { limit: number; offset: number } {
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const raw = query.get(name);
    if (raw === null) return fallback;
    if (!/^\d{1,9}$/.test(raw)) {
      throw new ApiFailure(
        400,
        'INVALID_PARAMETERS',
        `Parâmetros inválidos: ${name} deve ser um número inteiro`,
      );
    }
    const value = Number(raw);
    if (value < min || value > max) {
      throw new ApiFailure(
        400,
        'INVALID_PARAMETERS',
        `Parâmetros inválidos: ${name} deve estar entre ${min} e ${max}`,
      );
    }
    return value;
  };
  return { limit: read('limit', 10, 1, MAX_PAGE), offset: read('offset', 0, 0, 999_999_999) };
}

const ISO = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date or date-time; a bare date is the whole Brasília day, no offset means Brasília time. */
export function parseQueryDate(text: string, end: boolean): string | undefined {
  const match = ISO.exec(text.trim());
  if (!match || !isRealDate(match[1]!)) return undefined;
  if (match[2] === undefined) {
    const midnight = Date.parse(startOfDay(end ? addDays(match[1]!, 1) : match[1]!, BRASILIA_TIME_ZONE));
    return new Date(end ? midnight - 1 : midnight).toISOString();
  }
  const [hh, mm, ss] = [Number(match[2]), Number(match[3]), Number(match[4] ?? '0')];
  if (hh > 23 || mm > 59 || ss > 59) return undefined;
  const zone = match[6] ?? '-03:00';
  const ms = Date.parse(
    `${match[1]}T${match[2]}:${match[3]}:${match[4] ?? '00'}.${(match[5] ?? '0').padEnd(3, '0').slice(0, 3)}${zone === 'Z' ? 'Z' : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')}`,
  );
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/**
 * One page of the statement, newest first (descending confirmedAt). Entries whose confirmedAt is
 * still ahead of sandbox time (transfers settling) are not shown yet.
 */
export function statementPage(view: StatementView, query: URLSearchParams, now: Date) {
  const from = query.get('dateFrom');
  const to = query.get('dateTo');
  if ((from === null) !== (to === null)) {
    throw new ApiFailure(400, 'INVALID_DATE_RANGE', 'Informe dateFrom e dateTo juntos, ou nenhum dos dois');
  }
  let fromIso: string | undefined;
  let toIso: string | undefined;
  if (from !== null && to !== null) {
    fromIso = parseQueryDate(from, false);
    toIso = parseQueryDate(to, true);
    if (fromIso === undefined)
      throw new ApiFailure(400, 'INVALID_DATE', 'dateFrom não é uma data ISO 8601 válida');
    if (toIso === undefined)
      throw new ApiFailure(400, 'INVALID_DATE', 'dateTo não é uma data ISO 8601 válida');
    if (fromIso > toIso)
      throw new ApiFailure(400, 'INVALID_DATE_RANGE', 'dateFrom não pode ser posterior a dateTo');
  }
  const { limit, offset } = pageParams(query);
  const nowMs = now.getTime();
  const upper = toIso === undefined ? nowMs : Math.min(Date.parse(toIso), nowMs);
  const start = view.firstAtOrBefore(upper);
  const end = fromIso === undefined ? view.length : Math.max(view.firstBefore(Date.parse(fromIso)), start);
  const total = end - start;
  const results: Array<Record<string, unknown>> = [];
  for (let k = start + offset; k < Math.min(start + offset + limit, end); k++)
    results.push(entryView(view.at(k)));
  return { total, results };
}

export function keysPage(state: SandboxState, query: URLSearchParams) {
  const { limit, offset } = pageParams(query);
  return {
    total: state.keys.length,
    result: state.keys.slice(offset, offset + limit).map((key) => ({
      id: key.id,
      key: key.key,
      keyType: key.keyType,
      createdAt: key.createdAt,
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Consultations

function endToEndId(now: Date, participant: string): string {
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  return `E${participant}${stamp}${randomAlnum(11)}`;
}

function ownReceiver(state: SandboxState): Receiver {
  return {
    name: state.account.name,
    participant: state.account.participant,
    documentNumber: state.account.documentNumber,
    type: 'LEGAL_PERSON',
  };
}

/** A well-formed key's owner, or 404 (unknown magic keys). The account's own keys are its own. */
function lookupKey(state: SandboxState, key: string) {
  const type = keyTypeOf(key);
  if (!type) throw new ApiFailure(400, 'INVALID_PIX_KEY', 'Chave PIX inválida');
  if (MISSING_KEYS.has(key)) throw new ApiFailure(404, 'PIX_KEY_NOT_FOUND', 'Chave PIX não encontrada');
  if (state.keys.some((own) => own.key === key)) {
    const receiver = ownReceiver(state);
    return {
      type,
      own: true,
      receiver,
      tradeName: 'Loja Sandbox',
      branch: state.account.branch,
      account: state.account.number,
    };
  }
  return { type, own: false, ...dictOwner(key, type) };
}

export function consultDict(state: SandboxState, now: Date, value: unknown) {
  const body = asBody(value);
  const raw = requiredString(body, 'key', 100).trim();
  const key =
    /^[\d.\-/]+$/.test(raw) && /^\d{11}$|^\d{14}$/.test(raw.replace(/[.\-/]/g, ''))
      ? raw.replace(/[.\-/]/g, '')
      : raw;
  const found = lookupKey(state, key);
  const id = endToEndId(now, state.account.participant);
  state.consultations[id] = {
    endToEndId: id,
    flow: 'dict',
    createdAt: now.toISOString(),
    key,
    canModifyFinalAmount: true,
    receiver: found.receiver,
    own: found.own,
  };
  return {
    key,
    keyType: found.type,
    endtoEndId: id,
    account: {
      participant: found.receiver.participant,
      accountType: 'CACC',
      branch: found.branch,
      account: found.account,
    },
    owner: {
      name: found.receiver.name,
      type: found.receiver.type,
      ...(found.tradeName === undefined ? {} : { tradeName: found.tradeName }),
      documentNumber: found.receiver.documentNumber,
    },
  };
}

export function consultEmv(state: SandboxState, now: Date, value: unknown, isBusinessDay: BusinessDayTest) {
  const body = asBody(value);
  const emv = requiredString(body, 'emv', 2000);
  const notFound = new ApiFailure(404, 'EMV_NOT_FOUND', 'Código EMV não encontrado');
  let decoded: ReturnType<typeof decodeBrCode>;
  try {
    decoded = decodeBrCode(emv);
  } catch {
    throw notFound;
  }
  const id = endToEndId(now, state.account.participant);
  let consultation: Consultation;
  let result: Record<string, unknown>;
  if (decoded.url !== undefined) {
    const txid = QR_URL.exec(decoded.url)?.[1];
    const charge = txid
      ? Object.values(state.charges).find((candidate) => candidate.transactionIdentification === txid)
      : undefined;
    if (!charge) throw notFound;
    assertPayable(charge, now);
    const amounts = chargeAmounts(charge, now, isBusinessDay);
    const receiver = ownReceiver(state);
    consultation = {
      endToEndId: id,
      flow: 'emv',
      createdAt: now.toISOString(),
      chargeId: charge.id,
      amount: amounts.final,
      canModifyFinalAmount: false,
      receiver,
      own: true,
    };
    const debtorDoc = charge.debtor?.taxId ?? charge.debtor?.cpf;
    result = {
      type: 'DYNAMIC_QRCODE',
      endToEndId: id,
      ...(charge.payerQuestion === undefined ? {} : { payerQuestion: charge.payerQuestion }),
      additionalInfo: (charge.additionalInformation ?? []).map((item) => ({
        key: item.name,
        value: item.value,
      })),
      amount: amountView(amounts, false),
      receiver: {
        name: receiver.name,
        participant: receiver.participant,
        documentNumber: maskDocument(receiver.documentNumber),
      },
      ...(charge.debtor?.name && debtorDoc
        ? { debtor: { name: charge.debtor.name, documentNumber: maskDocument(debtorDoc) } }
        : {}),
      calendar: { expirationDate: charge.expiresAt },
    };
  } else {
    const key = decoded.pixKey;
    if (key === undefined) throw notFound;
    let found: ReturnType<typeof lookupKey>;
    try {
      found = lookupKey(state, key);
    } catch {
      throw notFound;
    }
    const fixed = decoded.amount;
    const amounts = fixedAmounts(fixed ?? 0);
    consultation = {
      endToEndId: id,
      flow: 'emv',
      createdAt: now.toISOString(),
      key,
      ...(fixed === undefined ? {} : { amount: fixed }),
      canModifyFinalAmount: fixed === undefined,
      receiver: found.receiver,
      own: found.own,
    };
    result = {
      type: 'STATIC_QRCODE',
      endToEndId: id,
      additionalInfo: decoded.description ? [{ key: 'description', value: decoded.description }] : [],
      amount: amountView(amounts, fixed === undefined),
      receiver: {
        name: found.receiver.name,
        participant: found.receiver.participant,
        documentNumber: maskDocument(found.receiver.documentNumber),
      },
      // A static code does not expire; the consultation is good for 24 hours.
      calendar: { expirationDate: new Date(now.getTime() + 24 * 3_600_000).toISOString() },
    };
  }
  state.consultations[id] = consultation;
  return result;
}

function amountView(amounts: Amounts, canModifyFinalAmount: boolean) {
  return {
    original: centavosToApi(amounts.original),
    final: centavosToApi(amounts.final),
    abatement: centavosToApi(amounts.abatement),
    discount: centavosToApi(amounts.discount),
    interest: centavosToApi(amounts.interest),
    fine: centavosToApi(amounts.fine),
    canModifyFinalAmount,
  };
}

// ---------------------------------------------------------------------------------------------
// Transfers and payments

export function transfer(state: SandboxState, now: Date, value: unknown) {
  const body = asBody(value);
  const rawId = body.endToEndId;
  const badId = new ApiFailure(400, 'INVALID_END_TO_END_ID', 'Identificador fim a fim (endToEndId) inválido');
  if (typeof rawId !== 'string' || !END_TO_END.test(rawId)) throw badId;
  const consultation = state.consultations[rawId];
  if (!consultation) throw badId;
  if (consultation.usedBy !== undefined) {
    throw new ApiFailure(400, 'INVALID_END_TO_END_ID', 'Identificador fim a fim (endToEndId) já utilizado');
  }
  if (consultation.flow === 'emv' && body.description !== undefined && body.description !== null) {
    throw new ApiFailure(
      400,
      'DESCRIPTION_NOT_ALLOWED',
      'Não é permitido enviar descrição em pagamentos por QR Code',
    );
  }
  const rawAmount = body.amount;
  let amount: Centavos | undefined;
  if (rawAmount !== undefined && rawAmount !== null) {
    if (
      typeof rawAmount !== 'number' ||
      !Number.isFinite(rawAmount) ||
      rawAmount <= 0 ||
      hasMoreThanTwoDecimals(rawAmount) ||
      rawAmount * 100 > MAX_AMOUNT
    ) {
      throw new ApiFailure(422, 'INVALID_PAYMENT_AMOUNT', 'Valor do pagamento inválido');
    }
    amount = centavosFromApi(rawAmount);
  }
  if (consultation.canModifyFinalAmount) {
    if (amount === undefined)
      throw new ApiFailure(400, 'AMOUNT_REQUIRED', 'O valor da transferência é obrigatório');
  } else {
    if (amount !== undefined && amount !== consultation.amount) {
      throw new ApiFailure(400, 'AMOUNT_CANNOT_BE_CHANGED', 'O valor da transferência não pode ser alterado');
    }
    amount = consultation.amount;
  }
  const paid = amount!;
  if (paid === MAGIC.transferInvalidAmount) {
    throw new ApiFailure(422, 'INVALID_PAYMENT_AMOUNT', 'Valor do pagamento inválido');
  }
  if (paid === MAGIC.transferErrorAmount) {
    throw new ApiFailure(400, 'TRANSFER_ERROR', 'Ocorreu um erro durante a transferência');
  }
  const charge = consultation.chargeId === undefined ? undefined : state.charges[consultation.chargeId];
  if (charge) {
    try {
      assertPayable(charge, now);
    } catch (error) {
      const reason = error instanceof Error ? error.message : '';
      throw new ApiFailure(400, 'TRANSFER_ERROR', `Ocorreu um erro durante a transferência: ${reason}`);
    }
  }

  const id = randomUUID();
  const settlesAt = new Date(now.getTime() + SETTLE_AFTER_MS).toISOString();
  const fee = 0;
  state.transfers[id] = {
    id,
    endToEndId: rawId,
    amount: paid,
    fee,
    createdAt: now.toISOString(),
    settlesAt,
    ...(charge ? { chargeId: charge.id } : {}),
  };
  consultation.usedBy = id;
  const receiver = consultation.receiver;
  insertEntry(state.activity, {
    id,
    type: 'OUTCOME',
    amount: -paid,
    fee,
    status: 'CONFIRMED',
    method: 'PIX',
    confirmedAt: settlesAt,
    debtor: {
      name: receiver.name,
      bank: bankCode(receiver.participant),
      documentNumber: receiver.documentNumber,
    },
  });
  if (consultation.own) {
    // Paying ourselves: the money comes back in.
    if (charge) markPaid(charge, now, paid);
    insertEntry(state.activity, {
      id: randomUUID(),
      type: 'INCOME',
      amount: paid,
      fee: 0,
      status: 'CONFIRMED',
      method: 'PIX',
      confirmedAt: settlesAt,
      creditor: {
        name: state.account.name,
        bank: state.account.bank,
        documentNumber: state.account.documentNumber,
      },
    });
  }
  return { id, endToEndId: rawId, amount: centavosToApi(paid), fee: centavosToApi(fee), status: 'PENDING' };
}

function markPaid(charge: StoredCharge, now: Date, amount: Centavos): void {
  charge.status = charge.kind === 'immediate' ? 'COMPLETED' : 'CONFIRMED';
  charge.paidAt = now.toISOString();
  charge.paidAmount = amount;
}

/**
 * `pix sandbox pay`: someone outside the account pays one of its charges. Throws ApiFailure 404 for
 * an unknown charge, 400 for one that is expired or already paid.
 */
export function payByThirdParty(
  state: SandboxState,
  now: Date,
  chargeId: string,
  isBusinessDay: BusinessDayTest,
): { charge: StoredCharge; amount: Centavos; payer: Party } {
  const charge = state.charges[chargeId];
  if (!charge) throw new ApiFailure(404, 'CHARGE_NOT_FOUND', 'Cobrança não encontrada');
  assertPayable(charge, now);
  const amount = chargeAmounts(charge, now, isBusinessDay).final;
  // The payer the charge names pays it (as in life: the debtor pays their own bill); else someone.
  const someone = COUNTERPARTS[hash(charge.id) % COUNTERPARTS.length]!;
  const named = charge.debtor?.taxId ?? charge.debtor?.cpf;
  const payer =
    charge.debtor?.name && named
      ? { name: charge.debtor.name, bank: someone.bank, documentNumber: named }
      : someone;
  markPaid(charge, now, amount);
  insertEntry(state.activity, {
    id: randomUUID(),
    type: 'INCOME',
    amount,
    fee: 0,
    status: 'CONFIRMED',
    method: 'PIX',
    confirmedAt: now.toISOString(),
    creditor: { ...payer },
  });
  return { charge, amount, payer };
}
