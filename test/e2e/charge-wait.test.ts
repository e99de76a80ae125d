/**
 * `pix charge wait`, the built binary against `pix sandbox serve`'s server on a free loopback port:
 * it returns 0 within a few seconds of `pix sandbox pay`, and the ledger then lists the charge paid;
 * and the sandbox's clock (`pix sandbox clock`) is the clock its expiry is judged by, served or embedded.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SEEDED_KEYS } from '../../src/sandbox/seed.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { serveSandbox } from '../helpers/served.js';
import { runOnPty } from '../helpers/terminal.js';

describe('pix charge wait, built binary against the embedded sandbox', () => {
  it('exits 5 on a charge expired in sandbox time, after `pix sandbox clock --advance 2d`', async () => {
    const env = { PIX_CONFIG_DIR: tempConfigDir() };
    const created = await runCli(
      ['charge', 'immediate', '--amount', '10', '--expires-in', '1h', '--json', '--no-qr'],
      {
        env,
      },
    );
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect((await runCli(['sandbox', 'clock', '--advance', '2d'], { env })).code).toBe(0);
    const waited = await runCli(['charge', 'wait', id, '--interval', '1s', '--wait', '15s'], { env });
    expect(waited.code, waited.stderr).toBe(5);
    expect(waited.stderr).toMatch(/charge .+ expired unpaid/);
    const listed = await runCli(['charge', 'list', '--json'], { env });
    expect(JSON.parse(listed.stdout).results[0]).toMatchObject({ id, status: 'expired' });
  });
});

describe('pix charge wait, built binary against the sandbox server', () => {
  let sandbox: SandboxServer;
  let stateFile: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    ({ server: sandbox, stateFile, env } = await serveSandbox());
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('exits 0 with the payment soon after `pix sandbox pay`', async () => {
    const created = await runCli(
      ['charge', 'immediate', '--amount', '10,50', '--key', SEEDED_KEYS.email.key, '--json', '--no-qr'],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const waiting = runCli(['charge', 'wait', id, '--interval', '1s', '--wait', '60s'], { env });
    const paid = await runCli(['sandbox', 'pay', '--state', stateFile, id], { env });
    expect(paid.code, paid.stderr).toBe(0);
    const waited = await waiting;
    expect(waited.code, waited.stderr).toBe(0);
    const [chargeId, status, entryId, amount, , how] = waited.stdout.trimEnd().split('\t');
    // The charge names no payer: probable (amount and time only), and said so.
    expect([chargeId, status, amount, how]).toEqual([
      id,
      'probable',
      '10.50',
      'matched by amount (R$ 10,50) and time',
    ]);
    expect(waited.stderr).toContain('note: probable, not proven');
    const listed = await runCli(['charge', 'list', '--status', 'probable'], { env });
    expect(listed.stdout.trimEnd().split('\t')).toEqual(expect.arrayContaining([id, 'probable', entryId]));
  });

  it('exits 5 on a charge expired in sandbox time, after `pix sandbox clock --advance 2d`', async () => {
    // Before: it waited its whole --timeout by this machine's clock and exited 9 (pending).
    const created = await runCli(
      [
        'charge',
        'immediate',
        '--amount',
        '10',
        '--expires-in',
        '1h',
        '--key',
        SEEDED_KEYS.email.key,
        '--json',
        '--no-qr',
      ],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const advanced = await runCli(['sandbox', 'clock', '--advance', '2d', '--state', stateFile], { env });
    expect(advanced.code, advanced.stderr).toBe(0);
    const waited = await runCli(['charge', 'wait', id, '--interval', '1s', '--wait', '15s'], { env });
    expect(waited.code, waited.stderr).toBe(5);
    expect(waited.stderr).toMatch(/charge .+ expired unpaid/);
  });

  it('on a terminal: the QR, then a live elapsed/remaining line rewritten in place; exit 9 (pending) at the end of --wait', async () => {
    const result = await runOnPty(
      [
        'charge',
        'immediate',
        '--amount',
        '7',
        '--key',
        SEEDED_KEYS.email.key,
        '--wait',
        '3s',
        '--interval',
        '1s',
      ],
      { env, columns: 80, rows: 60 },
    );
    expect(result.code, result.lines.join('\n')).toBe(9);
    const shown = result.lines.join('\n');
    expect(shown).toMatch(/[█▀▄]/); // the QR code, drawn in blocks
    // The live line is rewritten in place every second (\r, erase line), then erased at the end.
    const live = result.raw.match(
      /\r\u001b\[2KWaiting for R\$ 7,00… \d+:\d\d elapsed, \d+:\d\d left \(Ctrl-C stops\)/g,
    );
    expect(live?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(shown).not.toContain('elapsed,');
    expect(shown).toContain('is still pending after 3s');
    for (const line of result.lines) expect(line.length).toBeLessThanOrEqual(80);
  });
});
