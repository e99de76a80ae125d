/**
 * `--fields` takes every name a script sees as a column header (contract §3): on every command with
 * records, `-o csv --fields <its own header>` writes what `-o csv` writes, and `--fields help` lists the
 * names, one a line. Against the embedded sandbox, so the records are real ones of each command.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { pixWith } from '../helpers/pix.js';

let env: Record<string, string>;
const pix = pixWith(() => ({ env }));
let code = '';

beforeAll(async () => {
  env = { PIX_CONFIG_DIR: tempConfigDir() };
  // A charge: the journal and the charge ledger then have a record each, and its code an EMV to decode.
  const charge = await pix(['charge', 'immediate', '--amount', '12,34', '--json', '--no-qr']);
  expect(charge.code, charge.stderr).toBe(0);
  code = JSON.parse(charge.stdout).emvqrcps;
});

const COMMANDS: Array<[string, () => string[]]> = [
  ['a page of the statement', () => ['statement', '--from', '-30d']],
  ['the whole statement', () => ['statement', '--from', '-30d', '--all']],
  ['the summary', () => ['statement', 'summary', '--from', '-30d', '--by', 'week']],
  ['a page of keys', () => ['keys']],
  ['every key', () => ['keys', '--all']],
  ['the journal', () => ['journal']],
  ['the charges', () => ['charge', 'list', '--offline']],
  ['a decoded code', () => ['emv', 'decode', code]],
];

describe('every -o csv header is a --fields name with the same values', () => {
  it.each(COMMANDS)('%s', async (_what, argv) => {
    const csv = await pix([...argv(), '-o', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const header = csv.stdout.split('\r\n')[0]!;
    expect(csv.stdout.split('\r\n').length).toBeGreaterThan(2);
    const picked = await pix([...argv(), '-o', 'csv', '--fields', header]);
    expect(picked.code, picked.stderr).toBe(0);
    expect(picked.stdout).toBe(csv.stdout);
  });

  it("a column that is no path of the record (the statement's counterpartyName) gives the column's value in JSON too", async () => {
    const csv = await pix(['statement', '--from', '-30d', '-o', 'csv', '--fields', 'id,counterpartyName']);
    const json = await pix(['statement', '--from', '-30d', '--json', '--fields', 'id,counterpartyName']);
    expect(json.code, json.stderr).toBe(0);
    const rows = csv.stdout.trim().split('\r\n').slice(1);
    const records = JSON.parse(json.stdout).results as Array<{ id: string; counterpartyName: string | null }>;
    expect(records.map((record) => `${record.id},${record.counterpartyName ?? ''}`)).toEqual(rows);
    expect(records.some((record) => record.counterpartyName)).toBe(true);
  });
});

describe('--fields help', () => {
  it('lists the names --fields takes, one a line on stdout, exit 0, and runs nothing', async () => {
    const help = await pix(['statement', '--fields', 'help']);
    expect(help.code, help.stderr).toBe(0);
    const names = help.stdout.trimEnd().split('\n');
    expect(names).toContain('creditor.name');
    expect(names).toContain('counterpartyName');
    expect(names.length).toBe(new Set(names).size);
    // Each of them is taken.
    const all = await pix(['statement', '--from', '-30d', '-o', 'csv', '--fields', names.join(',')]);
    expect(all.code, all.stderr).toBe(0);
    expect((await pix(['keys', '--fields', 'help'])).stdout).toBe(
      'id\nkey\nkeyType\ncreatedAt\nKey\nType\nCreated\nId\n',
    );
  });

  it('a command without records refuses it (exit 2); an unknown name points to it', async () => {
    const payment = await pix(['pay', 'key', 'ana@example.com', '--amount', '1', '--fields', 'help']);
    expect(payment.code).toBe(2);
    expect(payment.stderr).toContain('--fields: pix pay key has no records to pick from');
    const unknown = await pix(['statement', '--json', '--fields', 'nope']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error.hint).toBe(
      '`pix statement --fields help` lists them, one a line',
    );
  });
});
