/**
 * One amount parser (domain/money parseAmount) behind every place a person types money: the `--amount`
 * flags, the duedate modifiers and the `max-amount` config key. Run in-process against the embedded
 * sandbox (no network), so the amounts are seen as the API receives and answers them.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { pixWith } from '../helpers/pix.js';

let env: Record<string, string>;

beforeEach(() => {
  env = { PIX_CONFIG_DIR: tempConfigDir() };
});

const pix = pixWith(() => ({ env }));

describe('amounts as Brazilians write them, everywhere an amount is typed', () => {
  it('`config set max-amount 1.500,00` stores 1500.00, and a payment above it is declined before sending', async () => {
    const set = await pix(['config', 'set', 'max-amount', '1.500,00']);
    expect(set.code, set.stderr).toBe(0);
    expect((await pix(['config', 'get', 'max-amount'])).stdout.trim()).toBe('1500.00');
    const above = await pix(['pay', 'key', 'ana@example.com', '--amount', 'R$ 1.500,01', '--yes']);
    expect(above.code).toBe(8);
    expect(above.stderr).toContain('R$ 1.500,01 is above the max-amount of profile "sandbox" (R$ 1.500,00)');
  });

  it('`config set max-amount 1.500` is refused as ambiguous, with the accepted forms', async () => {
    const result = await pix(['config', 'set', 'max-amount', '1.500']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: max-amount: "1\.500" is ambiguous: .*write 1500 or 1\.500,00\n/);
    expect(result.stderr).toContain('hint: amounts are reais: 10, 10,50, 10.50, 1.234,56 or R$ 1.234,56');
  });

  it('`pay key --amount "R$ 1.234,56"` transfers 1234.56', async () => {
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', 'R$ 1.234,56', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).transfer.amount).toBe(1234.56);
  });

  it('`charge immediate --amount R$10,00` charges 10.00; `--amount 1,234.56` is refused with a hint', async () => {
    const ok = await pix(['charge', 'immediate', '--amount', 'R$10,00', '--json', '--no-qr']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).amount).toBe(10);
    const english = await pix(['charge', 'immediate', '--amount', '1,234.56', '--no-qr']);
    expect(english.code).toBe(2);
    expect(english.stderr.split('\n').slice(0, 2)).toEqual([
      'error: --amount: "1,234.56" has comma thousands and dot decimals (as in English): write 1.234,56 or 1234.56',
      'hint: amounts are reais: 10, 10,50, 10.50, 1.234,56 or R$ 1.234,56',
    ]);
  });
});
