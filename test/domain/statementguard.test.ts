import { describe, expect, it } from 'vitest';
import { documentsAgree } from '../../src/domain/documents.js';
import type { Centavos } from '../../src/domain/money.js';
import { type Debit, duplicateDebit, unexplainedDebits } from '../../src/domain/statementguard.js';

const c = (n: number) => n as Centavos;
const debit = (id: string, amount: number, document?: string, name?: string): Debit => ({
  id,
  at: `2026-03-10T10:00:0${id.length % 10}Z`,
  amount: c(amount),
  document,
  name,
});

describe('documentsAgree: one person, as far as the masks show', () => {
  it.each([
    ['52998224725', '529.982.247-25', true],
    ['***.982.247-**', '52998224725', true],
    ['***.982.247-**', '***.982.247-**', true],
    ['***.982.247-**', '52998224700', true], // the mask hides the check digits
    ['***.982.248-**', '52998224725', false],
    ['**.222.333/0001-**', '11222333000181', true],
    ['***.***.***-**', '52998224725', false], // shows nothing: proves nothing
    ['52998224725', '11222333000181', false],
  ])('%s and %s → %s', (a, b, same) => {
    expect(documentsAgree(a, b)).toBe(same);
  });
});

describe('the statement guard', () => {
  it('each journal payment explains one debit of its amount and receiver; the rest are unexplained', () => {
    const debits = [
      debit('d1', 5000, '52998224725', 'Ana'),
      debit('d22', 5000, '52998224725', 'Ana'),
      debit('d333', 700, undefined, 'Bia'),
    ];
    const left = unexplainedDebits(debits, [{ amount: c(5000), document: '***.982.247-**' }]);
    expect(left.map((d) => d.id)).toEqual(['d22', 'd333']);
    expect(duplicateDebit(left, { amount: c(5000), document: '52998224725' })?.id).toBe('d22');
    // Known by name where no document is known; another amount or person is not the same payment.
    expect(duplicateDebit(left, { amount: c(700), name: ' bia ' })?.id).toBe('d333');
    expect(duplicateDebit(left, { amount: c(701), name: 'Bia' })).toBeUndefined();
    expect(duplicateDebit(left, { amount: c(5000), document: '11222333000181' })).toBeUndefined();
    expect(
      unexplainedDebits(debits, [
        { amount: c(5000), document: '52998224725' },
        { amount: c(5000), document: '52998224725' },
        { amount: c(700), name: 'BIA' },
      ]),
    ).toEqual([]);
  });

  it('a name as banks write it: upper case, no accents, no punctuation, no document', () => {
    const debits = [
      debit('d1', 5000, undefined, 'JOAO PEDRO OLIVEIRA'),
      debit('d22', 990, undefined, 'TECH IPE LTDA'),
    ];
    expect(
      duplicateDebit(debits, { amount: c(5000), document: '52998224725', name: 'João Pedro Oliveira' })?.id,
    ).toBe('d1');
    expect(duplicateDebit(debits, { amount: c(990), name: 'Tech Ipê Ltda.' })?.id).toBe('d22');
    expect(duplicateDebit(debits, { amount: c(5000), name: 'João Paulo Oliveira' })).toBeUndefined();
    // A document on both sides decides, whatever the names: the same CPF is the same person.
    expect(
      duplicateDebit([debit('d1', 5000, '***.982.247-**', 'J P OLIVEIRA')], {
        amount: c(5000),
        document: '52998224725',
        name: 'João Pedro Oliveira',
      })?.id,
    ).toBe('d1');
  });
});
