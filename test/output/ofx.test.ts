import { describe, expect, it } from 'vitest';
import {
  type OfxEntry,
  ofxAmount,
  ofxBegin,
  ofxDate,
  ofxEnd,
  ofxTransactions,
} from '../../src/output/ofx.js';
import { readOfx as read } from '../helpers/ofx.js';

const TZ = 'America/Sao_Paulo';
const entry = (overrides: Partial<OfxEntry>): OfxEntry => ({
  id: 'e-1',
  type: 'INCOME',
  amountCentavos: 123_456,
  feeCentavos: 0,
  confirmedAt: '2026-11-23T21:31:46.039Z',
  status: 'CONFIRMED',
  name: 'Padaria Pão Quente ME',
  document: '45997418000153',
  ...overrides,
});

function document(entries: OfxEntry[]): string {
  return (
    ofxBegin({
      dateFrom: '2026-11-01T03:00:00.000Z',
      dateTo: '2026-12-01T02:59:59.999Z',
      now: new Date('2026-11-25T12:00:00.000Z'),
      account: 'ops',
      timeZone: TZ,
    }) +
    entries.map((e) => ofxTransactions(e, TZ)).join('') +
    ofxEnd()
  );
}

describe('-o ofx: OFX 1.0.2 that an OFX reader takes', () => {
  it('one STMTTRN per entry: CREDIT/DEBIT, signed dot amounts, FITID = entry id, the period, BRL', () => {
    const { validation, transactions, currency, account, period } = read(
      document([
        entry({}),
        entry({ id: 'e-2', type: 'OUTCOME', amountCentavos: -10, name: 'Maria', document: '52998224725' }),
        // 01:30 UTC on the 24th is still the 23rd in São Paulo.
        entry({ id: 'e-3', amountCentavos: 5, confirmedAt: '2026-11-24T01:30:00.000Z' }),
      ]),
    );
    expect(validation.isValid).toBe(true);
    expect(validation.warnings).toEqual([]);
    expect(transactions.map((t) => [t.TRNTYPE, t.TRNAMT, t.FITID, t.DTPOSTED])).toEqual([
      ['CREDIT', '1234.56', 'e-1', '2026-11-23'],
      ['DEBIT', '-0.10', 'e-2', '2026-11-23'],
      ['CREDIT', '0.05', 'e-3', '2026-11-23'],
    ]);
    expect(transactions[1]).toMatchObject({ NAME: 'Maria', MEMO: 'PIX Maria 52998224725' });
    expect(currency).toBe('BRL');
    expect(account).toEqual({ BANKID: '0000', ACCTID: 'ops', ACCTTYPE: 'CHECKING' });
    expect(period).toEqual(['2026-11-01', '2026-11-30']);
  });

  it('a fee is its own FEE transaction, so the imported balance moves as the account did', () => {
    const { transactions } = read(
      document([entry({ type: 'OUTCOME', amountCentavos: -5000, feeCentavos: 150 })]),
    );
    expect(transactions.map((t) => [t.TRNTYPE, t.TRNAMT, t.FITID])).toEqual([
      ['DEBIT', '-50.00', 'e-1'],
      ['FEE', '-1.50', 'e-1:fee'],
    ]);
  });

  it('hostile names stay inside their element: markup as entities, controls shown, NAME cut to 32 characters', () => {
    const hostile = 'Ev</NAME></STMTTRN><STMTTRN><TRNAMT>999999.00 & Co\u001b[2J\r\n';
    const { validation, transactions } = read(document([entry({ name: hostile, id: 'x<1>&' })]));
    expect(validation.isValid).toBe(true);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]!.TRNAMT).toBe('1234.56');
    // OFX 1.0.2 spells < > & as &lt; &gt; &amp;; this reader leaves them as written, and the structure holds.
    expect(transactions[0]!.FITID).toBe('x&lt;1&gt;&amp;');
    const name = (transactions[0]!.NAME as string).replace(/&(lt|gt|amp);/g, (_, e) =>
      e === 'lt' ? '<' : e === 'gt' ? '>' : '&',
    );
    expect(Array.from(name)).toHaveLength(32);
    expect(name).toBe(`${hostile.slice(0, 31)}…`);
    expect(transactions[0]!.MEMO).toContain('\\u001b[2J\\u000d\\u000a');
  });

  it('TRNTYPE follows the sign of TRNAMT: an INCOME sent with a negative amount is a DEBIT', () => {
    const { transactions } = read(
      document([
        entry({ id: 'in-neg', type: 'INCOME', amountCentavos: -2_500 }),
        entry({ id: 'out-pos', type: 'OUTCOME', amountCentavos: 700 }),
      ]),
    );
    expect(transactions.map((t) => [t.TRNTYPE, t.TRNAMT, t.FITID])).toEqual([
      ['DEBIT', '-25.00', 'in-neg'],
      ['CREDIT', '7.00', 'out-pos'],
    ]);
  });

  it('an entry whose confirmedAt cannot be read stops the export naming it: never an empty DTPOSTED', () => {
    expect(() => ofxTransactions(entry({ id: 'bad-1', confirmedAt: 'yesterday\u001b' }), TZ)).toThrow(
      /^entry bad-1: its confirmedAt "yesterday\\u001b" is not a date, and an OFX transaction needs one \(DTPOSTED\)/,
    );
  });

  it("a closed day's LEDGERBAL: the balance and the instant it is as of", () => {
    const text = document([entry({})]).replace(
      ofxEnd(),
      ofxEnd({ amountCentavos: 163_652, asOf: '2026-11-24T02:59:59.999Z' }, TZ),
    );
    expect(text).toContain(
      '<LEDGERBAL><BALAMT>1636.52</BALAMT><DTASOF>20261123235959.999[-3]</DTASOF></LEDGERBAL>',
    );
    expect(read(text).validation.isValid).toBe(true);
  });

  it('dates carry the zone offset; amounts come from centavos without a float', () => {
    expect(ofxDate('2026-11-23T21:31:46.039Z', TZ)).toBe('20261123183146.039[-3]');
    expect(ofxDate('2026-11-23T21:31:46.039Z', 'UTC')).toBe('20261123213146.039[0]');
    expect(ofxDate('not a date', TZ)).toBeUndefined();
    expect([0, 5, -5, 100, -123_456, 9_007_199_254_740_991].map(ofxAmount)).toEqual([
      '0.00',
      '0.05',
      '-0.05',
      '1.00',
      '-1234.56',
      '90071992547409.91',
    ]);
  });
});
