/**
 * One active `pix listen` per account across machines, on the shared PostgreSQL ledger (docs/team.md):
 * two listeners of one account from two config directories on one database, each delivering to its own
 * loopback receiver. The second is a standby and delivers nothing while the first lives; the first is
 * SIGKILLed in the middle of a delivery while another machine keeps paying; the standby takes over and
 * delivers what followed. Across both receivers: every event the ledger made is delivered at least once,
 * each id always with the same body, and no id delivered by both but the one in flight at the kill. The
 * built binary, a real PostgreSQL server, `pix sandbox serve`.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deferEach } from '../helpers/cleanup.js';
import { runCli } from '../helpers/cli.js';
import {
  bodies,
  caughtUpOn,
  ids,
  listen,
  receiver,
  secretOf,
  signedWith,
  stderrOf,
  stopped,
  teamMachine,
} from '../helpers/listen.js';
import { postgresMissing, startPostgres } from '../helpers/postgres.js';
import { serveSandbox } from '../helpers/served.js';
import { until, within } from '../helpers/wait.js';

const { defer, dir: tempDir } = deferEach();

/** How many payments another machine makes while the listeners run. */
const PAYMENTS = 8;
/** The active listener is killed when its receiver gets this request (before answering it). */
const KILL_AT = 4;

/**
 * A PostgreSQL server with the database `name` initialised, a `pix sandbox serve`, and machines of a team
 * on both (each a config directory of its own), all removed after the test.
 */
async function team(name: string) {
  const cluster = await startPostgres();
  defer(() => cluster.remove());
  const ledger = cluster.createDatabase(name);
  const sandbox = await serveSandbox();
  defer(() => rmSync(sandbox.dir, { recursive: true, force: true }));
  defer(() => sandbox.server.close());
  const machine = () => teamMachine(tempDir(), sandbox.server.url, ledger);
  const init = await runCli(['ledger', 'init'], { env: machine() });
  expect(init.code, init.stderr).toBe(0);
  return { cluster, machine };
}

describe('pix listen on a shared PostgreSQL ledger: one active listener, a standby', () => {
  it.skipIf(postgresMissing() !== undefined)(
    'the active one SIGKILLed mid-delivery while payments arrive: the standby takes over and delivers what followed; every event at least once, one body per id, none made twice',
    async () => {
      const { cluster, machine } = await team('standby');
      const [one, two, paying] = [machine(), machine(), machine()];

      let active: ChildProcess | undefined;
      let inFlight: string | undefined;
      // The active listener dies with a delivery in flight: its receiver has the request, pix no answer.
      const first = await receiver((n, id) => {
        if (n !== KILL_AT) return 200;
        inFlight = id;
        active!.kill('SIGKILL');
        return 'hang';
      });
      const second = await receiver();
      active = listen(one.PIX_CONFIG_DIR, ['--forward-to', first.url], one);
      await until(() => caughtUpOn(cluster, 'standby'), "the first listener's first run");
      const standby = listen(two.PIX_CONFIG_DIR, ['--forward-to', second.url], two);
      await until(
        () => stderrOf(standby).includes(`standby: pix listen (pid ${active!.pid} on `),
        'the second listener to say it is a standby, naming the active one',
      );

      // Another machine pays, one payment after another, while the listeners run and one dies.
      const paid: number[] = [];
      const payments = (async () => {
        for (let amount = 1; amount <= PAYMENTS; amount++) {
          const result = await runCli(['pay', 'key', 'ana@example.com', '--amount', String(amount), '-y'], {
            env: paying,
          });
          expect(result.code, result.stderr).toBe(0);
          paid.push(amount);
        }
      })();
      await until(() => inFlight !== undefined, 'the kill in the middle of a delivery', 60_000);
      // While the first lived, the standby delivered nothing.
      expect(second.got).toHaveLength(0);
      await until(() => active!.signalCode === 'SIGKILL', 'the first listener to die');
      await within(payments, 'the payments', 90_000);

      const all = () => [...first.got, ...second.got];
      // Each payment is two events: payment.sent (from the ledger) and entry.outcome (from the statement,
      // where its amount is negative).
      const amounts = (type: string) =>
        new Set(
          bodies(all())
            .filter((event) => event.type === type)
            .map((event) => Math.abs(event.data.amount ?? 0)),
        );
      const owed = () =>
        Number(cluster.psql(`SELECT count(*) FROM pix_events WHERE state <> 'delivered'`, 'standby').trim());
      await until(
        () =>
          amounts('payment.sent').size === PAYMENTS &&
          amounts('entry.outcome').size === PAYMENTS &&
          owed() === 0,
        'both events of every payment delivered, nothing owed',
        60_000,
      );
      expect(stderrOf(standby)).toContain('active: this listener took over');
      expect(stderrOf(standby).split('standby:')).toHaveLength(2); // said once

      // Every event the ledger made was delivered, at least once, across both receivers.
      const made = cluster
        .psql('SELECT id FROM pix_events ORDER BY seq', 'standby')
        .trim()
        .split('\n')
        .filter(Boolean);
      const delivered = new Set(ids(all()));
      expect(made.filter((id) => !delivered.has(id))).toEqual([]);
      expect([...delivered].filter((id) => !made.includes(id))).toEqual([]);
      // The standby delivered what followed the kill: the payments it had not reached, and the one in flight.
      expect(second.got.length).toBeGreaterThan(0);
      expect(ids(second.got)).toContain(inFlight);
      // Each id always with the same body.
      const byId = new Map<string, Set<string>>();
      for (const request of all()) {
        const id = String(request.headers['pix-event-id']);
        byId.set(id, (byId.get(id) ?? new Set()).add(request.body));
      }
      expect([...byId].filter(([, seen]) => seen.size > 1)).toEqual([]);
      // Signed with one secret, the account's in the ledger, whichever listener delivered.
      const secret = await secretOf(one);
      expect(await secretOf(two)).toBe(secret);
      expect(all().filter((request) => !signedWith(secret, request))).toEqual([]);
      // The ledger names the active listener: the one that took over.
      const status = await runCli(['ledger', 'status', '--json'], { env: two });
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout).listeners).toMatchObject([{ pid: standby.pid }]);
      // None made twice: each receiver got each id once, and only the delivery in flight went to both.
      expect(new Set(ids(first.got)).size).toBe(first.got.length);
      expect(new Set(ids(second.got)).size).toBe(second.got.length);
      expect(ids(first.got).filter((id) => ids(second.got).includes(id))).toEqual([inFlight]);
      for (const type of ['payment.sent', 'entry.outcome'])
        expect([...amounts(type)].sort((a, b) => a - b)).toEqual(paid);
      expect(made).toHaveLength(2 * PAYMENTS);
    },
    150_000,
  );

  it.skipIf(postgresMissing() !== undefined)(
    'a listener whose session the server ends stops (exit 6) instead of writing beside the standby that took its lock',
    async () => {
      const { cluster, machine } = await team('ended');
      const [one, two] = [machine(), machine()];
      const target = await receiver();
      const first = listen(one.PIX_CONFIG_DIR, ['--forward-to', target.url], one);
      await until(() => caughtUpOn(cluster, 'ended'), "the first listener's first run");
      const standby = listen(two.PIX_CONFIG_DIR, ['--forward-to', target.url], two);
      await until(() => stderrOf(standby).includes('standby: '), 'the standby');
      // An administrator (or a failover of the server's) ends the active listener's session.
      cluster.psql(`SELECT pg_terminate_backend(backend_pid) FROM pix_listen`, 'ended');
      const code = await within(stopped(first), 'the first listener to stop', 15_000);
      expect(code, stderrOf(first)).toBe(6);
      expect(stderrOf(first)).toContain('lost its connection');
      await until(() => stderrOf(standby).includes('active: '), 'the standby to take over');
    },
    60_000,
  );
});
