import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/output/width.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { BIN, type CliResult, runCli, runProcess, tempConfigDir } from '../helpers/cli.js';
import { runOnPty } from '../helpers/terminal.js';

const STATEMENT = '/api/financial/v1/account/transactions';
const ENTRIES = 3000;
const CODE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

/** Every line the program wrote to the terminal, escape sequences removed (before any wrapping). */
function writtenLines(raw: string): string[] {
  return raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split(/\r?\n/);
}

let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = tempConfigDir();
  env = { PIX_CONFIG_DIR: dir };
  const seed = await runCli(['sandbox', 'seed', '--transactions', String(ENTRIES)], { env });
  expect(seed.code, seed.stderr).toBe(0);
});

describe('tables on a terminal fit its width (pty)', () => {
  const cases: Array<[string, string[]]> = [
    ['statement', ['statement', '--limit', '30']],
    ['keys', ['keys']],
    ['emv decode', ['emv', 'decode', CODE]],
  ];
  for (const columns of [80, 120]) {
    it.each(cases)(`%s at ${columns} columns: no line wider than the terminal`, async (_name, args) => {
      const result = await runOnPty([...args, '--no-pager'], { env, columns, rows: 60 });
      expect(result.code, result.raw).toBe(0);
      const lines = writtenLines(result.raw);
      const table = lines.filter((line) => /^[┌│├└]/.test(line));
      expect(table.length).toBeGreaterThan(4);
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
      // Each row is whole on its line: it starts and ends with a border.
      for (const line of table) expect(line.trimEnd()).toMatch(/[┐│┤┘]$/);
    });
  }

  it('a terminal that reports no size (0 columns) gets tables laid out for 80 columns, not squeezed to nothing', async () => {
    const result = await runOnPty([], {
      env,
      columns: 80,
      rows: 40,
      shell: 'stty cols 0 rows 0; pix keys --no-pager',
    });
    expect(result.code, result.raw).toBe(0);
    const shown = result.lines.join('\n');
    expect(shown).toMatch(/│ Key +│ Type +│/);
    expect(shown).not.toContain('left out to fit 0 columns');
    for (const line of writtenLines(result.raw)) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
  });

  it('statement: at 80 columns ids are shortened, less important columns left out and named; --wide shows all', async () => {
    const narrow = await runOnPty(['statement', '--limit', '5', '--no-pager'], {
      env,
      columns: 80,
      rows: 40,
    });
    const shown = narrow.lines.join('\n');
    expect(shown).toContain('Date');
    expect(shown).toContain('Amount');
    expect(shown).not.toMatch(/│ Method /);
    expect(shown).toMatch(/Method.*left out to fit 80 columns; --wide shows every column/);
    expect(shown).toMatch(/│ [0-9a-f]{7,8}… │/);
    expect(shown).toMatch(/Id: shortened to fit 80 columns; --wide shows them whole/);
    const wide = await runOnPty(['statement', '--limit', '5', '--no-pager', '--wide'], {
      env,
      columns: 80,
      rows: 40,
    });
    const all = writtenLines(wide.raw).join('\n');
    for (const header of ['Type', 'Fee', 'Method', 'Counterparty', 'Status', 'Id'])
      expect(all).toContain(header);
    expect(all).toMatch(/│ [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} │/);
    expect(all).not.toContain('left out');
  });
});

describe('the pager (pty)', () => {
  /** A pager that records what it was given in `file`. */
  const recorder = (file: string) => `cat > '${file}'`;

  it('a long list goes through PIX_PAGER; the terminal shows only what the pager shows', async () => {
    const file = join(tempConfigDir(), 'paged.txt');
    const result = await runOnPty(['statement', '--limit', '100'], {
      env: { ...env, PIX_PAGER: recorder(file), PAGER: 'false' },
      columns: 100,
      rows: 24,
    });
    expect(result.code, result.raw).toBe(0);
    const paged = readFileSync(file, 'utf8');
    expect(paged.split('\n').filter((line) => line.startsWith('│ 20'))).toHaveLength(100);
    // The table reached the pager, not the terminal.
    expect(result.lines.join('\n')).not.toMatch(/│ 20\d\d-/);
  });

  it('PAGER is used when PIX_PAGER is unset', async () => {
    const file = join(tempConfigDir(), 'paged.txt');
    const result = await runOnPty(['keys'], { env: { ...env, PAGER: recorder(file) }, columns: 100 });
    expect(result.code, result.raw).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('loja@sandbox.pix.local');
  });

  it.each([
    ['--no-pager', ['--no-pager'], {}],
    ['an empty PIX_PAGER', [], { PIX_PAGER: '' }],
  ])('%s: no pager, the table on the terminal', async (_name, flags, extra) => {
    const file = join(tempConfigDir(), 'paged.txt');
    const result = await runOnPty(['statement', '--limit', '100', ...flags], {
      env: {
        ...env,
        PAGER: recorder(file),
        ...extra,
        ...(flags.length > 0 ? { PIX_PAGER: recorder(file) } : {}),
      },
      columns: 100,
      rows: 24,
    });
    expect(result.code, result.raw).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(writtenLines(result.raw).filter((line) => line.startsWith('│ 20'))).toHaveLength(100);
  });

  it('a pager quit before the end (q; here one that reads nothing) ends pix quietly with 0', async () => {
    const result = await runOnPty(['statement', '--all'], {
      env: { ...env, PIX_PAGER: 'head -c 10 >/dev/null' },
      columns: 100,
    });
    expect(result.code, result.raw).toBe(0);
    expect(result.lines.join('\n')).not.toMatch(/error|EPIPE|bug/i);
  });
});

describe('write failures', () => {
  const sh = (line: string) =>
    runProcess('sh', ['-c', line], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        PIX: BIN,
        NODE: process.execPath,
        ...env,
      },
    });

  it('an export to a full device exits 1, names the cause and how much was written', async () => {
    const result = await sh('"$NODE" "$PIX" statement --all -o csv > /dev/full');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: cannot write output: no space left on device');
    expect(result.stderr).toMatch(/the output is incomplete: wrote [\d,]+ of 3,000 records/);
    expect(result.stderr).not.toContain('bug in pix');
  });

  it('a charge whose output is lost: exit 1, stderr names the charge that was created', async () => {
    const result = await sh('"$NODE" "$PIX" charge immediate --amount 10 > /dev/full');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot write output: no space left on device');
    expect(result.stderr).toMatch(/the charge was created: id [0-9a-f-]{36}/);
  });

  it('a closed pipe (| head) is not an error', async () => {
    const result = await sh('"$NODE" "$PIX" statement --all -o ndjson | head -n 1');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toHaveLength(2);
    expect(result.stderr).not.toContain('error');
  });
});

describe('--output-file and interrupted exports (served sandbox, 20 ms per request)', () => {
  let server: SandboxServer;
  let served: Record<string, string>;

  beforeAll(async () => {
    server = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox-state.json'), latencyMs: 20 });
    served = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'e2e-token' };
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Starts an export, sends `signal` once `ready()` holds, and collects the result. */
  function interrupt(args: string[], signal: NodeJS.Signals, ready: (stdout: string) => boolean) {
    return new Promise<CliResult>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...served },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let sent = false;
      const check = () => {
        if (!sent && ready(stdout)) {
          sent = true;
          child.kill(signal);
        }
      };
      const poll = setInterval(check, 5);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        check();
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  const statementRequests = () => server.requests.filter((request) => request.path === STATEMENT).length;

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s mid-export: exit %i, stderr says how many of how many, stdout holds exactly those',
    async (signal, code) => {
      const result = await interrupt(
        ['statement', '--all', '-o', 'ndjson', '--limit', '50'],
        signal,
        (stdout) => stdout.includes('\n'),
      );
      expect(result.code, result.stderr).toBe(code);
      const match = /interrupted: wrote ([\d,]+) of 3,000 records/.exec(result.stderr);
      expect(match, result.stderr).not.toBeNull();
      const written = Number(match![1]!.replace(/,/g, ''));
      expect(written).toBeGreaterThan(0);
      expect(written).toBeLessThan(ENTRIES);
      const lines = result.stdout.split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toHaveLength(written);
      for (const line of lines) JSON.parse(line);
      expect(result.stderr).not.toContain('error:');
    },
  );

  it.each([
    ['an existing FILE is left as it was', 'the previous export\n'],
    ['no FILE before: none after', undefined],
  ])(
    'SIGINT mid-export with --output-file: exit 130, %s, no temporary file left',
    async (_name, previous) => {
      const folder = tempConfigDir();
      const target = join(folder, 'january.csv');
      if (previous !== undefined) writeFileSync(target, previous);
      const before = statementRequests();
      const result = await interrupt(
        ['statement', '--all', '-o', 'csv', '--limit', '50', '--output-file', target, '--force'],
        'SIGINT',
        () => statementRequests() >= before + 3,
      );
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toMatch(
        /interrupted after [\d,]+ of 3,000 records: .*january\.csv was not changed/,
      );
      if (previous === undefined) expect(readdirSync(folder)).toEqual([]);
      else {
        expect(readFileSync(target, 'utf8')).toBe(previous);
        expect(readdirSync(folder)).toEqual(['january.csv']);
      }
    },
  );

  it('an uninterrupted --output-file export is complete, replaces FILE (--force) keeping its mode, stdout empty', async () => {
    const target = join(tempConfigDir(), 'all.csv');
    writeFileSync(target, 'old\n', { mode: 0o640 });
    const before = statementRequests();
    // Without --force an existing FILE is exit 2, as for --qr-png: one rule, nothing sent, FILE as it was.
    const refused = await runCli(['statement', '--all', '-o', 'csv', '--output-file', target], {
      env: served,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('already exists; add --force to replace it');
    expect(statementRequests()).toBe(before);
    expect(readFileSync(target, 'utf8')).toBe('old\n');
    const result = await runCli(['statement', '--all', '-o', 'csv', '--output-file', target, '--force'], {
      env: served,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    const rows = readFileSync(target, 'utf8').split('\r\n');
    expect(rows.pop()).toBe('');
    expect(rows).toHaveLength(ENTRIES + 1);
    expect(new Set(rows.slice(1).map((row) => row.split(',').at(-1))).size).toBe(ENTRIES);
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(readdirSync(join(target, '..'))).toEqual(['all.csv']);
  });

  it('--output-file in a missing directory: exit 2 naming the flag, nothing sent', async () => {
    const before = statementRequests();
    const result = await runCli(['statement', '--output-file', join(dir, 'nope', 'x.csv')], { env: served });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --output-file: cannot write /m);
    expect(statementRequests()).toBe(before);
  });
});
