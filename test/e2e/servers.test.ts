/**
 * The money paths against many servers, not one (docs/api.md, what the document leaves open): pay key, pay qr, pay batch, plan
 * execute, reconcile, close and pix listen, with the built binary, against `pix sandbox serve` as a seeded
 * sample of the servers the API document allows (test/helpers/servers.ts: pages of at most 100, 50 and 10,
 * and every other open point drawn, each one answered otherwise than the sandbox's own way by one server at
 * least); and the embedded sandbox as the first of them (PIX_SANDBOX_SERVER).
 *
 * A failure names the seed and the server: `PIX_TEST_SERVER_SEED=N npm run test:e2e -- servers` replays it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import type { ServerSettings } from '../../src/sandbox/serversettings.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { createTestIO } from '../helpers/io.js';
import { caughtUp, listen, receiver } from '../helpers/listen.js';
import { sampleServers, serverSeed, serverSpec } from '../helpers/servers.js';
import { makeKey } from '../helpers/ssh.js';
import { until } from '../helpers/wait.js';

const SEED = serverSeed();
const SAMPLE = sampleServers(SEED);

const servers: SandboxServer[] = [];
const scratch: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What to paste to run this server again. */
const replay = (spec: string) =>
  `replay: PIX_TEST_SERVER_SEED=${SEED} (server ${spec || 'as the sandbox is'})`;

/** pix's exit code, or a failure naming the command, its stderr and how to replay the server. */
function expectExit(
  result: { code: number | null; stderr: string },
  code: number,
  args: string[],
  spec: string,
): void {
  expect(result.code, `pix ${args.join(' ')}\n${result.stderr}\n${replay(spec)}`).toBe(code);
}

/** The sandbox's clock moved on (transfers settle 2 s after they are sent): `pix sandbox clock`, in-process. */
async function advance(stateFile: string, by: string): Promise<void> {
  const test = createTestIO();
  const code = await run(['sandbox', 'clock', '--advance', by, '--state', stateFile], {
    io: test.io,
    env: { PIX_CONFIG_DIR: tempConfigDir() },
  });
  expect(code, test.stderr()).toBe(0);
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/**
 * The money paths on one server: the same payment from a second machine is held by the statement; a
 * charge paid by its code and waited for; a batch; a plan approved and executed; the books reconciled and
 * the day closed; and pix listen delivering each payment and the charge's payment meanwhile.
 */
async function moneyPaths(settings: ServerSettings): Promise<void> {
  const spec = serverSpec(settings);
  const dir = tempConfigDir();
  const home = mkdtempSync(join(tmpdir(), 'pix-servers-'));
  scratch.push(home);
  const stateFile = join(dir, 'sandbox-state.json');
  const server = await startSandboxServer({ port: 0, stateFile, settings });
  servers.push(server);
  const transfers = () => server.requests.filter((request) => request.endpoint === 'transfer').length;

  // This machine: a profile with a payment policy (for the plan); the other machine: the environment.
  const here = { PIX_CONFIG_DIR: dir, PIX_PROFILE: 'prod', PIX_TOKEN: 'servers-token', HOME: home };
  const there = { PIX_CONFIG_DIR: tempConfigDir(), PIX_BASE_URL: server.url, PIX_TOKEN: 'servers-token' };
  const pix = async (args: string[], env: Record<string, string> = here, code = 0) => {
    const result = await runCli(args, { env: { ...env, PATH: process.env.PATH ?? '' }, timeoutMs: 60_000 });
    expectExit(result, code, args, spec);
    return result;
  };
  const [ana, carla, dora] = [
    makeKey(home, 'ed25519', 'ana@example.com'),
    makeKey(home, 'ed25519', 'carla@example.com'),
    makeKey(home, 'ed25519', 'dora@example.com'),
  ];
  const line = (key: typeof ana) => `${key.publicLine.split(' ').at(-1)} ${key.publicLine}`;
  const policy = join(home, 'pix-policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      'pix-policy': 1,
      approvers: {
        ana: { groups: ['finance'], keys: [line(ana)] },
        // The maker: she signs the plan (the policy must know her key), and no rule asks for her group.
        carla: { groups: ['makers'], keys: [line(carla)] },
        dora: { groups: ['admins'], keys: [line(dora)] },
      },
      rules: [{ name: 'every plan', require: '1 of finance' }],
      'policy-change': '1 of admins',
    }),
  );
  await pix(['config', 'set', 'base-url', server.url]);
  await pix(['config', 'set', 'policy', policy]);
  await pix(['policy', 'approve', policy, '--key', dora.privatePath!]);

  const events = await receiver();
  listen(dir, ['--forward-to', events.url], here);
  await until(() => caughtUp(dir), `the listener's first run\n${replay(spec)}`, 30_000);

  // A payment, and the same one from another machine: held by the statement (exit 8), nothing sent.
  await pix(['pay', 'key', 'ana@example.com', '--amount', '10,00', '--yes']);
  await advance(stateFile, '5s');
  const held = await pix(['pay', 'key', 'ana@example.com', '--amount', '10,00', '--yes'], there, 8);
  expect(held.stderr, replay(spec)).toContain('which no payment in this journal explains');
  expect(transfers()).toBe(1);

  // A charge of the account, paid by its code (the account pays itself: an INCOME), and waited for.
  const made = await pix([
    'charge',
    'immediate',
    '--amount',
    '7,50',
    '--key',
    'loja@sandbox.pix.local',
    '--no-qr',
    '--json',
  ]);
  const charge = JSON.parse(made.stdout) as { id: string; emvqrcps: string };
  await pix(['pay', 'qr', charge.emvqrcps, '--yes']);
  await advance(stateFile, '5s');
  await pix(['charge', 'wait', charge.id, '--wait', '30s']);
  const duedate = await pix([
    'charge',
    'duedate',
    '--amount',
    '20',
    '--due',
    '+5d',
    '--key',
    'loja@sandbox.pix.local',
    '--debtor-name',
    'Ana Souza',
    '--debtor-cpf',
    '52998224725',
    '--no-qr',
    '--json',
  ]);
  expect(['DUEDATE_QRCODE', 'DUE_DATE'], replay(spec)).toContain(JSON.parse(duedate.stdout).type);

  // A batch, and a plan of another batch approved and executed.
  const rows = (prefix: string, count: number) =>
    `id,key,amount\n${Array.from({ length: count }, (_, n) => `${prefix}${n + 1},${prefix}${n + 1}@example.com,${n + 2}.00`).join('\n')}\n`;
  writeFileSync(join(home, 'payouts.csv'), rows('b', 4));
  const batch = await pix(['pay', 'batch', join(home, 'payouts.csv'), '--yes', '-o', 'ndjson']);
  expect(lines(batch.stdout).map((row) => row.state)).toEqual(['paid', 'paid', 'paid', 'paid']);
  writeFileSync(join(home, 'planned.csv'), rows('p', 2));
  const plan = join(home, 'planned.plan.json');
  await pix(['pay', 'batch', join(home, 'planned.csv'), '--plan', plan, '--signing-key', carla.privatePath!]);
  await pix(['plan', 'approve', plan, '--key', ana.privatePath!]);
  const executed = await pix(['plan', 'execute', plan, '--yes', '-o', 'ndjson']);
  expect(lines(executed.stdout).map((row) => row.state)).toEqual(['paid', 'paid']);
  expect(transfers()).toBe(1 + 1 + 4 + 2);
  await advance(stateFile, '5s');

  // The books: every payment found in the statement, and the day closed.
  const reconciled = await pix(['reconcile', '--from', '-1d', '--json']);
  const outcomes = (
    JSON.parse(reconciled.stdout) as {
      results: Array<{ outcome: string; expectation?: { source?: string } }>;
    }
  ).results;
  const unmatchedPayments = outcomes.filter(
    (result) => result.outcome === 'unmatched-expectation' && result.expectation?.source === 'payment',
  );
  expect(unmatchedPayments, `${reconciled.stdout}\n${replay(spec)}`).toEqual([]);
  await pix(['close', '--day', 'today', '--opening-balance', '0', '--dir', join(home, 'books')]);

  // pix listen delivered each payment this machine made, and the charge's payment.
  const delivered = () => events.got.map((request) => JSON.parse(request.body) as { type: string });
  await until(
    () =>
      delivered().filter((event) => event.type === 'payment.sent').length >= 8 &&
      delivered().some((event) => event.type === 'charge.paid') &&
      delivered().some((event) => event.type === 'entry.outcome'),
    `pix listen's events (${JSON.stringify(delivered().map((event) => event.type))})\n${replay(spec)}`,
    30_000,
  );
}

describe(`the money paths on servers the API document allows (PIX_TEST_SERVER_SEED=${SEED})`, () => {
  it.each(SAMPLE.map((settings) => [serverSpec(settings), settings] as const))(
    'server %s',
    async (_spec, settings) => {
      await moneyPaths(settings);
    },
    240_000,
  );

  it('the embedded sandbox as the first of them (PIX_SANDBOX_SERVER): a payment, the statement and the keys read whole', async () => {
    const spec = serverSpec(SAMPLE[0]!);
    const dir = tempConfigDir();
    const env = { PIX_CONFIG_DIR: dir, PIX_SANDBOX_SERVER: spec };
    const paid = await runCli(['pay', 'key', 'bia@example.com', '--amount', '3,21', '--yes'], { env });
    expectExit(paid, 0, ['pay', 'key'], spec);
    // The account's 36 entries of history, read whole; the debit settles 2 s later, so on a loaded machine
    // the range that ends now may hold it too: it is left out by its amount, whatever the clock did.
    const statement = await runCli(['statement', '--all', '--from', '-90d', '-o', 'ndjson'], { env });
    expectExit(statement, 0, ['statement', '--all'], spec);
    const history = lines(statement.stdout).filter((entry) => entry.amount !== -3.21);
    expect(history).toHaveLength(36);
    const keys = await runCli(['keys', '--all', '-o', 'ndjson'], { env });
    expectExit(keys, 0, ['keys', '--all'], spec);
    expect(lines(keys.stdout)).toHaveLength(4);
  });
});
