import { beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/main.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { createTestIO } from '../../helpers/io.js';
import { intercept, mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';
import { pixWith } from '../../helpers/pix.js';

const PATH = '/api/financial/v1/account/transactions';
// 12:00 in São Paulo (UTC-3) on 2025-03-10.
const NOW = new Date('2025-03-10T15:00:00.000Z');
const clock = { now: () => NOW };

const income = (index: number, amount = 150.5) => ({
  id: `in-${index}`,
  type: 'INCOME',
  amount,
  fee: 0,
  status: 'CONFIRMED',
  method: 'PIX',
  confirmedAt: '2025-03-09T13:04:05.000Z',
  creditor: { name: 'Maria Oliveira Santos', bank: '001', documentNumber: '52998224725' },
});
const outcome = (index: number, amount = -20.25) => ({
  id: `out-${index}`,
  type: 'OUTCOME',
  amount,
  fee: 1.5,
  status: 'CONFIRMED',
  method: 'TED',
  confirmedAt: '2025-03-08T02:30:00.000Z',
  debtor: { name: 'Mercado Bom Preço, Ltda', bank: '237', documentNumber: '04252011000110' },
});

const mock = mockAgentPerTest();
let env: Record<string, string>;

beforeEach(() => {
  env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: ORIGIN, PIX_TOKEN: 'test-token-statement' };
});

const pix = pixWith(() => ({ env, dispatcher: mock.agent, clock }));

describe('pix statement: one page', () => {
  it('piped: header-less TSV with ISO times, plain decimals, full documents; totals and next page on stderr', async () => {
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 25, results: [income(1), outcome(2)] });
    const result = await pix(['statement']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      '2025-03-09T13:04:05.000Z\tINCOME\t150.50\t0.00\tPIX\tMaria Oliveira Santos\t52998224725\t001\tCONFIRMED\tin-1\n' +
        '2025-03-08T02:30:00.000Z\tOUTCOME\t-20.25\t1.50\tTED\tMercado Bom Preço, Ltda\t04252011000110\t237\tCONFIRMED\tout-2\n',
    );
    expect(result.stderr).toContain('2 entries: in 150.50, out -20.25, fees 1.50, net 128.75');
    expect(result.stderr).toContain('next: pix statement --offset 2');
  });

  it('on a terminal: a table in the profile time zone, R$, coloured amounts, masked documents', async () => {
    intercept(
      mock,
      PATH,
      { limit: '10', offset: '0' },
      { total: 2, results: [income(1, 1234.56), outcome(2)] },
    );
    const result = await pix(['statement'], { tty: true, columns: 160, env: { CLICOLOR_FORCE: '1' } });
    expect(result.code).toBe(0);
    const out = result.stdout;
    for (const header of ['Date', 'Type', 'Amount', 'Fee', 'Method', 'Counterparty', 'Status', 'Id']) {
      expect(out).toContain(header);
    }
    // 13:04 UTC is 10:04 in São Paulo; 02:30 UTC on the 8th is 23:30 on the 7th.
    expect(out).toContain('2025-03-09 10:04');
    expect(out).toContain('2025-03-07 23:30');
    expect(out).toContain('\u001b[32mR$ 1.234,56\u001b[39m');
    expect(out).toContain('\u001b[31m-R$ 20,25\u001b[39m');
    expect(out).toContain('R$ 1,50');
    expect(out).toContain('***.982.247-**');
    expect(out).not.toContain('52998224725');
    expect(out).toMatch(/\*\*\.252\.011\/0001-\*\*/);
    expect(out).not.toContain('04252011000110');
    expect(result.stderr).toContain('in R$ 1.234,56, out -R$ 20,25, fees R$ 1,50, net R$ 1.212,81');
    expect(result.stderr).not.toContain('next:');
  });

  it('--json prints the API page as is, unknown fields included', async () => {
    const page = { total: 1, results: [{ ...income(1), extra: { x: 1 } }], cursor: 'abc' };
    intercept(mock, PATH, { limit: '10', offset: '0' }, page);
    const result = await pix(['statement', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(page);
  });

  it('is tolerant: no counterparty, no fee, no method, unknown type and status', async () => {
    const odd = {
      id: 'odd',
      type: 'REVERSAL',
      amount: -3,
      status: 'PROCESSING',
      confirmedAt: '2025-03-01T00:00:00Z',
    };
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 1, results: [odd] });
    const piped = await pix(['statement']);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe('2025-03-01T00:00:00Z\tREVERSAL\t-3.00\t0.00\t\t\t\t\tPROCESSING\todd\n');
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 1, results: [odd] });
    const table = await pix(['statement'], { tty: true });
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('REVERSAL');
    expect(table.stdout).toContain('PROCESSING');
  });

  it('an empty statement is exit 0', async () => {
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 0, results: [] });
    const result = await pix(['statement', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ total: 0, results: [] });
  });

  it('-o csv: header row, RFC 4180 quoting, plain decimals', async () => {
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 2, results: [income(1), outcome(2)] });
    const result = await pix(['statement', '-o', 'csv']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\r\n')).toEqual([
      'confirmedAt,type,amount,fee,method,counterpartyName,counterpartyDocument,counterpartyBank,status,id',
      '2025-03-09T13:04:05.000Z,INCOME,150.50,0.00,PIX,Maria Oliveira Santos,52998224725,001,CONFIRMED,in-1',
      '2025-03-08T02:30:00.000Z,OUTCOME,-20.25,1.50,TED,"Mercado Bom Preço, Ltda",04252011000110,237,CONFIRMED,out-2',
      '',
    ]);
  });

  it('a response of the wrong shape is exit 6', async () => {
    intercept(mock, PATH, { limit: '10', offset: '0' }, { total: 1, results: [{ id: 1 }] });
    expect((await pix(['statement'])).code).toBe(6);
  });

  it.each([
    [400, 5],
    [401, 3],
    [404, 4],
  ])('HTTP %i → exit %i with the server message', async (status, exit) => {
    intercept(mock, PATH, { limit: '10', offset: '0' }, { message: 'Conta não encontrada' }, status);
    // A refusal may be of the page's size (api/pager.ts): one record, refused too, says it is not.
    if (status === 400) intercept(mock, PATH, { limit: '1', offset: '0' }, { message: 'outra' }, status);
    const result = await pix(['statement']);
    expect(result.code).toBe(exit);
    expect(result.stderr.split('\n')[0]).toMatch(/^error: reading the statement: .*Conta não encontrada$/);
  });
});

describe('pix statement: dates', () => {
  it('YYYY-MM-DD is the start of the --from day and the end of the --to day in São Paulo', async () => {
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-01-01T03:00:00.000Z', dateTo: '2025-02-01T02:59:59.999Z', limit: '50', offset: '0' },
      { total: 0, results: [] },
    );
    const result = await pix(['statement', '--from', '2025-01-01', '--to', '2025-01-31', '--limit', '50']);
    expect(result.code).toBe(0);
  });

  it("follows the profile's time zone", async () => {
    const set = await pix(['config', 'set', 'time-zone', 'UTC']);
    expect(set.code, set.stderr).toBe(0);
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-01-01T00:00:00.000Z', dateTo: '2025-01-01T23:59:59.999Z', limit: '10', offset: '0' },
      { total: 1, results: [income(1)] },
    );
    const result = await pix(['statement', '--from', '2025-01-01', '--to', '2025-01-01'], { tty: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('2025-03-09 13:04');
  });

  it('--month is the whole month; full ISO 8601 passes through (normalised to UTC)', async () => {
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-02-01T03:00:00.000Z', dateTo: '2025-03-01T02:59:59.999Z', limit: '10', offset: '0' },
      { total: 0, results: [] },
    );
    expect((await pix(['statement', '--month', '2025-02'])).code).toBe(0);
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-01-01T17:00:00.000Z', dateTo: '2025-01-02T00:00:00.000Z', limit: '10', offset: '0' },
      { total: 0, results: [] },
    );
    const iso = await pix([
      'statement',
      '--from',
      '2025-01-01T14:00:00-03:00',
      '--to',
      '2025-01-02T00:00:00Z',
    ]);
    expect(iso.code).toBe(0);
  });

  it('yesterday and today are days in the profile zone at the clock', async () => {
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-03-09T03:00:00.000Z', dateTo: '2025-03-11T02:59:59.999Z', limit: '10', offset: '0' },
      { total: 0, results: [] },
    );
    expect((await pix(['statement', '--from', 'yesterday', '--to', 'today'])).code).toBe(0);
  });

  it('the next-page hint repeats the range and the page size', async () => {
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-02-01T03:00:00.000Z', dateTo: '2025-03-01T02:59:59.999Z', limit: '2', offset: '4' },
      { total: 9, results: [income(1), income(2)] },
    );
    const result = await pix(['statement', '--month', '2025-02', '--limit', '2', '--offset', '4']);
    expect(result.stderr).toContain(
      'showing 5-6 of 9; next: pix statement --month 2025-02 --limit 2 --offset 6',
    );
  });

  it('--from alone is from that day until now; DD/MM/YYYY and -7d are days, as in charge', async () => {
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-03-03T03:00:00.000Z', dateTo: NOW.toISOString(), limit: '10', offset: '0' },
      { total: 1, results: [income(1)] },
    );
    const relative = await pix(['statement', '--from', '-7d']);
    expect(relative.code, relative.stderr).toBe(0);
    intercept(
      mock,
      PATH,
      { dateFrom: '2026-11-23T03:00:00.000Z', dateTo: '2026-11-24T02:59:59.999Z', limit: '10', offset: '0' },
      { total: 1, results: [income(1)] },
    );
    const brazilian = await pix(['statement', '--from', '23/11/2026', '--to', '23/11/2026']);
    expect(brazilian.code, brazilian.stderr).toBe(0);
  });

  it('an empty range on a terminal: no boxed table; "no entries from … to …" and the zero totals line', async () => {
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-03-10T03:00:00.000Z', dateTo: '2025-03-11T02:59:59.999Z', limit: '10', offset: '0' },
      { total: 0, results: [] },
    );
    const result = await pix(['statement', '--from', 'today', '--to', 'today'], { tty: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'no entries from 2025-03-10 00:00 to 2025-03-10 23:59 (America/Sao_Paulo)\n' +
        '0 entries: in R$ 0,00, out R$ 0,00, fees R$ 0,00, net R$ 0,00\n',
    );
  });

  it('an empty range with --all on a terminal: no box either, the same line and zero totals', async () => {
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-03-10T03:00:00.000Z', dateTo: NOW.toISOString(), limit: '100', offset: '0' },
      { total: 0, results: [] },
    );
    const result = await pix(['statement', '--from', 'today', '--all'], { tty: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'no entries from 2025-03-10 00:00 to 2025-03-10 12:00 (America/Sao_Paulo)\n' +
        '0 entries: in R$ 0,00, out R$ 0,00, fees R$ 0,00, net R$ 0,00\n',
    );
  });

  it.each([
    [['--from', 'tomorrow'], '--from'],
    [['--to', '2025-01-01'], '--from'],
    [['--from', '2025-02-01', '--to', '2025-01-01'], '--from'],
    [['--from', '2025-02-30', '--to', '2025-03-01'], '--from'],
    [['--from', '2025-01-01', '--to', '2025-13-01'], '--to'],
    [['--from', 'last week', '--to', 'today'], '--from'],
    [['--month', '2025-02', '--from', '2025-02-01'], '--month'],
    [['--month', '2025-13'], '--month'],
    [['--limit', '0'], '--limit'],
    [['--limit', '-5'], '--limit'],
    [['--limit', 'ten'], '--limit'],
    [['--offset', '-1'], '--offset'],
    [['--all', '--limit', '0'], '--limit'],
  ])('%j → exit 2 naming %s, nothing sent', async (args, flag) => {
    const result = await pix(['statement', ...args]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^error: ${flag}: `));
    expect(result.stdout).toBe('');
    // No interceptor is registered: a request would have been a network error (exit 6), not exit 2.
  });
});

describe('pix statement --all', () => {
  const pinned = { dateFrom: '2000-01-01T00:00:00.000Z', dateTo: NOW.toISOString() };

  it('-o ndjson: pins dateTo to the start, keeps API order across concurrent pages', async () => {
    const all = Array.from({ length: 7 }, (_, i) => income(i));
    intercept(mock, PATH, { ...pinned, limit: '3', offset: '0' }, { total: 7, results: all.slice(0, 3) });
    intercept(mock, PATH, { ...pinned, limit: '3', offset: '3' }, { total: 7, results: all.slice(3, 6) });
    intercept(mock, PATH, { ...pinned, limit: '1', offset: '6' }, { total: 7, results: all.slice(6) });
    const result = await pix(['statement', '--all', '--limit', '3', '-o', 'ndjson']);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual(all);
    expect(result.stderr).toBe('');
  });

  it('a --to later than now is pinned to now; an earlier one is kept', async () => {
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-03-01T03:00:00.000Z', dateTo: NOW.toISOString(), limit: '100', offset: '0' },
      { total: 0, results: [] },
    );
    expect((await pix(['statement', '--all', '--month', '2025-03', '-o', 'ndjson'])).code).toBe(0);
    intercept(
      mock,
      PATH,
      { dateFrom: '2025-02-01T03:00:00.000Z', dateTo: '2025-03-01T02:59:59.999Z', limit: '100', offset: '0' },
      { total: 0, results: [] },
    );
    expect((await pix(['statement', '--all', '--month', '2025-02', '-o', 'ndjson'])).code).toBe(0);
  });

  it('drops duplicate ids, reads a grown list to its new end, and exits 6: a total that moved is an incomplete read', async () => {
    intercept(
      mock,
      PATH,
      { ...pinned, limit: '2', offset: '0' },
      { total: 4, results: [income(1), income(2)] },
    );
    intercept(
      mock,
      PATH,
      { ...pinned, limit: '2', offset: '2' },
      { total: 5, results: [income(2), income(3)] },
    );
    // An entry landed at the top: in-4 was pushed to offset 4, past the first total.
    intercept(mock, PATH, { ...pinned, limit: '1', offset: '4' }, { total: 5, results: [income(4)] });
    const result = await pix(['statement', '--all', '--limit', '2', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(6);
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).id),
    ).toEqual(['in-1', 'in-2', 'in-3', 'in-4']);
    expect(result.stderr).toContain('1 duplicate');
    expect(result.stderr).toContain(
      "error: the statement export is incomplete: the server's total changed while it was read (4 → 5; received 4)",
    );
  });

  it('adapts when the server returns fewer entries than asked', async () => {
    const all = Array.from({ length: 5 }, (_, i) => outcome(i));
    intercept(mock, PATH, { ...pinned, limit: '100', offset: '0' }, { total: 5, results: all.slice(0, 2) });
    intercept(mock, PATH, { ...pinned, limit: '2', offset: '2' }, { total: 5, results: all.slice(2, 4) });
    intercept(mock, PATH, { ...pinned, limit: '1', offset: '4' }, { total: 5, results: all.slice(4) });
    const result = await pix(['statement', '--all', '-o', 'csv']);
    expect(result.code).toBe(0);
    const rows = result.stdout.trimEnd().split('\r\n');
    expect(rows).toHaveLength(6);
    expect(rows.slice(1).map((row) => row.split(',').at(-1))).toEqual([
      'out-0',
      'out-1',
      'out-2',
      'out-3',
      'out-4',
    ]);
  });

  it('--json gives one document {total, results}', async () => {
    intercept(
      mock,
      PATH,
      { ...pinned, limit: '2', offset: '0' },
      { total: 3, results: [income(1), outcome(2)] },
    );
    intercept(mock, PATH, { ...pinned, limit: '1', offset: '2' }, { total: 3, results: [income(3)] });
    const result = await pix(['statement', '--all', '--limit', '2', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ total: 3, results: [income(1), outcome(2), income(3)] });
  });

  it('--offset starts the export further in; progress shows only on a terminal stderr', async () => {
    intercept(
      mock,
      PATH,
      { ...pinned, limit: '2', offset: '1' },
      { total: 3, results: [income(2), income(3)] },
    );
    const test = createTestIO({ stderrTTY: true });
    const code = await run(['statement', '--all', '--limit', '2', '--offset', '1', '-o', 'ndjson'], {
      io: test.io,
      env,
      dispatcher: mock.agent,
      clock,
    });
    expect(code).toBe(0);
    expect(test.stdout().trimEnd().split('\n')).toHaveLength(2);
    expect(test.stderr()).toContain('statement 2 of 3');
  });

  it('an export the server cuts short (empty pages before its total) writes what came and exits 6: received N of M', async () => {
    intercept(
      mock,
      PATH,
      { ...pinned, limit: '2', offset: '0' },
      { total: 6, results: [income(1), income(2)] },
    );
    intercept(
      mock,
      PATH,
      { ...pinned, limit: '2', offset: '2' },
      { total: 6, results: [income(3), income(4)] },
    );
    intercept(mock, PATH, { ...pinned, limit: '2', offset: '4' }, { total: 6, results: [] });
    const result = await pix(['statement', '--all', '--limit', '2', '--json']);
    expect(result.code, result.stderr).toBe(6);
    expect(JSON.parse(result.stdout).results).toHaveLength(4);
    expect(result.stderr).toMatch(/"kind":"unavailable".*received 4 of 6/);

    // The same without --json: one error line and a hint; the records stream out first.
    intercept(
      mock,
      PATH,
      { ...pinned, limit: '2', offset: '0' },
      { total: 6, results: [income(1), income(2)] },
    );
    intercept(mock, PATH, { ...pinned, limit: '2', offset: '2' }, { total: 6, results: [] });
    intercept(mock, PATH, { ...pinned, limit: '2', offset: '4' }, { total: 6, results: [] });
    const ndjson = await pix(['statement', '--all', '--limit', '2', '-o', 'ndjson']);
    expect(ndjson.code).toBe(6);
    expect(ndjson.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(ndjson.stderr).toMatch(
      /^error: the statement export is incomplete: received 2 of 6 records the server announced\nhint: /m,
    );
  });

  it('a failing page fails the export with the error of that page', async () => {
    intercept(
      mock,
      PATH,
      { ...pinned, limit: '2', offset: '0' },
      { total: 4, results: [income(1), income(2)] },
    );
    intercept(mock, PATH, { ...pinned, limit: '2', offset: '2' }, { message: 'Requisição inválida' }, 400);
    // Not the page's size: one record is refused too (api/pager.ts).
    intercept(mock, PATH, { ...pinned, limit: '1', offset: '2' }, { message: 'Requisição inválida' }, 400);
    const result = await pix(['statement', '--all', '--limit', '2', '-o', 'ndjson']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('Requisição inválida');
  });
});
