/**
 * Transfers and payments of the sandbox account: a transfer out (to a key, or paying a consultation or a
 * charge), and a charge paid by someone else (`pix sandbox pay`).
 */
import type { BusinessDayTest } from '../domain/duedate.js';
import { type Centavos, centavosFromApi, centavosToApi } from '../domain/money.js';
import { asBody, hasMoreThanTwoDecimals, randomUUID } from './body.js';
import { assertPayable, chargeAmounts } from './charges.js';
import { ApiFailure, END_TO_END, MAGIC, MAX_AMOUNT, SETTLE_AFTER_MS } from './failure.js';
import { insertEntry, type Party, type SandboxState, type StoredCharge } from './model.js';
import { bankCode, hash, withCpfDigits } from './people.js';
import { COUNTERPARTS } from './seed.js';

/** What transfer and payByThirdParty refuse with (for the door: sandbox/index.ts, loadAccount). */
export { ApiFailure };

/** A transfer's `amount` in centavos (none given: undefined); one that is not a payable amount is a 422. */
function bodyAmount(rawAmount: unknown): Centavos | undefined {
  if (rawAmount === undefined || rawAmount === null) return undefined;
  if (
    typeof rawAmount !== 'number' ||
    !Number.isFinite(rawAmount) ||
    rawAmount <= 0 ||
    hasMoreThanTwoDecimals(rawAmount) ||
    rawAmount * 100 > MAX_AMOUNT
  ) {
    throw new ApiFailure(422, 'INVALID_PAYMENT_AMOUNT', 'Valor do pagamento inválido');
  }
  return centavosFromApi(rawAmount);
}

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
  let amount = bodyAmount(body.amount);
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
  /** Who pays, when the caller says (`--payer`): else the charge's debtor, else someone. */
  given?: Payer,
): { charge: StoredCharge; amount: Centavos; payer: Party } {
  const charge = state.charges[chargeId];
  if (!charge) throw new ApiFailure(404, 'CHARGE_NOT_FOUND', 'Cobrança não encontrada');
  assertPayable(charge, now);
  const amount = chargeAmounts(charge, now, isBusinessDay).final;
  // The payer the charge names pays it (as in life: the debtor pays their own bill); else someone.
  const someone = COUNTERPARTS[hash(charge.id) % COUNTERPARTS.length]!;
  const named = charge.debtor?.taxId ?? charge.debtor?.cpf;
  const payer = given
    ? partyOf(given, someone)
    : charge.debtor?.name && named
      ? { name: charge.debtor.name, bank: someone.bank, documentNumber: named }
      : someone;
  markPaid(charge, now, amount);
  receive(state, now, amount, payer);
  return { charge, amount, payer };
}

/**
 * `pix sandbox pay --key KEY --amount A`: someone pays the account through one of its own keys, any amount,
 * no charge involved (as a customer paying a static code does). Throws ApiFailure 404 for a key that is
 * not the account's.
 */
export function payToOwnKey(state: SandboxState, now: Date, key: string, amount: Centavos, given?: Payer) {
  if (!state.keys.some((own) => own.key === key))
    throw new ApiFailure(404, 'PIX_KEY_NOT_FOUND', 'Chave PIX não encontrada nesta conta');
  const someone = COUNTERPARTS[hash(`${key}#${now.toISOString()}`) % COUNTERPARTS.length]!;
  const payer = given ? partyOf(given, someone) : someone;
  receive(state, now, amount, payer);
  return { amount, payer };
}

/** A payer as `--payer NAME [--payer-document DOC]` names it. */
export interface Payer {
  name: string;
  documentNumber?: string;
}

/** The payer as a statement shows it: its bank is someone's; its CPF made from its name when none is given. */
function partyOf(given: Payer, someone: Party): Party {
  const nine = String(hash(given.name) % 1_000_000_000).padStart(9, '0');
  return {
    name: given.name,
    bank: someone.bank,
    documentNumber: given.documentNumber ?? withCpfDigits(nine),
  };
}

/** Money in: a confirmed INCOME entry from `payer`. */
function receive(state: SandboxState, now: Date, amount: Centavos, payer: Party): void {
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
}
