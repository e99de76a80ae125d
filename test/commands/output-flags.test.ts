import { describe, expect, it } from 'vitest';
import { pix } from '../helpers/pix.js';

const CODE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

describe('output flags say what they do', () => {
  it.each([
    [['pay', 'key', 'ana@example.com', '--amount', '10', '-o', 'csv'], 'pix pay key has no csv output'],
    [['auth', 'status', '-o', 'csv'], 'pix auth status has no csv output'],
    [['profile', 'list', '-o', 'ndjson'], 'pix profile list has no ndjson output'],
  ])('-o a command does not write is exit 2 naming -o: %j', async (argv, message) => {
    const result = await pix(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: -o: ${message}`);
    expect(result.stderr).toContain('hint: its formats: table, json');
    expect(result.stdout).toBe('');
  });

  it('-o csv on emv decode is honoured: a header row and one CSV row per field', async () => {
    const result = await pix(['emv', 'decode', CODE, '-o', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.split('\r\n');
    expect(rows[0]).toBe('path,name,value,meaning');
    expect(rows).toContain('59,Merchant Name,Fulano de Tal,name of the receiver');
  });

  it.each([['csv'], ['ndjson'], ['table']])('--json with -o %s is exit 2, nothing run', async (format) => {
    const result = await pix(['keys', '--json', '-o', format]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--json: cannot be combined with -o ${format}`);
    expect(result.stdout).toBe('');
  });

  it('--json with -o json is the same thing: accepted', async () => {
    const result = await pix(['keys', '--json', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).result).toHaveLength(4);
  });

  it('-o table when piped is a table (header, borders), not TSV; no colour', async () => {
    const result = await pix(['keys', '-o', 'table']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^┌─/);
    expect(lines[1]).toMatch(/^│ Key +│ Type +│ Created +│ Id +│$/);
    expect(lines.at(-1)).toMatch(/^└─/);
    expect(result.stdout).not.toContain('\t');
    expect(result.stdout).not.toContain('\u001b[');
  });

  it('CLICOLOR_FORCE=1 colours the table when piped; NO_COLOR still wins; TSV is never coloured', async () => {
    const forced = await pix(['statement', '-o', 'table'], { env: { CLICOLOR_FORCE: '1' } });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/\u001b\[3[12]m-?R\$ /);
    const off = await pix(['statement', '-o', 'table'], { env: { CLICOLOR_FORCE: '1', NO_COLOR: '1' } });
    expect(off.stdout).not.toContain('\u001b[');
    const tsv = await pix(['statement'], { env: { CLICOLOR_FORCE: '1' } });
    expect(tsv.stdout).toContain('\t');
    expect(tsv.stdout).not.toContain('\u001b[');
  });

  it('a piped -o table fits COLUMNS when set', async () => {
    const result = await pix(['statement', '-o', 'table'], { env: { COLUMNS: '70' } });
    expect(result.code, result.stderr).toBe(0);
    for (const line of result.stdout.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(70);
  });
});
