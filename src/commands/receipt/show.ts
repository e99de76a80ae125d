/**
 * `pix receipt ID` and `pix receipt --batch FILE --dir DIR`: payment advices of payments pix made
 * (domain/receipt.ts), as a PDF (`-o pdf`), an HTML page (`-o html`), `--json`, or details on a terminal.
 * The journal says what was paid, to whom and with which endToEndId; the statement's debit (found as
 * `pix reconcile` finds it) adds the receiver's document and institution and the confirmation time.
 * Only a payment pix knows was made gets one: an unknown outcome is resolved first (exit 8).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { StatementEntry } from '../../api/resources/statement.js';
import type { Deps } from '../../context.js';
import { type BatchParseResult, batchFormatFor } from '../../domain/batch.js';
import { parseBatchSheet } from '../../domain/batchsheet.js';
import { parseBatchFile } from '../../domain/batchtext.js';
import { loadBusinessDayTest } from '../../domain/duedate.js';
import { buildReceipt, type Receipt, type ReceiptDebit, receiptLines } from '../../domain/receipt.js';
import { reconcile } from '../../domain/reconcile.js';
import { DEBIT_AFTER_MS, DEBIT_BEFORE_MS } from '../../domain/reconcilepayments.js';
import { counted } from '../../domain/words.js';
import { PixError, usageError } from '../../errors.js';
import { type JournalEntry, shortId, startLine } from '../../journal/entries.js';
import { effectiveState, findEntry, ofAccount } from '../../journal/rules.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import { ensurePrivateDir } from '../../storage/dirs.js';
import { writeFileAtomic } from '../../storage/files.js';
import { asUsageAwait } from '../../usage.js';
import * as z from '../../zod.js';
import { paymentExpectations, readRange } from '../shared/books/sources.js';
import { openBooks } from '../shared/books/store.js';
import { fileName, readInputFile, refuseFile } from '../shared/files.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { counterpartyOf } from '../shared/statement.js';

const receiptOptionsSchema = z.object({
  id: z.optional(z.string().check(z.minLength(1))),
  batch: z.optional(z.string().check(z.minLength(1))),
  dir: z.optional(z.string().check(z.minLength(1))),
});

export type ReceiptOptions = z.output<typeof receiptOptionsSchema>;

/**
 * The digest of a journal entry on a receipt: SHA-256 of its start line as the journal writes it (the line
 * written before the transfer left, which names the payment), hex.
 */
export function journalEntryDigest(entry: JournalEntry): string {
  return createHash('sha256')
    .update(JSON.stringify(startLine(entry)))
    .digest('hex');
}

/** Why a payment gets no receipt, or undefined when it gets one. */
function refusal(entry: JournalEntry): string | undefined {
  if (entry.kind !== 'payment') return `journal entry ${shortId(entry.id)} is a charge, not a payment`;
  const state = effectiveState(entry);
  if (state === 'done') return undefined;
  if (state === 'failed')
    return `payment ${shortId(entry.id)} was not made (${entry.resolution === 'not-paid' ? 'resolved not paid' : entry.state})`;
  return `payment ${shortId(entry.id)} has no known outcome (${entry.state}): resolve it first (pix journal resolve ${shortId(entry.id)} --paid|--not-paid)`;
}

/** The debits of `payments` in the statement, found as pix reconcile finds them (one read for all). */
async function debitsOf(
  deps: Deps,
  payments: readonly JournalEntry[],
  account: Awaited<ReturnType<typeof openBooks>>['account'],
) {
  const found = new Map<string, ReceiptDebit>();
  if (payments.length === 0) return found;
  const client = await deps.api();
  const times = payments.map((p) => Date.parse(p.at));
  const now = deps.clock.now().getTime();
  const from = Math.min(...times) - DEBIT_BEFORE_MS;
  const to = Math.min(Math.max(...times) + DEBIT_AFTER_MS, Math.max(now, Math.max(...times)) + 60_000);
  let entries: StatementEntry[];
  try {
    entries = await readRange(deps, client, new Date(from).toISOString(), new Date(to).toISOString());
  } catch (error) {
    if (!(error instanceof PixError) || error.kind !== 'unavailable') throw error;
    deps.io.stderr.write(
      `warning: the statement could not be read (${safeText(error.message, 200)}): the receipts say so\n`,
    );
    return found;
  }
  const ids = new Set(payments.map((p) => p.id));
  const expectations = paymentExpectations(payments, account, from, to).filter((e) => ids.has(e.journalId!));
  const result = reconcile(expectations, entries, [], {
    from,
    to,
    now: client.clock.now().getTime(),
    isBusinessDay: await loadBusinessDayTest(),
  });
  for (const r of result.results) {
    const payment = r.expectations[0];
    const entry = r.entries[0];
    if (!payment?.journalId || !entry || (r.outcome !== 'proven' && r.outcome !== 'probable')) continue;
    const party = counterpartyOf(entry);
    found.set(payment.journalId, {
      entryId: entry.id,
      confirmedAt: entry.confirmedAt,
      name: party?.name,
      document: party?.documentNumber,
      bank: party?.bank,
      evidence: r.outcome,
    });
  }
  return found;
}

type Payer = Parameters<typeof buildReceipt>[2];

/** The paying account's holder as pix account learned it (the DICT's answer for one of its own keys). */
async function payerOf(deps: Deps, account: string, profile: string): Promise<Payer> {
  const owner = (await (await deps.stores.accounts()).account(account))?.owner;
  return { profile, name: owner?.name, document: owner?.document };
}

function receiptOf(entry: JournalEntry, debit: ReceiptDebit | undefined, payer: Payer): Receipt {
  return buildReceipt(
    {
      journalId: entry.id,
      journalDigest: journalEntryDigest(entry),
      amountCentavos: entry.amountCentavos,
      receiverName: entry.receiver,
      endToEndId: entry.endToEndId,
      transferId: entry.transferId,
      sentAt: entry.at,
    },
    debit,
    payer,
  );
}

async function render(receipt: Receipt, format: 'pdf' | 'html'): Promise<Uint8Array | string> {
  const { receiptHtml, receiptPdf } = await import('../../output/receipt.js');
  return format === 'pdf' ? receiptPdf(receipt) : receiptHtml(receipt);
}

async function runBatch(
  options: ReceiptOptions,
  deps: Deps,
  profile: string,
  format: 'pdf' | 'html' | 'json',
): Promise<void> {
  const file = options.batch!;
  if (options.dir === undefined)
    throw usageError('--dir', 'where the receipts go: --batch writes one file per paid row');
  const bytes = await readInputFile(file, deps, 'a batch file');
  let parsed: BatchParseResult;
  if (batchFormatFor(file) === 'xlsx') {
    const { readFirstSheet } = await import('../../domain/xlsxsheet.js');
    parsed = parseBatchSheet(await asUsageAwait(fileName(file), () => readFirstSheet(bytes)));
  } else
    parsed = parseBatchFile(bytes.toString('utf8'), batchFormatFor(file) === 'ndjson' ? 'ndjson' : 'csv');
  if (!parsed.ok)
    refuseFile(
      deps,
      file,
      parsed.problems,
      'the batch file has problems',
      'the receipts are of the file pix pay batch paid',
      'no receipt was written',
    );
  const books = await openBooks(deps);
  const journal = await deps.stores.journal();
  const warning = await journal.damageWarning();
  if (warning !== undefined) deps.io.stderr.write(`${warning}\n`);
  const paid: Array<{ row: string; entry: JournalEntry }> = [];
  let unpaid = 0;
  for (const row of parsed.rows) {
    const entries = (await journal.rowEntries(row.id)).filter((entry) => ofAccount(entry, books.account));
    const done = entries.filter((entry) => effectiveState(entry) === 'done').at(-1);
    if (done) paid.push({ row: row.id, entry: done });
    else unpaid++;
  }
  const debits = await debitsOf(
    deps,
    paid.map((p) => p.entry),
    books.account,
  );
  ensurePrivateDir(options.dir, { own: false });
  const payer = await payerOf(deps, books.account.id, profile);
  for (const { row, entry } of paid) {
    const receipt = receiptOf(entry, debits.get(entry.id), payer);
    const body = format === 'json' ? `${JSON.stringify(receipt, null, 2)}\n` : await render(receipt, format);
    // Made again from the journal at will: atomic, without an fsync each (1,000 receipts, 2,000 fsyncs).
    writeFileAtomic(join(options.dir, `${row}.${format}`), body, { durable: false });
  }
  const missing = paid.filter((p) => !debits.has(p.entry.id)).length;
  deps.io.stderr.write(
    `${counted(paid.length, 'receipt')} written to ${safeText(options.dir, 200)}` +
      (unpaid > 0 ? `; ${counted(unpaid, 'row')} not paid on this account (no receipt)` : '') +
      (missing > 0 ? `; ${missing} without their debit in the statement yet` : '') +
      '\n',
  );
}

export async function runReceipt(options: ReceiptOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const mode = await outputMode(deps, settings.timeZone.value);
  const profile = settings.profile.value;
  const format =
    mode.format === 'pdf' || mode.format === 'html' || mode.format === 'json' ? mode.format : undefined;
  if (options.batch !== undefined) {
    if (options.id !== undefined) throw usageError('--batch', 'give an ID or --batch FILE, not both');
    return runBatch(options, deps, profile, format ?? 'pdf');
  }
  if (options.id === undefined)
    throw usageError('ID', 'which payment: a journal id (pix journal lists them), or --batch FILE --dir DIR');
  if (options.dir !== undefined)
    throw usageError('--dir', 'goes with --batch; one receipt goes to stdout or --output-file');
  const journal = await deps.stores.journal();
  const warning = await journal.damageWarning();
  if (warning !== undefined) deps.io.stderr.write(`${warning}\n`);
  const lookup = findEntry(await journal.read(), options.id);
  if (lookup.found === undefined) {
    if (lookup.matches.length > 1) {
      throw usageError(
        'ID',
        `"${safeText(options.id, 40)}" is the start of ${lookup.matches.length} journal ids: give more of it`,
      );
    }
    throw new PixError('not_found', `no journal entry "${safeText(options.id, 40)}"`, {
      hint: 'pix journal lists the payments',
    });
  }
  const entry = lookup.found;
  const why = refusal(entry);
  if (why !== undefined) throw new PixError('declined', `${why}: no receipt`);
  const books = await openBooks(deps);
  if (!ofAccount(entry, books.account)) {
    throw usageError(
      'ID',
      `payment ${shortId(entry.id)} was made from profile ${safeText(entry.profile, 40)} on another API: use -p ${safeText(entry.profile, 40)}`,
    );
  }
  const debits = await debitsOf(deps, [entry], books.account);
  const receipt = receiptOf(entry, debits.get(entry.id), await payerOf(deps, books.account.id, profile));
  const { stdout, stderr } = deps.io;
  if (!debits.has(entry.id))
    stderr.write(`note: its debit is not in the statement yet: the receipt says so\n`);
  if (format === 'json') {
    stdout.write(jsonDocument(receipt, mode.pretty));
    return;
  }
  if (format !== undefined) {
    const body = await render(receipt, format);
    stdout.write(body);
    return;
  }
  const width = Math.max(...receiptLines(receipt).map(([label]) => label.length));
  const lines = [
    receipt.title,
    ...receiptLines(receipt).map(([label, value]) => `${label.padEnd(width)}  ${safeText(value, 200)}`),
    '',
    receipt.notice,
  ];
  stdout.write(`${lines.join('\n')}\n`);
}

export const verb = describeVerb({
  summary: 'A payment advice of a journal payment (PDF, HTML or JSON): not the bank’s comprovante',
  formats: ['table', 'json', 'pdf', 'html'],
  examples: [
    'pix receipt "$PAYMENT"',
    'pix receipt "$PAYMENT" -o pdf --output-file aviso.pdf',
    'pix receipt "$PAYMENT" -o html > aviso.html',
    'pix receipt --batch paid.csv --dir recibos/',
  ],
  exits: ['usage', 'not_found', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('[id]', 'the journal id of a payment (its first characters will do)')
    .option('--batch <file>', 'a receipt for every paid row of this batch file (pix pay batch FILE)')
    .option('--dir <dir>', 'with --batch: where the receipts go, one per row (ROW-ID.pdf)')
    .action(async (id: string | undefined, _options, self: Command) => {
      await runReceipt(
        parseOptions(
          receiptOptionsSchema,
          { ...self.opts(), ...(id === undefined ? {} : { id }) },
          { id: 'ID' },
        ),
        deps,
      );
    });
}
