/**
 * One ledger of truth: the journal's guarantees across commands, accounts and a damaged
 * file — the seams where one command's world meets another's. In-process, against the real sandbox
 * server on loopback ports and the embedded sandbox; each test names the finding it covers.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../src/config/store.js';
import { JOURNAL_FILE } from '../../src/journal/entries.js';
import { dictOwner } from '../../src/sandbox/people.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { SYSTEM } from '../../src/system.js';
import { STATIC_CODE } from '../helpers/brcodes.js';
import { tempConfigDir } from '../helpers/cli.js';
import { pix as runPix } from '../helpers/pix.js';

const servers: SandboxServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(dir: string, name: string, faults?: string): Promise<SandboxServer> {
  const server = await startSandboxServer({
    port: 0,
    stateFile: join(dir, `${name}-state.json`),
    ...(faults === undefined ? {} : { faults }),
  });
  servers.push(server);
  return server;
}

type Env = Record<string, string>;

/** A fresh config dir and "the real account": the sandbox server on a loopback port, a static token. */
async function realAccount(faults?: string) {
  const dir = tempConfigDir();
  const server = await serve(dir, 'api', faults);
  return { dir, server, env: { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 't' } };
}

const pix = (args: string[], env: Env) => runPix(args, { env });

const transfers = (server: SandboxServer) => server.requests.filter((r) => r.endpoint === 'transfer').length;

/** `id,key,amount` rows to distinct keys: r001 → r001@example.com, R$ 1,00 + the row's number. */
function batchFile(dir: string, rows: number, name = 'payouts.csv'): string {
  const lines = ['id,key,amount'];
  for (let n = 1; n <= rows; n++) {
    const id = `r${String(n).padStart(3, '0')}`;
    lines.push(`${id},${id}@example.com,${n + 1}.00`);
  }
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const records = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; state: string; error: string | null });

describe('the journal knows the account (finding 1)', () => {
  it('a rehearsal on the embedded sandbox does not mark the real batch paid', async () => {
    const dir = tempConfigDir();
    const file = batchFile(dir, 5);
    const rehearsal = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], { PIX_CONFIG_DIR: dir });
    expect(rehearsal.code, rehearsal.stderr).toBe(0);
    expect(records(rehearsal.stdout).map((r) => r.state)).toEqual(Array(5).fill('paid'));

    // The same file and config dir, now against "the real account" (the README's CI way).
    const real = await serve(dir, 'real');
    const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: real.url, PIX_TOKEN: 'real-token' };
    const result = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(records(result.stdout).map((r) => r.state)).toEqual(Array(5).fill('paid'));
    expect(transfers(real)).toBe(5);
    // The collision of ids is said, not hidden.
    expect(result.stderr).toMatch(
      /note: row r001: this id was paid on another account \(.*via http:\/\/sandbox\.localhost /,
    );

    // And on this account, the rows are now paid: a rerun sends nothing.
    const again = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(records(again.stdout).map((r) => r.state)).toEqual(Array(5).fill('already_paid'));
    expect(transfers(real)).toBe(5);
  });

  it('a profile whose base URL changes (staging → production) pays the rows on the new API', async () => {
    const dir = tempConfigDir();
    const file = batchFile(dir, 3);
    const staging = await serve(dir, 'staging');
    const production = await serve(dir, 'production');
    const env = (url: string) => ({ PIX_CONFIG_DIR: dir, PIX_BASE_URL: url, PIX_TOKEN: 't' });
    expect((await pix(['pay', 'batch', file, '--yes'], env(staging.url))).code).toBe(0);
    const result = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env(production.url));
    expect(result.code, result.stderr).toBe(0);
    expect(transfers(staging)).toBe(3);
    expect(transfers(production)).toBe(3);
  });

  /**
   * Pays a 3-row batch as profile `ops`, lets `change` do something to the profile (it returns the profile
   * to pay from next), pays the same file again: every row already_paid, still 3 transfers.
   */
  async function paysNothingTwiceAfter(
    change: (env: { PIX_CONFIG_DIR: string }, makeOps: () => Promise<void>) => Promise<string>,
  ) {
    const dir = tempConfigDir();
    const file = batchFile(dir, 3);
    const api = await serve(dir, 'api');
    const env = { PIX_CONFIG_DIR: dir };
    const makeOps = () =>
      openConfigStore(env, SYSTEM).setProfile('ops', {
        'base-url': api.url,
        token: 't',
        tokenBaseUrl: api.url,
      });
    await makeOps();
    expect((await pix(['pay', 'batch', file, '--yes', '-p', 'ops'], env)).code).toBe(0);
    expect(transfers(api)).toBe(3);
    const profile = await change(env, makeOps);
    const again = await pix(['pay', 'batch', file, '--yes', '-p', profile, '-o', 'ndjson'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(records(again.stdout).map((row) => row.state)).toEqual([
      'already_paid',
      'already_paid',
      'already_paid',
    ]);
    expect(transfers(api)).toBe(3);
  }

  it('a profile deleted and made again (same name, same API) still sees its paid rows: nothing is paid twice', async () => {
    await paysNothingTwiceAfter(async (env, makeOps) => {
      const deleted = await pix(['profile', 'delete', 'ops', '--yes'], env);
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(openConfigStore(env, SYSTEM).listProfiles()).toEqual([]);
      await makeOps();
      return 'ops';
    });
  });

  it('a renamed profile keeps what it paid under its former name: the batch again pays nothing', async () => {
    await paysNothingTwiceAfter(async (env) => {
      const renamed = await pix(['profile', 'rename', 'ops', 'loja'], env);
      expect(renamed.code, renamed.stderr).toBe(0);
      return 'loja';
    });
  });

  it('a pay key on the sandbox does not hold or block the same payment on another API', async () => {
    const dir = tempConfigDir();
    const args = ['pay', 'key', 'ana@example.com', '--amount', '10', '-y'];
    expect((await pix(args, { PIX_CONFIG_DIR: dir })).code).toBe(0);
    const real = await serve(dir, 'real');
    const result = await pix(args, { PIX_CONFIG_DIR: dir, PIX_BASE_URL: real.url, PIX_TOKEN: 't' });
    expect(result.code, result.stderr).toBe(0);
    expect(transfers(real)).toBe(1);
  });
});

describe('one guard for all money (finding 2)', () => {
  it('pay batch holds a row whose payment pay key left unknown (exit 7), and sends nothing for it', async () => {
    const { dir, server, env } = await realAccount('transfer:500x1');
    const key = await pix(['pay', 'key', 'ana@example.com', '--amount', '10', '-y'], env);
    expect(key.code, key.stderr).toBe(7);
    expect(transfers(server)).toBe(1);

    const file = join(dir, 'one.csv');
    writeFileSync(file, 'id,key,amount\nn1,ana@example.com,10.00\nn2,bob@example.com,10.00\n');
    const result = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env);
    expect(result.code, result.stderr).toBe(7);
    const [held, other] = records(result.stdout);
    expect(held).toMatchObject({ id: 'n1', state: 'unknown' });
    expect(held!.error).toMatch(
      /the same payment sent before \(journal entry [0-9a-f]{8}\) with no known outcome/,
    );
    expect(other).toMatchObject({ id: 'n2', state: 'paid' });
    expect(transfers(server)).toBe(2); // the pay key's, and bob's; never ana's again
  });

  it('a row repeating a payment made outside the file within 10 minutes is a duplicate (exit 8) unless --allow-duplicate', async () => {
    const { dir, server, env } = await realAccount();
    expect((await pix(['pay', 'key', 'ana@example.com', '--amount', '10', '-y'], env)).code).toBe(0);
    const file = join(dir, 'one.csv');
    // Two rows of one file to the same key and amount: the operator's stated intent, both paid.
    writeFileSync(
      file,
      'id,key,amount\nd1,ana@example.com,10.00\nd2,bob@example.com,5.00\nd3,bob@example.com,5.00\n',
    );
    const held = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env);
    expect(held.code, held.stderr).toBe(8);
    expect(records(held.stdout).map((r) => [r.id, r.state])).toEqual([
      ['d1', 'duplicate'],
      ['d2', 'paid'],
      ['d3', 'paid'],
    ]);
    expect(records(held.stdout)[0]!.error).toMatch(/--allow-duplicate/);
    expect(transfers(server)).toBe(3);
    const allowed = await pix(['pay', 'batch', file, '--yes', '--allow-duplicate', '-o', 'ndjson'], env);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(records(allowed.stdout).map((r) => r.state)).toEqual(['paid', 'already_paid', 'already_paid']);
    expect(transfers(server)).toBe(4);
  });
});

describe('a damaged journal is loud (finding 3)', () => {
  async function paidBatch(rows: number) {
    const { dir, server, env } = await realAccount();
    const file = batchFile(dir, rows);
    expect((await pix(['pay', 'batch', file, '--yes'], env)).code).toBe(0);
    return { dir, server, env, file, path: join(dir, JOURNAL_FILE) };
  }

  it("one changed byte in a paid row's start line stops every payment, naming the file and line", async () => {
    const { server, env, file, path } = await paidBatch(20);
    const lines = readFileSync(path, 'utf8').split('\n');
    const at = lines.findIndex((line) => line.includes('"row":"r005"') && line.includes('"sending"'));
    expect(at).toBeGreaterThan(-1);
    lines[at] = lines[at]!.replace('"sending"', '"sendin"g');
    writeFileSync(path, lines.join('\n'));

    const rerun = await pix(['pay', 'batch', file, '--yes'], env);
    expect(rerun.code, rerun.stderr).toBe(8);
    const errors = rerun.stderr.split('\n').filter((line) => line.startsWith('error:'));
    expect(errors).toEqual([
      `error: the journal is damaged: ${path} line ${at + 1}: not JSON (and 1 more damaged line); nothing was sent`,
    ]);
    expect(transfers(server)).toBe(20);
    // pay key too, and charges: every command that moves money or creates something.
    expect((await pix(['pay', 'key', 'zed@example.com', '--amount', '1', '-y'], env)).code).toBe(8);
    const charge = await pix(
      ['charge', 'immediate', '--amount', '5', '--no-qr', '--key', 'loja@sandbox.pix.local'],
      env,
    );
    expect(charge.code, charge.stderr).toBe(8);
    expect(charge.stderr).toMatch(/error: the journal is damaged: .*nothing was sent/);
    expect(server.requests.filter((r) => r.endpoint === 'charge')).toHaveLength(0);
    expect(transfers(server)).toBe(20);

    // pix journal verify lists both lines: the damaged start line and its orphaned outcome.
    const verify = await pix(['journal', 'verify', '--json'], env);
    expect(verify.code).toBe(8);
    const report = JSON.parse(verify.stdout) as { damaged: { line: number; reason: string }[] };
    expect(report.damaged.map((d) => d.line)).toEqual([at + 1, expect.any(Number)]);
    expect(report.damaged[1]!.reason).toMatch(/outcome for entry [0-9a-f]{8}, whose start line is missing/);
    // Listing still works, and says so.
    const list = await pix(['journal', '--all'], env);
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(/warning: the journal is damaged .*payments and charges are stopped/);
    const charges = await pix(['charge', 'list', '--offline'], env);
    expect(charges.code, charges.stderr).toBe(0);
    expect(charges.stderr).toMatch(/warning: the journal is damaged .*payments and charges are stopped/);
  });

  it('a hand-edited field is damage too; a byte-order mark at the start is not', async () => {
    const { server, env, file, path } = await paidBatch(4);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, `\uFEFF${text}`);
    const bom = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env);
    expect(bom.code, bom.stderr).toBe(0);
    expect(records(bom.stdout).map((r) => r.state)).toEqual(Array(4).fill('already_paid'));

    writeFileSync(path, text.replace(/"amountCentavos":300,/, '"amountCentavos":"3,00",'));
    const edited = await pix(['pay', 'batch', file, '--yes'], env);
    expect(edited.code).toBe(8);
    expect(edited.stderr).toMatch(
      /journal\.jsonl line \d+: the start line of entry [0-9a-f]{8} has missing or invalid fields/,
    );
    expect(transfers(server)).toBe(4);
  });

  it('a torn last line (a write cut short) is not damage, before or after the next line is written', async () => {
    const { env, file, path, server } = await paidBatch(2);
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"id":"cut-short","at":"2026-`);
    const key = await pix(['pay', 'key', 'ana@example.com', '--amount', '3', '-y'], env);
    expect(key.code, key.stderr).toBe(0);
    const rerun = await pix(['pay', 'batch', file, '--yes'], env);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(transfers(server)).toBe(3);
    const verify = await pix(['journal', 'verify', '--json'], env);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ damaged: [], torn: [expect.any(Number)] });
  });
});

describe('a paid row edited afterwards refuses the batch (finding 5)', () => {
  it('names the row, exit 2, nothing sent; a new id pays the new payment', async () => {
    const { dir, server, env } = await realAccount();
    const file = join(dir, 'e.csv');
    writeFileSync(file, 'id,key,amount\ne1,ana@example.com,100.00\n');
    expect((await pix(['pay', 'batch', file, '--yes'], env)).code).toBe(0);
    writeFileSync(file, 'id,key,amount\ne1,zed@example.com,150.00\ne2,bob@example.com,1.00\n');
    const edited = await pix(['pay', 'batch', file, '--yes'], env);
    expect(edited.code, edited.stderr).toBe(2);
    expect(edited.stderr).toMatch(/line 2 \(id e1\).*paid before as R\$ 100,00 to ana@example\.com/);
    expect(edited.stderr).toMatch(/give the new payment a new id/);
    expect(transfers(server)).toBe(1);
    // The same amount to another key, or another amount to the same key, is as much a change.
    writeFileSync(file, 'id,key,amount\ne1,ana@example.com,100.01\n');
    expect((await pix(['pay', 'batch', file, '--yes'], env)).code).toBe(2);
    writeFileSync(file, 'id,key,amount\ne1,ana@example.com,100.00\ne3,zed@example.com,150.00\n');
    const renamed = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(records(renamed.stdout).map((r) => r.state)).toEqual(['already_paid', 'paid']);
    expect(transfers(server)).toBe(2);
  });
});

describe('the same code is the same code (finding 6)', () => {
  it('a static code written with a lower-case CRC is held as the same payment, with the warning emv decode gives', async () => {
    const { server, env } = await realAccount();
    expect(STATIC_CODE.slice(-4)).toMatch(/[A-F]/); // the CRC has a letter to lower
    // The code names "Loja da Esquina"; its key's owner on the sandbox is another name: said to be meant.
    const owner = dictOwner('loja@example.com', 'EMAIL').receiver.name;
    const first = await pix(['pay', 'qr', STATIC_CODE, '--amount', '10', '--expect-name', owner, '-y'], env);
    expect(first.code, first.stderr).toBe(0);
    const lower = `  ${STATIC_CODE.slice(0, -4)}${STATIC_CODE.slice(-4).toLowerCase()}\n`;
    const second = await pix(['pay', 'qr', lower, '--amount', '10', '-y'], env);
    expect(second.code, second.stderr).toBe(8);
    expect(second.stderr).toMatch(/warning: the CRC \(field 63\) is in lower case/);
    expect(second.stderr).toMatch(/already paid/);
    expect(transfers(server)).toBe(1);
  });
});

describe('a row another pix is sending (finding 14)', () => {
  it('is in progress elsewhere (exit 8, naming the process) while that process runs; unknown once it is gone', async () => {
    const { dir, server, env } = await realAccount();
    const file = batchFile(dir, 2);
    // Another pix process (a live one: this sleep) has written the start line of row r001 and is sending it.
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    await new Promise((resolve) => other.once('spawn', resolve));
    const start = {
      id: '7e1d0f3a-0000-4000-8000-000000000001',
      at: new Date().toISOString(),
      kind: 'payment',
      state: 'sending',
      profile: 'sandbox',
      host: new URL(server.url).host,
      baseUrl: server.url,
      pid: other.pid,
      amountCentavos: 200,
      endToEndId: 'E-other',
      payment: { method: 'key', key: 'r001@example.com', batchRow: { batch: 'elsewhere', row: 'r001' } },
    };
    writeFileSync(join(dir, JOURNAL_FILE), `${JSON.stringify(start)}\n`);
    try {
      const busy = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env);
      expect(busy.code, busy.stderr).toBe(8);
      const [first, second] = records(busy.stdout);
      expect(first).toMatchObject({ id: 'r001', state: 'in_progress' });
      expect(first!.error).toContain(`pix process ${other.pid} is sending it (journal entry 7e1d0f3a)`);
      expect(second).toMatchObject({ id: 'r002', state: 'paid' });
      expect(transfers(server)).toBe(1);
      // pay key of the same key and amount is told the same, not "no known outcome".
      const key = await pix(['pay', 'key', 'r001@example.com', '--amount', '2', '-y'], env);
      expect(key.code, key.stderr).toBe(8);
      expect(key.stderr).toContain(`in progress elsewhere: pix process ${other.pid} is sending`);
      expect(transfers(server)).toBe(1);
    } finally {
      other.kill('SIGKILL');
      await new Promise((resolve) => other.once('exit', resolve));
    }
    // The process is gone and never wrote an outcome: the row may have been paid — unknown, held.
    const gone = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env);
    expect(gone.code, gone.stderr).toBe(7);
    expect(records(gone.stdout).map((r) => r.state)).toEqual(['unknown', 'already_paid']);
    expect(transfers(server)).toBe(1);
  });
});
