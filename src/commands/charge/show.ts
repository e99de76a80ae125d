/**
 * `pix charge show ID`: a charge of the ledger again, as it was shown when created — its fields, the
 * same copy-and-paste code and its QR drawn (or `--qr-png`) — with what the ledger knows of its
 * payment, after one look at the statement for it (ledger.ts lookAtStatement) unless `--offline`.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { parseText } from '../../domain/charge-values.js';
import { formatBRL } from '../../domain/money.js';
import { jsonDocument } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import {
  asApiCharge,
  CHARGE_FIELDS,
  chargeNamed,
  ledgerJson,
  openLedger,
  refreshLedger,
  sayChecked,
} from '../shared/chargeledger.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { checkQrPngTarget, deliverCharge } from './shared.js';

const showOptionsSchema = z.object({
  id: fromDomain(parseText),
  qrPng: z.optional(fromDomain(parseText)),
  force: z._default(z.boolean(), false),
  qr: z._default(z.boolean(), true),
  offline: z._default(z.boolean(), false),
});

export type ShowOptions = z.output<typeof showOptionsSchema>;

export async function runChargeShow(options: ShowOptions, deps: Deps): Promise<void> {
  const ledger = await openLedger(deps);
  const named = chargeNamed(ledger, options.id);
  await checkQrPngTarget(options, deps);
  const look = await refreshLedger(ledger, [named], options.offline, deps);
  const record = look?.records.find((r) => r.id === named.id) ?? named;
  if (deps.globals.output === 'json' || deps.globals.output === 'ndjson') {
    deps.io.stdout.write(
      jsonDocument(ledgerJson(record, look?.checkedAt), deps.io.stdout.isTTY && deps.globals.json),
    );
    return;
  }
  const charge = asApiCharge(record);
  if (options.qrPng !== undefined && record.emv) {
    const { qrPngDataUrl } = await import('../../output/qr.js');
    charge.qrCodeDataUrl = await qrPngDataUrl(record.emv);
  }
  await deliverCharge(charge, options, deps, record);
  if (record.match && deps.io.stdout.isTTY) {
    const word = record.status === 'paid' ? 'paid' : 'probably paid (amount and time only)';
    deps.io.stderr.write(
      `${word}: ${formatBRL(record.match.amountCentavos)}, statement entry ${safeText(record.match.entryId, 64)} (${record.match.how})\n`,
    );
  }
  if (record.ambiguity) {
    const { candidates, rivals } = record.ambiguity;
    const entries = candidates.map((c) => safeText(c.entryId, 64)).join(', ');
    const others = rivals.map((id) => safeText(id, 64)).join(', ');
    const could = candidates.length > 1 ? 'each could have paid it' : 'could have paid it';
    const shared = rivals.length ? `, and could have paid charge ${others} instead` : '';
    deps.io.stderr.write(
      `ambiguous: statement entry ${entries} ${could}${shared}; none is marked paid: check the payer in \`pix statement\`\n`,
    );
  }
  sayChecked(look, options.offline, (await deps.settings()).timeZone.value, deps);
}

export const verb = describeVerb({
  summary: 'A charge of the ledger again: its code, QR and payment',
  formats: LIST_FORMATS,
  fields: { paths: CHARGE_FIELDS },
  examples: [
    'pix charge show "$CHARGE_ID"',
    'pix charge show "$CHARGE_ID" --json | jq -r .emvqrcps',
    'pix charge show "$CHARGE_ID" --qr-png qr.png --no-qr',
  ],
  exits: ['usage', 'not_found'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<id>', 'the charge: its id, txid, or the start of its id (see `pix charge list`)')
    .option('--qr-png <file>', 'write the QR code as a PNG file (`-`: to stdout)')
    .option('--no-qr', 'do not draw the QR code in the terminal')
    .option('--offline', 'do not read the statement for its payment: the ledger as last recorded')
    .action(async (id: string, _options, self: Command) => {
      await runChargeShow(
        parseOptions(showOptionsSchema, { ...self.opts(), id, force: deps.globals.force }, { id: '<id>' }),
        deps,
      );
    });
}
