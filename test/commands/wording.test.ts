/**
 * Counts and articles read correctly in every message that has one (never "1 entries" or "a interest").
 */
import { describe, expect, it } from 'vitest';
import type { StatementEntry } from '../../src/api/resources/statement.js';
import { finishExport } from '../../src/commands/shared/export.js';
import { Totals } from '../../src/commands/statement/list.js';
import { parseTaxId } from '../../src/domain/documents.js';
import { parseModality } from '../../src/domain/modalities.js';
import { parsePixKey } from '../../src/domain/pixkey.js';
import { counted } from '../../src/domain/words.js';
import { run } from '../../src/main.js';
import { createContext } from '../../src/wiring.js';
import { tempConfigDir } from '../helpers/cli.js';
import { reasonOf } from '../helpers/domain.js';
import { createTestIO } from '../helpers/io.js';

const entry = (amount: number): StatementEntry =>
  ({
    id: `e${amount}`,
    type: 'INCOME',
    amount,
    confirmedAt: '2026-11-20T15:00:00Z',
    status: 'CONFIRMED',
  }) as StatementEntry;

describe('wording', () => {
  it('counted: one entry, other numbers of entries', () => {
    expect(counted(1, 'entry', 'entries')).toBe('1 entry');
    expect(counted(0, 'entry', 'entries')).toBe('0 entries');
    expect(counted(2, 'digit')).toBe('2 digits');
  });

  it('the statement totals line says "1 entry"', () => {
    const totals = new Totals();
    totals.add(entry(10));
    expect(totals.line(false)).toBe('1 entry: in 10.00, out 0.00, fees 0.00, net 10.00');
    totals.add(entry(5));
    expect(totals.line(false)).toMatch(/^2 entries: /);
    totals.add({ ...entry(7), status: 'PENDING' });
    expect(totals.line(false)).toBe(
      '2 entries: in 15.00, out 0.00, fees 0.00, net 15.00; 1 entry not CONFIRMED (not counted)',
    );
  });

  it('an export that dropped one duplicate says "1 duplicate entry (same id) was left out"', () => {
    const test = createTestIO();
    const { deps } = createContext({ argv: [], io: test.io, env: {} });
    finishExport(
      deps,
      { total: 2, startOffset: 0, finalTotal: 2, moved: false, yielded: 2, duplicatesDropped: 1 },
      'statement',
    );
    expect(test.stderr()).toBe('warning: 1 duplicate entry (same id) was left out\n');
  });

  it('`pix sandbox seed --transactions 1` says "1 generated transaction"', async () => {
    const test = createTestIO();
    const code = await run(['sandbox', 'seed', '--transactions', '1'], {
      io: test.io,
      env: { PIX_CONFIG_DIR: tempConfigDir() },
    });
    expect(code).toBe(0);
    expect(test.stderr()).toMatch(/^sandbox: 1 generated transaction over the 60 days/m);
  });

  it('documents and keys count one character or digit in the singular', () => {
    expect(reasonOf(() => parseTaxId('1'))).toMatch(/^"1" has 1 character: /);
    expect(reasonOf(() => parsePixKey('7'))).toMatch(/^"7" has 1 digit: /);
  });

  it('modality messages need no article ("a interest")', () => {
    expect(reasonOf(() => parseModality('fine', 'PERCENTAGE_PER_DAY_CALENDAR_DAYS'))).toBe(
      '"PERCENTAGE_PER_DAY_CALENDAR_DAYS" is a modality of interest, not of fine',
    );
  });
});
