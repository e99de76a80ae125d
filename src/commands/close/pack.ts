/**
 * The pack `pix close --day D` writes (commands/close/day.ts): `D.xlsx` (the day's entries, fees and
 * balances), `D.ofx` (with LEDGERBAL and the entries' ids as FITIDs), and `SHA256SUMS`, whose digest the
 * close remembers.
 */

import { createHash } from 'node:crypto';
import type { StatementEntry } from '../../api/resources/statement.js';
import { bookedOf, type ClosedDay } from '../../domain/books.js';
import { formatDocument } from '../../domain/documents.js';
import { BRASILIA_TIME_ZONE } from '../../domain/duedate.js';
import { type Centavos, formatDecimal } from '../../domain/money.js';
import { counterpartyOf } from '../shared/statement.js';

/** The books' days are Brasília's calendar days. */
const ZONE = BRASILIA_TIME_ZONE;

/** The day's pack, written: its files (name → bytes) and the digest of their SHA256SUMS. */
export function sums(files: ReadonlyArray<[string, Uint8Array]>): { text: string; digest: string } {
  const text = files
    .map(([name, bytes]) => `${createHash('sha256').update(bytes).digest('hex')}  ${name}\n`)
    .join('');
  return { text, digest: createHash('sha256').update(text).digest('hex') };
}

export async function workbook(
  day: string,
  kind: ClosedDay['kind'],
  opening: Centavos,
  entries: readonly StatementEntry[],
  closing: Centavos,
  totals: ClosedDay['totals'],
): Promise<Uint8Array> {
  const { createWorkbookWriter } = await import('../../output/xlsx.js');
  const chunks: Uint8Array[] = [];
  const writer = createWorkbookWriter(
    async (chunk) => {
      chunks.push(chunk);
    },
    {
      timeZone: ZONE,
      sheets: [
        {
          name: 'Entries',
          columns: [
            { header: 'Confirmed', kind: 'date' },
            { header: 'Id', kind: 'id' },
            { header: 'Type', kind: 'enum' },
            { header: 'Counterparty' },
            { header: 'Document' },
            { header: 'Amount', kind: 'money' },
            { header: 'Fee', kind: 'money' },
            { header: 'Balance', kind: 'money' },
          ],
        },
        {
          name: 'Summary',
          columns: [
            { header: 'Day', kind: 'date' },
            { header: 'Close', kind: 'enum' },
            { header: 'Opening', kind: 'money' },
            { header: 'Income', kind: 'money' },
            { header: 'Outcome', kind: 'money' },
            { header: 'Fees', kind: 'money' },
            { header: 'Closing', kind: 'money' },
            { header: 'Entries', kind: 'number' },
          ],
        },
      ],
    },
  );
  let balance = opening;
  await writer.rows(
    0,
    entries.map((entry) => {
      const { amount, fee } = bookedOf(entry);
      balance += amount - fee;
      const party = counterpartyOf(entry);
      return [
        entry.confirmedAt,
        entry.id,
        entry.type,
        party?.name,
        party?.documentNumber ? formatDocument(party.documentNumber) : undefined,
        formatDecimal(amount),
        formatDecimal(fee),
        formatDecimal(balance),
      ];
    }),
  );
  await writer.rows(1, [
    [
      day,
      kind,
      formatDecimal(opening),
      formatDecimal(totals.income),
      formatDecimal(totals.outcome),
      formatDecimal(totals.fees),
      formatDecimal(closing),
      totals.count,
    ],
  ]);
  await writer.end();
  return Buffer.concat(chunks);
}

export async function ofx(
  profile: string,
  from: string,
  through: string,
  now: Date,
  entries: readonly StatementEntry[],
  closing: Centavos,
): Promise<Uint8Array> {
  const { ofxBegin, ofxEnd, ofxTransactions } = await import('../../output/ofx.js');
  let text = ofxBegin({ dateFrom: from, dateTo: through, now, account: profile, timeZone: ZONE });
  for (const entry of entries) {
    const party = counterpartyOf(entry);
    const { amount, fee } = bookedOf(entry);
    text += ofxTransactions(
      {
        id: entry.id,
        type: entry.type,
        amountCentavos: amount,
        feeCentavos: fee,
        confirmedAt: entry.confirmedAt,
        status: entry.status,
        name: party?.name,
        document: party?.documentNumber,
      },
      ZONE,
    );
  }
  text += ofxEnd({ amountCentavos: closing, asOf: through }, ZONE);
  return Buffer.from(text, 'utf8');
}
