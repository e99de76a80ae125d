import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../../src/journal/entries.js';
import { TORN_MARK } from '../../src/journal/parser.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { readSandboxState } from '../../src/sandbox/store.js';
import { BIN, runCli, tempConfigDir } from '../helpers/cli.js';
import { pix as runPix } from '../helpers/pix.js';
import { readWorkbook } from '../helpers/xlsx.js';

/**
 * The built binary against the real sandbox server over loopback (latency 0). The server runs in this
 * process: its request log and its state file are how "N transfers" and "paid exactly once" are counted.
 */
let server: SandboxServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `stateFile`: the served sandbox's own, apart from the embedded sandbox's (a rehearsal's) in the dir. */
async function sandbox(faults?: string, stateName = 'sandbox-state.json') {
  const dir = tempConfigDir();
  const stateFile = join(dir, stateName);
  server = await startSandboxServer({ port: 0, stateFile, ...(faults ? { faults } : {}) });
  const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'e2e-batch' };
  const pix = (args: string[], timeoutMs = 30_000) => runCli(args, { env, timeoutMs });
  /** The operator's look at the journal, in-process: the same code as the binary, without a Node to start. */
  const operator = (args: string[]) => runPix(args, { env });
  const count = (endpoint: string) => server!.requests.filter((r) => r.endpoint === endpoint).length;
  /** The sandbox's own record of transfers: endToEndId → amount in centavos. */
  const transfers = () => {
    const state = readSandboxState(stateFile);
    return state ? Object.values(state.transfers) : [];
  };
  /**
   * The journal's lines as records. A SIGKILL can cut a line short (seen on Node 24); the next writer marks
   * it with TORN_MARK on the line after, and only such a line may fail to parse: any other throws here.
   */
  const journal = () => {
    const lines = readFileSync(join(dir, JOURNAL_FILE), 'utf8').split('\n');
    const records: Record<string, unknown>[] = [];
    lines.forEach((line, index) => {
      if (line === '' || line === TORN_MARK) return;
      try {
        records.push(JSON.parse(line) as Record<string, unknown>);
      } catch (error) {
        const next = lines.slice(index + 1).find((after) => after !== '');
        if (next !== TORN_MARK) throw error;
      }
    });
    return records;
  };
  const file = async (rows: number, ...flags: string[]) => {
    const made = await runCli(['sandbox', 'batch-file', '--rows', String(rows), ...flags]);
    expect(made.code, made.stderr).toBe(0);
    const path = join(dir, 'payouts.csv');
    writeFileSync(path, made.stdout);
    return path;
  };
  return { dir, env, pix, operator, count, transfers, journal, file };
}

/** Resolves every unresolved journal entry from the sandbox's own record of transfers. */
/**
 * Whether the journal file holds an entry sent with no outcome or resolution since: only then is pix asked
 * for its list (a kill between rows leaves none).
 */
function anyOpen(s: Awaited<ReturnType<typeof sandbox>>): boolean {
  const open = new Set<string>();
  for (const line of s.journal()) {
    const id = line.id as string;
    if (line.resolution || (line.state && line.state !== 'sending' && line.state !== 'unknown'))
      open.delete(id);
    else if (line.state) open.add(id);
  }
  return open.size > 0;
}

async function resolveFromSandbox(s: Awaited<ReturnType<typeof sandbox>>): Promise<number> {
  if (!anyOpen(s)) return 0;
  const listed = await s.operator(['journal', '--all', '--unresolved', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  const unresolved = JSON.parse(listed.stdout).results as Array<{ id: string; endToEndId: string }>;
  const sent = new Set(s.transfers().map((t) => t.endToEndId));
  for (const entry of unresolved) {
    const flag = sent.has(entry.endToEndId) ? '--paid' : '--not-paid';
    const resolved = await s.operator(['journal', 'resolve', entry.id, flag]);
    expect(resolved.code, resolved.stderr).toBe(0);
  }
  return unresolved.length;
}

describe('pix pay batch, built binary against the sandbox server', () => {
  it('pays a 50-row file (50 transfers); the same file again sends nothing and exits 0', async () => {
    const s = await sandbox();
    const path = await s.file(50);
    const first = await s.pix(['pay', 'batch', path, '--yes', '-o', 'csv']);
    expect(first.code, first.stderr).toBe(0);
    expect(s.count('transfer')).toBe(50);
    const lines = first.stdout.trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,state,amount,receiver,document,institution,endToEndId,transferId,error,description',
    );
    expect(lines.slice(1).every((line) => line.split(',')[1] === 'paid')).toBe(true);
    expect(first.stderr).toMatch(/batch: 50 paid; R\$ [\d.,]+ paid in this run/);

    const again = await s.pix(['pay', 'batch', path, '--yes', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(s.count('transfer')).toBe(50);
    const report = JSON.parse(again.stdout);
    expect(report.total).toBe(50);
    expect(new Set(report.results.map((r: { state: string }) => r.state))).toEqual(new Set(['already_paid']));
  });

  it('FILE.xlsx: a workbook of the same rows pays them with exact centavos; the CSV then finds them paid', async () => {
    const s = await sandbox();
    const path = await s.file(12);
    // The sample's CSV quotes a comma amount ("4130,12"): split outside quotes, then unquote.
    const [header, ...rows] = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) =>
        line.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/).map((cell) => cell.replace(/^"(.*)"$/, '$1')),
      );
    const reais = (text: string) => Number(text.replace(',', '.'));
    // Amounts as number cells, as a person types them into a spreadsheet (1234.56, 12.5).
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Pagamentos');
    // Columns wide enough to show each key and amount whole, as pix requires (a BR Code need not be).
    for (let column = 1; column <= header!.length; column++) sheet.getColumn(column).width = 48;
    sheet.addRow(header!);
    const amount = header!.indexOf('amount');
    for (const row of rows)
      sheet.addRow(row.map((cell, i) => (i === amount && cell !== '' ? reais(cell) : cell)));
    const workbook = join(s.dir, 'payouts.xlsx');
    await book.xlsx.writeFile(workbook);

    const report = join(s.dir, 'report.xlsx');
    const paid = await s.pix(['pay', 'batch', workbook, '--yes', '-o', 'xlsx', '--output-file', report]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(s.count('transfer')).toBe(12);
    // Every amount the sheet gives is paid as typed (a dynamic code without one is the server's to fix).
    const written = rows
      .filter((row) => row[amount] !== '')
      .map((row) => Math.round(reais(row[amount]!) * 100));
    expect(written.length).toBeGreaterThan(6);
    expect(s.transfers().map((t) => t.amount)).toEqual(expect.arrayContaining(written));
    const sheetOut = await readWorkbook(readFileSync(report));
    expect(sheetOut.name).toBe('Batch');
    expect(sheetOut.rows.slice(1).map((row) => row[1]!.value)).toEqual(Array(12).fill('paid'));

    const again = await s.pix(['pay', 'batch', path, '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(s.count('transfer')).toBe(12);
    const states = JSON.parse(again.stdout).results.map((r: { state: string }) => r.state);
    expect(new Set(states)).toEqual(new Set(['already_paid']));
  });

  it('a file with one bad row: exit 2 naming its line and id, zero requests', async () => {
    const s = await sandbox();
    const path = await s.file(20, '--with-errors', 'invalid');
    const result = await s.pix(['pay', 'batch', path, '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/line 4 \(id s1-000003-err-cpf-check-digits\): key: /);
    expect(result.stderr).toContain(`error: ${path}: the batch file is not valid: `);
    expect(result.stderr).toMatch(/the batch file is not valid: \d+ problems?; nothing was sent/);
    expect(server!.requests).toHaveLength(0);
  });

  it('--dry-run consults every row and sends no transfer', async () => {
    const s = await sandbox();
    const path = await s.file(15);
    const result = await s.pix(['pay', 'batch', path, '--dry-run', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    // Every row's, and once the account's own key's (which bank account it is: accounts.ts).
    expect(s.count('dict') + s.count('emv')).toBe(15 + 1);
    expect(s.count('transfer')).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(15);
    expect(result.stderr).toMatch(/dry run: 15 rows to pay/);
  });

  it('two runs of the same file at once: no row is paid twice, none is called unknown (in progress elsewhere, exit 8)', async () => {
    const dir = tempConfigDir();
    // Latency keeps each transfer in flight long enough for the other run to see it.
    server = await startSandboxServer({ port: 0, stateFile: join(dir, 'state.json'), latencyMs: 60 });
    const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'e2e-batch' };
    const lines = ['id,key,amount'];
    for (let n = 1; n <= 30; n++) lines.push(`c${n},c${n}@example.com,${n}.00`);
    const path = join(dir, 'twice.csv');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const args = ['pay', 'batch', path, '--yes', '-o', 'ndjson', '--concurrency', '4'];
    const [a, b] = await Promise.all([runCli(args, { env }), runCli(args, { env })]);
    const states = [a, b].flatMap((result) =>
      result.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { state: string }).state),
    );
    expect(states).not.toContain('unknown');
    for (const result of [a, b]) expect([0, 8], result.stderr).toContain(result.code);
    const transfers = Object.values(readSandboxState(join(dir, 'state.json'))!.transfers);
    expect(transfers).toHaveLength(30);
    // A row the other run held is paid by running the file once more, which sends nothing twice.
    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(0);
    expect(Object.values(readSandboxState(join(dir, 'state.json'))!.transfers)).toHaveLength(30);
  }, 60_000);

  it('a hanging transfer: exit 7, batch stopped; a rerun pays the others and holds that row until resolved', async () => {
    const s = await sandbox('transfer:timeoutx1');
    const path = await s.file(12);
    const first = await s.pix([
      'pay',
      'batch',
      path,
      '--yes',
      '--concurrency',
      '1',
      '--timeout',
      '1s',
      '-o',
      'ndjson',
    ]);
    expect(first.code, first.stderr).toBe(7);
    const states = first.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; state: string; error: string | null });
    expect(states[0]).toMatchObject({ id: 's1-000001', state: 'unknown' });
    expect(states[0]!.error).toMatch(
      /`pix statement -p \S+ --from \S+ --to \S+ --type outcome [^`]*--all`.*`pix journal resolve [0-9a-f]{8} --paid`.*`pix journal resolve [0-9a-f]{8} --not-paid`/,
    );
    expect(states.slice(1).every((row) => row.state === 'not_sent')).toBe(true);
    expect(s.transfers()).toHaveLength(0);

    const rerun = await s.pix(['pay', 'batch', path, '--yes', '-o', 'ndjson']);
    expect(rerun.code, rerun.stderr).toBe(7);
    expect(s.transfers()).toHaveLength(11);
    expect(rerun.stdout).toMatch(/"id":"s1-000001","line":2,"state":"unknown"/);

    expect(await resolveFromSandbox(s)).toBe(1);
    const last = await s.pix(['pay', 'batch', path, '--yes']);
    expect(last.code, last.stderr).toBe(0);
    expect(s.transfers()).toHaveLength(12);
  });

  it('a rehearsal on the embedded sandbox, a pay key left unknown, then 20 SIGKILLs at random moments mid-batch (200 rows), rerun until exit 0: every row paid exactly once', async () => {
    // The served sandbox is "the real account"; its first transfer answers 500 (applying nothing).
    const s = await sandbox('transfer:500x1', 'served-state.json');
    const path = await s.file(200);
    // 1. The rehearsal: the same file and config dir, on the embedded sandbox (no PIX_BASE_URL).
    const rehearsal = await runCli(['pay', 'batch', path, '--yes'], {
      env: { PIX_CONFIG_DIR: s.dir },
      timeoutMs: 60_000,
    });
    expect(rehearsal.code, rehearsal.stderr).toBe(0);
    // 2. A pay key of the same key and amount as one row, on the real account: unknown (exit 7).
    const row = /^(s\d+-\d+),([0-9a-f-]{36}),,(\d+\.\d\d),/m.exec(readFileSync(path, 'utf8'));
    expect(row).not.toBeNull();
    const key = await s.pix(['pay', 'key', row![2]!, '--amount', row![3]!, '-y']);
    expect(key.code, key.stderr).toBe(7);
    // 3. The real run, killed 20 times.
    const journalPath = join(s.dir, JOURNAL_FILE);
    const lines = () => {
      try {
        return statSync(journalPath).size;
      } catch {
        return 0;
      }
    };
    // Runs killed once the journal has grown by a random amount: mid-transfer, between rows.
    for (let kill = 0; kill < 20; kill++) {
      const start = lines();
      const grow = 500 + Math.floor(Math.random() * 3_500);
      const child = spawn(process.execPath, [BIN, 'pay', 'batch', path, '--yes'], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...s.env },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const timer = setInterval(() => {
        if (lines() - start >= grow) child.kill('SIGKILL');
      }, 2);
      const code = await exited;
      clearInterval(timer);
      expect(code).toBe(null); // killed, not finished
      await resolveFromSandbox(s);
    }
    let final = await s.pix(['pay', 'batch', path, '--yes', '-o', 'ndjson']);
    for (let attempt = 0; final.code !== 0 && attempt < 3; attempt++) {
      await resolveFromSandbox(s);
      final = await s.pix(['pay', 'batch', path, '--yes', '-o', 'ndjson']);
    }
    expect(final.code, final.stderr).toBe(0);
    // Whatever the kills left in the journal, pix reads it as whole or torn, never as damage.
    const verified = await s.pix(['journal', 'verify']);
    expect(verified.code, verified.stderr).toBe(0);

    // The rehearsal's 200 transfers are the embedded sandbox's; the real account has its own 200.
    const sent = s.transfers();
    expect(sent).toHaveLength(200);
    expect(new Set(sent.map((t) => t.endToEndId)).size).toBe(200);
    const report = final.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; state: string; endToEndId: string; amount: number });
    expect(new Set(report.map((r) => r.id)).size).toBe(200);
    // Each row's payment is one sandbox transfer of the row's amount.
    const byE2e = new Map(sent.map((t) => [t.endToEndId, t.amount]));
    for (const row of report) {
      expect(['paid', 'already_paid']).toContain(row.state);
      expect(byE2e.get(row.endToEndId)).toBe(Math.round(row.amount * 100));
    }
    // The journal holds exactly one done (or resolved paid) entry per row.
    const done = new Map<string, number>();
    const entries = new Map<string, { row: string; state?: string; resolution?: string }>();
    // The real account's batch rows only: the rehearsal's went to the embedded sandbox's base URL.
    for (const line of s.journal()) {
      const id = line.id as string;
      if (line.state === 'sending') {
        const payment = line.payment as { batchRow?: { row: string } };
        if (line.baseUrl === s.env.PIX_BASE_URL && payment.batchRow) {
          entries.set(id, { row: payment.batchRow.row });
        }
      } else if (entries.has(id)) {
        if (line.state) entries.get(id)!.state = line.state as string;
        else if (line.resolution) entries.get(id)!.resolution = line.resolution as string;
      }
    }
    for (const entry of entries.values()) {
      const paid = entry.resolution ? entry.resolution === 'paid' : entry.state === 'done';
      if (paid) done.set(entry.row, (done.get(entry.row) ?? 0) + 1);
    }
    expect(done.size).toBe(200);
    expect([...done.values()].every((n) => n === 1)).toBe(true);
    // 36 s alone on the 2-core box, 53 s in CI; 300 s was overrun under `npm test` at a load average of 13
    // (three other suites running): 20 killed runs each consult the file's 200 receivers again on a served
    // sandbox. Each pix run has its own deadline (runCli), which is what catches a hang.
  }, 600_000);
});
