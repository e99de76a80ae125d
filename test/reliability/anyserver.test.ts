/**
 * The guards of payments against servers the API document allows but pix's own sandbox did not answer as
 * (sandbox/serversettings.ts): two machines (two config directories, file journals) paying the same
 * receiver on one served sandbox whose clock runs ahead of or behind theirs, whose statement writes names
 * in upper-case ASCII without documents, or that loses records; and one machine paying one CPF at two
 * banks. Each was a payment made twice; each is held now (exit 8) or refused unread (exit 6). In-process
 * pix, its clock the test's; the sandbox's clock the test's plus its skew.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dictOwner } from '../../src/sandbox/people.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { parseServerSpec } from '../../src/sandbox/serversettings.js';
import { tempConfigDir } from '../helpers/cli.js';
import { pix as runPix } from '../helpers/pix.js';

const servers: SandboxServer[] = [];
let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };
const later = (ms: number) => {
  offset += ms;
};
afterEach(async () => {
  offset = 0;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A served sandbox as the server of `spec` (a SPEC of serversettings.ts), its clock the test's. */
async function serve(spec: string) {
  const dir = tempConfigDir();
  const server = await startSandboxServer({
    port: 0,
    stateFile: join(dir, 'state.json'),
    clock: () => clock.now(),
    settings: parseServerSpec(spec),
  });
  servers.push(server);
  /** A machine: a config directory of its own (its file journal) on this server. */
  const machine = () => {
    const env = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: server.url, PIX_TOKEN: 't' };
    return (args: string[]) => runPix(args, { env, clock });
  };
  const transfers = () => server.requests.filter((request) => request.endpoint === 'transfer').length;
  return { server, dir, stateFile: join(dir, 'state.json'), machine, transfers };
}

const pay = (key: string, amount: string, ...more: string[]) => [
  'pay',
  'key',
  key,
  '--amount',
  amount,
  '--yes',
  ...more,
];

/** A key of someone else whose holder the DICT names `name` (sandbox/people.ts). */
function keyOf(name: string): string {
  for (let n = 0; n < 10_000; n++) {
    const key = `someone${n}@example.com`;
    if (dictOwner(key, 'EMAIL').receiver.name === name) return key;
  }
  throw new Error(`no key of ${name}`);
}

describe("the statement guard judges its window on the server's clock", () => {
  it('a server 30 s ahead: the debit another machine just made is stamped after the payer\'s "now", and is held', async () => {
    const { machine, transfers } = await serve('clock-skew=30s');
    const [first, second] = [machine(), machine()];
    expect((await first(pay('ana@example.com', '31,40'))).code).toBe(0);
    later(5_000); // the transfer settles (2 s of the server's time)
    const held = await second(pay('ana@example.com', '31,40'));
    expect(held.code, held.stderr).toBe(8);
    expect(held.stderr).toMatch(
      /error: the statement shows R\$ 31,40 to .* which no payment in this journal explains/,
    );
    expect(transfers()).toBe(1);
  });

  it("a server 30 s behind: a debit inside the window on its clock, outside on the payer's, is held", async () => {
    const { machine, transfers } = await serve('clock-skew=-30s');
    const [first, second] = [machine(), machine()];
    expect((await first(pay('ana@example.com', '31,41'))).code).toBe(0);
    // 40 s later on the payers' clocks, 10 s after the debit's time on the server's: within a window of
    // a minute there, not here.
    later(40_000);
    const held = await second(pay('ana@example.com', '31,41', '--duplicate-window', '1m'));
    expect(held.code, held.stderr).toBe(8);
    expect(transfers()).toBe(1);
  });
});

describe('the receiver as banks write it', () => {
  it('a statement naming the receiver in upper-case ASCII without a document: the same receiver, held', async () => {
    const { machine, transfers } = await serve('names=upper-ascii,documents=none');
    const key = keyOf('Tech Ipê Ltda');
    const [first, second] = [machine(), machine()];
    expect((await first(pay(key, '42,00'))).code).toBe(0);
    later(5_000);
    const held = await second(pay(key, '42,00'));
    expect(held.code, held.stderr).toBe(8);
    expect(held.stderr).toContain('the statement shows R$ 42,00 to TECH IPE LTDA paid at');
    expect(transfers()).toBe(1);
  });

  it('one CPF with keys at two banks, from one machine: the second is already paid (the journal)', async () => {
    const { machine, transfers } = await serve('');
    const cpf = '52998224725';
    const keys: string[] = [];
    const banks = new Set<string>();
    for (let n = 0; keys.length < 2; n++) {
      const key = `${cpf}@bank${n}.example`;
      const { participant, documentNumber } = dictOwner(key, 'EMAIL').receiver;
      expect(documentNumber).toBe(cpf);
      if (!banks.has(participant)) {
        banks.add(participant);
        keys.push(key);
      }
    }
    const one = machine();
    expect((await one(pay(keys[0]!, '55,00'))).code).toBe(0);
    const held = await one(pay(keys[1]!, '55,00'));
    expect(held.code, held.stderr).toBe(8);
    expect(held.stderr).toMatch(/error: already paid: R\$ 55,00 to /);
    expect(transfers()).toBe(1);
    // From another machine, the statement holds it: its debit names the CPF, at the first bank.
    later(5_000);
    const elsewhere = await machine()(pay(keys[1]!, '55,00'));
    expect(elsewhere.code, elsewhere.stderr).toBe(8);
    expect(transfers()).toBe(1);
  });
});

describe('a statement read short is no statement: nothing is paid', () => {
  it.each([
    ['the empty page', 'clamp-page=100,empty-after=100,order=oldest', /received 100 of \d+ records/],
    ['the short page', 'clamp-page=100,short-after=100,order=oldest', /received \d+ of \d+ records/],
  ])('%s: exit 6 "could not read the account\'s recent debits", no transfer', async (_name, spec, read) => {
    const { machine, stateFile, transfers } = await serve(spec);
    const seeded = await runPix(['sandbox', 'seed', '--transactions', '250', '--state', stateFile], {
      clock,
    });
    expect(seeded.code, seeded.stderr).toBe(0);
    const [first, second] = [machine(), machine()];
    // Oldest first: the debit just made is on the statement's last page.
    expect((await first(pay('ana@example.com', '12,34', '--duplicate-window', '0'))).code).toBe(0);
    later(5_000);
    const refused = await second(pay('ana@example.com', '12,34', '--duplicate-window', '70d'));
    expect(refused.code, refused.stderr).toBe(6);
    expect(refused.stderr).toMatch(
      /^error: could not read the account's recent debits: the statement is incomplete: /m,
    );
    expect(refused.stderr).toMatch(read);
    expect(refused.stderr).toContain('nothing was sent');
    expect(transfers()).toBe(1);
  });
});
