/**
 * `pix listen` keeps one account's events whatever happens around it: a renamed profile, a second
 * listener, a damaged, cut or emptied log, an account with a long history, an event log of an earlier
 * version. The built binary, against the embedded sandbox or `pix sandbox serve`, delivering to a real
 * node:http receiver on loopback (test/helpers/listen.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deferEach } from '../helpers/cleanup.js';
import { runCli } from '../helpers/cli.js';
import {
  bodies,
  caughtUp,
  caughtUpOn,
  customerPays,
  type Delivered,
  eventsFile,
  ids,
  linesOf,
  listen,
  type Received,
  receiver,
  secretOf,
  signedWith,
  stderrOf,
  stopped,
  teamMachine,
} from '../helpers/listen.js';
import { postgresMissing, startPostgres } from '../helpers/postgres.js';
import { serveSandbox } from '../helpers/served.js';
import { until } from '../helpers/wait.js';

const { defer, dir: tempDir } = deferEach();

/** A `pix sandbox serve` of its own, stopped and removed after the test. */
async function served() {
  const sandbox = await serveSandbox();
  defer(() => rmSync(sandbox.dir, { recursive: true, force: true }));
  defer(() => sandbox.server.close());
  return sandbox;
}

describe('pix listen: the account keeps its events', () => {
  it('a profile renamed while its listener was down: the income that came meanwhile and the owed retry are delivered, signed with the same secret', async () => {
    const { dir, server, stateFile } = await served();
    const env = { PIX_CONFIG_DIR: dir };
    const login = await runCli(['login', '--profile', 'shop', '--base-url', server.url, '--with-token'], {
      env,
      stdin: 'e2e-token\n',
    });
    expect(login.code, login.stderr).toBe(0);
    const shop = { ...env, PIX_PROFILE: 'shop' };
    const secret = await secretOf(shop);
    const pay = (amount: string) =>
      customerPays(shop, amount, {
        charge: ['--key', 'loja@sandbox.pix.local'],
        pay: ['--state', stateFile],
      });
    let up = false;
    const target = await receiver(() => (up ? 200 : 500));
    const first = listen(dir, ['--forward-to', target.url], { PIX_PROFILE: 'shop' });
    await until(() => caughtUp(dir), "the listener's first run");
    await pay('12,34');
    await until(() => target.got.length >= 1, 'the first delivery'); // refused: owed, retried later
    const owed = ids(target.got)[0]!;
    first.kill('SIGTERM');
    expect(await stopped(first)).toBe(0);
    const before = target.got.length;
    await pay('23,45'); // while nobody listens
    const renamed = await runCli(['profile', 'rename', 'shop', 'loja'], { env });
    expect(renamed.code, renamed.stderr).toBe(0);
    up = true;
    listen(dir, ['--forward-to', target.url], { PIX_PROFILE: 'loja' });
    const later = () => target.got.slice(before);
    const income = (request: Received) => {
      const event = JSON.parse(request.body) as Delivered;
      return event.type === 'entry.income' && event.data.amount === 23.45;
    };
    await until(() => ids(later()).includes(owed) && later().some(income), 'the deliveries');
    expect(later().every((request) => signedWith(secret, request))).toBe(true);
    expect(await secretOf({ ...env, PIX_PROFILE: 'loja' })).toBe(secret);
  });

  it('one listener per account: a second exits 8 naming the first; --wait-lock takes over from a dead one; each event once', async () => {
    const dir = tempDir();
    const env = { PIX_CONFIG_DIR: dir };
    const target = await receiver();
    const first = listen(dir, ['--forward-to', target.url]);
    await until(() => caughtUp(dir), "the listener's first run");
    const second = await runCli(['listen', '--interval', '1s', '--forward-to', target.url], { env });
    expect(second.code, second.stderr).toBe(8);
    expect(second.stderr).toContain(`error: another pix listen (pid ${first.pid}, profile sandbox, since 20`);
    expect(second.stderr).toContain(
      `delivers this account's events to ${target.url}: one listener per account`,
    );
    const waiting = listen(dir, ['--forward-to', target.url, '--wait-lock']);
    await until(
      () => stderrOf(waiting).includes(`waiting: pix listen (pid ${first.pid}`),
      'the second listener to wait',
    );
    first.kill('SIGKILL'); // its lock stays behind, naming a dead process
    await stopped(first);
    const lockPid = () => {
      const lock = eventsFile(dir, '.lock');
      if (lock === undefined) return undefined;
      // A lock file is created (O_EXCL), then its holder written: read between the two it is empty.
      const text = readFileSync(lock, 'utf8');
      return text === '' ? undefined : (JSON.parse(text) as { pid: number }).pid;
    };
    await until(() => lockPid() === waiting.pid, 'the lock to pass to the second listener');
    await customerPays(env, '5,00');
    await until(() => target.got.length >= 2, 'the deliveries');
    await customerPays(env, '6,00');
    await until(() => target.got.length >= 4, 'the deliveries');
    expect(new Set(ids(target.got)).size).toBe(target.got.length);
    waiting.kill('SIGTERM');
    expect(await stopped(waiting)).toBe(0);
    expect(eventsFile(dir, '.lock')).toBeUndefined(); // released
  });

  it('an event id always has the same body: two config dirs listening to one account make the same events', async () => {
    const { server } = await served();
    const made: Delivered[][] = [];
    for (let n = 0; n < 2; n++) {
      const dir = tempDir();
      const out = join(dir, 'events.ndjson');
      const env = { PIX_BASE_URL: server.url, PIX_TOKEN: 'e2e-token' };
      // The sandbox's 36 entries are in its last 60 days: a 90-day backfill has them all.
      listen(dir, ['--exec', `cat >> '${out}'; echo >> '${out}'`, '--backfill', '90d'], env);
      const lines = () => linesOf(out);
      await until(() => lines().length >= 36, 'the backfilled events', 30_000);
      made.push(lines().map((line) => JSON.parse(line) as Delivered));
    }
    const [a, b] = made as [Delivered[], Delivered[]];
    const byId = new Map(a.map((event) => [event.id, JSON.stringify(event)]));
    expect(b.length).toBe(a.length);
    for (const event of b) expect(JSON.stringify(event)).toBe(byId.get(event.id));
    // Made from the entry: `created` is when it was confirmed, not when a listener saw it.
    for (const event of a) {
      const { confirmedAt } = event.data as unknown as { confirmedAt: string };
      expect(event.created).toBe(new Date(confirmedAt).toISOString());
    }
  });

  it('a first run reads the newest page, not the whole history (1,036 entries: one statement request)', async () => {
    const { dir, server, stateFile, env } = await served();
    const seeded = await runCli(['sandbox', 'seed', '--transactions', '1000', '--state', stateFile], {
      env: { PIX_CONFIG_DIR: dir },
    });
    expect(seeded.code, seeded.stderr).toBe(0);
    server.requests.length = 0;
    const child = listen(dir, ['--interval', '60s'], env);
    await until(() => caughtUp(dir), "the listener's first run");
    const statement = server.requests.filter((request) => request.endpoint === 'statement');
    expect(statement).toHaveLength(1);
    child.kill('SIGTERM');
    expect(await stopped(child)).toBe(0);
  });
});

describe('pix listen: a damaged log is loud, never a replay of history', () => {
  it('a changed byte, an emptied log, a missing log: exit 8 naming the file (and line); pix events verify agrees; nothing delivered', async () => {
    const dir = tempDir();
    const env = { PIX_CONFIG_DIR: dir };
    const target = await receiver();
    const first = listen(dir, ['--forward-to', target.url, '--backfill', '90d']);
    await until(() => target.got.length >= 36, 'the backfilled deliveries', 30_000);
    first.kill('SIGTERM');
    expect(await stopped(first)).toBe(0);
    const log = eventsFile(dir, '.jsonl')!;
    const sound = readFileSync(log);
    const verified = await runCli(['events', 'verify'], { env });
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stderr).toContain(
      `event log ${log}: 36 events (0 owed, 0 dead letters), no damaged line`,
    );
    const delivered = target.got.length;

    // One byte of line 10 changed (a digit of an amount: still JSON).
    const lines = sound.toString().split('\n');
    const at = sound.indexOf(Buffer.from(lines[9]!)) + lines[9]!.indexOf('"amount":') + 9;
    const damaged = Buffer.from(sound);
    damaged[at] = damaged[at] === 0x37 ? 0x38 : 0x37;
    writeFileSync(log, damaged);
    const refused = await runCli(['listen', '--forward-to', target.url], { env });
    expect(refused.code, refused.stderr).toBe(8);
    expect(refused.stderr).toContain(
      `error: the event log is damaged: ${log} line 10: its checksum does not match`,
    );
    const verify = await runCli(['events', 'verify', '--json'], { env });
    expect(verify.code).toBe(8);
    expect(JSON.parse(verify.stdout).damaged[0]).toEqual({
      line: 10,
      reason: 'its checksum does not match (a changed byte)',
    });

    truncateSync(log, 0); // emptied
    const emptied = await runCli(['listen', '--forward-to', target.url], { env });
    expect(emptied.code, emptied.stderr).toBe(8);
    expect(emptied.stderr).toContain(`${log}: it was cut or emptied: it has 0 bytes; its checkpoint records`);
    expect((await runCli(['events', 'verify'], { env })).code).toBe(8);

    rmSync(log); // gone, its checkpoint still there
    const missing = await runCli(['listen', '--forward-to', target.url], { env });
    expect(missing.code, missing.stderr).toBe(8);
    expect(missing.stderr).toContain(`${log}: it is missing; its checkpoint records`);
    expect(target.got).toHaveLength(delivered);

    // The way back, on purpose: both files moved away; a first run starts from now, history stays history.
    writeFileSync(log, sound);
    const checkpoint = eventsFile(dir, '.checkpoint')!;
    renameSync(log, `${log}.old`);
    renameSync(checkpoint, `${checkpoint}.old`);
    listen(dir, ['--forward-to', target.url]);
    await until(() => caughtUp(dir), "the listener's first run");
    await customerPays(env, '7,00');
    await until(() => target.got.length >= delivered + 2, 'the deliveries');
    const fresh = bodies(target.got.slice(delivered));
    expect(fresh.map((event) => event.type).sort()).toEqual(['charge.paid', 'entry.income']);
  });
});

describe('pix listen: an event log of an earlier version', () => {
  it('is adopted: its owed event delivered under its old id, nothing it made delivered again, new events under the account id', async () => {
    const dir = tempDir();
    const env = { PIX_CONFIG_DIR: dir };
    // Facts an earlier version knew: a payment sent (its event delivered), a charge paid (seen at its start).
    const paid = await runCli(['pay', 'key', 'ana@example.com', '--amount', '3', '-y'], { env });
    expect(paid.code, paid.stderr).toBe(0);
    const charge = await customerPays(env, '8,00');
    const journal = await runCli(['journal', '--json'], { env });
    const payment = (
      JSON.parse(journal.stdout) as { results: Array<{ id: string; kind: string }> }
    ).results.find((entry) => entry.kind === 'payment')!;
    let entries: Array<{ id: string; type: string }> = [];
    // The sandbox confirms the transfer a moment later: the statement is read until it shows it.
    await until(async () => {
      const listed = await runCli(['statement', '--json', '--limit', '50'], { env });
      entries = (JSON.parse(listed.stdout) as { results: typeof entries }).results;
      return entries.length === 38;
    }, 'the statement to show the transfer');
    // What pix 0.x wrote: <sha256(profile \n base URL)>.jsonl, ids scoped by the base URL, no checksums.
    const baseUrl = 'http://127.0.0.1:0';
    const oldId = (source: string, id: string) =>
      `evt_${createHash('sha256').update(`${baseUrl}\n${source}\n${id}`).digest('hex').slice(0, 24)}`;
    const event = (id: string, type: string, data: object) => ({
      id,
      type,
      created: '2026-11-20T10:00:00.000Z',
      profile: 'sandbox',
      data,
    });
    const entryEvent = (entry: { id: string; type: string }) =>
      event(oldId('entry', entry.id), entry.type === 'OUTCOME' ? 'entry.outcome' : 'entry.income', entry);
    const [owed, delivered, ...older] = entries;
    const at = '2026-11-20T10:00:01.000Z';
    const sent = oldId('payment.sent', payment.id);
    const legacy = [
      { t: 'seen', ids: [...older.map((entry) => entry.id), oldId('charge.paid', charge)] },
      { t: 'event', event: event(sent, 'payment.sent', { id: payment.id }) },
      { t: 'attempt', id: sent, at, ok: true, status: 200 },
      { t: 'delivered', id: sent, at },
      { t: 'event', event: entryEvent(delivered!) },
      { t: 'attempt', id: oldId('entry', delivered!.id), at, ok: true, status: 200 },
      { t: 'delivered', id: oldId('entry', delivered!.id), at },
      { t: 'event', event: entryEvent(owed!) },
      { t: 'attempt', id: oldId('entry', owed!.id), at, ok: false, status: 500 },
    ];
    const name = createHash('sha256').update(`sandbox\n${baseUrl}`).digest('hex').slice(0, 16);
    await runCli(['listen', '--print-secret'], { env }); // makes the directory, as any earlier run had
    const text = `${legacy.map((line) => JSON.stringify(line)).join('\n')}\n`;
    writeFileSync(join(dir, 'events', `${name}.jsonl`), text, { mode: 0o600 });
    const target = await receiver();
    listen(dir, ['--forward-to', target.url]);
    await until(() => caughtUp(dir) && target.got.length >= 1, 'the first run and a delivery');
    expect(eventsFile(dir, '.jsonl')).toMatch(/acct_[0-9a-f]{24}\.jsonl$/);
    await customerPays(env, '9,00');
    // Owed events go in the order made: anything made again of the old facts would come before these.
    await until(
      () => bodies(target.got).some((made) => made.type === 'entry.income' && made.data.amount === 9),
      'the new income',
    );
    await until(() => target.got.length >= 3, 'the deliveries');
    expect(ids(target.got)[0]).toBe(oldId('entry', owed!.id));
    const fresh = bodies(target.got.slice(1));
    expect(fresh.map((made) => made.type).sort()).toEqual(['charge.paid', 'entry.income']);
    expect(fresh.map((made) => made.data.amount)).toEqual([9, 9]);
    const verified = await runCli(['events', 'verify'], { env });
    expect(verified.code, verified.stderr).toBe(0);
    expect(target.got).toHaveLength(3);
  });
});

describe('pix listen on a shared PostgreSQL ledger (docs/team.md)', () => {
  it.skipIf(postgresMissing() !== undefined)(
    'a payment another machine sent is one payment.sent; restarted, the listener delivers only what came since',
    async () => {
      const cluster = await startPostgres();
      defer(() => cluster.remove());
      const ledger = cluster.createDatabase('ledger');
      const { server } = await served();
      const machine = () => teamMachine(tempDir(), server.url, ledger);
      const [listening, paying] = [machine(), machine()];
      const init = await runCli(['ledger', 'init'], { env: listening });
      expect(init.code, init.stderr).toBe(0);
      const pay = async (amount: string) => {
        const paid = await runCli(['pay', 'key', 'ana@example.com', '--amount', amount, '-y'], {
          env: paying,
        });
        expect(paid.code, paid.stderr).toBe(0);
      };
      const target = await receiver();
      const sent = () => bodies(target.got).filter((event) => event.type === 'payment.sent');
      const dir = listening.PIX_CONFIG_DIR;
      const first = listen(dir, ['--forward-to', target.url], listening);
      // A process started on a busy machine (node, its modules, a PostgreSQL connection, one poll): in an npm
      // test beside three other suites (load average 20) it missed the 15 s default.
      await until(() => caughtUpOn(cluster, 'ledger'), "the listener's first run", 45_000);
      await pay('3');
      await until(() => sent().length === 1, "the other machine's payment");
      first.kill('SIGTERM');
      expect(await stopped(first)).toBe(0);
      await pay('4');
      listen(dir, ['--forward-to', target.url], listening);
      await until(() => sent().length >= 2, 'the payment made while the listener was down', 45_000);
      // One more: once it is in, the polls between made nothing again.
      await pay('5');
      await until(() => sent().length >= 3, 'the payment made after the restart');
      expect(sent().map((event) => event.data.amount)).toEqual([3, 4, 5]);
      expect(new Set(ids(target.got)).size).toBe(target.got.length);
    },
    120_000,
  );
});
