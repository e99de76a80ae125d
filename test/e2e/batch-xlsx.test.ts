import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, NODE, runCli, runProcess, tempConfigDir } from '../helpers/cli.js';
import { runOnPty } from '../helpers/terminal.js';
import { buildWorkbook, HEADER_ROW, num, row, str, table, zeros } from '../helpers/workbook.js';

/**
 * `pix pay batch FILE.xlsx` as a process: a workbook that once stalled pix (11 minutes at 100 % CPU, deaf to
 * SIGTERM) or took 3.7 GB is read at once and within bounds, and Ctrl-C or SIGTERM end a long read at once,
 * nothing sent. No clock: each signal is sent once the read shows its progress on the terminal.
 */
const dir = tempConfigDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const USAGE_HOOK = fileURLToPath(new URL('../../bench/usage-hook.cjs', import.meta.url));

function write(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** A long payout sheet (inline strings): long enough that a signal lands while it is read. */
function longWorkbook(rows: number): Uint8Array {
  const data: string[] = [HEADER_ROW];
  for (let n = 2; n <= rows + 1; n++) {
    data.push(
      row(
        n,
        str(`A${n}`, `pg-${n}`) +
          str(`B${n}`, `fornecedor${n}@example.com`) +
          num(`C${n}`, 10 + (n % 500)) +
          str(`D${n}`, `nota fiscal ${n} de novembro`),
      ),
    );
  }
  return buildWorkbook({ sheetData: data.join('') });
}

describe('pay batch FILE.xlsx: bounded, and stopped at once', () => {
  const env = { PIX_CONFIG_DIR: join(dir, 'config') };
  const big = write('long.xlsx', longWorkbook(150_000));

  it('Ctrl-C while a workbook is read: exit 130 at once, nothing sent', async () => {
    const result = await runOnPty(['pay', 'batch', big, '--yes'], {
      env,
      steps: [{ after: /reading .*long\.xlsx, kB \d+ of \d+/, send: '\u0003' }],
      timeoutMs: 60_000,
    });
    const screen = result.lines.join('\n');
    expect(result.code, screen).toBe(130);
    expect(screen).toContain('pix pay batch: interrupted while reading');
    expect(screen).toContain('nothing was sent');
    expect(screen).not.toMatch(/consulted|sandbox: simulated/);
  }, 60_000);

  it('SIGTERM while a workbook is read: exit 143 at once, nothing sent', async () => {
    // pix in the background of a shell on the terminal (stderr a terminal, so the read shows progress); once
    // it does, Enter lets the shell send SIGTERM to pix itself and print its exit code.
    const result = await runOnPty([], {
      env,
      shell: `"$PIX_NODE" "$PIX_BIN" pay batch '${big}' --yes & read -r _; kill -TERM $!; wait $!; echo "exit=$?"`,
      steps: [{ after: /reading .*long\.xlsx, kB \d+ of \d+/, send: '\r' }],
      timeoutMs: 60_000,
    });
    const screen = result.lines.join('\n');
    expect(screen).toContain('exit=143');
    expect(screen).toContain('pix pay batch: interrupted while reading');
    expect(screen).not.toMatch(/consulted|sandbox: simulated/);
  }, 60_000);

  it('300 merges of A1:BM1048576 (2 KB) are refused at once, naming the cell: exit 2', async () => {
    const merges = Array.from({ length: 300 }, () => '<mergeCell ref="A1:BM1048576"/>').join('');
    const file = write(
      'merges.xlsx',
      buildWorkbook({
        sheetData: HEADER_ROW + table([['a', 'ana@example.com', 10]], 2),
        afterData: `<mergeCells count="300">${merges}</mergeCells>`,
      }),
    );
    const result = await runCli(['pay', 'batch', file, '--yes'], { env });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('A1: part of the merged cells A1:BM1048576: unmerge them');
    expect(result.stderr).toContain('nothing was sent');
  });

  it('a 3.6 MB ZIP of padding parts (3.5 GB inflated) is read without inflating them', async () => {
    const padding = zeros(16 * 1024 * 1024);
    const file = write(
      'padding.xlsx',
      buildWorkbook({
        sheetData: HEADER_ROW + table([['a', 'not a key', 10]], 2),
        extraEntries: Array.from({ length: 220 }, (_, i) => [`xl/padding/pad${i}.bin`, padding]),
      }),
    );
    const result = await runProcess(NODE, ['-r', USAGE_HOOK, BIN, 'pay', 'batch', file, '--yes'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('B2 (id a): key:');
    const peakKb = Number(/pix-bench-usage:(\d+):/.exec(result.stderr)?.[1]);
    // Each padding part would take 16 MiB inflated: reading even ten of them would pass this.
    expect(peakKb / 1024).toBeLessThan(160);
  }, 60_000);
});

describe('pay batch FILE.xlsx --dry-run: a workbook readers see otherwise is exit 2 naming the cell, nothing consulted', () => {
  const env = { PIX_CONFIG_DIR: join(dir, 'config') };

  it.each([
    [
      'the literal-comma format over 10500 (10,500: R$ 10,50 to a Brazilian)',
      {
        formats: ['0","000'],
        sheetData: HEADER_ROW + row(2, str('A2', 'a') + str('B2', 'ana@example.com') + num('C2', 10500, 1)),
      },
      'C2 (id a): amount: its number format "0","000" writes a literal "," among the digits ("10,500")',
    ],
    [
      'a key column too narrow for mallory@example.com',
      {
        beforeData: '<cols><col min="2" max="2" width="8" customWidth="1"/></cols>',
        sheetData: HEADER_ROW + table([['a', 'mallory@example.com', 10]], 2),
      },
      'B2 (id a): key: shows "mallory@example.com"',
    ],
  ])('%s', async (_what, parts, says) => {
    const file = write(`unread-${says.length}.xlsx`, buildWorkbook(parts));
    const result = await runCli(['pay', 'batch', file, '--dry-run'], { env });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(says);
    expect(result.stderr).toContain('nothing was sent');
    expect(result.stderr).not.toMatch(/consulted|sandbox: simulated/);
  });
});
