import type { Command } from 'commander';
import { consultEmv, type EmvConsultation } from '../../api/resources/payments.js';
import type { Deps } from '../../context.js';
import { fixedAmount } from '../../domain/batchplan.js';
import { InvalidValue } from '../../domain/invalid.js';
import { type Centavos, centavosFromApi, formatBRL, parseAmount } from '../../domain/money.js';
import { merchantMatchesOwner } from '../../domain/payee.js';
import { parsePixKey } from '../../domain/pixkey.js';
import { PixError, usageError } from '../../errors.js';
import { hashEmv } from '../../journal/entries.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { decodeEmvOrFail, readEmvArgument, reportBrokenRules } from '../shared/emv.js';
import { amountFlag, duplicateWindowFlag, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import {
  institution,
  maskedDocument,
  moneyRow,
  showDetailsFirst,
  textRow,
  timeRow,
} from '../shared/pay/details.js';
import { checkDuplicate, checkMaxAmount, checkNotExpired } from '../shared/pay/guards.js';
import { checkPayee, expectationOf, payeeFlags, payeeOptions } from '../shared/pay/payeeflags.js';
import { planFlags, planOptions, planRequestOf } from '../shared/pay/planflags.js';
import {
  ask,
  confirmAndPay,
  type DetailRow,
  DUPLICATE_WINDOW_OPTION,
  type PayContext,
  startPayment,
} from '../shared/pay/shared.js';

const payQrOptionsSchema = z.object({
  emv: z.string(),
  amount: z.optional(amountFlag),
  dryRun: z._default(z.boolean(), false),
  allowDuplicate: z._default(z.boolean(), false),
  duplicateWindow: z.optional(duplicateWindowFlag),
  ...planFlags,
  ...payeeFlags,
});

export type PayQrOptions = z.output<typeof payQrOptionsSchema>;

const fromApi = (reais: number | null | undefined): Centavos | undefined =>
  typeof reais === 'number' ? centavosFromApi(reais) : undefined;

/**
 * Asks the amount of a code whose payer chooses it, until a valid one is typed (Enter takes the code's
 * suggested amount, if any); Ctrl-C or a closed terminal is a "no" (exit 8).
 */
async function askAmount(ctx: PayContext, suggested: Centavos | undefined): Promise<Centavos> {
  const { deps } = ctx;
  const question = `Amount to pay${suggested === undefined ? '' : ` [${formatBRL(suggested)}]`}: R$ `;
  for (;;) {
    const answer = await ask(() => deps.prompter.ask(question));
    if (answer.trim() === '' && suggested !== undefined) return suggested;
    try {
      return parseAmount(answer);
    } catch (error) {
      if (!(error instanceof InvalidValue)) throw error;
      deps.io.stderr.write(`${safeText(error.message, 120)}; type it again (Ctrl-C to cancel)\n`);
    }
  }
}

/**
 * Contract §7.3: what this payment pays, and whether the transfer carries it. `codeAmount` is the code's
 * own amount (field 54), which a fixed-amount consultation must agree with (domain/batchplan.ts
 * fixedAmount, the rule `pay batch` applies to its rows). `beforeAsking` runs just before the amount is
 * asked (it shows who gets paid first).
 */
async function resolveAmount(
  ctx: PayContext,
  consult: EmvConsultation,
  flag: Centavos | undefined,
  codeAmount: Centavos | undefined,
  beforeAsking: () => void,
): Promise<{ amount: Centavos | undefined; sendAmount: boolean }> {
  const final = fromApi(consult.amount?.final);
  if (consult.amount?.canModifyFinalAmount === true) {
    if (flag !== undefined) return { amount: flag, sendAmount: true };
    if (ctx.flags.dryRun) return { amount: undefined, sendAmount: true };
    const { deps } = ctx;
    if (!deps.prompter.canPrompt() || deps.globals.yes) {
      throw usageError(
        '--amount',
        'this code lets the payer choose the amount: pass --amount; nothing was sent',
      );
    }
    beforeAsking();
    const amount = await askAmount(ctx, final !== undefined && final > 0 ? final : undefined);
    return { amount, sendAmount: true };
  }
  if (flag !== undefined) {
    const fixed = final === undefined ? '' : ` at ${formatBRL(final)}`;
    throw usageError(
      '--amount',
      `this code's amount is fixed${fixed}; --amount is accepted only when the code lets the payer change it`,
    );
  }
  const fixed = fixedAmount(
    final,
    codeAmount === undefined ? undefined : { amount: codeAmount, source: 'the code' },
  );
  if (fixed.ok) return { amount: fixed.amount, sendAmount: false };
  if (fixed.why === 'none') throw new PixError('rejected', `${fixed.reason}; nothing was sent`);
  // The person saw the code's amount: another one from the server is a guard's stop (exit 8), not a refusal.
  throw new PixError('declined', `${fixed.reason}; nothing was sent`, {
    hint: 'pix pays only the amount the code shows: ask the receiver for a new code',
  });
}

function details(
  ctx: PayContext,
  consult: EmvConsultation,
  amount: Centavos | undefined,
  merchant: string | undefined,
): DetailRow[] {
  const rows: DetailRow[] = [];
  const zone = ctx.settings.timeZone.value;
  textRow(rows, 'Receiver', 'receiver', consult.receiver.name);
  // A static code's own merchant name, beside the owner of its key: a person sees whether they agree.
  textRow(rows, 'Code names', 'merchantName', merchant);
  textRow(rows, 'Document', 'document', maskedDocument(consult.receiver.documentNumber));
  textRow(rows, 'Institution', 'institution', institution(consult.receiver.participant));
  textRow(rows, 'Type', 'type', consult.type);
  const a = consult.amount;
  moneyRow(rows, 'Original', 'original', fromApi(a?.original));
  moneyRow(rows, 'Discount', 'discount', fromApi(a?.discount));
  moneyRow(rows, 'Abatement', 'abatement', fromApi(a?.abatement));
  moneyRow(rows, 'Interest', 'interest', fromApi(a?.interest));
  moneyRow(rows, 'Fine', 'fine', fromApi(a?.fine));
  moneyRow(rows, 'Final', 'final', fromApi(a?.final));
  if (a?.canModifyFinalAmount === true)
    textRow(rows, 'Amount', 'canModifyFinalAmount', 'chosen by the payer');
  if (amount === undefined) textRow(rows, 'To pay', 'pay', 'not chosen yet (--amount)');
  else moneyRow(rows, 'To pay', 'pay', amount);
  timeRow(rows, 'Expires', 'expirationDate', consult.calendar?.expirationDate, zone);
  textRow(rows, 'Question', 'payerQuestion', consult.payerQuestion);
  for (const info of consult.additionalInfo ?? []) {
    textRow(rows, `Info: ${info.key ?? ''}`, `info.${info.key ?? ''}`, info.value);
  }
  if (consult.debtor?.name) {
    const doc = maskedDocument(consult.debtor.documentNumber);
    textRow(rows, 'Payer named', 'debtor', `${consult.debtor.name}${doc ? ` (${doc})` : ''}`);
  }
  textRow(rows, 'endToEndId', 'endToEndId', consult.endToEndId);
  return rows;
}

/** The key a static code names, as `pix pay key` would write it; none when it is not one pix reads. */
function keyOfCode(key: string | undefined): { key?: string } {
  if (key === undefined) return {};
  try {
    return { key: parsePixKey(key).key };
  } catch {
    return {};
  }
}

export async function runPayQr(options: PayQrOptions, deps: Deps): Promise<void> {
  // 1. Offline: a broken code is refused before anything is sent (exit 2).
  const emv = (await readEmvArgument(options.emv, deps)).trim();
  const decoded = decodeEmvOrFail(emv);
  // The same warnings as `pix emv decode` (a lower-case CRC, …): the code is paid as written.
  reportBrokenRules(decoded, false, deps);
  const plan = planRequestOf(options, { emv });
  const ctx = await startPayment(deps, {
    dryRun: options.dryRun,
    allowDuplicate: options.allowDuplicate,
    duplicateWindowMs: options.duplicateWindow,
    ...(plan === undefined ? {} : { plan }),
  });
  const emvHash = hashEmv(emv);
  const looksDynamic = decoded.kind === 'dynamic' || decoded.pointOfInitiation === '12';
  if (looksDynamic) await checkDuplicate(ctx, { method: 'qr', emvHash, dynamic: true, amountCentavos: 0 });

  // 2. Consult.
  const client = await deps.api();
  const consult = await consultEmv(client, emv);
  const dynamic = consult.type ? consult.type.toUpperCase().startsWith('DYNAMIC') : looksDynamic;
  checkNotExpired(ctx, consult.calendar?.expirationDate, client.clock.now());
  const owner = { name: consult.receiver.name, document: consult.receiver.documentNumber };
  const expect = expectationOf(options);
  checkPayee(expect, owner);
  const merchant = dynamic ? undefined : decoded.merchantName;
  const receiver = {
    name: consult.receiver.name,
    document: maskedDocument(consult.receiver.documentNumber),
    institution: institution(consult.receiver.participant),
  };
  // Who gets paid is shown before the amount is asked: a person chooses an amount knowing the receiver.
  let detailsShown = false;
  const { amount, sendAmount } = await resolveAmount(ctx, consult, options.amount, decoded.amount, () => {
    showDetailsFirst(ctx, { details: details(ctx, consult, undefined, merchant), receiver });
    detailsShown = true;
  });
  if (amount !== undefined) {
    checkMaxAmount(ctx, amount);
    if (!looksDynamic || !dynamic)
      await checkDuplicate(ctx, { method: 'qr', emvHash, dynamic, amountCentavos: amount });
  }

  // 3. Show, confirm, journal, transfer with the consultation's endToEndId (contract §6).
  await confirmAndPay(ctx, {
    consult,
    endToEndId: consult.endToEndId,
    amount,
    sendAmount,
    receiver,
    details: details(ctx, consult, amount, merchant),
    // Known by its receiver too (a static code's key, the document and institution the consultation
    // gave), so the same payment by key, by another code or another txid of it is one payment.
    identity: {
      method: 'qr',
      emvHash,
      dynamic,
      ...keyOfCode(decoded.pixKey),
      ...(consult.receiver.documentNumber ? { document: consult.receiver.documentNumber } : {}),
      ...(consult.receiver.participant ? { participant: consult.receiver.participant } : {}),
    },
    detailsShown,
    expect,
    // After the guards that say more (a payment made already is that, whoever the code names).
    ...(merchant !== undefined && expect === undefined
      ? { beforeConfirm: () => checkMerchant(ctx, merchant, owner.name) }
      : {}),
  });
}

/**
 * Contract §7.8: a static code names its merchant (field 59) but pays the owner of its key, and anyone
 * can write any name into a code. One whose name shares nothing with the owner's is said on stderr, and
 * paid only after a person's yes at the terminal: under --yes, or writing a plan nobody is asked about,
 * it is refused (exit 8) unless --expect-document or --expect-name confirmed the owner.
 */
function checkMerchant(ctx: PayContext, merchant: string, owner: string): void {
  if (merchantMatchesOwner(merchant, { name: owner })) return;
  const said = `the code names "${safeText(merchant, 40)}" but its key belongs to ${safeText(owner, 120)}`;
  const nobodyAsked = !ctx.flags.dryRun && (ctx.deps.globals.yes || ctx.flags.plan !== undefined);
  if (nobodyAsked) {
    throw new PixError('declined', `${said}; nothing was sent`, {
      hint: `pay it at a terminal without --yes to be asked, or name the receiver you mean with --expect-document or --expect-name`,
    });
  }
  ctx.deps.io.stderr.write(`warning: ${said}: pay only if you know that is who you mean\n`);
}

export const verb = describeVerb({
  summary: 'Pay a BR Code (QR code or copy-and-paste)',
  examples: [
    'pbpaste | pix pay qr - --dry-run                 # consult and show; nothing is paid',
    'pix pay qr "$CODE" --yes                         # -y: pay without the y/N question',
    'pix pay qr "$STATIC_CODE" --amount 25,00 --yes   # a code whose payer chooses the amount',
    'pix pay qr "$CODE" --yes --json | jq -r \'.transfer.id\'',
  ],
  exits: ['usage', 'auth', 'not_found', 'rejected', 'unavailable', 'unknown_outcome', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<EMV>', 'the copy-and-paste code (BR Code), or - to read it from stdin')
    .option('--amount <A>', 'amount in reais, only for a code that lets the payer choose it')
    .option('--dry-run', 'consult and show, send nothing')
    .option(
      '--allow-duplicate',
      'pay even if the journal or the statement shows this payment made already (not while one is unresolved)',
    )
    .option(...DUPLICATE_WINDOW_OPTION);
  payeeOptions(command);
  planOptions(command).action(async (emv: string, _options, self: Command) => {
    await runPayQr(parseOptions(payQrOptionsSchema, { ...self.opts(), emv }, { emv: 'EMV' }), deps);
  });
}
