/**
 * `pix schedule run`: a long-running worker paying the account's scheduled occurrences on the shared
 * ledger, as many as wanted on as many machines, any of them killed at any moment (docs/schedules.md).
 *
 * Each tick (every `--interval`, 2 s by default): the schedules are read again only when they changed (one
 * number asked of the database); on the account's clock (the sandbox's under `pix sandbox clock`: one read
 * of the key list, else this machine's), the schedules whose next occurrence's time has come are judged by
 * the journal (survey.ts); each due or newly missed occurrence becomes a job of the queue (pg-boss,
 * journal/postgres/queue.ts: one job per occurrence however many runners send it, one runner claims it, a
 * job whose runner died taken over after `--takeover`), and the bookmarks move over what is settled.
 *
 * A job, on whichever runner claims it: the occurrence judged again; due, it is paid through the batch's
 * path (payment.ts: the receiver confirmed, the window on the account's clock, the row claimed once per
 * account); missed, recorded. What pays it once is the journal: a job run twice finds the row paid, one
 * whose runner was killed mid-payment finds it in progress or held unknown (`pix journal resolve`).
 *
 * Runs until SIGINT or SIGTERM (exit 0): a payment in flight finishes first. A database lost is exit 6.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { MISSED_REASON, occurrenceOn, parseOccurrenceRow } from '../../domain/schedule.js';
import { PixError, usageError } from '../../errors.js';
import type { Account } from '../../journal/rules.js';
import type { Schedule } from '../../journal/schedules.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { durationFlag, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';
import { payOccurrences, recordMissed } from './payment.js';
import { missedWords } from './run-due.js';
import { accountNow, linesOf, nextOpening, viewOccurrence } from './shared.js';
import { MISSED_GRACE_MS, settleBookmarks, survey } from './survey.js';

const DEFAULT_INTERVAL_MS = 2_000;
const DEFAULT_TAKEOVER_MS = 120_000;

const runOptionsSchema = z.object({
  interval: z.optional(durationFlag),
  takeover: z.optional(durationFlag),
});

export type ScheduleRunOptions = z.output<typeof runOptionsSchema>;

interface Runner {
  deps: Deps;
  account: Account;
  schedules: Map<string, Schedule>;
  /** Each schedule's next opening (ms), by the schedule's id, state and bookmark it was computed for. */
  openings: Map<string, { key: string; at: number }>;
  version?: string;
}

function openingOf(runner: Runner, schedule: Schedule): number {
  const key = `${schedule.state}|${schedule.settled ?? ''}`;
  const known = runner.openings.get(schedule.id);
  if (known?.key === key) return known.at;
  const at = nextOpening(schedule);
  runner.openings.set(schedule.id, { key, at });
  return at;
}

/** One job: the occurrence judged again where it is claimed, then paid or recorded missed. */
async function handle(runner: Runner, row: string): Promise<void> {
  const { deps, account } = runner;
  const named = parseOccurrenceRow(row);
  const schedule = named === undefined ? undefined : runner.schedules.get(named.schedule);
  const occurrence = schedule === undefined ? undefined : occurrenceOn(schedule.recurrence, named!.date);
  // A batch file's row, by its id (the job names it after the date).
  const line = schedule === undefined ? undefined : linesOf(schedule).find((each) => each.id === named!.line);
  if (schedule === undefined || occurrence === undefined || line === undefined) return;
  const journal = await deps.stores.journal();
  const now = await accountNow(deps);
  const view = await viewOccurrence(journal, account, schedule, occurrence, now, line);
  const { stderr } = deps.io;
  if (view.state === 'due') {
    try {
      await payOccurrences(deps, [view], {
        now: () => accountNow(deps),
        withinWindow: true,
        confirmedAhead: true,
      });
    } catch (error) {
      // The row's outcome is in the report and the journal; a runner goes on with the next one.
      if (!(error instanceof PixError) || error.kind === 'unavailable') throw error;
      stderr.write(`schedule: ${row}: ${safeText(error.message, 300)}\n`);
    }
    return;
  }
  if (
    view.state === 'missed' &&
    view.entry?.reason !== MISSED_REASON &&
    now.getTime() >= view.window.end + MISSED_GRACE_MS
  ) {
    await recordMissed(journal, account, view);
    stderr.write(`missed: ${missedWords(view)}\n`);
  }
}

/** The account's schedules, read again only when they changed (one number asked of the database). */
async function load(runner: Runner) {
  const store = await runner.deps.stores.schedules();
  const version = await store.version();
  if (version !== runner.version) {
    runner.schedules = new Map(
      (await store.read()).filter((schedule) => schedule.account === runner.account.id).map((s) => [s.id, s]),
    );
    runner.version = version;
  }
  return store;
}

/** One tick: the schedules, those whose time has come judged, their jobs sent, the bookmarks moved. */
async function tick(runner: Runner, send: (row: string) => Promise<boolean>): Promise<number> {
  const { deps, account } = runner;
  const store = await load(runner);
  const now = await accountNow(deps);
  const open = [...runner.schedules.values()].filter(
    (schedule) => openingOf(runner, schedule) <= now.getTime(),
  );
  if (open.length === 0) return 0;
  const found = await survey(await deps.stores.journal(), account, open, now);
  let sent = 0;
  for (const view of [...found.due, ...found.missed]) if (await send(view.row)) sent++;
  await settleBookmarks(store, found, open);
  return sent;
}

export async function runScheduleRun(options: ScheduleRunOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  if (settings.ledger.kind !== 'postgres') {
    throw usageError(
      undefined,
      `pix schedule run works on a shared ledger; profile "${settings.profile.value}" keeps its ledger in this config directory`,
      'on a file ledger, run `pix schedule run-due` from cron or a systemd timer (docs/schedules.md); for a team, `pix ledger init` (docs/team.md)',
    );
  }
  const intervalMs = options.interval?.milliseconds ?? DEFAULT_INTERVAL_MS;
  const takeoverMs = options.takeover?.milliseconds ?? DEFAULT_TAKEOVER_MS;
  const { stderr } = deps.io;
  const journal = await deps.stores.journal();
  await journal.checkSound();
  const runner: Runner = { deps, account: await accountOf(deps), schedules: new Map(), openings: new Map() };
  const { openQueue } = await import('../../journal/postgres/queue.js');
  const queue = await openQueue(settings.ledger.url.value, deps.env, {
    takeoverSeconds: Math.max(1, Math.round(takeoverMs / 1000)),
    pollSeconds: Math.max(0.5, intervalMs / 1000),
    onError: (error) =>
      stderr.write(`warning: the queue: ${safeText((error as Error)?.message ?? error, 200)}\n`),
  });
  try {
    await load(runner);
    stderr.write(
      `schedule run: ${runner.schedules.size} schedule${runner.schedules.size === 1 ? '' : 's'} of profile "${settings.profile.value}" on ${journal.where}; Ctrl-C stops\n`,
    );
    await queue.work((row) => handle(runner, row));
    while (!deps.signal.aborted) {
      if ((await tick(runner, (row) => queue.send(row))) > 0) queue.wake();
      await deps.sleep(intervalMs, deps.signal);
    }
  } finally {
    await queue.stop();
  }
}

export const verb = describeVerb({
  summary: 'a worker paying the occurrences on the shared ledger (pg-boss); as many as wanted, anywhere',
  formats: LIST_FORMATS,
  examples: ['pix schedule run', 'pix schedule run --interval 1s -o ndjson >> payouts.ndjson'],
  exits: ['usage', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--interval <DUR>', 'how often the schedules are looked at (default 2s)')
    .option(
      '--takeover <DUR>',
      'how long an occurrence claimed by a runner that stopped answering waits for another (default 2m)',
    )
    .action(async (_options, self: Command) => {
      await runScheduleRun(parseOptions(runOptionsSchema, self.opts()), deps);
    });
}
