import { describe, expect, it } from 'vitest';
import {
  checkBounds,
  entryPredicate,
  fold,
  parseCounterparty,
  parseEntryType,
} from '../../src/domain/entryfilter.js';
import { InvalidValue } from '../../src/domain/invalid.js';

const income = { type: 'INCOME', amount: 15_050, name: 'João Pereira Lima', document: '390.533.447-05' };
const outcome = {
  type: 'OUTCOME',
  amount: -2_025,
  name: 'Mercado Bom Preço, Ltda',
  document: '04252011000110',
};

describe('statement filters (pure)', () => {
  it('no filter is no predicate: every entry is shown', () => {
    expect(entryPredicate({})).toBeUndefined();
  });

  it('--type keeps one side; the words are income and outcome, any case', () => {
    expect(parseEntryType('Income')).toBe('INCOME');
    expect(parseEntryType(' outcome ')).toBe('OUTCOME');
    expect(() => parseEntryType('in')).toThrow(InvalidValue);
    const keep = entryPredicate({ type: 'OUTCOME' })!;
    expect([income, outcome].filter(keep)).toEqual([outcome]);
  });

  it('--min/--max bound the amount without its sign, both inclusive', () => {
    expect([income, outcome].filter(entryPredicate({ min: 2_025 })!)).toEqual([income, outcome]);
    expect([income, outcome].filter(entryPredicate({ min: 2_026 })!)).toEqual([income]);
    expect([income, outcome].filter(entryPredicate({ max: 2_025 })!)).toEqual([outcome]);
    expect([income, outcome].filter(entryPredicate({ min: 2_025, max: 15_050 })!)).toEqual([income, outcome]);
    expect([income, outcome].filter(entryPredicate({ min: 2_026, max: 15_049 })!)).toEqual([]);
    expect(() => checkBounds(10_000, 500)).toThrow(/less than --min/);
    expect(() => checkBounds(500, 500)).not.toThrow();
  });

  it('--counterparty matches the name ignoring case, accents and spacing', () => {
    expect(fold('  JOSÉ   da Conceição ')).toBe('jose da conceicao');
    expect([income, outcome].filter(entryPredicate({ counterparty: 'joao pereira' })!)).toEqual([income]);
    expect([income, outcome].filter(entryPredicate({ counterparty: 'PREÇO' })!)).toEqual([outcome]);
    expect([income, outcome].filter(entryPredicate({ counterparty: 'nobody' })!)).toEqual([]);
  });

  it('--counterparty of digits (with document punctuation) matches the document digits, not the name', () => {
    expect([income, outcome].filter(entryPredicate({ counterparty: '390.533' })!)).toEqual([income]);
    expect([income, outcome].filter(entryPredicate({ counterparty: '04.252.011/0001-10' })!)).toEqual([
      outcome,
    ]);
    expect([income, outcome].filter(entryPredicate({ counterparty: '999' })!)).toEqual([]);
    // An entry without a document never matches a document search.
    expect(
      [{ type: 'INCOME', amount: 1, name: '999' }].filter(entryPredicate({ counterparty: '999' })!),
    ).toEqual([]);
  });

  it('filters combine: every one must hold', () => {
    const keep = entryPredicate({ type: 'INCOME', counterparty: 'mercado' })!;
    expect([income, outcome].filter(keep)).toEqual([]);
  });

  it('an empty --counterparty is refused', () => {
    expect(() => parseCounterparty('   ')).toThrow(InvalidValue);
    expect(parseCounterparty('Maria')).toBe('Maria');
  });
});
