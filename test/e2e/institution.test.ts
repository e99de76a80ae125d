import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';

describe('the sandbox names its institution, as real banks are named', () => {
  it('pix pay qr of a sandbox charge shows "Sandbox PIX (simulated) (99999999)", not a bare ISPB', async () => {
    const env = { PIX_CONFIG_DIR: tempConfigDir() };
    const charge = await runCli(['charge', 'immediate', '--amount', '10', '--json'], { env });
    expect(charge.code).toBe(0);
    const { emvqrcps } = JSON.parse(charge.stdout) as { emvqrcps: string };
    const pay = await runCli(['pay', 'qr', emvqrcps, '--dry-run'], { env });
    expect(pay.code).toBe(0);
    expect(pay.stdout).toMatch(/^institution\tSandbox PIX \(simulated\) \(99999999\)$/m);
  });
});
