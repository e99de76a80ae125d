/**
 * `pix schedule run` on the shared ledger (docs/schedules.md): runners on two machines (config directories)
 * on one PostgreSQL and one `pix sandbox serve`, the sandbox's clock moved day by day. A schedule of 50
 * occurrences (every business day) with the runners SIGKILLed at random moments and started again: every
 * occurrence paid once, at its amount, on its day; unknown outcomes (a kill mid-payment) resolved from the
 * sandbox's own record, as an operator would. And every runner stopped across a due date: the occurrence is
 * missed, nothing is debited, and one `schedule.missed` event is delivered.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isBusinessDay } from '../../src/domain/calendar.js';
import { addDays, todayIn } from '../../src/domain/when.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { readSandboxState } from '../../src/sandbox/store.js';
import { deferEach } from '../helpers/cleanup.js';
import { BIN } from '../helpers/cli.js';
import { caughtUpOn, linesOf, listen, stderrOf } from '../helpers/listen.js';
import { pix as runPix } from '../helpers/pix.js';
import { clusterPerFile } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';

const deferred = deferEach();
const { suite, cluster } = clusterPerFile();

/** A small seeded generator: the kill moments are random, and the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Machine {
  dir: string;
  env: Record<string, string>;
}

async function setup() {
  const sandboxDir = deferred.dir();
  const stateFile = join(sandboxDir, 'sandbox-state.json');
  const server: SandboxServer = await startSandboxServer({ port: 0, stateFile, latencyMs: 2 });
  deferred.defer(() => server.close());
  const ledger = cluster().createDatabase(`sched_${process.pid}_${Date.now() % 100000}`);
  const machines: Machine[] = ['a', 'b'].map(() => {
    const dir = deferred.dir();
    return {
      dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        PIX_CONFIG_DIR: dir,
        PIX_BASE_URL: server.url,
        PIX_TOKEN: 'schedule-runners',
        PIX_LEDGER_URL: ledger,
      },
    };
  });
  // The operator's commands and the test's looks at the journal run in-process (the same code as the binary,
  // without starting Node for each of the hundreds of looks); the runners under test are processes, killed.
  const pix = (machine: Machine, args: string[]) => runPix(args, { env: machine.env });
  const ok = async (machine: Machine, args: string[]) => {
    const result = await pix(machine, args);
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
    return result.stdout;
  };
  const clock = (iso: string) => ok(machines[0]!, ['sandbox', 'clock', '--set', iso, '--state', stateFile]);
  const transfers = () => Object.values(readSandboxState(stateFile)?.transfers ?? {});
  await ok(machines[0]!, ['ledger', 'init']);
  return { machines, pix, ok, clock, transfers, stateFile };
}

const runners: ChildProcess[] = [];
deferred.defer(() => {
  for (const child of runners.splice(0)) child.kill('SIGKILL');
});

function startRunner(machine: Machine): ChildProcess {
  const child = spawn(
    process.execPath,
    [BIN, 'schedule', 'run', '--interval', '1s', '--takeover', '3s', '-o', 'ndjson'],
    {
      env: machine.env,
      cwd: machine.dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  Object.defineProperty(child, 'stderrText', { get: () => stderr });
  runners.push(child);
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.on('exit', () => resolve()),
  );

/** A wait that fails with what the runners said, so a failure names its cause. */
async function waitOrTell(live: Map<Machine, ChildProcess>, wait: () => Promise<void>): Promise<void> {
  try {
    await wait();
  } catch (error) {
    const said = [...live.values()].map((child) => (child as unknown as { stderrText: string }).stderrText);
    throw new Error(`${(error as Error).message}\nrunners said:\n${said.join('\n---\n').slice(-4000)}`);
  }
}

interface Row {
  id: string;
  state: string;
  reason?: string;
  resolution?: string;
  endToEndId?: string;
  batchRow?: { row: string };
}

suite('pix schedule run: runners on one shared ledger', () => {
  it('50 occurrences, two runners SIGKILLed at random and restarted: each paid once, at its amount, on its day', {
    timeout: 600_000,
  }, async () => {
    const { machines, pix, ok, clock, transfers } = await setup();
    const [a, b] = machines as [Machine, Machine];
    await clock('2026-03-02T07:00:00-03:00');
    const id = (
      await ok(a, [
        'schedule',
        'create',
        '--key',
        'fornecedor@example.com',
        '--amount',
        '12,34',
        '--every',
        'bday',
        '--count',
        '50',
        '--yes',
      ])
    ).trim();
    // The days, from the calendar: business days from Monday 2 March 2026 (Good Friday, Tiradentes and
    // Labour Day fall in them).
    const days: string[] = [];
    for (let day = '2026-03-02'; days.length < 50; day = addDays(day, 1))
      if (isBusinessDay(day)) days.push(day);
    expect(days).not.toContain('2026-04-03');
    const random = seeded(46);
    const live = new Map<Machine, ChildProcess>([
      [a, startRunner(a)],
      [b, startRunner(b)],
    ]);
    let kills = 0;
    let resolved = 0;
    const journalRows = async (): Promise<Row[]> => {
      const listed = await pix(a, ['journal', '--all', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      return (JSON.parse(listed.stdout).results as Row[]).filter((row) => row.batchRow?.row.startsWith(id));
    };
    for (const day of days) {
      await clock(`${day}T08:00:05-03:00`);
      const row = `${id}.${day}`;
      // Kill a runner at a random moment of the day's work (sometimes none), and start it again.
      let victim = random() < 0.6 ? (random() < 0.5 ? a : b) : undefined;
      const killAt = Date.now() + Math.floor(random() * 1500);
      await waitOrTell(live, () =>
        until(
          async () => {
            if (victim !== undefined && Date.now() >= killAt && live.get(victim)?.exitCode === null) {
              const child = live.get(victim)!;
              child.kill('SIGKILL');
              await exited(child);
              kills++;
              live.set(victim, startRunner(victim));
              victim = undefined;
            }
            const rows = (await journalRows()).filter((entry) => entry.batchRow?.row === row);
            // What the operator does for an unknown outcome: the sandbox's record says whether it left.
            for (const entry of rows.filter((e) => e.state === 'unknown')) {
              const sent = transfers().some((t) => t.endToEndId === entry.endToEndId);
              await ok(a, ['journal', 'resolve', entry.id, sent ? '--paid' : '--not-paid']);
              resolved++;
            }
            // Done once the day's occurrence is paid and the day's kill, if any, has happened.
            const paid = rows.some((entry) => entry.state === 'done' || entry.resolution === 'paid');
            return paid && victim === undefined;
          },
          `the occurrence of ${day} paid`,
          120_000,
        ),
      );
    }
    const rows = await journalRows();
    // The journal: each day's occurrence paid once (an unknown one resolved --paid counts as that one).
    const done = new Map<string, number>();
    for (const row of rows.filter((r) => r.state === 'done' || r.resolution === 'paid')) {
      done.set(row.batchRow!.row, (done.get(row.batchRow!.row) ?? 0) + 1);
    }
    expect([...done.keys()].sort()).toEqual(days.map((day) => `${id}.${day}`));
    expect([...done.values()].every((count) => count === 1)).toBe(true);
    // The sandbox's own record: one transfer of R$ 12,34 on each of the days (its clock), none other.
    const sent = transfers().filter((t) => t.amount === 1234);
    expect(sent.map((t) => todayIn('America/Sao_Paulo', new Date(t.createdAt))).sort()).toEqual(days);
    expect(kills, `${kills} kills, ${resolved} unknown outcomes resolved`).toBeGreaterThan(20);
  });

  it('every runner stopped across a due date: missed, no debit, one schedule.missed event; no runner pays it later', {
    timeout: 300_000,
  }, async () => {
    const { machines, pix, ok, clock, transfers } = await setup();
    const [a, b] = machines as [Machine, Machine];
    const out = join(a.dir, 'events.ndjson');
    await clock('2026-03-09T07:00:00-03:00');
    const listener = listen(a.dir, ['--exec', `cat >> '${out}'; echo >> '${out}'`], a.env);
    const database = new URL(a.env.PIX_LEDGER_URL!).pathname.slice(1);
    await until(() => caughtUpOn(cluster(), database), "the listener's first run", 60_000).catch((error) => {
      throw new Error(`${(error as Error).message}; it said: ${stderrOf(listener)}`);
    });
    const id = (
      await ok(a, [
        'schedule',
        'create',
        '--key',
        'fornecedor@example.com',
        '--amount',
        '45,67',
        '--at',
        '2026-03-10',
        '--yes',
      ])
    ).trim();
    // No runner runs on the 10th; on the 11th both start.
    await clock('2026-03-11T09:00:00-03:00');
    const live = new Map<Machine, ChildProcess>([
      [a, startRunner(a)],
      [b, startRunner(b)],
    ]);
    await waitOrTell(live, () =>
      until(
        async () => {
          const listed = await pix(b, ['schedule', 'list', '--json']);
          const [schedule] = JSON.parse(listed.stdout).results as Array<{
            attention: Array<{ state: string; journalEntry?: string }>;
          }>;
          return (
            schedule?.attention.some((o) => o.state === 'missed' && o.journalEntry !== undefined) === true
          );
        },
        'the missed occurrence recorded',
        60_000,
      ),
    );
    await until(
      () => linesOf(out).some((line) => line.includes('"schedule.missed"')),
      'the missed event',
      60_000,
    );
    // The runners go on ticking; nothing pays it late, and the event is not made again.
    await clock('2026-03-11T15:00:00-03:00');
    const again = await pix(a, ['schedule', 'show', id, '--json']);
    expect(JSON.parse(again.stdout).occurrences).toEqual([
      expect.objectContaining({ date: '2026-03-10', state: 'missed' }),
    ]);
    expect(transfers().filter((t) => t.amount === 4567)).toHaveLength(0);
    await until(() => linesOf(out).length >= 1, 'the events');
    const missed = linesOf(out).filter((line) => line.includes('"schedule.missed"'));
    expect(missed).toHaveLength(1);
    const journal = JSON.parse((await pix(b, ['journal', '--all', '--json'])).stdout).results as Row[];
    expect(
      journal.filter((row) => row.batchRow?.row === `${id}.2026-03-10`).map((row) => row.reason),
    ).toContain('missed');
  });
});
