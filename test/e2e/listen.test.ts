import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import {
  caughtUp,
  eventsFile,
  ids,
  linesOf,
  listen,
  customerPays as pays,
  receiver,
  secretOf,
  stopped,
} from '../helpers/listen.js';
import { until } from '../helpers/wait.js';

/**
 * `pix listen`, the built binary, on the embedded sandbox of a config dir (money comes in through
 * `pix sandbox pay` from another process, as a customer would pay), delivering to a real receiver on
 * loopback (test/helpers/listen.ts).
 */
const customerPays = (dir: string, amount: string) => pays({ PIX_CONFIG_DIR: dir }, amount);

describe('pix listen → a receiver on loopback', () => {
  it("a paid charge is an entry.income, signed as Stripe signs (Stripe's own constructEvent agrees)", async () => {
    const dir = tempConfigDir();
    const target = await receiver();
    const secret = await secretOf({ PIX_CONFIG_DIR: dir });
    expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    listen(dir, ['--forward-to', target.url]);
    await until(() => caughtUp(dir), "the listener's first run");
    await customerPays(dir, '12,34');
    // The payment is two events (entry.income and charge.paid) whose order the listener's sources race for:
    // the one this test reads is found by its type, not taken first.
    const income = () => target.got.find((got) => got.headers['pix-event-type'] === 'entry.income');
    await until(() => income() !== undefined, 'the entry.income delivery');
    const request = income();
    const event = JSON.parse(request!.body) as {
      id: string;
      type: string;
      data: { amount: number; type: string };
    };
    expect(event).toMatchObject({ type: 'entry.income', data: { amount: 12.34, type: 'INCOME' } });
    expect(request!.headers['pix-event-id']).toBe(event.id);
    // The scheme: t=<unix seconds>,v1=HMAC-SHA256(secret, "<t>.<body>").
    const header = String(request!.headers['pix-signature']);
    const t = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
    expect(t, header).not.toBeNull();
    expect(t![2]).toBe(createHmac('sha256', secret).update(`${t![1]}.${request!.body}`).digest('hex'));
    expect(Stripe.webhooks.constructEvent(request!.body, header, secret).id).toBe(event.id);
    // The receiver never sees the API's credentials.
    expect(request!.headers.authorization).toBeUndefined();
  });

  it('a paid charge: charge.paid and entry.income; a payment sent: payment.sent', async () => {
    const dir = tempConfigDir();
    const target = await receiver();
    listen(dir, ['--forward-to', target.url]);
    await until(() => caughtUp(dir), "the listener's first run");
    const types = () => target.got.map((request) => String(request.headers['pix-event-type']));
    const chargeId = await customerPays(dir, '15,00');
    await until(() => types().includes('charge.paid') && types().includes('entry.income'), 'the deliveries');
    const paid = target.got.find((request) => request.headers['pix-event-type'] === 'charge.paid')!;
    const charge = JSON.parse(paid.body) as { data: { id: string; status: string; paid: { match: string } } };
    expect(charge.data).toMatchObject({
      id: chargeId,
      status: 'probable',
      paid: { match: 'amount-and-time' },
    });
    const payment = await runCli(['pay', 'key', 'ana@example.com', '--amount', '3', '-y'], {
      env: { PIX_CONFIG_DIR: dir },
    });
    expect(payment.code, payment.stderr).toBe(0);
    await until(() => types().includes('payment.sent'), 'the deliveries');
    expect(new Set(ids(target.got)).size).toBe(target.got.length);
  });

  it('stopped, two payments made, started again: both delivered, no event id twice', async () => {
    const dir = tempConfigDir();
    const target = await receiver();
    const first = listen(dir, ['--forward-to', target.url]);
    await until(() => caughtUp(dir), "the listener's first run");
    await customerPays(dir, '5,00');
    // Each payment of a charge is two events: entry.income and charge.paid.
    await until(() => target.got.length === 2, 'the deliveries');
    first.kill('SIGTERM');
    expect(await stopped(first)).toBe(0);
    await customerPays(dir, '6,00');
    await customerPays(dir, '7,00');
    listen(dir, ['--forward-to', target.url]);
    await until(() => target.got.length >= 6, 'the deliveries');
    // One more payment: once its two events are in, the polls between delivered nothing else.
    await customerPays(dir, '8,00');
    await until(() => target.got.length >= 8, 'the deliveries');
    const incomes = target.got.filter((request) => request.headers['pix-event-type'] === 'entry.income');
    const amounts = incomes.map(
      (request) => (JSON.parse(request.body) as { data: { amount: number } }).data.amount,
    );
    expect(amounts.sort()).toEqual([5, 6, 7, 8]);
    expect(target.got).toHaveLength(8);
    expect(new Set(ids(target.got)).size).toBe(8);
  });

  it('SIGKILLed while a delivery is in flight, started again: the event is delivered (at least once)', async () => {
    const dir = tempConfigDir();
    const target = await receiver((n) => (n === 1 ? 'hang' : 200));
    const first = listen(dir, ['--forward-to', target.url]);
    await until(() => caughtUp(dir), "the listener's first run");
    await customerPays(dir, '8,00');
    await until(() => target.got.length === 1, 'the deliveries');
    const inFlight = ids(target.got)[0]!;
    first.kill('SIGKILL');
    await stopped(first);
    listen(dir, ['--forward-to', target.url]);
    await until(() => ids(target.got).slice(1).includes(inFlight), 'the deliveries');
  });

  it('SIGTERM while a receiver hangs: the delivery is cancelled, exit 0, the event still owed and delivered next time', async () => {
    const dir = tempConfigDir();
    const target = await receiver((n) => (n === 1 ? 'hang' : 200));
    const first = listen(dir, ['--forward-to', target.url]);
    await until(() => caughtUp(dir), "the listener's first run");
    await customerPays(dir, '14,00');
    await until(() => target.got.length === 1, 'the deliveries');
    const inFlight = ids(target.got)[0]!;
    first.kill('SIGTERM');
    expect(await stopped(first)).toBe(0);
    // pix gave up the hanging request (after its grace): the receiver saw it closed, never answered.
    await until(() => target.abandoned === 1, 'the hanging request to be closed by pix');
    listen(dir, ['--forward-to', target.url]);
    await until(() => ids(target.got).slice(1).includes(inFlight), 'the deliveries');
  });

  it('a receiver answering 500 twice: retried, then delivered once with a 2xx; the log says so', async () => {
    const dir = tempConfigDir();
    const tries = new Map<string, number>();
    const target = await receiver((_n, id) => {
      tries.set(id, (tries.get(id) ?? 0) + 1);
      return tries.get(id)! <= 2 ? 500 : 204;
    });
    listen(dir, ['--forward-to', target.url]);
    await until(() => caughtUp(dir), "the listener's first run");
    await customerPays(dir, '9,00');
    await until(() => target.got.length >= 6, 'the deliveries');
    // entry.income and charge.paid: each 500, 500, then 204.
    expect([...tries.values()]).toEqual([3, 3]);
    // The receiver's 204 reaches the listener before the listener writes it down: the log is read once both
    // deliveries are written, not right after the receiver answered.
    let events: Array<{ delivery: { state: string } }> = [];
    await until(async () => {
      const listed = await runCli(['events', 'list', '--json'], { env: { PIX_CONFIG_DIR: dir } });
      events = JSON.parse(listed.stdout).results;
      return events.every((event) => event.delivery.state === 'delivered');
    }, 'both deliveries written down');
    expect(events.map((event) => event.delivery)).toEqual([
      { state: 'delivered', attempts: 3, lastError: null },
      { state: 'delivered', attempts: 3, lastError: null },
    ]);
  });

  it('a receiver that never recovers: dead letters after --max-attempts, listed, then resent', async () => {
    const dir = tempConfigDir();
    const down = await receiver(() => 503);
    listen(dir, ['--forward-to', down.url, '--max-attempts', '2']);
    await until(() => caughtUp(dir), "the listener's first run");
    await customerPays(dir, '11,00');
    const env = { PIX_CONFIG_DIR: dir };
    // The log is made with the first event (a first run writes only its checkpoint).
    const deadLines = () => {
      const log = eventsFile(dir, '.jsonl');
      return log === undefined ? 0 : readFileSync(log, 'utf8').split('"t":"dead"').length - 1;
    };
    await until(() => deadLines() === 2, 'the deliveries');
    const failed = await runCli(['events', 'list', '--failed', '--json'], { env });
    const dead = JSON.parse(failed.stdout).results as Array<{ id: string; delivery: { state: string } }>;
    expect(dead.map((event) => event.delivery.state)).toEqual(['dead', 'dead']);
    const up = await receiver();
    const resent = await runCli(['events', 'resend', '--all-failed', '--forward-to', up.url], { env });
    expect(resent.code, resent.stderr).toBe(0);
    expect(ids(up.got).sort()).toEqual(dead.map((event) => event.id).sort());
    const after = await runCli(['events', 'list', '--failed', '--json'], { env });
    expect(JSON.parse(after.stdout).results).toEqual([]);
  });

  it('--exec runs once per event with its JSON on stdin; --backfill delivers the window before the start', async () => {
    const dir = tempConfigDir();
    const out = join(dir, 'events.ndjson');
    // The sandbox account has 36 entries over the 60 days before it was made: a 90-day backfill has them all.
    listen(dir, ['--exec', `cat >> '${out}'; echo >> '${out}'`, '--backfill', '90d']);
    const lines = () => linesOf(out);
    await until(() => lines().length >= 36, 'the backfilled events', 30_000);
    const events = lines().map((line) => JSON.parse(line) as { id: string; type: string });
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['entry.income', 'entry.outcome']));
  });

  it('bad input is one line and exit 2 before anything runs', async () => {
    const env = { PIX_CONFIG_DIR: tempConfigDir() };
    for (const [args, message] of [
      [['--forward-to', 'ftp://x'], '--forward-to: "ftp:" is not supported; use https://'],
      [['--interval', '0s'], '--interval: "0s" must be longer than zero'],
      [['--forward-to', 'http://127.0.0.1:9', '--exec', 'cat'], '--exec: cannot go with --forward-to'],
    ] as const) {
      const result = await runCli(['listen', ...args], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });
});
