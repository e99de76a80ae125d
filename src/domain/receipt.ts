/**
 * A payment advice (`pix receipt`): what pix can say of a payment it made, from its journal and the
 * statement, and plainly not the bank's comprovante. Pure: the journal entry, its debit in the statement
 * (when found) and the account's profile in, the advice's fields out.
 */
import { institutionName } from './banks.js';
import { bcbMaskDocument } from './documents.js';
import { decodeEndToEnd } from './endtoend.js';
import { InvalidValue } from './invalid.js';
import { type Centavos, formatBRL } from './money.js';
import { formatDayFirst } from './when.js';

export const RECEIPT_NOTICE =
  "Issued by pix from the payment API's answer and pix's journal. This is not the bank's comprovante (proof of payment): ask your bank for that.";

const ZONE = 'America/Sao_Paulo';

export interface ReceiptPayment {
  journalId: string;
  /** SHA-256 of the journal entry (journal/digest). */
  journalDigest: string;
  amountCentavos: Centavos;
  receiverName: string | undefined;
  endToEndId: string | undefined;
  transferId: string | undefined;
  /** When pix sent it (ISO). */
  sentAt: string;
}

/** The debit the statement shows for it (reconcile's match), when found. */
export interface ReceiptDebit {
  entryId: string;
  confirmedAt: string;
  name: string | undefined;
  document: string | undefined;
  bank: string | undefined;
  /** proven: the debit is the transfer itself; probable: the amount within a day. */
  evidence: 'proven' | 'probable';
}

export interface Receipt {
  title: string;
  notice: string;
  /**
   * The account that paid: its holder as the DICT answered for one of its own keys (pix account), with the
   * document masked as a receiver's is; the profile it was paid from. Name and document are null for an
   * account named by an operator (pix account bind) that the DICT never described.
   */
  payer: { name: string | null; document: string | null; profile: string };
  receiver: {
    name: string | null;
    /** Masked as the BCB's rules show a document: a CPF's middle digits, a CNPJ whole. */
    document: string | null;
    institution: { code: string; name: string | null } | null;
  };
  amount: { centavos: Centavos; text: string };
  /** Brasília time (`dd/mm/yyyy hh:mm:ss`): when the statement confirmed it, else when pix sent it. */
  when: { brasilia: string; iso: string; source: 'statement' | 'journal' };
  endToEnd: {
    id: string;
    ispb: string;
    institution: string | null;
    /** The UTC minute in the id. */
    createdAtUtc: string;
  } | null;
  journal: { id: string; digest: string };
  transferId: string | null;
  statement: { entryId: string; evidence: 'proven' | 'probable' } | null;
}

export function buildReceipt(
  payment: ReceiptPayment,
  debit: ReceiptDebit | undefined,
  payer: { name?: string | undefined; document?: string | undefined; profile: string },
): Receipt {
  let endToEnd: Receipt['endToEnd'] = null;
  if (payment.endToEndId !== undefined) {
    try {
      const decoded = decodeEndToEnd(payment.endToEndId);
      endToEnd = {
        id: decoded.endToEndId,
        ispb: decoded.ispb,
        institution: institutionName(decoded.ispb) ?? null,
        createdAtUtc: `${decoded.createdAt.slice(0, 16).replace('T', ' ')} UTC`,
      };
    } catch (error) {
      if (!(error instanceof InvalidValue)) throw error;
    }
  }
  const iso = debit?.confirmedAt ?? payment.sentAt;
  const bank = debit?.bank;
  return {
    title: 'Pix payment advice (aviso de pagamento Pix)',
    notice: RECEIPT_NOTICE,
    payer: {
      name: payer.name ?? null,
      document: payer.document ? bcbMaskDocument(payer.document) : null,
      profile: payer.profile,
    },
    receiver: {
      name: debit?.name ?? payment.receiverName ?? null,
      document: debit?.document ? bcbMaskDocument(debit.document) : null,
      institution: bank ? { code: bank, name: institutionName(bank) ?? null } : null,
    },
    amount: { centavos: payment.amountCentavos, text: formatBRL(payment.amountCentavos) },
    when: {
      brasilia: formatDayFirst(iso, ZONE) ?? iso,
      iso,
      source: debit ? 'statement' : 'journal',
    },
    endToEnd,
    journal: { id: payment.journalId, digest: payment.journalDigest },
    transferId: payment.transferId ?? null,
    statement: debit ? { entryId: debit.entryId, evidence: debit.evidence } : null,
  };
}

/** The advice as label/value lines, in the order every format shows them. */
export function receiptLines(receipt: Receipt): Array<[string, string]> {
  const institution = receipt.receiver.institution;
  const e2e = receipt.endToEnd;
  return [
    [
      'Payer',
      receipt.payer.name === null
        ? `profile ${receipt.payer.profile}`
        : `${receipt.payer.name}${receipt.payer.document === null ? '' : `, ${receipt.payer.document}`} (profile ${receipt.payer.profile})`,
    ],
    ['Receiver', receipt.receiver.name ?? '(not known)'],
    ['Document', receipt.receiver.document ?? '(not in the statement)'],
    [
      'Institution',
      institution
        ? `${institution.name ?? 'unknown institution'} (${institution.code})`
        : '(not in the statement)',
    ],
    ['Amount', receipt.amount.text],
    [receipt.when.source === 'statement' ? 'Confirmed (Brasília)' : 'Sent (Brasília)', receipt.when.brasilia],
    ['EndToEndId', e2e?.id ?? '(none recorded)'],
    ['Created by', e2e ? `${e2e.institution ?? 'unknown institution'} (ISPB ${e2e.ispb})` : ''],
    ['Created at', e2e?.createdAtUtc ?? ''],
    ['Transfer id', receipt.transferId ?? ''],
    [
      'Statement entry',
      receipt.statement
        ? `${receipt.statement.entryId} (${receipt.statement.evidence === 'proven' ? 'the transfer itself' : 'probable: the amount within a day'})`
        : '(its debit is not in the statement yet)',
    ],
    ['Journal entry', receipt.journal.id],
    ['Journal digest', `sha256:${receipt.journal.digest}`],
  ].filter(([, value]) => value !== '') as Array<[string, string]>;
}
