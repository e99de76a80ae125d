/**
 * The charges of the sandbox account, independent of HTTP: validate a request body, change the state,
 * and build the API's response objects (amounts in decimal reais on the wire, centavos inside).
 */
import { encodeBrCode } from '../domain/brcodeencode.js';
import {
  type Amounts,
  BRASILIA_TIME_ZONE,
  type BusinessDayTest,
  dueDateAmountsAt,
} from '../domain/duedate.js';
import { DATED_DISCOUNTS, MODALITIES } from '../domain/modalities.js';
import { type Centavos, centavosFromApi, centavosToApi } from '../domain/money.js';
import { addDays, startOfDay } from '../domain/when.js';
import {
  additionalInformation,
  asBody,
  type Body,
  chargeAmount,
  findKey,
  hasMoreThanTwoDecimals,
  isRealDate,
  optionalString,
  payerQuestion,
  randomAlnum,
  randomUUID,
  requiredString,
} from './body.js';
import {
  ApiFailure,
  DEFAULT_EXPIRATION_AFTER_PAYMENT,
  DEFAULT_IMMEDIATE_EXPIRY_MS,
  invalid,
  MAGIC,
  QR_HOST,
} from './failure.js';
import type { ChargeModifier, SandboxState, StoredCharge } from './model.js';
import { isCnpj, isCpf } from './people.js';

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
export function fixedAmounts(amount: Centavos): Amounts {
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

export function assertPayable(charge: StoredCharge, now: Date): void {
  const status = chargeStatus(charge, now);
  if (status === 'EXPIRED')
    throw new ApiFailure(400, 'CHARGE_EXPIRED', 'Cobrança expirada: não pode mais ser paga');
  if (status !== 'PENDING') throw new ApiFailure(400, 'CHARGE_ALREADY_PAID', 'Cobrança já paga');
}
