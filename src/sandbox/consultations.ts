/**
 * Consultations of the sandbox account: a key in the DICT, a BR Code (EMV), each answered with what a
 * transfer to it would pay and a consultation id the transfer then names.
 */
import { decodeBrCode } from '../domain/brcode.js';
import type { Amounts, BusinessDayTest } from '../domain/duedate.js';
import { centavosToApi } from '../domain/money.js';
import { asBody, randomAlnum, requiredString } from './body.js';
import { assertPayable, chargeAmounts, fixedAmounts } from './charges.js';
import { ApiFailure, QR_URL } from './failure.js';
import type { Consultation, KeyRecord, Receiver, SandboxState } from './model.js';
import { dictOwner, keyTypeOf, MISSING_KEYS, maskDocument } from './people.js';
import { accountNumber } from './seed.js';

export function endToEndId(now: Date, participant: string): string {
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
      account: accountNumber(state),
    };
  }
  return { type, own: false, ...dictOwner(key, type, state.movedKeys?.[key] ?? 0) };
}

/**
 * `pix sandbox move-key KEY`: the key of someone else passes to another owner (a person who gave up a
 * phone number, a key ported to another bank): the DICT answers the new owner from now on. What a
 * payment approved for the old owner must notice before it pays (pix plan execute).
 */
export function moveKey(state: SandboxState, raw: string, back = false): Receiver {
  const key = raw.trim();
  const type = keyTypeOf(key);
  if (!type) throw new ApiFailure(400, 'INVALID_PIX_KEY', 'Chave PIX inválida');
  if (MISSING_KEYS.has(key)) throw new ApiFailure(404, 'PIX_KEY_NOT_FOUND', 'Chave PIX não encontrada');
  if (state.keys.some((own) => own.key === key))
    throw new ApiFailure(422, 'OWN_PIX_KEY', 'A chave pertence a esta conta');
  const moved = { ...(state.movedKeys ?? {}) };
  // `--back`: the key returns to the owner it had before it was ever moved.
  if (back) delete moved[key];
  else moved[key] = (moved[key] ?? 0) + 1;
  state.movedKeys = moved;
  if (back) return dictOwner(key, type, 0).receiver;
  return dictOwner(key, type, moved[key]).receiver;
}

/**
 * `pix sandbox move-key KEY --to STATE`: one of the account's own keys passes to the account of another
 * state (a key ported to another account, as the DICT allows): taken from this one (giveKey), registered
 * there with the same record (takeKey). The DICT then answers the other account's bank details for it.
 */
export function giveKey(state: SandboxState, raw: string): KeyRecord {
  const key = raw.trim();
  const index = state.keys.findIndex((own) => own.key === key);
  if (index < 0) throw new ApiFailure(404, 'PIX_KEY_NOT_FOUND', 'A chave não pertence a esta conta');
  const [record] = state.keys.splice(index, 1);
  return record!;
}

export function takeKey(state: SandboxState, record: KeyRecord): void {
  if (state.keys.some((own) => own.key === record.key))
    throw new ApiFailure(422, 'PIX_KEY_EXISTS', 'A chave já pertence a esta conta');
  state.keys.push({ ...record });
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
