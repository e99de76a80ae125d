/**
 * The sandbox's account as data: the shape of the state every module of the sandbox reads and changes, and
 * kept in the file by the store (store.ts). Types only, and the one rule of the model: activity is newest
 * first (insertEntry).
 */
import type { DueDateModifier } from '../domain/duedate.js';
import type { Centavos } from '../domain/money.js';
import type { PixKeyType } from '../domain/pixkey.js';

export interface Party {
  name: string;
  /** Bank code (COMPE, 3 digits) in statement entries. */
  bank: string;
  documentNumber: string;
}

export interface StoredEntry {
  id: string;
  type: 'INCOME' | 'OUTCOME';
  /** Signed centavos: negative for OUTCOME. */
  amount: Centavos;
  fee: Centavos;
  status: 'CONFIRMED';
  method: 'PIX' | 'TED';
  confirmedAt: string;
  creditor?: Party;
  debtor?: Party;
}

export interface KeyRecord {
  id: string;
  key: string;
  keyType: PixKeyType;
  createdAt: string;
}

export interface NameValue {
  name: string;
  value: string;
}

/** A due-date modifier as the request carried it: the domain's type, priced by domain/duedate.ts. */
export type ChargeModifier = DueDateModifier;

export interface StoredCharge {
  id: string;
  kind: 'immediate' | 'duedate';
  /** Centavos. */
  amount: Centavos;
  /** PENDING, COMPLETED (immediate, paid) or CONFIRMED (due date, paid); EXPIRED is derived from time. */
  status: 'PENDING' | 'COMPLETED' | 'CONFIRMED';
  pixKey: string;
  pixKeyId: string;
  emvqrcps: string;
  transactionId: number;
  transactionIdentification: string;
  description?: string;
  createdAt: string;
  dueDate?: string;
  expiresAt: string;
  expirationAfterPayment?: number;
  payerQuestion?: string;
  additionalInformation?: NameValue[];
  /** Immediate: {name, taxId}; due date: {name, cpf, city, ...}. */
  debtor?: Record<string, string>;
  amountDiscount?: ChargeModifier;
  amountAbatement?: ChargeModifier;
  amountFine?: ChargeModifier;
  amountInterest?: ChargeModifier;
  paidAt?: string;
  paidAmount?: Centavos;
}

export interface Receiver {
  name: string;
  /** ISPB of the receiver's institution. */
  participant: string;
  documentNumber: string;
  type: 'NATURAL_PERSON' | 'LEGAL_PERSON';
}

export interface Consultation {
  endToEndId: string;
  flow: 'emv' | 'dict';
  createdAt: string;
  chargeId?: string;
  key?: string;
  /** Final amount shown by the consultation (centavos); absent when the payer chooses it. */
  amount?: Centavos;
  canModifyFinalAmount: boolean;
  receiver: Receiver;
  /** True when the receiver is this account (one of its own keys or charges). */
  own: boolean;
  usedBy?: string;
}

export interface StoredTransfer {
  id: string;
  endToEndId: string;
  amount: Centavos;
  fee: Centavos;
  createdAt: string;
  settlesAt: string;
  chargeId?: string;
}

export interface Account {
  name: string;
  city: string;
  documentNumber: string;
  /** ISPB of the sandbox institution. */
  participant: string;
  bank: string;
  branch: string;
  number: string;
}

export interface GeneratedStatement {
  count: number;
  seed: number;
  /** Sandbox time of the newest generated entry; the rest spread over the 60 days before it. */
  anchor: string;
}

export interface SandboxState {
  version: 1;
  createdAt: string;
  /** Sandbox time = real time + this offset (set by `pix sandbox clock`), shared by every process. */
  clockOffsetMs: number;
  nextTransactionId: number;
  account: Account;
  keys: KeyRecord[];
  generated: GeneratedStatement;
  /** Entries made by charges and transfers, newest first. */
  activity: StoredEntry[];
  charges: Record<string, StoredCharge>;
  consultations: Record<string, Consultation>;
  transfers: Record<string, StoredTransfer>;
  /**
   * Keys of others that changed hands (`pix sandbox move-key`): how many times each moved. The DICT
   * answers another owner for each move (people.ts dictOwner's generation). Absent in older states.
   */
  movedKeys?: Record<string, number>;
}

/** Inserts an entry into a newest-first list at its place. */
export function insertEntry(list: StoredEntry[], entry: StoredEntry): void {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]!.confirmedAt > entry.confirmedAt) low = mid + 1;
    else high = mid;
  }
  list.splice(low, 0, entry);
}
