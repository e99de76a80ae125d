/**
 * Money suite: 10,000 random amounts round-trip text → centavos (parseAmount) → API JSON
 * (centavosToApi, JSON.stringify/parse) → centavosFromApi → display (formatBRL, formatDecimal) → parse
 * back (parseBRL, parseAmount) with no drift; then a sample goes through a real charge on the sandbox.
 * A seeded PRNG makes any failure reproducible: the failing seed and text are in the message.
 *
 * The BR Code encoder/decoder properties (encode → decode is the identity; any one changed character
 * is caught by the CRC) live in test/domain/brcode.test.ts ("properties").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Centavos,
  centavosFromApi,
  centavosToApi,
  formatBRL,
  formatDecimal,
  parseAmount,
  parseBRL,
} from '../../src/domain/money.js';
import { run } from '../../src/main.js';
// The sandbox's seeded PRNG (mulberry32): failures here reproduce from the seed.
import { prng, SEEDED_KEYS } from '../../src/sandbox/seed.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { tempConfigDir } from '../helpers/cli.js';
import { createTestIO } from '../helpers/io.js';

const SEED = 0x5eed_2026;
const ROUNDS = 10_000;

/**
 * An amount as a user would type it: 1 to 13 digits of reais (log-uniform, so small and huge amounts
 * are both common), 0, 1 or 2 decimals, a dot or a comma, sometimes dot thousands with the comma
 * (`1.234,56`, as pix prints it), sometimes `R$` (with or without a space), sometimes surrounding spaces.
 */
function randomAmountText(rand: () => number): { text: string; centavos: Centavos } {
  const digits = 1 + Math.floor(rand() * 13);
  let reais = String(Math.floor(rand() * 10 ** digits));
  if (rand() < 0.1) reais = reais.padStart(digits, '0'); // leading zeros: "007,50"
  const decimals = Math.floor(rand() * 3);
  const fraction = decimals === 0 ? '' : String(Math.floor(rand() * 10 ** decimals)).padStart(decimals, '0');
  const separator = rand() < 0.5 ? '.' : ',';
  let text = decimals === 0 ? reais : `${reais}${separator}${fraction}`;
  // Thousands dots need the decimal comma: `1.234` alone is refused as ambiguous (test/domain/money.test.ts).
  if (decimals > 0 && rand() < 0.3) {
    text = `${reais.replace(/\B(?=(\d{3})+$)/g, '.')},${fraction}`;
  }
  const currency = rand();
  if (currency < 0.1) text = `R$ ${text}`;
  else if (currency < 0.15) text = `R$${text}`;
  if (rand() < 0.05) text = ` ${text}\t`;
  const centavos = Number(reais) * 100 + (decimals === 0 ? 0 : Number(fraction.padEnd(2, '0')));
  return { text, centavos };
}

describe(`money suite: ${ROUNDS.toLocaleString('en')} random amounts (seed ${SEED.toString(16)})`, () => {
  it('text → centavos → API JSON → centavos → display → parse back, no drift', () => {
    const rand = prng(SEED);
    let checked = 0;
    let zeros = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { text, centavos: expected } = randomAmountText(rand);
      const where = `round ${round}, text ${JSON.stringify(text)}`;
      if (expected === 0) {
        // Zero is refused (contract §2); that too is part of the round trip.
        expect(() => parseAmount(text), where).toThrow();
        zeros++;
        continue;
      }
      const centavos = parseAmount(text);
      expect(centavos, where).toBe(expected);
      expect(Number.isSafeInteger(centavos), where).toBe(true);

      // The request body as it goes on the wire, and the answer as it comes back.
      const wire = JSON.stringify({ amount: centavosToApi(centavos) });
      const back = centavosFromApi((JSON.parse(wire) as { amount: number }).amount);
      expect(back, `${where}, wire ${wire}`).toBe(centavos);
      // The wire form is the decimal reais a person would write, never float noise like 10.499999.
      expect(wire, where).toBe(
        `{"amount":${formatDecimal(centavos)
          .replace(/\.?0+$/, '')
          .replace(/\.$/, '')}}`,
      );

      // Display for people and machines, and back; the debit (OUTCOME) side too.
      expect(parseBRL(formatBRL(back)), where).toBe(centavos);
      expect(parseBRL(formatBRL(-back)), where).toBe(-centavos);
      expect(parseAmount(formatDecimal(back)), where).toBe(centavos);
      expect(parseAmount(formatDecimal(back).replace('.', ',')), where).toBe(centavos);
      // What pix prints for people is what people may type back: `R$ 1.234,56`.
      expect(parseAmount(formatBRL(back)), where).toBe(centavos);
      checked++;
    }
    expect(checked + zeros).toBe(ROUNDS);
    expect(checked).toBeGreaterThan(ROUNDS * 0.95);
  });

  it('the edges: 0,01, R$ 0,99, the largest amount accepted, and its neighbours', () => {
    for (const [text, centavos] of [
      ['0,01', 1],
      ['0.99', 99],
      ['R$ 0,99', 99],
      ['1', 100],
      ['9999999999999.99', 999_999_999_999_999],
      ['9999999999999,9', 999_999_999_999_990],
      ['R$ 9.999.999.999.999,99', 999_999_999_999_999],
    ] as const) {
      const parsed = parseAmount(text);
      expect(parsed).toBe(centavos);
      expect(centavosFromApi(JSON.parse(JSON.stringify(centavosToApi(parsed))) as number)).toBe(centavos);
      expect(parseBRL(formatBRL(parsed))).toBe(centavos);
    }
    expect(() => parseAmount('10000000000000')).toThrow();
    expect(() => parseAmount('10.000.000.000.000,00')).toThrow();
  });
});

describe('money suite: through a real charge on the sandbox', () => {
  let server: SandboxServer;
  let dir: string;
  beforeAll(async () => {
    dir = tempConfigDir();
    server = await startSandboxServer({ stateFile: `${dir}/state.json` });
  });
  afterAll(() => server.close());

  // 100 whole commands against a served sandbox, each writing its charge to the journal: 5 s idle, 20 s at a
  // load of 15 on 2 cores, so the minute the end-to-end tests have rather than the unit tier's 20 s.
  it('100 random amounts typed to `pix charge immediate --json` come back as the same centavos', {
    timeout: 60_000,
  }, async () => {
    const rand = prng(SEED + 1);
    const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'tok_money' };
    for (let round = 0; round < 100; round++) {
      let sample = randomAmountText(rand);
      // Charges are 5.00 to the sandbox's maximum (R$ 1,000,000,000.00).
      while (sample.centavos < 5_00 || sample.centavos > 1_000_000_000_00) sample = randomAmountText(rand);
      const test = createTestIO();
      const code = await run(
        ['charge', 'immediate', '--amount', sample.text, '--key', SEEDED_KEYS.email.key, '--no-qr', '--json'],
        { io: test.io, env },
      );
      expect(code, `${sample.text}: ${test.stderr()}`).toBe(0);
      const charge = JSON.parse(test.stdout()) as { amount?: { original?: number } | number };
      const reais = typeof charge.amount === 'number' ? charge.amount : charge.amount?.original;
      expect(centavosFromApi(reais as number), `round ${round}, ${sample.text}`).toBe(sample.centavos);
    }
  });
});
