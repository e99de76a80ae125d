import { describe, expect, it } from 'vitest';
import { foldName, sameName } from '../../src/domain/names.js';

describe('names as banks write them', () => {
  it('folds accents, case and runs of white space', () => {
    expect(foldName('  JOSÉ   da Conceição ')).toBe('jose da conceicao');
  });

  it('an upper-case ASCII name is the accented one; an empty name is no one', () => {
    expect(sameName('JOAO PEDRO OLIVEIRA', 'João Pedro Oliveira')).toBe(true);
    expect(sameName('João Pedro', 'João Paulo')).toBe(false);
    expect(sameName(' ', ' ')).toBe(false);
    expect(sameName(undefined, undefined)).toBe(false);
  });

  it('a name as a statement writes it, punctuation dropped, is the name (folding for names only)', () => {
    expect(sameName('MERCADO BOM PRECO LTDA', 'Mercado Bom Preço, Ltda.')).toBe(true);
    expect(sameName('D AVILA JOAO', "D'Ávila, João")).toBe(true);
    expect(sameName('...', '---')).toBe(false);
    expect(foldName('Bom Preço, Ltda.')).toBe('bom preco, ltda.');
  });
});
