import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PASTE_PROMPT } from '../../src/commands/shared/emv.js';
import { DYNAMIC_CODE, STATIC_CODE } from '../helpers/brcodes.js';
import { BIN, NODE, tempConfigDir } from '../helpers/cli.js';
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

describe('pix emv decode at 80 columns: a detail view wraps its long text, never cuts it', () => {
  it.each([[[] as string[]], [['--wide']]])(
    '%j: every Name and Meaning whole (wrapped in its cell), every line within 80 columns',
    async (flags) => {
      const result = await runOnPty(['emv', 'decode', DYNAMIC_CODE, ...flags], {
        env: { PIX_CONFIG_DIR: tempConfigDir() },
        columns: 80,
        rows: 24,
      });
      expect(result.code).toBe(0);
      const table = result.lines.filter((line) => line.startsWith('│'));
      expect(table.length).toBeGreaterThan(0);
      // The terminal did no wrapping of its own: every line of the box is whole (80 columns or fewer).
      const box = result.lines.filter((line) => /^[│┌├└]/.test(line));
      expect(
        box.every((line) => /[│┐┤┘]$/.test(line)),
        box.join('\n'),
      ).toBe(true);
      // Each Meaning, read down its column, is the whole text the JSON gives.
      const cells = table.map((line) => line.split('│').map((cell) => cell.trim()));
      const header = cells[0]!;
      const meaning = header.indexOf('Meaning');
      const name = header.indexOf('Name');
      expect(meaning).toBeGreaterThan(0);
      expect(name).toBeGreaterThan(0);
      const down = (column: number) => {
        const texts: string[] = [];
        for (const row of cells.slice(1)) {
          if (row[1] !== '' || texts.length === 0) texts.push(row[column]!);
          else texts[texts.length - 1] = `${texts[texts.length - 1]} ${row[column]}`.trim();
        }
        return texts;
      };
      const json = JSON.parse(
        execFileSync(NODE, [BIN, 'emv', 'decode', DYNAMIC_CODE, '--json'], { encoding: 'utf8' }),
      );
      const fields = json.fields as Array<{ name: string; meaning: string }>;
      expect(down(meaning)).toEqual(fields.map((field) => field.meaning));
      expect(down(name)).toEqual(fields.map((field) => field.name));
    },
  );
});
