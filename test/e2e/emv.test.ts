import { describe, expect, it } from 'vitest';
import { PASTE_PROMPT } from '../../src/commands/emv/shared.js';
import { STATIC_CODE } from '../helpers/brcodes.js';
import { tempConfigDir } from '../helpers/cli.js';
import { runOnPty } from '../helpers/terminal.js';

describe('pix emv decode - (what a person sees)', () => {
  it('on a terminal: says what it waits for, and Enter ends the code', async () => {
    const result = await runOnPty(['emv', 'decode', '-'], {
      env: { PIX_CONFIG_DIR: tempConfigDir() },
      steps: [{ after: 'press Enter', send: `${STATIC_CODE}\r` }],
    });
    expect(result.code).toBe(0);
    const shown = result.lines.join('\n');
    expect(shown).toContain(PASTE_PROMPT.trimEnd());
    expect(shown).toContain('CRC OK: static code');
  });

  it('stdin a pipe (stdout a terminal): read silently, no prompt', async () => {
    const result = await runOnPty([], {
      env: { PIX_CONFIG_DIR: tempConfigDir() },
      shell: `printf '%s' '${STATIC_CODE}' | pix emv decode -`,
    });
    expect(result.code).toBe(0);
    const shown = result.lines.join('\n');
    expect(shown).not.toContain('Paste');
    expect(shown).toContain('CRC OK: static code');
  });
});
