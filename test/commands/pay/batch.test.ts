import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../../../src/journal/entries.js';
import { sampleLines, sampleRows } from '../../../src/sandbox/batchfile.js';
import { type SandboxServer, startSandboxServer } from '../../../src/sandbox/server.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { dictAnswer } from '../../helpers/fake-pix-api.js';
import { accountReads, type FakeServer, startFakeServer } from '../../helpers/fake-server.js';
import type { TestIOOptions } from '../../helpers/io.js';
import { pix as runPix } from '../../helpers/pix.js';

/** pix pay batch in-process, against the real sandbox server on a loopback port. */
let server: SandboxServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(rows = 6, withErrors?: 'refused', latencyMs = 0) {
  const dir = tempConfigDir();
  server = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox-state.json'), latencyMs });
  const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'batch-token' };
  const file = join(dir, 'payouts.csv');
  const sample = sampleRows({ rows, seed: 3, ...(withErrors ? { withErrors } : {}) });
  writeFileSync(file, sampleLines(sample, 'csv').join(''));
  const pix = (args: string[], io: TestIOOptions = {}, signal?: AbortSignal) =>
    runPix(args, { ...io, env, ...(signal ? { signal } : {}) });
  const count = (endpoint: string) => server!.requests.filter((r) => r.endpoint === endpoint).length;
  return { dir, file, pix, count, sample };
}

describe('pix pay batch (in-process)', () => {
  it('asks once on a terminal: "n" → exit 8 with nothing sent; "y" pays every row', async () => {
    const { file, pix, count } = await setup(6);
    const no = await pix(['pay', 'batch', file], { tty: true, answers: ['n'] });
    expect(no.code, no.stderr).toBe(8);
    expect(no.stderr).toMatch(/6 rows to pay, R\$ [\d.,]+, 6\s+receivers/); // wrapped at 80 columns
    expect(count('transfer')).toBe(0);
    const yes = await pix(['pay', 'batch', file], { tty: true, answers: ['y'] });
    expect(yes.code, yes.stderr).toBe(0);
    expect(count('transfer')).toBe(6);
    expect(yes.stdout).toContain('paid');
  });

  it('without a terminal and without --yes: exit 2 before anything is consulted or sent', async () => {
    const { file, pix } = await setup(3);
    const result = await pix(['pay', 'batch', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot ask for confirmation/);
    // Only which account the journal must ask was learned (accounts.ts): its keys, and the DICT's answer
    // for its own oldest key (its bank details). No receiver was consulted.
    expect(server!.requests.map((request) => request.endpoint)).toEqual(['keys', 'dict']);
  });

  it('a batch paid in full, run again without --yes and without a terminal: nothing to confirm, exit 0', async () => {
    const { file, pix, count } = await setup(3);
    const first = await pix(['pay', 'batch', file, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const requests = server!.requests.length;
    const again = await pix(['pay', 'batch', file, '-o', 'ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/cannot ask for confirmation/);
    const states = again.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).state);
    expect(states).toEqual(['already_paid', 'already_paid', 'already_paid']);
    expect(count('transfer')).toBe(3);
    expect(server!.requests).toHaveLength(requests); // nothing consulted, nothing sent
  });

  it('errors about the file name the file, not FILE', async () => {
    const { dir, pix } = await setup(1);
    const missing = join(dir, 'nowhere.csv');
    const unreadable = await pix(['pay', 'batch', missing, '--yes']);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toMatch(new RegExp(`^error: ${missing}: cannot open it: `));
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'id,key,amount\nr1,not a key,abc\n');
    const invalid = await pix(['pay', 'batch', bad, '--yes']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(`error: ${bad}: the batch file is not valid: `);
    expect(invalid.stderr).not.toContain('FILE');
  });

  it('--max-total and the profile max-amount refuse the batch (exit 2) before any transfer', async () => {
    const { file, pix, count, sample } = await setup(6);
    const total = await pix(['pay', 'batch', file, '--yes', '--max-total', '1']);
    expect(total.code, total.stderr).toBe(2);
    expect(total.stderr).toMatch(/--max-total: the batch pays R\$ [\d.,]+ in \d+ rows?, above R\$ 1,00/);
    expect(count('transfer')).toBe(0);

    expect((await pix(['config', 'set', 'max-amount', '10'])).code).toBe(0);
    const max = await pix(['pay', 'batch', file, '--yes']);
    expect(max.code, max.stderr).toBe(2);
    const over = sample.filter((row) => (row.pays ?? 0) > 10_00);
    expect(over.length).toBeGreaterThan(0);
    for (const row of over) expect(max.stderr).toContain(`(id ${row.id})`);
    expect(max.stderr).toMatch(/above the max-amount of profile/);
    expect(count('transfer')).toBe(0);
  });

  it('-o ndjson: one record per row with id, state, amount, endToEndId and transfer id; refused rows exit 5', async () => {
    const { file, pix, count } = await setup(10, 'refused');
    const result = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(5);
    const records = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.map((r) => r.id)).toHaveLength(10);
    const paid = records.filter((r) => r.state === 'paid');
    expect(paid).toHaveLength(count('transfer'));
    for (const record of paid) {
      expect(record.transferId).toMatch(/^[0-9a-f-]{36}$/);
      expect(record.endToEndId).toMatch(/^E\d{8}/);
      expect(typeof record.amount).toBe('number');
    }
    const refused = records.filter((r) => r.state === 'not_payable');
    expect(refused.map((r) => r.id)).toEqual([
      's3-000003-err-key-not-found',
      's3-000008-err-code-key-not-found',
    ]);
    // Each says why in the server's own words, after pix's and the status.
    for (const record of refused) expect(record.error).toMatch(/^.+: not found \(404\): \S.+/);
    expect(result.stderr).toMatch(/batch: 8 paid, 2 not payable/);
  });

  it('Ctrl-C before paying (while consulting): exit 130, nothing sent', async () => {
    const { file, pix, count } = await setup(4);
    const controller = new AbortController();
    controller.abort('SIGINT');
    const result = await pix(['pay', 'batch', file, '--yes'], {}, controller.signal);
    expect(result.code).toBe(130);
    expect(count('transfer')).toBe(0);
  });

  /**
   * `pay batch --concurrency 1 -o ndjson` of `rows` rows, with SIGINT sent as soon as the sandbox has seen
   * the first transfer arrive (it answers `latencyMs` later): the row states reported and the transfers sent.
   */
  async function interruptAtFirstTransfer(rows: number, latencyMs: number) {
    const { file, pix, count } = await setup(rows, undefined, latencyMs);
    const controller = new AbortController();
    const timer = setInterval(() => {
      if (count('transfer') >= 1) controller.abort('SIGINT');
    }, 1);
    const result = await pix(
      ['pay', 'batch', file, '--yes', '--concurrency', '1', '-o', 'ndjson'],
      {},
      controller.signal,
    );
    clearInterval(timer);
    const states = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).state as string);
    const counted = (state: string) => states.filter((s) => s === state).length;
    return { ...result, counted, transfers: count('transfer') };
  }

  it('Ctrl-C mid-batch: no new row starts, the rest are reported not_sent, exit 130', async () => {
    const stopped = await interruptAtFirstTransfer(12, 0);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.transfers).toBeLessThan(12);
    expect(stopped.counted('not_sent')).toBe(12 - stopped.transfers);
    expect(stopped.counted('paid')).toBe(stopped.transfers);
  });

  it('Ctrl-C while a transfer is in flight: that row finishes and is reported paid (not unknown)', async () => {
    // The sandbox logs a request when it arrives and answers 300 ms later: the signal comes in between.
    const stopped = await interruptAtFirstTransfer(5, 300);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.transfers).toBe(1);
    expect(stopped.counted('paid')).toBe(1);
    expect(stopped.counted('unknown')).toBe(0);
    expect(stopped.counted('not_sent')).toBe(4);
  });

  it('refuses a CPF typo that is a valid phone number (exit 2, nothing sent)', async () => {
    const { dir, pix } = await setup(1);
    const file = join(dir, 'typo.csv');
    writeFileSync(file, 'id,key,amount\nrow-1,55956510081,10\n');
    const result = await pix(['pay', 'batch', file, '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 2 (id row-1): key: "55956510081" is not a valid CPF');
    expect(server!.requests).toHaveLength(0);
  });

  it('refuses an unquoted 10,50 or 10,500 that fell into the description (exit 2, nothing sent); 10,Rent and 10,"500" pay R$ 10,00', async () => {
    const { dir, pix, count } = await setup(1);
    const split = join(dir, 'split.csv');
    for (const digits of ['50', '500']) {
      writeFileSync(split, `id,key,amount,description\na1,ana@example.com,10,${digits}\n`);
      const refused = await pix(['pay', 'batch', split, '--yes']);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(
        `line 2 (id a1): amount: "10" then "${digits}" in the next field: an unquoted 10,${digits} split in two by the comma`,
      );
      expect(refused.stderr).toMatch(/nothing was sent/);
    }
    expect(server!.requests).toHaveLength(0);

    const text = join(dir, 'text.csv');
    writeFileSync(
      text,
      'id,key,amount,description\na1,ana@example.com,10,Rent\na2,ana@example.com,10,"500"\n',
    );
    const paid = await pix(['pay', 'batch', text, '--yes', '-o', 'ndjson']);
    expect(paid.code, paid.stderr).toBe(0);
    expect(
      paid.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toMatchObject([
      { id: 'a1', state: 'paid', amount: 10, description: 'Rent' },
      { id: 'a2', state: 'paid', amount: 10, description: '500' },
    ]);
    expect(count('transfer')).toBe(2);
  });
});

/**
 * The `description` column was checked and then thrown away. It is the operator's
 * note: in every report format and on the row's journal start line; the API's transfer has no field for
 * it (API §4.5), so the transfer carries what it carried before and nothing more.
 */
describe('pix pay batch: the description column', () => {
  let fake: FakeServer | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  async function fakeSetup() {
    let transfers = 0;
    fake = await startFakeServer((request) => {
      const read = accountReads(request);
      if (read) return read;
      if (request.path.endsWith('/pix/dict/consult')) {
        const { key } = JSON.parse(request.body) as { key: string };
        return dictAnswer(
          key,
          `Owner of ${key}`,
          `E9999999920261123120000000${key.slice(0, 3)}`,
          '12345678909',
        );
      }
      transfers++;
      const { endToEndId, amount } = JSON.parse(request.body) as { endToEndId: string; amount: number };
      return {
        kind: 'json',
        status: 200,
        body: {
          id: `00000000-0000-4000-8000-00000000000${transfers}`,
          endToEndId,
          amount,
          status: 'PENDING',
        },
      };
    });
    const dir = tempConfigDir();
    const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: fake.url, PIX_TOKEN: 'batch-token' };
    const file = join(dir, 'payouts.csv');
    writeFileSync(
      file,
      'id,key,amount,description\nd1,ana@example.com,10.50,"Aluguel, março"\nd2,bia@example.com,7,\n',
    );
    const pix = (args: string[], io: TestIOOptions = {}) => runPix(args, { ...io, env });
    return { dir, file, pix };
  }

  it('is in every report format and on the journal start line; the transfer body is unchanged', async () => {
    const { dir, file, pix } = await fakeSetup();
    const ndjson = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson']);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    const records = ndjson.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.map((r) => [r.id, r.state, r.description])).toEqual([
      ['d1', 'paid', 'Aluguel, março'],
      ['d2', 'paid', null],
    ]);
    // The transfer: endToEndId and amount, as API §4.5 lists them; the note stays with the operator.
    expect(fake!.requestsTo('/pix-cash-out/transfer').map((r) => JSON.parse(r.body))).toEqual([
      { endToEndId: expect.any(String), amount: 10.5 },
      { endToEndId: expect.any(String), amount: 7 },
    ]);
    // The journal's start line of each row.
    const starts = readFileSync(join(dir, JOURNAL_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((line) => line.state === 'sending');
    expect(starts.map((line) => [line.payment.batchRow.row, line.description])).toEqual([
      ['d1', 'Aluguel, março'],
      ['d2', undefined],
    ]);
    const journal = await pix(['journal', '--all', '--json']);
    expect(journal.code, journal.stderr).toBe(0);
    expect(JSON.parse(journal.stdout).results).toContainEqual(
      expect.objectContaining({
        batchRow: expect.objectContaining({ row: 'd1' }),
        description: 'Aluguel, março',
      }),
    );
    const shown = await pix(['journal', 'show', starts[0].id]);
    expect(shown.stdout).toContain('description\tAluguel, março');

    // Reruns (every row already paid) in the other formats.
    const json = await pix(['pay', 'batch', file, '--yes', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).results.map((r: { description: unknown }) => r.description)).toEqual([
      'Aluguel, março',
      null,
    ]);
    const csv = await pix(['pay', 'batch', file, '--yes', '-o', 'csv']);
    const [header, first] = csv.stdout.split('\r\n');
    const column = header!.split(',').indexOf('description');
    expect(column).toBeGreaterThan(-1);
    expect(first).toContain('"Aluguel, março"');
    const tsv = await pix(['pay', 'batch', file, '--yes']);
    expect(tsv.stdout.split('\n')[0]!.split('\t')).toContain('Aluguel, março');
    const table = await pix(['pay', 'batch', file, '--yes'], { tty: true, columns: 200 });
    expect(table.stdout).toMatch(/description/i);
    expect(table.stdout).toContain('Aluguel, março');
  });
});

// `--concurrency` 11 to 16 printed Node's MaxListenersExceededWarning: every
// request in flight added its own abort listener to the command's one AbortSignal (Ctrl-C).
describe('pix pay batch at the documented maximum concurrency', () => {
  it('--concurrency 16, embedded and over HTTP: every row paid, and no warning from Node', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const dir = tempConfigDir();
      const env = { PIX_CONFIG_DIR: dir };
      const pix = (args: string[]) => runPix(args, { env, signal: new AbortController().signal });
      const sample = await pix(['sandbox', 'batch-file', '--rows', '48']);
      expect(sample.code, sample.stderr).toBe(0);
      const file = join(dir, 'payouts.csv');
      writeFileSync(file, sample.stdout);
      const result = await pix(['pay', 'batch', file, '--yes', '--concurrency', '16', '-o', 'ndjson']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(48);
      // And over HTTP (undici), against the sandbox server.
      const served = await setup(48);
      const overHttp = await served.pix(['pay', 'batch', served.file, '--yes', '--concurrency', '16']);
      expect(overHttp.code, overHttp.stderr).toBe(0);
      expect(served.count('transfer')).toBe(48);
      // Node emits its warnings on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
