import { describe, expect, it } from 'vitest';
import { AMOUNT_FORMS, formatBRL, parseAmount, parseReaisNumber } from '../../src/domain/money.js';
import { refusalOf } from '../helpers/domain.js';

describe('parseAmount: amounts as Brazilians write them', () => {
  it.each([
    ['10', 1000],
    ['10.5', 1050],
    ['10,50', 1050],
    ['1234.56', 123456],
    ['1234,56', 123456],
    ['1.234,56', 123456],
    ['1.234,5', 123450],
    ['1.234.567,89', 123456789],
    ['R$ 10,00', 1000],
    ['R$10,00', 1000],
    ['r$ 1.500,00', 150000],
    ['R$  7', 700],
    [' R$ 1.234,56 ', 123456],
    ['007,50', 750],
    ['9.999.999.999.999,99', 999_999_999_999_999],
  ])('%j → %d centavos', (text, centavos) => {
    expect(parseAmount(text)).toBe(centavos);
  });

  it('reads back every amount pix prints for people (formatBRL)', () => {
    for (const centavos of [1, 99, 100, 1000, 123456, 100000000, 999_999_999_999_999]) {
      expect(parseAmount(formatBRL(centavos))).toBe(centavos);
    }
  });

  it.each([
    ['1.234', /"1\.234" is ambiguous: .*For 1234 reais write 1234 or 1\.234,00/],
    ['10.505', /"10\.505" is ambiguous: .*For 10505 reais write 10505 or 10\.505,00/],
    ['1,234', /"1,234" is ambiguous/],
    ['R$ 1.234', /"R\$ 1\.234" is ambiguous/],
    ['1.234.567', /has thousands dots but no decimal comma: write 1\.234\.567,00 or 1234567/],
    ['1,234.56', /comma thousands and dot decimals \(as in English\): write 1\.234,56 or 1234\.56/],
    ['1,234,567', /comma thousands/],
    ['1.2345', /more than 2 decimals/],
    ['1234.567', /more than 2 decimals/],
    ['1.234,567', /more than 2 decimals/],
    ['12.34,56', /is not an amount in reais/],
    ['1.23.456,00', /is not an amount in reais/],
    ['1 234,56', /is not an amount in reais/],
    ['1e3', /is not an amount in reais/],
    ['US$ 10', /is not an amount in reais/],
    ['abc', /is not an amount in reais/],
    ['', /an amount is required/],
    ['10000000000000', /too large/],
  ])('%j is refused with the accepted forms as the hint', (text, reason) => {
    const refusal = refusalOf(() => parseAmount(text));
    expect(refusal.message).toMatch(reason);
    expect(refusal.hint).toBe(AMOUNT_FORMS);
  });

  it.each([
    ['R', /"R" is not an amount: unquoted, the shell took \$ and the digits after it/],
    ['R0,50', /the shell took \$/],
    ['R$', /unquoted, the shell made R\$ and the amount two words/],
  ])('%j (R$5, R$10,50, R$ 5 unquoted in a shell) says to quote it', (text, reason) => {
    const refusal = refusalOf(() => parseAmount(text));
    expect(refusal.message).toMatch(reason);
    expect(refusal.hint).toBe("quote it: --amount 'R$ 5', or leave R$ out: --amount 5");
  });

  // "0,001" was called ambiguous and the hint said "write 1 or 0.001,00" — neither
  // is what was meant, and 0.001,00 is not even a form pix accepts. A group after a leading zero is never
  // thousands: these are decimals, one too many, and the hint says what the amount may be instead.
  it.each([
    ['0,001', '"0,001" has more than 2 decimals: the smallest amount is 0,01 (one centavo)'],
    ['0.005', '"0.005" has more than 2 decimals: the smallest amount is 0.01 (one centavo)'],
    ['0,015', '"0,015" has more than 2 decimals: write 0,01 or 0,02'],
    ['0,500', '"0,500" has more than 2 decimals: write 0,50'],
    ['00.250', '"00.250" has more than 2 decimals: write 0.25'],
  ])('%j after a leading zero is three decimals, never thousands: %s', (text, message) => {
    const refusal = refusalOf(() => parseAmount(text));
    expect(refusal.message).toBe(message);
    expect(refusal.message.slice(text.length + 2)).not.toMatch(/ambiguous|,00\b/);
    expect(refusal.hint).toBe(AMOUNT_FORMS);
  });

  it('every amount a refusal of three decimals suggests is accepted and within a centavo of what was written', () => {
    for (const text of ['0,015', '0,500', '00.250', '0,001', '0,999', '0.005']) {
      const message = refusalOf(() => parseAmount(text)).message;
      const written = Number(text.replace(',', '.'));
      const suggested = [...message.matchAll(/(?:write|is|or) (\d(?:[\d.,]*\d)?)/g)].map((m) => m[1]!);
      expect(suggested.length, message).toBeGreaterThan(0);
      for (const amount of suggested) {
        const centavos = parseAmount(amount);
        expect(Math.abs(centavos / 100 - written), `${text} → ${amount}`).toBeLessThan(0.01);
      }
    }
  });

  it.each([
    ['-1', /negative/],
    ['-R$ 5', /negative/],
    ['R$ -5', /negative/],
    ['0', /more than zero/],
    ['R$ 0,00', /more than zero/],
  ])('%j is refused: %s', (text, reason) => {
    expect(refusalOf(() => parseAmount(text)).message).toMatch(reason);
  });
});

describe('parseReaisNumber: JSON numbers, where the dot is always a decimal point', () => {
  it.each([
    [10, 1000],
    [10.5, 1050],
    [1234.56, 123456],
    [0.01, 1],
  ])('%d → %d centavos', (reais, centavos) => {
    expect(parseReaisNumber(reais)).toBe(centavos);
  });

  it.each([
    [10.123, /10\.123 has more than 2 decimals/],
    [1.234, /more than 2 decimals/],
    [-1, /negative/],
    [1e21, /is not an amount/],
    [0, /more than zero/],
  ])('%d is refused', (reais, reason) => {
    expect(refusalOf(() => parseReaisNumber(reais)).message).toMatch(reason);
  });
});
