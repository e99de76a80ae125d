import { describe, expect, it } from 'vitest';
import {
  type Decision,
  type ReconEntry,
  type ReconExpectation,
  reconcile,
} from '../../src/domain/reconcile.js';

const weekdays = (date: string) => {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day !== 0 && day !== 6;
};
const RANGE = {
  from: Date.parse('2026-03-01T03:00:00Z'),
  to: Date.parse('2026-04-01T02:59:59.999Z'),
  now: Date.parse('2026-04-02T12:00:00Z'),
  isBusinessDay: weekdays,
};

const ANA = '52998224725';
const LOJA = '04252011000110';

function credit(
  id: string,
  amount: number,
  confirmedAt: string,
  document?: string,
  name?: string,
): ReconEntry {
  return {
    id,
    type: 'INCOME',
    amount,
    status: 'CONFIRMED',
    confirmedAt,
    creditor: { name: name ?? 'Someone', ...(document ? { documentNumber: document } : {}) },
  };
}

function debit(id: string, amount: number, confirmedAt: string, name = 'Fornecedor'): ReconEntry {
  return { id, type: 'OUTCOME', amount: -amount, status: 'CONFIRMED', confirmedAt, debtor: { name } };
}

function invoice(
  id: string,
  amountCentavos: number,
  extra: Partial<ReconExpectation> = {},
): ReconExpectation {
  return { id, source: 'file', amountCentavos, ...extra };
}

const run = (expectations: ReconExpectation[], entries: ReconEntry[], decisions: Decision[] = []) =>
  reconcile(expectations, entries, decisions, RANGE);

function outcomeOf(result: ReturnType<typeof run>, expectation: string) {
  return result.results.find((r) => r.expectations.some((e) => e.id === expectation));
}

describe('reconcile', () => {
  it('proves by the payer document and amount, and says why', () => {
    const result = run(
      [invoice('NF-1', 150_00, { document: ANA, due: '2026-03-10' })],
      [credit('e1', 150, '2026-03-11T15:00:00Z', '529.982.247-25')],
    );
    const found = outcomeOf(result, 'NF-1')!;
    expect(found.outcome).toBe('proven');
    expect(found.entries.map((e) => e.id)).toEqual(['e1']);
    expect(found.why).toContain("payer's document");
  });

  it('a masked document proves nothing: the match is probable at most', () => {
    const result = run(
      [invoice('NF-1', 150_00, { document: ANA, due: '2026-03-10' })],
      [credit('e1', 150, '2026-03-11T15:00:00Z', '***.982.247-**')],
    );
    expect(outcomeOf(result, 'NF-1')!.outcome).toBe('probable');
  });

  it('probable only when one entry of the amount fits and it fits no other invoice', () => {
    const one = run(
      [invoice('NF-1', 99_90, { due: '2026-03-10' })],
      [credit('e1', 99.9, '2026-03-12T15:00:00Z')],
    );
    expect(outcomeOf(one, 'NF-1')).toMatchObject({ outcome: 'probable' });
    expect(outcomeOf(one, 'NF-1')!.why).toMatch(/2 days after its due date; no document proves the payer/);

    const two = run(
      [invoice('NF-1', 99_90, { due: '2026-03-10' })],
      [credit('e1', 99.9, '2026-03-09T15:00:00Z'), credit('e2', 99.9, '2026-03-12T15:00:00Z')],
    );
    expect(outcomeOf(two, 'NF-1')).toMatchObject({ outcome: 'unmatched-expectation' });
    expect(outcomeOf(two, 'NF-1')!.why).toMatch(/2 entries of R\$ 99,90 .*match one by hand/);

    const rivals = run(
      [invoice('NF-1', 99_90, { due: '2026-03-10' }), invoice('NF-2', 99_90, { due: '2026-03-11' })],
      [credit('e1', 99.9, '2026-03-10T15:00:00Z')],
    );
    expect(outcomeOf(rivals, 'NF-1')).toMatchObject({ outcome: 'unmatched-expectation' });
    expect(outcomeOf(rivals, 'NF-2')!.why).toMatch(/fits 2 invoices/);
    expect(rivals.results.find((r) => r.outcome === 'unmatched-entry')!.entries[0]!.id).toBe('e1');
  });

  it("the payer's name picks one among several entries of the amount", () => {
    const result = run(
      [invoice('NF-1', 99_90, { due: '2026-03-10', name: 'José da Silva' })],
      [
        credit('e1', 99.9, '2026-03-09T15:00:00Z', undefined, 'Maria'),
        credit('e2', 99.9, '2026-03-12T15:00:00Z', undefined, 'JOSE  DA SILVA'),
      ],
    );
    expect(outcomeOf(result, 'NF-1')).toMatchObject({ outcome: 'probable', entries: [{ id: 'e2' }] });
  });

  it('partial: split payments, one payment for several invoices, and less than the invoice; overpaid', () => {
    const result = run(
      [
        invoice('SPLIT', 300_00, { document: ANA, due: '2026-03-10' }),
        invoice('G1', 100_00, { document: LOJA, due: '2026-03-10' }),
        invoice('G2', 250_00, { document: LOJA, due: '2026-03-11' }),
        invoice('LESS', 500_00, { document: '11144477735', due: '2026-03-10' }),
        invoice('MORE', 500_00, { document: '39053344705', due: '2026-03-10' }),
      ],
      [
        credit('s1', 100, '2026-03-09T15:00:00Z', ANA),
        credit('s2', 200, '2026-03-10T15:00:00Z', ANA),
        credit('g', 350, '2026-03-10T16:00:00Z', LOJA),
        credit('l', 400, '2026-03-10T17:00:00Z', '11144477735'),
        credit('m', 510.25, '2026-03-10T18:00:00Z', '39053344705'),
      ],
    );
    expect(outcomeOf(result, 'SPLIT')).toMatchObject({ outcome: 'partial', paid: 300_00 });
    expect(
      outcomeOf(result, 'SPLIT')!
        .entries.map((e) => e.id)
        .sort(),
    ).toEqual(['s1', 's2']);
    const grouped = outcomeOf(result, 'G1')!;
    expect(grouped).toMatchObject({ outcome: 'partial', entries: [{ id: 'g' }] });
    expect(grouped.expectations.map((e) => e.id).sort()).toEqual(['G1', 'G2']);
    expect(outcomeOf(result, 'LESS')).toMatchObject({ outcome: 'partial', paid: 400_00, expected: 500_00 });
    expect(outcomeOf(result, 'LESS')!.why).toContain('R$ 100,00 still open');
    expect(outcomeOf(result, 'MORE')).toMatchObject({ outcome: 'overpaid' });
    expect(outcomeOf(result, 'MORE')!.why).toContain('R$ 10,25 more');
  });

  it('pix payments meet their debits; a debit without one is outside pix; a missing debit is flagged', () => {
    const payment = (id: string, amount: number, sentAt: string, extra: Partial<ReconExpectation> = {}) =>
      ({
        id: `payment:${id}`,
        source: 'payment',
        amountCentavos: amount,
        sentAt,
        journalId: id,
        ...extra,
      }) as ReconExpectation;
    const result = run(
      [
        payment('p1', 50_00, '2026-03-10T12:00:00Z', { transferId: 'tx1' }),
        payment('p2', 70_00, '2026-03-10T12:00:00Z', { name: 'Fornecedor' }),
        payment('p3', 80_00, '2026-03-20T12:00:00Z'),
        payment('p4', 90_00, '2026-04-02T11:00:00Z'),
      ],
      [
        debit('tx1', 50, '2026-03-10T12:00:02Z'),
        debit('d2', 70, '2026-03-10T12:00:03Z'),
        debit('other', 12.34, '2026-03-11T12:00:00Z'),
      ],
    );
    expect(outcomeOf(result, 'payment:p1')).toMatchObject({ outcome: 'proven', entries: [{ id: 'tx1' }] });
    expect(outcomeOf(result, 'payment:p2')).toMatchObject({ outcome: 'probable', entries: [{ id: 'd2' }] });
    expect(outcomeOf(result, 'payment:p3')).toMatchObject({
      outcome: 'unmatched-expectation',
      flag: 'missing-debit',
    });
    expect(outcomeOf(result, 'payment:p4')).toMatchObject({ outcome: 'unmatched-expectation' });
    expect(outcomeOf(result, 'payment:p4')!.flag).toBeUndefined();
    const outside = result.results.find((r) => r.entries.some((e) => e.id === 'other'))!;
    expect(outside).toMatchObject({ outcome: 'unmatched-entry', flag: 'outside-pix' });
  });

  it('charges of the ledger are matched by the ledger matcher, with the evidence it found', () => {
    const charge = (id: string, amount: number, payerDocument?: string): ReconExpectation => ({
      id: `charge:${id}`,
      source: 'charge',
      amountCentavos: amount,
      charge: {
        id,
        type: 'immediate',
        amountCentavos: amount,
        createdAt: '2026-03-10T12:00:00Z',
        expiresAt: '2026-03-10T13:00:00Z',
        status: 'pending',
        payerDocument,
      },
    });
    const result = run(
      [charge('c1', 20_00, ANA), charge('c2', 33_33)],
      [credit('e1', 20, '2026-03-10T12:10:00Z', ANA), credit('e2', 33.33, '2026-03-10T12:20:00Z')],
    );
    expect(outcomeOf(result, 'charge:c1')).toMatchObject({ outcome: 'proven', entries: [{ id: 'e1' }] });
    expect(outcomeOf(result, 'charge:c2')).toMatchObject({ outcome: 'probable', entries: [{ id: 'e2' }] });
  });

  it("a person's decisions win: a manual match stays, an unmatch forbids the pair", () => {
    const expectations = [invoice('NF-1', 150_00, { document: ANA }), invoice('NF-2', 10_00)];
    const entries = [credit('e1', 150, '2026-03-11T15:00:00Z', ANA), credit('e2', 9, '2026-03-11T16:00:00Z')];
    const decisions: Decision[] = [
      { expectation: 'NF-1', entry: 'e1', decision: 'unmatch', at: '2026-04-01T00:00:00Z' },
      { expectation: 'NF-2', entry: 'e2', decision: 'match', at: '2026-04-01T00:00:00Z' },
      { expectation: 'NF-9', entry: 'e9', decision: 'match', at: '2026-04-01T00:00:00Z' },
    ];
    const result = run(expectations, entries, decisions);
    expect(outcomeOf(result, 'NF-1')).toMatchObject({ outcome: 'unmatched-expectation' });
    expect(outcomeOf(result, 'NF-2')).toMatchObject({
      outcome: 'partial',
      manual: true,
      entries: [{ id: 'e2' }],
    });
    expect(result.staleDecisions.map((d) => d.expectation)).toEqual(['NF-9']);
    // A later match of the pair undoes the unmatch.
    const again = run(expectations, entries, [
      ...decisions,
      { expectation: 'NF-1', entry: 'e1', decision: 'match', at: '2026-04-02T00:00:00Z' },
    ]);
    expect(outcomeOf(again, 'NF-1')).toMatchObject({ outcome: 'manual', manual: true });
  });

  it('every entry settles at most one result', () => {
    const result = run(
      [invoice('A', 10_00, { document: ANA }), invoice('B', 10_00), invoice('C', 10_00, { document: ANA })],
      [credit('e1', 10, '2026-03-11T15:00:00Z', ANA), credit('e2', 10, '2026-03-11T16:00:00Z')],
    );
    const seen = result.results.flatMap((r) => r.entries.map((e) => e.id));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual(['e1', 'e2']);
    expect(result.results.flatMap((r) => r.expectations.map((e) => e.id)).sort()).toEqual(['A', 'B', 'C']);
  });
});

describe('books a team can act on', () => {
  const charge = (id: string, amount: number, payerDocument: string, ref?: string): ReconExpectation => ({
    id: `charge:${id}`,
    source: 'charge',
    amountCentavos: amount,
    document: payerDocument,
    ...(ref === undefined ? {} : { ref }),
    charge: {
      id,
      type: 'immediate',
      amountCentavos: amount,
      createdAt: '2026-03-09T12:00:00Z',
      expiresAt: '2026-03-12T12:00:00Z',
      status: 'pending',
      payerDocument,
    },
  });

  it("last month's payment of the same amount does not prove this month's unpaid invoice", () => {
    // February's invoice was paid on 10/02; March's (due 10/03) is not paid. The range covers both.
    const result = reconcile(
      [invoice('NF-MAR', 1250_00, { document: LOJA, due: '2026-03-10' })],
      [credit('feb', 1250, '2026-02-10T14:00:00Z', LOJA, 'Mercado Bom Preço')],
      [],
      { ...RANGE, from: Date.parse('2026-02-01T03:00:00Z') },
    );
    const march = outcomeOf(result, 'NF-MAR')!;
    expect(march.outcome).toBe('unmatched-expectation');
    expect(march.entries).toEqual([]);
    expect(march.why).toBe(
      "no payment of R$ 1.250,00 from the payer's document from 20 days before its due date to 45 after, and no entry of R$ 1.250,00 without a document within 5 days of its due date; the payer's payments of the amount: entry feb, 28 days before its due date, outside those days",
    );
    // Paid in its window, it is proven; paid three weeks late, probable, and why.
    const inWindow = run(
      [invoice('NF-MAR', 1250_00, { document: LOJA, due: '2026-03-10' })],
      [credit('mar', 1250, '2026-03-12T14:00:00Z', LOJA)],
    );
    expect(outcomeOf(inWindow, 'NF-MAR')).toMatchObject({
      outcome: 'proven',
      why: "the payer's document and the amount (R$ 1.250,00), 2 days after its due date",
    });
    const late = run(
      [invoice('NF-FEB', 1250_00, { document: LOJA, due: '2026-03-05' })],
      [credit('late', 1250, '2026-03-27T14:00:00Z', LOJA)],
    );
    expect(outcomeOf(late, 'NF-FEB')).toMatchObject({
      outcome: 'probable',
      why: "the payer's document and the amount (R$ 1.250,00), 22 days after its due date: later than the 10 days after its due date a payment proves it in",
    });
  });

  it('a charge issued for an invoice (--ref): the invoice is settled with the charge, by its payment', () => {
    const entries = [credit('paid', 1250, '2026-03-09T12:30:00Z', LOJA, 'Mercado Bom Preço')];
    const withRef = run(
      [
        invoice('NF-1042', 1250_00, { document: LOJA, due: '2026-03-10' }),
        charge('c1', 1250_00, LOJA, 'NF-1042'),
      ],
      entries,
    );
    const both = outcomeOf(withRef, 'NF-1042')!;
    expect(both.outcome).toBe('proven');
    expect(both.expectations.map((e) => e.id)).toEqual(['charge:c1', 'NF-1042']);
    expect(both.entries.map((e) => e.id)).toEqual(['paid']);
    expect(both.why).toMatch(/; NF-1042 is the invoice charge c1 collects \(--ref\)$/);
    expect(withRef.results.filter((r) => r.outcome === 'unmatched-expectation')).toEqual([]);
    // Without --ref the charge still takes the payment, and the invoice says so: no false "no payment".
    const without = run(
      [invoice('NF-1042', 1250_00, { document: LOJA, due: '2026-03-10' }), charge('c1', 1250_00, LOJA)],
      entries,
    );
    expect(outcomeOf(without, 'NF-1042')!.why).toMatch(
      /the payer's payments of the amount: entry paid, 1 day before its due date, which settled charge:c1$/,
    );
    // A charge for the invoice not paid yet: the invoice names it.
    const unpaid = run(
      [
        invoice('NF-1042', 1250_00, { document: LOJA, due: '2026-03-10' }),
        charge('c1', 1250_00, LOJA, 'NF-1042'),
      ],
      [],
    );
    expect(outcomeOf(unpaid, 'NF-1042')!.why).toMatch(
      /; charge c1 collects it \(--ref\) and is not paid either$/,
    );
  });

  it('an invoice not yet due is not_due; a manual unmatch says so in the why', () => {
    const result = run(
      [
        invoice('NF-APR', 300_00, { document: ANA, due: '2026-04-10' }),
        invoice('NF-1', 150_00, { document: ANA }),
      ],
      [credit('e1', 150, '2026-03-11T15:00:00Z', ANA)],
      [{ expectation: 'NF-1', entry: 'e1', decision: 'unmatch', at: '2026-04-01T00:00:00Z' }],
    );
    expect(outcomeOf(result, 'NF-APR')).toMatchObject({
      outcome: 'not_due',
      why: 'due on 2026-04-10: not due yet, and nothing paid it so far',
    });
    expect(outcomeOf(result, 'NF-1')!.why).toMatch(
      /; entry e1 was unmatched from it by hand \(pix reconcile unmatch\)$/,
    );
  });
});
