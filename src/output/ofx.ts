/**
 * `pix statement -o ofx`: the statement as OFX, the file Brazilian accounting software imports bank
 * statements from. OFX 1.0.2 SGML (the version Brazilian banks export), every element closed (which SGML
 * allows and the XML-minded readers need), UTF-8 declared in the header.
 *
 * - One STMTTRN per entry: TRNTYPE CREDIT or DEBIT by the sign of TRNAMT (an INCOME the server sends
 *   with a negative amount is a DEBIT: importers add TRNAMT and read TRNTYPE, which must agree), DTPOSTED on
 *   the account's clock with its offset — an entry whose confirmedAt cannot be read stops the export naming
 *   it (importers refuse an empty date) —, TRNAMT signed with a dot decimal from integer centavos, FITID = the entry id (so an
 *   import of the same entries again is de-duplicated), NAME (the counterparty, OFX's 32 characters) and
 *   MEMO (name and document, 255). A fee is its own STMTTRN, TRNTYPE FEE, FITID `<id>:fee`, as the
 *   statement summary counts it apart.
 * - BANKTRANLIST's DTSTART/DTEND: the period asked (`--from`/`--to`, or what `--all` pinned).
 * - The API says nothing of the account itself, nor of its balance: BANKACCTFROM carries BANKID 0000 and
 *   the profile's name as ACCTID (the same on every export of a profile, so the importer recognises the
 *   account), and a statement export has no LEDGERBAL rather than an invented one; a closed day's file
 *   (`pix close`) has the balance pix computed from the closes (domain/books.ts).
 * Every server text goes through the one sanitizer (xmlSafe: controls shown escaped, `<>&` as entities),
 * so a counterparty named `</NAME><STMTTRN>` stays inside its NAME.
 */
import { wallClockMs } from '../domain/timezones.js';
import { PixError } from '../errors.js';
import { safeText, xmlSafe } from './sanitize.js';

export interface OfxStatement {
  /** The period the statement covers (ISO instants). */
  dateFrom: string;
  dateTo: string;
  /** When the file is written. */
  now: Date;
  /** ACCTID: the profile's name. */
  account: string;
  timeZone: string;
}

/** One OFX transaction's facts, in centavos. */
export interface OfxEntry {
  id: string;
  type: string;
  amountCentavos: number;
  feeCentavos: number;
  confirmedAt: string;
  status: string;
  name: string | undefined;
  document: string | undefined;
}

const HEADER = [
  'OFXHEADER:100',
  'DATA:OFXSGML',
  'VERSION:102',
  'SECURITY:NONE',
  'ENCODING:UTF-8',
  'CHARSET:NONE',
  'COMPRESSION:NONE',
  'OLDFILEUID:NONE',
  'NEWFILEUID:NONE',
  '',
  '',
].join('\r\n');

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `20261123183146.039[-3]`: the wall clock of `timeZone` at `iso`, with the offset in hours. */
export function ofxDate(iso: string, timeZone: string): string | undefined {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  const wall = wallClockMs(ms, timeZone);
  const d = new Date(wall);
  const offsetHours = Math.round((wall - ms) / 60_000) / 60;
  return (
    `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}` +
    `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}` +
    `[${offsetHours}]`
  );
}

/** `-1234.56` from centavos: no float on the way. */
export function ofxAmount(centavos: number): string {
  const sign = centavos < 0 ? '-' : '';
  const abs = Math.abs(centavos);
  return `${sign}${Math.floor(abs / 100)}.${pad(abs % 100)}`;
}

const element = (name: string, value: string) => `<${name}>${value}</${name}>`;

export function ofxBegin(statement: OfxStatement): string {
  const { timeZone } = statement;
  const server = ofxDate(statement.now.toISOString(), timeZone)!;
  return (
    `${HEADER}<OFX>\r\n` +
    `<SIGNONMSGSRSV1><SONRS><STATUS>${element('CODE', '0')}${element('SEVERITY', 'INFO')}</STATUS>` +
    `${element('DTSERVER', server)}${element('LANGUAGE', 'POR')}</SONRS></SIGNONMSGSRSV1>\r\n` +
    `<BANKMSGSRSV1><STMTTRNRS>${element('TRNUID', '0')}` +
    `<STATUS>${element('CODE', '0')}${element('SEVERITY', 'INFO')}</STATUS>\r\n` +
    `<STMTRS>${element('CURDEF', 'BRL')}\r\n` +
    `<BANKACCTFROM>${element('BANKID', '0000')}${element('ACCTID', xmlSafe(statement.account, 22))}` +
    `${element('ACCTTYPE', 'CHECKING')}</BANKACCTFROM>\r\n` +
    `<BANKTRANLIST>${element('DTSTART', ofxDate(statement.dateFrom, timeZone) ?? server)}` +
    `${element('DTEND', ofxDate(statement.dateTo, timeZone) ?? server)}\r\n`
  );
}

function transaction(fields: {
  type: string;
  posted: string;
  amount: number;
  fitid: string;
  name: string | undefined;
  memo: string;
}): string {
  return (
    `<STMTTRN>${element('TRNTYPE', fields.type)}${element('DTPOSTED', fields.posted)}` +
    `${element('TRNAMT', ofxAmount(fields.amount))}${element('FITID', xmlSafe(fields.fitid, 255))}` +
    (fields.name ? element('NAME', xmlSafe(fields.name, 32)) : '') +
    (fields.memo ? element('MEMO', xmlSafe(fields.memo, 255)) : '') +
    '</STMTTRN>\r\n'
  );
}

/** The entry's STMTTRN, and its fee's when it has one. */
export function ofxTransactions(entry: OfxEntry, timeZone: string): string {
  const posted = ofxDate(entry.confirmedAt, timeZone);
  if (posted === undefined) {
    throw new PixError(
      'unavailable',
      `entry ${safeText(entry.id, 64)}: its confirmedAt "${safeText(entry.confirmedAt, 40)}" is not a date, and an OFX transaction needs one (DTPOSTED): the OFX export stops here`,
      { hint: 'export that range with -o ndjson or -o csv to see the entry as the server sent it' },
    );
  }
  const credit = entry.amountCentavos >= 0;
  const who = [entry.name, entry.document].filter(Boolean).join(' ');
  const status = entry.status === 'CONFIRMED' ? '' : ` [${entry.status}]`;
  let text = transaction({
    type: credit ? 'CREDIT' : 'DEBIT',
    posted,
    amount: entry.amountCentavos,
    fitid: entry.id,
    name: entry.name,
    memo: `PIX ${who}${status}`.trim(),
  });
  if (entry.feeCentavos !== 0) {
    text += transaction({
      type: 'FEE',
      posted,
      amount: -Math.abs(entry.feeCentavos),
      fitid: `${entry.id}:fee`,
      name: 'Tarifa PIX',
      memo: `Tarifa PIX ${who}`.trim(),
    });
  }
  return text;
}

/** The ledger balance a closed day ends with, as of its end (`pix close`). */
export interface OfxBalance {
  amountCentavos: number;
  asOf: string;
}

export function ofxEnd(balance?: OfxBalance, timeZone = 'UTC'): string {
  const ledger =
    balance === undefined
      ? ''
      : `<LEDGERBAL>${element('BALAMT', ofxAmount(balance.amountCentavos))}${element('DTASOF', ofxDate(balance.asOf, timeZone)!)}</LEDGERBAL>\r\n`;
  return `</BANKTRANLIST>\r\n${ledger}</STMTRS></STMTTRNRS></BANKMSGSRSV1>\r\n</OFX>\r\n`;
}
