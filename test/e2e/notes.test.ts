import { describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/store.js';
import { SYSTEM } from '../../src/system.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { runOnPty } from '../helpers/terminal.js';

/** A journal of a payment and a charge, so `pix journal` at 50 columns leaves columns out and says so. */
function journalDir(): string {
  const dir = tempConfigDir();
  const journal = openJournal(dir, { ...SYSTEM, clock: { now: () => new Date('2026-03-10T09:00:00Z') } });
  const payment = journal.begin({
    kind: 'payment',
    account: 'acct_test',
    profile: 'prod',
    host: 'api.example.test',
    amountCentavos: 100_000,
    receiver: 'Loja da Esquina',
    endToEndId: 'E2',
    payment: { method: 'qr', emvHash: 'ab'.repeat(32), dynamic: true },
  });
  journal.finish(payment.id, { state: 'done', transferId: 't1' });
  const charge = journal.begin({
    kind: 'charge',
    account: 'acct_test',
    profile: 'prod',
    host: 'api.example.test',
    amountCentavos: 500,
    charge: { type: 'immediate', keyId: 'k-1' },
  });
  journal.finish(charge.id, { state: 'done', chargeId: 'c-1', status: 'PENDING' });
  return dir;
}

const NOTE = /^(\w+, )+\w+: left out to fit 50 columns; --wide shows every column$/;

describe('notes on stderr for people', () => {
  it('wider than the terminal: wrapped at word boundaries to its width, never inside a word', async () => {
    const dir = journalDir();
    const result = await runOnPty(['journal'], { env: { PIX_CONFIG_DIR: dir }, columns: 50, rows: 24 });
    expect(result.code).toBe(0);
    // The note: every line after the table's bottom border.
    const bottom = result.lines.findIndex((line) => line.startsWith('└'));
    expect(bottom, result.lines.join('\n')).toBeGreaterThan(-1);
    const lines = result.lines.slice(bottom + 1);
    expect(lines.length, result.lines.join('\n')).toBeGreaterThan(1);
    // Broken where words end: joined with spaces, it is the very line a piped stderr gets.
    expect(lines.join(' ')).toMatch(NOTE);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(50);
  });

  it('piped: an error stays one whole `error:` line, however long (scripts parse it)', async () => {
    const long = 'not-a-key-id-but-a-long-name-that-goes-on-and-on and on past the eightieth column';
    const result = await runCli(['charge', 'immediate', '--amount', '10', '--key-id', long], {
      env: { PIX_CONFIG_DIR: journalDir() },
    });
    expect(result.code).not.toBe(0);
    const first = result.stderr.split('\n')[0]!;
    expect(first).toMatch(
      /^error: --key-id: ".*" \(81 characters\) is not a key id: a UUID, or its first characters as `pix keys` shows them \(at least 4\)$/,
    );
    expect(first.length).toBeGreaterThan(80);
  });
});
