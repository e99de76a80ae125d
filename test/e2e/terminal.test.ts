import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { renderTerminal, runOnPty } from '../helpers/terminal.js';

describe('the pty harness (what a person sees)', () => {
  it('renders escape sequences as a terminal does: a clear screen hides what came before', async () => {
    const { screen } = await renderTerminal('secret line\r\n\u001b[2J\u001b[Hshown', 40, 5);
    expect(screen.join('\n')).not.toContain('secret line');
    expect(screen[0]).toBe('shown');
  });

  it('answers a y/N question on a real terminal: pix pay key, "n" → exit 8, nothing sent', async () => {
    const result = await runOnPty(['pay', 'key', 'ana@example.com', '--amount', '10'], {
      env: { PIX_CONFIG_DIR: tempConfigDir() },
      steps: [{ after: '[y/N]', send: 'n\r' }],
    });
    expect(result.code).toBe(8);
    const shown = result.lines.join('\n');
    expect(shown).toMatch(/^Pay R\$ 10,00 to /m);
    expect(shown).toContain('[y/N] n');
  });
});
