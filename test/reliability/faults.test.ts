/**
 * Fault suite: every endpoint × every fault kind, against a REAL loopback server that
 * misbehaves — the sandbox started with a faults SPEC, the same mechanism as `pix sandbox serve --faults`.
 *
 * The matrix runs in-process (`run(argv, { io, env, sleep })` with no backoff sleeps) for speed; a handful
 * of cases at the end run the built binary, against the embedded sandbox (PIX_SANDBOX_FAULTS) and
 * against `pix sandbox serve --faults` in its own process.
 *
 * Adding a command is one row in ROWS.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/journal/entries.js';
import { openJournal } from '../../src/journal/store.js';
import { run } from '../../src/main.js';
import { SANDBOX_CLIENT_KEY, SANDBOX_CLIENT_SECRET } from '../../src/sandbox/answer.js';
import { FAULT_KINDS, type FaultEndpoint, type FaultKind } from '../../src/sandbox/faults.js';
import { SEEDED_KEYS } from '../../src/sandbox/seed.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { SYSTEM } from '../../src/system.js';
import { DYNAMIC_CODE } from '../helpers/brcodes.js';
import { BIN, runCli, tempConfigDir } from '../helpers/cli.js';
import { createTestIO } from '../helpers/io.js';
import { expectOneLineError, PAYEE } from '../helpers/reliability.js';

/** One command that reaches `endpoint`; `write` for charges and the transfer (never retried). */
interface Row {
  name: string;
  endpoint: FaultEndpoint;
  argv: string[];
  write: boolean;
  /** Authenticate with client credentials (the token is minted on the auth endpoint). */
  clientCredentials?: boolean;
  /** The transfer: a journal entry is written around it. */
  journal?: boolean;
}

const IN_30_DAYS = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

const ROWS: Row[] = [
  { name: 'keys (token minted)', endpoint: 'auth', argv: ['keys'], write: false, clientCredentials: true },
  { name: 'statement', endpoint: 'statement', argv: ['statement'], write: false },
  {
    name: 'statement --all',
    endpoint: 'statement',
    argv: ['statement', '--all', '-o', 'ndjson'],
    write: false,
  },
  { name: 'keys', endpoint: 'keys', argv: ['keys'], write: false },
  {
    name: 'charge immediate',
    endpoint: 'charge',
    argv: ['charge', 'immediate', '--amount', '10', '--key', SEEDED_KEYS.email.key, '--no-qr'],
    write: true,
  },
  {
    name: 'charge duedate',
    endpoint: 'charge',
    argv: [
      'charge',
      'duedate',
      '--amount',
      '150,00',
      '--due',
      IN_30_DAYS,
      '--key',
      SEEDED_KEYS.email.key,
      '--debtor-name',
      'Fulano de Tal',
      '--debtor-cpf',
      '529.982.247-25',
      '--no-qr',
    ],
    write: true,
  },
  { name: 'pay qr --dry-run', endpoint: 'emv', argv: ['pay', 'qr', DYNAMIC_CODE, '--dry-run'], write: false },
  {
    name: 'pay key --dry-run',
    endpoint: 'dict',
    argv: ['pay', 'key', PAYEE, '--amount', '10', '--dry-run'],
    write: false,
  },
  {
    name: 'pay key -y',
    endpoint: 'transfer',
    argv: ['pay', 'key', PAYEE, '--amount', '10', '-y'],
    write: true,
    journal: true,
  },
];

/** What the contract (§4, §7.5) promises for one fault: exit code and how many requests the server sees. */
function expected(row: Row, kind: FaultKind): { exit: number; requests: number } {
  const { write } = row;
  // A 401 proves nothing was applied, reads and writes alike: exit 3. With client credentials pix mints a
  // new token and sends the request once more (the only resend of a write), refused again here.
  if (kind === '401') {
    return { exit: 3, requests: row.clientCredentials && row.endpoint !== 'auth' ? 2 : 1 };
  }
  if (write) return { exit: kind === '429' ? 6 : 7, requests: 1 };
  // Reads and consultations: retried twice on network errors, 429, 502, 503, 504; a 500 or an answer
  // that arrived whole but cannot be read is not retried.
  const retried = ['502html', '503', '429', 'reset', 'timeout'].includes(kind);
  return { exit: 6, requests: retried ? 3 : 1 };
}

const servers: SandboxServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function runAgainstFault(row: Row, kind: FaultKind) {
  const dir = tempConfigDir();
  const server = await startSandboxServer({
    stateFile: `${dir}/sandbox-state.json`,
    faults: `${row.endpoint}:${kind}`,
  });
  servers.push(server);
  const env: Record<string, string> = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url };
  if (row.clientCredentials) {
    env.PIX_CLIENT_KEY = SANDBOX_CLIENT_KEY;
    env.PIX_CLIENT_SECRET = SANDBOX_CLIENT_SECRET;
  } else {
    env.PIX_TOKEN = 'tok_reliability_faults';
  }
  const test = createTestIO();
  const sleeps: number[] = [];
  const code = await run([...row.argv, '--timeout', '1s'], {
    io: test.io,
    env,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  await server.close();
  const payments = row.journal
    ? openJournal(dir, { ...SYSTEM, clock: { now: () => new Date() } }).read()
    : [];
  return {
    code,
    stdout: test.stdout(),
    stderr: test.stderr(),
    seen: server.requests.filter((request) => request.endpoint === row.endpoint).length,
    transfers: server.requests.filter((request) => request.endpoint === 'transfer').length,
    sleeps,
    payments,
  };
}

describe('fault suite: every endpoint × every fault, in-process against the sandbox with --faults', () => {
  const cases = ROWS.flatMap((row) => FAULT_KINDS.map((kind) => [row.name, kind, row] as const));

  it.concurrent.each(cases)('%s with %s', async (_name, kind, row) => {
    const want = expected(row, kind);
    const result = await runAgainstFault(row, kind);
    expect(result.code, result.stderr).toBe(want.exit);
    expect(result.seen, `requests to ${row.endpoint}`).toBe(want.requests);
    expectOneLineError(result.stderr);
    expect(result.stdout).toBe('');
    // Retry-After (1 s on 503 and 429) is honoured between the retries.
    if (!row.write && (kind === '503' || kind === '429')) expect(result.sleeps).toEqual([1000, 1000]);
    if (row.write && want.exit === 7) expect(result.stderr).toMatch(/^hint: .*statement/m);
    if (row.endpoint !== 'transfer') expect(result.transfers, 'no transfer after a failed step').toBe(0);
    if (row.journal) {
      expect(result.payments).toHaveLength(1);
      const payment = result.payments[0] as JournalEntry;
      expect(payment.state).toBe(want.exit === 7 ? 'unknown' : 'failed');
      if (want.exit === 7) {
        // §7.7: the endToEndId and how to check are printed.
        expect(result.stderr).toContain(payment.endToEndId!);
      }
    }
  });
});

describe('fault suite: the built binary', () => {
  it('embedded sandbox with PIX_SANDBOX_FAULTS=transfer:timeout → exit 7, journal entry unknown', async () => {
    const dir = tempConfigDir();
    const result = await runCli(['pay', 'key', PAYEE, '--amount', '10', '-y', '--timeout', '1s'], {
      env: { PIX_CONFIG_DIR: dir, PIX_SANDBOX_FAULTS: 'transfer:timeout' },
    });
    expect(result.code, result.stderr).toBe(7);
    expectOneLineError(result.stderr);
    const payments = openJournal(dir, { ...SYSTEM, clock: { now: () => new Date() } }).read();
    expect(payments.map((payment) => payment.state)).toEqual(['unknown']);
    expect(result.stderr).toContain(payments[0]!.endToEndId);
  });

  it('embedded sandbox with statement:503x2 → two retries (real Retry-After waits), then success', async () => {
    const result = await runCli(['statement', '--json'], {
      env: { PIX_CONFIG_DIR: tempConfigDir(), PIX_SANDBOX_FAULTS: 'statement:503x2' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty('results');
  });

  it.each([
    { spec: 'keys:reset', argv: ['keys'], exit: 6 },
    {
      spec: 'charge:html502',
      argv: ['charge', 'immediate', '--amount', '10', '--key', SEEDED_KEYS.email.key, '--no-qr'],
      exit: 7,
    },
    { spec: 'emv:badjson', argv: ['pay', 'qr', DYNAMIC_CODE, '--dry-run'], exit: 6 },
    { spec: 'dict:wrongshape', argv: ['pay', 'key', PAYEE, '--amount', '10', '--dry-run'], exit: 6 },
  ])('embedded sandbox with $spec → exit $exit', async ({ spec, argv, exit }) => {
    const result = await runCli(argv, {
      env: { PIX_CONFIG_DIR: tempConfigDir(), PIX_SANDBOX_FAULTS: spec },
    });
    expect(result.code, result.stderr).toBe(exit);
    expectOneLineError(result.stderr);
  });

  it('a bad PIX_SANDBOX_FAULTS is a usage error naming it', async () => {
    const result = await runCli(['keys'], {
      env: { PIX_CONFIG_DIR: tempConfigDir(), PIX_SANDBOX_FAULTS: 'keys:explode' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: PIX_SANDBOX_FAULTS: /);
    expectOneLineError(result.stderr);
  });

  describe('pix sandbox serve --faults, in its own process', () => {
    let child: ChildProcess | undefined;
    afterAll(() => {
      if (child?.pid !== undefined && child.exitCode === null) child.kill('SIGTERM');
    });

    it('keys:500 → a CLI pointed at it exits 6 after asking once; the auth endpoint mints normally', async () => {
      const dir = tempConfigDir();
      child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--faults', 'keys:500'], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PIX_CONFIG_DIR: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        child!.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          const match = /http:\/\/127\.0\.0\.1:\d+/.exec(text);
          if (match) resolve(match[0]);
        });
        child!.on('exit', () => reject(new Error(`sandbox serve exited: ${text}`)));
      });
      const env = {
        PIX_CONFIG_DIR: tempConfigDir(),
        PIX_BASE_URL: url,
        PIX_CLIENT_KEY: SANDBOX_CLIENT_KEY,
        PIX_CLIENT_SECRET: SANDBOX_CLIENT_SECRET,
      };
      const keys = await runCli(['keys'], { env });
      expect(keys.code, keys.stderr).toBe(6);
      expect(keys.stderr).toMatch(/^error: listing PIX keys: the server failed \(500\)/m);
      expectOneLineError(keys.stderr);
      const statement = await runCli(['statement', '--json'], { env });
      expect(statement.code, statement.stderr).toBe(0);
    });
  });
});
