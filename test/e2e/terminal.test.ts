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

  it('pbpaste | pix pay qr -: the code comes from the pipe, the y/N answer from the terminal', async () => {
    const env = { PIX_CONFIG_DIR: tempConfigDir() };
    const result = await runOnPty([], {
      env,
      shell: 'code=$(pix charge immediate --amount 10 | cut -f11) && printf "%s\\n" "$code" | pix pay qr -',
      steps: [{ after: '[y/N]', send: 'y\r' }],
    });
    expect(result.code, result.lines.join('\n')).toBe(0);
    const shown = result.lines.join('\n');
    expect(shown).toMatch(/^Pay R\$ 10,00 to /m);
    expect(shown).toContain('[y/N] y');
  });
});
