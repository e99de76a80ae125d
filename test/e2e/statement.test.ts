import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { readOfx } from '../helpers/ofx.js';
import { serveSandbox } from '../helpers/served.js';
import { runOnPty } from '../helpers/terminal.js';
import { readWorkbook } from '../helpers/xlsx.js';

const STATEMENT = '/api/financial/v1/account/transactions';

/** RFC 4180 rows (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

describe('pix statement on a terminal (pty), embedded sandbox: dates as people write them', () => {
  it('an empty range: no empty box; "no entries from … to …" and the zero totals line', async () => {
    const result = await runOnPty(['statement', '--from', '01/01/2001', '--to', '02/01/2001'], {
      env: { PIX_CONFIG_DIR: tempConfigDir() }, // the default zone, America/Sao_Paulo
      columns: 80,
      rows: 24,
    });
    expect(result.code, result.raw).toBe(0);
    const shown = result.lines.filter(Boolean);
    expect(shown.join('\n')).not.toMatch(/[┌│└]/);
    expect(shown).toContain('no entries from 2001-01-01 00:00 to 2001-01-02 23:59 (America/Sao_Paulo)');
    expect(shown).toContain('0 entries: in R$ 0,00, out R$ 0,00, fees R$ 0,00, net R$ 0,00');
  });

  it('--from -7d alone: from seven days ago until now, a table with its totals line', async () => {
    const result = await runOnPty(['statement', '--from', '-7d', '--limit', '3'], {
      env: { PIX_CONFIG_DIR: tempConfigDir() },
      columns: 80,
      rows: 24,
    });
    expect(result.code, result.raw).toBe(0);
    expect(result.lines.join('\n')).toMatch(/\d+ entr(y|ies): in R\$/);
  });
});

describe('pix statement, built binary, embedded sandbox', () => {
  it('prints the default statement with no configuration at all', async () => {
    const result = await runCli(['statement'], { env: { PIX_CONFIG_DIR: tempConfigDir() } });
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(10);
    for (const row of rows) {
      const cells = row.split('\t');
      expect(cells).toHaveLength(10);
      expect(cells[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(cells[1]).toMatch(/^(INCOME|OUTCOME)$/);
      expect(cells[2]).toMatch(/^-?\d+\.\d{2}$/);
    }
    expect(result.stderr).toContain('sandbox: simulated account');
    // Under CI, with stderr a log, not on every command (a payment's line still names the sandbox).
    const ci = await runCli(['statement'], { env: { PIX_CONFIG_DIR: tempConfigDir(), CI: 'true' } });
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stderr).not.toContain('sandbox: simulated account');
    const notCi = await runCli(['statement'], { env: { PIX_CONFIG_DIR: tempConfigDir(), CI: 'false' } });
    expect(notCi.stderr).toContain('sandbox: simulated account');
    expect(result.stderr).toMatch(/next: pix statement --offset 10/);
  });

  it('filters: --all --type outcome --min 50 -o ndjson is exactly the unfiltered export, filtered', async () => {
    const env = { PIX_CONFIG_DIR: tempConfigDir() };
    const every = await runCli(['statement', '--all', '-o', 'ndjson'], { env });
    expect(every.code, every.stderr).toBe(0);
    const entries = every.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; type: string; amount: number });
    const expected = entries.filter((e) => e.type === 'OUTCOME' && Math.abs(e.amount) >= 50).map((e) => e.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(entries.length);
    const filtered = await runCli(
      ['statement', '--all', '--type', 'outcome', '--min', '50', '-o', 'ndjson'],
      {
        env,
      },
    );
    expect(filtered.code, filtered.stderr).toBe(0);
    const ids = filtered.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).toEqual(expected);
  });
});

describe('pix statement, built binary against `sandbox serve`', () => {
  let server: SandboxServer;
  let env: Record<string, string>;
  let stateFile: string;

  beforeAll(async () => {
    ({ server, stateFile, env } = await serveSandbox());
  });
  afterAll(async () => {
    await server?.close();
  });

  const seen = () => server.requests.filter((request) => request.path === STATEMENT).length;

  it.each([
    [['--from', '+1d'], '--from'], // --from alone runs until now: a day to come is refused
    [['--to', '2025-01-31'], '--from'],
    [['--from', '2025-02-01', '--to', '2025-01-01'], '--from'],
    [['--from', '2025-02-30', '--to', '2025-03-31'], '--from'],
    [['--month', '2025-01', '--to', '2025-01-31'], '--month'],
    [['--limit', '0'], '--limit'],
    [['--offset', '-1'], '--offset'],
    [['--all', '--limit', '-3', '-o', 'ndjson'], '--limit'],
  ])('%j → exit 2, one line naming %s, and the sandbox saw no request', async (args, flag) => {
    const before = seen();
    const result = await runCli(['statement', ...args], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^error: ${flag}: `));
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(seen()).toBe(before);
  });

  it('a range in the profile time zone reaches the server as ISO instants', async () => {
    const before = server.requests.length;
    const result = await runCli(['statement', '--from', '2025-01-01', '--to', '2025-01-31', '--json'], {
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    const url = new URL(server.requests[before]!.url, server.url);
    expect(url.searchParams.get('dateFrom')).toBe('2025-01-01T03:00:00.000Z');
    expect(url.searchParams.get('dateTo')).toBe('2025-02-01T02:59:59.999Z');
  });

  it('--all --json is one document; -o csv parses back to the same entries and amounts', async () => {
    const json = await runCli(['statement', '--all', '--limit', '7', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const document = JSON.parse(json.stdout) as {
      total: number;
      results: Array<{ id: string; amount: number }>;
    };
    expect(document.total).toBeGreaterThan(7);
    expect(document.results).toHaveLength(document.total);

    const csv = await runCli(['statement', '--all', '--limit', '7', '-o', 'csv'], { env });
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...rows] = parseCsv(csv.stdout);
    expect(header).toEqual([
      'confirmedAt',
      'type',
      'amount',
      'fee',
      'method',
      'counterpartyName',
      'counterpartyDocument',
      'counterpartyBank',
      'status',
      'id',
    ]);
    expect(rows.map((row) => row[9])).toEqual(document.results.map((entry) => entry.id));
    rows.forEach((row, index) => {
      expect(row[2]).toMatch(/^-?\d+\.\d{2}$/);
      expect(Math.round(Number(row[2]) * 100)).toBe(Math.round(document.results[index]!.amount * 100));
    });
  });

  it('-o ofx: every entry of --all --json, once, with its amount, read by an OFX reader', async () => {
    const json = await runCli(['statement', '--all', '--json'], { env });
    const entries = (JSON.parse(json.stdout) as { results: Array<{ id: string; amount: number }> }).results;
    const result = await runCli(['statement', '--all', '-o', 'ofx'], { env });
    expect(result.code, result.stderr).toBe(0);
    const ofx = readOfx(result.stdout);
    expect(ofx.validation.isValid).toBe(true);
    const posted = ofx.transactions.filter((t) => t.TRNTYPE !== 'FEE');
    expect(posted.map((t) => t.FITID)).toEqual(entries.map((e) => e.id));
    expect(posted.map((t) => t.TRNAMT)).toEqual(entries.map((e) => e.amount.toFixed(2)));
  });

  it('-o xlsx --output-file: the same entries as -o csv, amounts as numbers, read back by exceljs', async () => {
    const csv = await runCli(['statement', '--all', '--limit', '7', '-o', 'csv'], { env });
    expect(csv.code, csv.stderr).toBe(0);
    const [, ...rows] = parseCsv(csv.stdout);
    const file = join(tempConfigDir(), 'statement.xlsx');
    const xlsx = await runCli(['statement', '--all', '--limit', '7', '-o', 'xlsx', '--output-file', file], {
      env,
    });
    expect(xlsx.code, xlsx.stderr).toBe(0);
    const sheet = await readWorkbook(readFileSync(file));
    const data = sheet.rows.slice(1);
    expect(data.map((row) => row[9]!.value)).toEqual(rows.map((row) => row[9]));
    expect(data.map((row) => Math.round((row[2]!.value as number) * 100))).toEqual(
      rows.map((row) => Math.round(Number(row[2]) * 100)),
    );
    expect(data.every((row) => row[0]!.value instanceof Date)).toBe(true);
  });

  it('100,000 seeded entries: --all -o ndjson yields exactly total lines, unique ids', async () => {
    const seed = await runCli(['sandbox', 'seed', '--transactions', '100000', '--state', stateFile], { env });
    expect(seed.code, seed.stderr).toBe(0);
    const head = await runCli(['statement', '--limit', '1', '--json'], { env });
    const total = (JSON.parse(head.stdout) as { total: number }).total;
    expect(total).toBeGreaterThanOrEqual(100_000);

    const before = seen();
    const result = await runCli(['statement', '--all', '-o', 'ndjson'], { env, timeoutMs: 90_000 });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(total);
    const ids = new Set(lines.map((line) => (JSON.parse(line) as { id: string }).id));
    expect(ids.size).toBe(total);
    expect(result.stderr).not.toContain('warning');
    // Pages of 100, fetched once each: nothing asked twice.
    expect(seen() - before).toBe(Math.ceil(total / 100));
  }, 120_000);
});
