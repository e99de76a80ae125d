import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { BIN, runCli } from '../helpers/cli.js';
import { serveSandbox } from '../helpers/served.js';
import { tempDir } from '../helpers/temp.js';
import { runOnPty } from '../helpers/terminal.js';
import { until } from '../helpers/wait.js';

const STATEMENT = '/api/financial/v1/account/transactions';
const KEY = 'loja@sandbox.pix.local';

let server: SandboxServer;
let env: Record<string, string>;
let stateFile: string;

beforeAll(async () => {
  ({ server, stateFile, env } = await serveSandbox());
});
afterAll(async () => {
  await server?.close();
});

/** A customer pays a new charge of `amount` through the sandbox's own `pix sandbox pay`. */
async function incomingPayment(amount: string): Promise<string> {
  const charge = await runCli(['charge', 'immediate', '--amount', amount, '--key', KEY, '--json'], {
    env,
  });
  expect(charge.code, charge.stderr).toBe(0);
  const paid = await runCli(['sandbox', 'pay', JSON.parse(charge.stdout).id, '--state', stateFile], { env });
  expect(paid.code, paid.stderr).toBe(0);
  return paid.stdout;
}

const sumCentavos = (values: number[]) => values.reduce((sum, value) => sum + Math.round(value * 100), 0);

describe('pix statement --follow, built binary against `sandbox serve`', () => {
  it('-o ndjson prints exactly the three payments made while it runs, and Ctrl-C (SIGINT) ends it with 130', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'statement', '--follow', '-o', 'ndjson', '--limit', '0', '--interval', '1s'],
      { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const reads = () => server.requests.filter((request) => request.path === STATEMENT).length;
    try {
      await until(() => reads() >= 1, 'the first read');
      for (const amount of ['11,11', '22,22', '33,33']) await incomingPayment(amount);
      const lines = () => stdout.split('\n').filter(Boolean);
      await until(() => lines().length >= 3, 'three entries');
      // One more poll after the third: nothing else is printed.
      const after = reads();
      await until(() => reads() >= after + 2, 'two more polls');
      const entries = lines().map((line) => JSON.parse(line));
      expect(entries.map((entry) => [entry.type, entry.amount])).toEqual([
        ['INCOME', 11.11],
        ['INCOME', 22.22],
        ['INCOME', 33.33],
      ]);
      expect(new Set(entries.map((entry) => entry.id)).size).toBe(3);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited, stderr).toBe(130);
    expect(stderr).not.toContain('error');
  }, 30_000);

  it('on a terminal with a pager set, it never pages: rows reach the terminal and Ctrl-C ends it (130)', async () => {
    const file = join(tempDir('pix-follow-pager-'), 'paged.txt');
    const result = await runOnPty(['statement', '--follow', '--limit', '3', '--interval', '1s'], {
      env: { ...env, PIX_PAGER: `cat > '${file}'`, PAGER: 'false' },
      columns: 100,
      rows: 24,
      steps: [{ after: 'Ctrl-C to stop', send: '\u0003' }],
      timeoutMs: 10_000,
    });
    // The live view is on the terminal itself: its header, three rows, the line that says how to stop.
    const shown = result.lines.join('\n');
    expect(shown, result.raw).toMatch(/^Date +Type +Amount/m);
    expect(result.lines.filter((line) => /^20\d\d-\d\d-\d\d \d\d:\d\d /.test(line))).toHaveLength(3);
    expect(shown).toContain('Ctrl-C to stop');
    expect(existsSync(file)).toBe(false); // the pager was never started
    expect(result.code, result.raw).toBe(130);
    expect(shown).not.toContain('error');
  }, 20_000);
});

describe('pix statement summary, built binary against `sandbox serve`', () => {
  const range = ['--from', '2000-01-01', '--to', 'today'];

  it('totals equal the sums of `statement --all` over the same range', async () => {
    await incomingPayment('7,01');
    const [summary, all] = await Promise.all([
      runCli(['statement', 'summary', ...range, '--json'], { env }),
      runCli(['statement', '--all', ...range, '-o', 'ndjson'], { env }),
    ]);
    expect(summary.code, summary.stderr).toBe(0);
    expect(all.code, all.stderr).toBe(0);
    const entries = all.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entries.length).toBeGreaterThan(30);
    const amounts = entries.map((entry) => entry.amount as number);
    const { total, periods } = JSON.parse(summary.stdout);
    const income = sumCentavos(amounts.filter((amount) => amount >= 0));
    const outcome = sumCentavos(amounts.filter((amount) => amount < 0));
    const fees = sumCentavos(entries.map((entry) => entry.fee ?? 0));
    expect([
      total.count,
      sumCentavos([total.income]),
      sumCentavos([total.outcome]),
      sumCentavos([total.fees]),
    ]).toEqual([entries.length, income, outcome, fees]);
    expect(sumCentavos([total.net])).toBe(income + outcome - fees);
    // The periods add up to the total too (a 27-year range is shown by month).
    expect(periods[0].period).toBe('2000-01');
    expect(periods.reduce((sum: number, period: { count: number }) => sum + period.count, 0)).toBe(
      entries.length,
    );
  });

  it('its chart is no wider than an 80-column terminal: nothing wraps', async () => {
    // The sandbox's entries are spread over the 60 days before it was made: 10 weeks of bars.
    const from = new Date(Date.now() - 70 * 86_400_000).toISOString().slice(0, 10);
    const result = await runOnPty(['statement', 'summary', '--from', from, '--to', 'today', '--by', 'week'], {
      env,
      columns: 80,
      rows: 40,
    });
    expect(result.code).toBe(0);
    // What was written, line by line: colour codes and the progress line (`\r…\u001b[2K`) taken out.
    const written = result.raw
      .replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')
      .split(/\r?\n/)
      .map((line) => line.split('\r').at(-1)!.trimEnd())
      .filter(Boolean);
    for (const line of written) expect([...line].length, line).toBeLessThanOrEqual(80);
    // Every line written is one line on the terminal (a wrapped line would be two).
    expect(result.lines.filter(Boolean)).toEqual(written);
    expect(written.some((line) => /^\d{4}-W\d{2} in {2}█/.test(line))).toBe(true);
    expect(written.at(-1)).toMatch(/net/);
  });
});
