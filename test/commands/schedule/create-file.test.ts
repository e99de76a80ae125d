/**
 * `pix schedule create --file` reads a batch file as `pix pay batch` does, `--format` and `--map` included
 * (commands/shared/pay/batchread.ts): an ERP's own headers, a file whose name does not say its format.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBrCode } from '../../../src/domain/brcodeencode.js';
import { dictOwner } from '../../../src/sandbox/people.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { pix } from '../../helpers/pix.js';

/** A supplier file as an ERP exports it: its own headers, `;` and decimal commas. */
const SUPPLIERS =
  'id;Chave PIX;Valor;CNPJ;Centro de custo\r\nf-001;ana@example.com;10,00;;obra 7\r\nf-002;carla@example.com;5,50;;obra 8\r\n';
const MAP = 'key=Chave PIX,amount=Valor,document=CNPJ';

function account() {
  const dir = tempConfigDir();
  const env = { PIX_CONFIG_DIR: dir };
  const run = (args: string[]) => pix(['schedule', ...args], { env });
  const scheduled = async () =>
    JSON.parse((await run(['list', '--all', '--json'])).stdout).results as unknown[];
  return { dir, run, scheduled };
}

interface Shown {
  file: string;
  rows: Array<{ id: string; key: string; amount: string }>;
  receiver: { name: string };
}

describe('pix schedule create --file, read as pix pay batch reads it', () => {
  it("an ERP's own headers: refused naming the columns without --map; with it, each row kept at its amount", async () => {
    const { dir, run, scheduled } = account();
    const file = join(dir, 'fornecedores.csv');
    writeFileSync(file, SUPPLIERS);
    const args = ['create', '--file', file, '--every', '5', '--count', '3', '--yes'];
    const unmapped = await run(args);
    expect(unmapped.code, unmapped.stderr).toBe(2);
    expect(unmapped.stderr).toMatch(/cnpj: unknown column .*--map/);
    expect(await scheduled()).toEqual([]);

    const mapped = await run([...args, '--map', MAP]);
    expect(mapped.code, mapped.stderr).toBe(0);
    const shown = JSON.parse((await run(['show', mapped.stdout.trim(), '--json'])).stdout) as Shown;
    expect(shown.file).toBe(file);
    expect(shown.rows.map((row) => [row.id, row.key, row.amount])).toEqual([
      ['f-001', 'ana@example.com', '10.00'],
      ['f-002', 'carla@example.com', '5.50'],
    ]);
    expect(shown.receiver.name).toBe(`2 rows of ${file}`);
  });

  it('--format: a file whose name does not say it is NDJSON is read as NDJSON', async () => {
    const { dir, run } = account();
    const file = join(dir, 'payouts.txt');
    writeFileSync(file, '{"id":"n1","key":"ana@example.com","amount":"3,21"}\n');
    const byName = await run(['create', '--file', file, '--at', '+1d', '--yes']);
    expect(byName.code, byName.stderr).toBe(2); // read as CSV by its name
    const given = await run(['create', '--file', file, '--format', 'ndjson', '--at', '+1d', '--yes']);
    expect(given.code, given.stderr).toBe(0);
    const shown = JSON.parse((await run(['show', given.stdout.trim(), '--json'])).stdout) as Shown;
    expect(shown.rows.map((row) => [row.id, row.amount])).toEqual([['n1', '3.21']]);
    expect(shown.receiver.name).toBe(`1 row of ${file}`);
  });

  it("a row of a code that fixes its own amount: kept at the code's amount, and paid on its day at it", async () => {
    const { dir, run } = account();
    const env = { PIX_CONFIG_DIR: dir };
    const clock = async (iso: string) =>
      expect((await pix(['sandbox', 'clock', '--set', iso], { env })).code).toBe(0);
    const owner = dictOwner('ana@example.com', 'EMAIL').receiver.name;
    const code = encodeBrCode({
      pixKey: 'ana@example.com',
      amount: 700,
      merchantName: owner,
      merchantCity: 'SAO PAULO',
    });
    const file = join(dir, 'payouts.csv');
    writeFileSync(file, `id,key,emv,amount\nk1,carla@example.com,,"5,50"\nc1,,${code},\n`);
    await clock('2026-03-05T10:00:00-03:00');
    const made = await run(['create', '--file', file, '--at', '2026-03-10', '--yes']);
    expect(made.code, made.stderr).toBe(0);
    const id = made.stdout.trim();
    await clock('2026-03-10T09:00:00-03:00');
    const due = await run(['run-due', '-o', 'ndjson']);
    expect(due.code, due.stderr).toBe(0);
    const rows = due.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; state: string; amount: number });
    expect(rows.map((row) => [row.id, row.state, row.amount])).toEqual([
      [`${id}.2026-03-10.k1`, 'paid', 5.5],
      [`${id}.2026-03-10.c1`, 'paid', 7],
    ]);
  });

  it('--format or --map without --file: exit 2 naming the flag, nothing scheduled', async () => {
    const { run, scheduled } = account();
    for (const [flag, value] of [
      ['--map', MAP],
      ['--format', 'csv'],
    ]) {
      const result = await run([
        'create',
        '--key',
        'ana@example.com',
        '--amount',
        '1',
        flag!,
        value!,
        '--at',
        '+1d',
        '--yes',
      ]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`error: ${flag}: is for --file`);
    }
    expect(await scheduled()).toEqual([]);
  });
});
