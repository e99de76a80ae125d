/**
 * The statement as the last guard before a payment (contract §7.6): pure. The journal knows what this
 * machine paid; the statement knows what the account paid — from another machine, another config
 * directory, the bank's app, or before a journal was cut. A debit to the same receiver for the same amount
 * that no journal payment explains may be this very payment made elsewhere, so it holds the payment as a
 * duplicate (exit 8, naming the entry) until the operator says otherwise (`--allow-duplicate`).
 *
 * A receiver is compared by document, as far as the masks show (an EMV consultation masks it, a key
 * consultation does not, a statement may: documents.ts documentsAgree), else by name as banks write it
 * (samePerson). Each journal
 * payment explains one debit of its amount and receiver, so two payments of R$ 50 to Ana explain two such
 * debits and a third one holds the next.
 */
import { documentsAgree } from './documents.js';
import type { Centavos } from './money.js';
import { sameName } from './names.js';

/** A debit of the statement (an OUTCOME entry): who it went to, as the statement names them. */
export interface Debit {
  /** The statement entry's id. */
  id: string;
  /** confirmedAt. */
  at: string;
  amount: Centavos;
  document?: string | undefined;
  name?: string | undefined;
}

/** A payment, as the journal recorded it or as it is about to be made. */
export interface PaidTo {
  amount: Centavos;
  document?: string | undefined;
  name?: string | undefined;
}

/**
 * One receiver: by document when both name one (whatever institution holds the account: a CPF or CNPJ is
 * one person's or company's at any bank), else by name as banks write them (domain/names.ts sameName:
 * `JOAO PEDRO OLIVEIRA` is `João Pedro Oliveira`). The statement names an institution by its bank code and
 * a consultation by its ISPB, and a name may be held at two banks: without a document, the same name is
 * held as the same receiver (a hold is exit 8 that --allow-duplicate lets through; a pass pays twice).
 */
function samePerson(a: Omit<PaidTo, 'amount'>, b: Omit<PaidTo, 'amount'>): boolean {
  if (a.document !== undefined && b.document !== undefined) return documentsAgree(a.document, b.document);
  return sameName(a.name, b.name);
}

/** Whether a debit is a payment of this amount to this receiver. */
export function debitOf(debit: Debit, payment: PaidTo): boolean {
  return debit.amount === payment.amount && samePerson(debit, payment);
}

/**
 * The debits no journal payment explains, oldest first: each journal payment takes the oldest debit of its
 * amount and receiver not taken yet.
 */
export function unexplainedDebits(debits: readonly Debit[], journal: readonly PaidTo[]): Debit[] {
  const left = [...journal];
  const unexplained: Debit[] = [];
  for (const debit of [...debits].sort((a, b) => a.at.localeCompare(b.at))) {
    const index = left.findIndex((payment) => debitOf(debit, payment));
    if (index >= 0) left.splice(index, 1);
    else unexplained.push(debit);
  }
  return unexplained;
}

/** The latest unexplained debit that may be `payment` made elsewhere, if any. */
export function duplicateDebit(unexplained: readonly Debit[], payment: PaidTo): Debit | undefined {
  for (let index = unexplained.length - 1; index >= 0; index--) {
    if (debitOf(unexplained[index]!, payment)) return unexplained[index];
  }
  return undefined;
}
