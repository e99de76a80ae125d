import { describe, expect, it } from 'vitest';
import { decodeBrCode } from '../../src/domain/brcode.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';

/**
 * A charge's round trip through the built binary on the embedded sandbox (one PIX_CONFIG_DIR, so every
 * process shares the sandbox state): charge → pay its code → both entries in the statement → the code
 * cannot be paid again; and a due-date charge refused once the sandbox clock passes its expiry.
 */
describe('round trip on the embedded sandbox', () => {
  it('an immediate charge paid by its code completes and shows both entries', async () => {
    const env = { PIX_CONFIG_DIR: tempConfigDir() };
    const pix = (...args: string[]) => runCli(args, { env });

    const created = await pix('charge', 'immediate', '--amount', '10,50', '--no-qr', '--json');
    expect(created.code).toBe(0);
    const charge = JSON.parse(created.stdout);
    expect(charge).toMatchObject({ amount: 10.5, status: 'PENDING', type: 'IMMEDIATE_QRCODE' });
    expect(decodeBrCode(charge.emvqrcps).kind).toBe('dynamic');

    const paid = await pix('pay', 'qr', charge.emvqrcps, '--yes', '--json');
    expect(paid.code).toBe(0);
    const { consult, transfer } = JSON.parse(paid.stdout);
    expect(consult.type).toBe('DYNAMIC_QRCODE');
    expect(consult.amount.final).toBe(10.5);
    expect(transfer).toMatchObject({ status: 'PENDING', amount: 10.5, endToEndId: consult.endToEndId });

    // Transfers settle on sandbox time; move it on rather than sleeping.
    expect((await pix('sandbox', 'clock', '--advance', '1m')).code).toBe(0);
    const statement = await pix('statement', '--from', 'today', '--to', 'today', '--limit', '50', '--json');
    expect(statement.code).toBe(0);
    const entries: Array<{ type: string; amount: number; status: string }> = JSON.parse(
      statement.stdout,
    ).results;
    expect(entries).toContainEqual(
      expect.objectContaining({ type: 'INCOME', amount: 10.5, status: 'CONFIRMED' }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ type: 'OUTCOME', amount: -10.5, status: 'CONFIRMED' }),
    );

    // The charge is completed: the journal refuses a second payment (8), and the API itself refuses it (5).
    expect((await pix('pay', 'qr', charge.emvqrcps, '--yes')).code).toBe(8);
    const again = await pix('pay', 'qr', charge.emvqrcps, '--yes', '--allow-duplicate');
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/^error: .*\(400\)/m);
  });

  it('a due-date charge is refused once the clock passes its expiry', async () => {
    const env = { PIX_CONFIG_DIR: tempConfigDir() };
    const pix = (...args: string[]) => runCli(args, { env });
    // Far enough ahead that "today or later" holds in any time zone the test machine is in.
    const due = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const created = await pix(
      'charge',
      'duedate',
      '--amount',
      '25',
      '--due',
      due,
      '--expire-after-days',
      '1',
      '--debtor-name',
      'Maria Oliveira Santos',
      '--debtor-cpf',
      '529.982.247-25',
      '--no-qr',
      '--json',
    );
    expect(created.code).toBe(0);
    const charge = JSON.parse(created.stdout);
    expect(charge.dueDate).toBe(due);

    const before = await pix('pay', 'qr', charge.emvqrcps, '--dry-run', '--json');
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout).transfer).toBeNull();

    expect((await pix('sandbox', 'clock', '--advance', '5d')).code).toBe(0);
    const after = await pix('pay', 'qr', charge.emvqrcps, '--yes');
    expect(after.code).toBe(5);
    // The sandbox answers in Portuguese, as the real API does: "Cobrança expirada".
    expect(after.stderr).toMatch(/^error: .*\(400\): Cobrança expirada/m);
  });
});
