/**
 * What the `pix schedule` verbs share: the account's clock, finding a schedule, each occurrence's state
 * from the journal (domain/schedule.ts occurrenceState over its row's entries), and how a schedule is
 * shown (its next occurrences in its own time zone, Brasília's by default).
 */
import { verifyCredentials } from '../../api/resources/keys.js';
import type { Deps } from '../../context.js';
import { formatBRL, formatDecimal } from '../../domain/money.js';
import {
  describeRule,
  eachOccurrence,
  type Occurrence,
  type OccurrenceState,
  occurrenceRow,
  occurrenceState,
  type RowRecord,
  type Window,
  windowOf,
} from '../../domain/schedule.js';
import { isLoopbackHost } from '../../domain/url.js';
import { addDays, formatDateTime, todayIn } from '../../domain/when.js';
import { counted } from '../../domain/words.js';
import { PixError, usageError } from '../../errors.js';
import type { JournalEntry } from '../../journal/entries.js';
import { type Account, ofAccount } from '../../journal/rules.js';
import type { Schedule, ScheduleLine } from '../../journal/schedules.js';
import type { JournalStore } from '../../journal/stores.js';
import { safeText } from '../../output/sanitize.js';
import { accountOf } from '../shared/account.js';

/** How many coming occurrences `list` and `show` name. */
export const SHOWN_NEXT = 5;

/**
 * The account's time now: the sandbox's when the API is the sandbox (its clock moves with `pix sandbox
 * clock`, and pix learns it from an answer: one read of the key list), else this machine's (src/wiring.ts
 * makes the API client's clock the same way).
 */
export async function accountNow(deps: Deps): Promise<Date> {
  const [settings, client] = await Promise.all([deps.settings(), deps.api()]);
  if (settings.sandbox || isLoopbackHost(new URL(client.baseUrl).hostname)) {
    await verifyCredentials(client);
  }
  return client.clock.now();
}

/** The schedule of this account named by its id or the unique start of it (exit 4 none, 2 ambiguous). */
export function findSchedule(schedules: readonly Schedule[], account: Account, wanted: string): Schedule {
  const text = wanted.trim().toLowerCase();
  const mine = schedules.filter((schedule) => schedule.account === account.id);
  const exact = mine.find((schedule) => schedule.id === text);
  if (exact) return exact;
  const found = text.length < 4 ? [] : mine.filter((schedule) => schedule.id.startsWith(text));
  if (found.length === 1) return found[0]!;
  if (found.length > 1) {
    throw usageError(
      'ID',
      `"${safeText(wanted, 40)}" is the start of ${found.length} schedules: ${found.map((s) => s.id).join(', ')}`,
    );
  }
  throw new PixError('not_found', `no schedule ${safeText(wanted, 40)} on this account`, {
    hint: 'list them with `pix schedule list`',
  });
}

/** An occurrence's window (domain/schedule.ts windowOf) in its schedule's zone. */
export function windowFor(schedule: Schedule, occurrence: Occurrence): Window {
  return windowOf(occurrence.payOn, schedule.time, schedule.timeZone);
}

/** What the journal's entries of a row say, as the schedule's rules read them. */
export function rowRecords(entries: readonly JournalEntry[], account: Account): RowRecord[] {
  return entries
    .filter((entry) => ofAccount(entry, account))
    .map((entry) => ({
      state: entry.state,
      reason: entry.reason,
      resolution: entry.resolution,
    }));
}

/**
 * What each occurrence of a schedule pays, one journal row each: a key's or a code's one payment, or a
 * batch file's rows as kept when it was made.
 */
export function linesOf(schedule: Schedule): ScheduleLine[] {
  if (schedule.lines !== undefined) return schedule.lines;
  const { target } = schedule;
  if ('file' in target) throw new Error(`linesOf: schedule ${schedule.id} of a file has no rows`);
  return [
    {
      target,
      amountCentavos: schedule.amountCentavos,
      description: schedule.description,
      receiver: schedule.receiver,
      expect: schedule.expect,
    },
  ];
}

/** What a schedule pays, for people: the key, the code (its start), or the file and its digest. */
export function targetWords(schedule: Schedule): string {
  const { target } = schedule;
  if ('key' in target) return target.key;
  if ('code' in target)
    return `${target.dynamic ? 'dynamic' : 'static'} BR Code ${safeText(target.code.slice(0, 24), 24)}…`;
  return `${safeText(target.file, 80)} (${linesOf(schedule).length} rows, sha256 ${target.digest.slice(0, 16)})`;
}

/** An occurrence of a schedule (one of its lines: a batch file's row) with its state at `now`. */
export interface OccurrenceView {
  schedule: Schedule;
  occurrence: Occurrence;
  line: ScheduleLine;
  row: string;
  window: Window;
  state: OccurrenceState;
  /** The journal entry that paid, holds or refused it (its latest). */
  entry?: JournalEntry | undefined;
}

/** The state of one occurrence's line (`only`: a batch file's row by its id), from its journal row. */
export async function viewOccurrence(
  journal: JournalStore,
  account: Account,
  schedule: Schedule,
  occurrence: Occurrence,
  now: Date,
  line: ScheduleLine = linesOf(schedule)[0]!,
): Promise<OccurrenceView> {
  const row = occurrenceRow(schedule.id, occurrence.date, line.id);
  const window = windowFor(schedule, occurrence);
  const entries = (await journal.rowEntries(row)).filter((entry) => ofAccount(entry, account));
  const state = occurrenceState(rowRecords(entries, account), window, now.getTime(), schedule.state);
  return { schedule, occurrence, line, row, window, state, entry: entries.at(-1) };
}

/** Every line of one occurrence, each with its state (one for a key or a code). */
export async function viewOccurrenceLines(
  journal: JournalStore,
  account: Account,
  schedule: Schedule,
  occurrence: Occurrence,
  now: Date,
): Promise<OccurrenceView[]> {
  const views: OccurrenceView[] = [];
  for (const line of linesOf(schedule)) {
    views.push(await viewOccurrence(journal, account, schedule, occurrence, now, line));
  }
  return views;
}

/**
 * The occurrences not settled by the bookmark whose time has come (due from their time on their day, in
 * the schedule's zone): the only ones a run has to ask the journal about.
 */
export function openOccurrences(schedule: Schedule, now: Date): Occurrence[] {
  const today = todayIn(schedule.timeZone, now);
  const found: Occurrence[] = [];
  for (const occurrence of eachOccurrence(schedule.recurrence)) {
    if (occurrence.payOn > today) break;
    if (schedule.settled !== undefined && occurrence.date <= schedule.settled) continue;
    if (windowFor(schedule, occurrence).start > now.getTime()) continue;
    found.push(occurrence);
  }
  return found;
}

/** The next occurrences paid after today. */
export function comingOccurrences(schedule: Schedule, now: Date, limit = SHOWN_NEXT): Occurrence[] {
  const today = todayIn(schedule.timeZone, now);
  const found: Occurrence[] = [];
  for (const occurrence of eachOccurrence(schedule.recurrence)) {
    if (found.length >= limit) break;
    if (occurrence.payOn > today) found.push(occurrence);
  }
  return found;
}

/**
 * When the schedule's first occurrence after its bookmark becomes due (ms); Infinity when there is none or
 * the schedule is cancelled. A runner keeps it per schedule: until then the schedule costs it nothing.
 */
export function nextOpening(schedule: Schedule): number {
  if (schedule.state === 'cancelled') return Number.POSITIVE_INFINITY;
  for (const occurrence of eachOccurrence(schedule.recurrence)) {
    if (schedule.settled !== undefined && occurrence.date <= schedule.settled) continue;
    return windowFor(schedule, occurrence).start;
  }
  return Number.POSITIVE_INFINITY;
}

/** Who a schedule of a batch file pays, as it is shown: "1 row of payouts.csv", "12 rows of …". */
export function rowsReceiver(count: number, file: string): { name: string } {
  return { name: `${counted(count, 'row')} of ${safeText(file, 60)}` };
}

/** `NAME (DOC, INSTITUTION)` of a schedule's receiver, or of one of its lines'. */
export function receiverWords(schedule: Pick<Schedule, 'receiver'>): string {
  const { name, document, institution } = schedule.receiver;
  const extra = [document, institution].filter((part) => part !== undefined && part !== '');
  return `${safeText(name, 80)}${extra.length === 0 ? '' : ` (${safeText(extra.join(', '), 120)})`}`;
}

export function ruleWords(schedule: Schedule): string {
  const { recurrence } = schedule;
  const ends =
    recurrence.count !== undefined
      ? `, ${recurrence.count} time${recurrence.count === 1 ? '' : 's'}`
      : recurrence.until !== undefined
        ? `, until ${recurrence.until}`
        : '';
  const shift =
    recurrence.rule.kind === 'once' || recurrence.rule.kind.includes('business')
      ? ''
      : `; on a holiday: ${recurrence.shift}`;
  return `${describeRule(recurrence.rule, recurrence.start)}${ends}, at ${schedule.time} (${schedule.timeZone})${shift}`;
}

/** An occurrence as JSON (`--json`). */
export function occurrenceJson(view: OccurrenceView): Record<string, unknown> {
  return {
    date: view.occurrence.date,
    payOn: view.occurrence.payOn,
    index: view.occurrence.index,
    row: view.row,
    state: view.state,
    from: new Date(view.window.start).toISOString(),
    until: new Date(view.window.end).toISOString(),
    ...(view.entry === undefined ? {} : { journalEntry: view.entry.id, reason: view.entry.reason ?? null }),
  };
}

/** What a schedule pays, as JSON: `key`, `code`, or `file` with its digest and rows. */
function targetJson(schedule: Schedule): Record<string, unknown> {
  const { target } = schedule;
  if (!('file' in target)) return 'key' in target ? { key: target.key } : { code: target.code };
  return {
    file: target.file,
    digest: target.digest,
    rows: linesOf(schedule).map((line) => ({
      id: line.id,
      ...('key' in line.target ? { key: line.target.key } : { code: line.target.code }),
      amount: formatDecimal(line.amountCentavos),
      receiver: line.receiver,
    })),
  };
}

/** A schedule as JSON (`--json`): what was confirmed, its state, and its next occurrences. */
export function scheduleJson(schedule: Schedule, coming: readonly Occurrence[]): Record<string, unknown> {
  return {
    id: schedule.id,
    state: schedule.state,
    ...targetJson(schedule),
    amount: formatDecimal(schedule.amountCentavos),
    receiver: schedule.receiver,
    description: schedule.description ?? null,
    rule: schedule.recurrence,
    time: schedule.time,
    timeZone: schedule.timeZone,
    profile: schedule.profile,
    createdAt: schedule.createdAt,
    settledThrough: schedule.settled ?? null,
    next: coming.map((occurrence) => {
      const window = windowFor(schedule, occurrence);
      return { date: occurrence.date, payOn: occurrence.payOn, at: new Date(window.start).toISOString() };
    }),
  };
}

/** When an occurrence becomes due, for people: `Fri 06/03/2026 08:00` in the schedule's zone. */
export function dueWords(schedule: Schedule, occurrence: Occurrence): string {
  const at = new Date(windowFor(schedule, occurrence).start).toISOString();
  const moved = occurrence.payOn === occurrence.date ? '' : ` (for ${occurrence.date})`;
  return `${formatDateTime(at, schedule.timeZone)}${moved}`;
}

export function amountWords(schedule: Schedule): string {
  return formatBRL(schedule.amountCentavos);
}

/** How far back `list` looks for occurrences that need a person (missed, refused, held). */
export const RECENT_DAYS = 31;

/**
 * The occurrences of a schedule that have come, with their states: those after its bookmark, and (for
 * `list`) those of the last RECENT_DAYS days, so a missed or refused one stays in view after runs have
 * moved past it. `all`: every one since the first (`show`).
 */
export async function pastViews(
  journal: JournalStore,
  account: Account,
  schedule: Schedule,
  now: Date,
  all = false,
): Promise<OccurrenceView[]> {
  const today = todayIn(schedule.timeZone, now);
  const recent = addDays(today, -RECENT_DAYS);
  const views: OccurrenceView[] = [];
  for (const occurrence of eachOccurrence(schedule.recurrence)) {
    if (occurrence.payOn > today) break;
    const unsettled = schedule.settled === undefined || occurrence.date > schedule.settled;
    if (!all && !unsettled && occurrence.payOn < recent) continue;
    if (windowFor(schedule, occurrence).start > now.getTime()) continue;
    views.push(...(await viewOccurrenceLines(journal, account, schedule, occurrence, now)));
  }
  return views;
}

/** Occurrences a person must look at: missed, refused, held by the policy, sent with no known outcome. */
export function needsAttention(view: OccurrenceView): boolean {
  return (
    view.state === 'missed' ||
    view.state === 'failed' ||
    view.state === 'held' ||
    view.state === 'unknown' ||
    view.state === 'sending'
  );
}

/**
 * `pause`, `resume` and `cancel`: the schedule's state changed, for every runner (they read the schedules
 * again when they change). Occurrences whose window passes while paused or cancelled are skipped, not
 * missed; a cancelled schedule cannot be resumed (a new one is made instead).
 */
/** What list and show read: the account's schedules as kept, the account, its time now, and the journal. */
export async function schedulesNow(deps: Deps) {
  const [store, account, now, journal] = await Promise.all([
    deps.stores.schedules(),
    accountOf(deps),
    accountNow(deps),
    deps.stores.journal(),
  ]);
  return { schedules: await store.read(), account, now, journal };
}

export async function changeState(
  deps: Deps,
  id: string,
  state: 'active' | 'paused' | 'cancelled',
): Promise<void> {
  const [store, account, now] = await Promise.all([
    deps.stores.schedules(),
    accountOf(deps),
    accountNow(deps),
  ]);
  const schedule = findSchedule(await store.read(), account, id);
  const verb = { active: 'resumed', paused: 'paused', cancelled: 'cancelled' }[state];
  if (schedule.state === state) {
    deps.io.stderr.write(`${schedule.id} is ${schedule.state} already\n`);
    return;
  }
  if (schedule.state === 'cancelled') {
    throw new PixError('declined', `${schedule.id} is cancelled: it cannot be ${verb}`, {
      hint: 'make a new schedule with `pix schedule create`',
    });
  }
  if (state === 'active') {
    // Occurrences whose window passed while it was paused are skipped: the bookmark moves over them.
    let last: Occurrence | undefined;
    for (const occurrence of eachOccurrence(schedule.recurrence)) {
      if (windowFor(schedule, occurrence).end > now.getTime()) break;
      last = occurrence;
    }
    if (last !== undefined && (schedule.settled === undefined || last.date > schedule.settled)) {
      await store.settle(schedule.id, last.date);
    }
  }
  await store.setState(schedule.id, state, now.toISOString());
  deps.io.stdout.write(`${schedule.id}\n`);
  const next = state === 'active' ? comingOccurrences(schedule, now, 1)[0] : undefined;
  deps.io.stderr.write(
    `${schedule.id} ${verb}${next === undefined ? '' : `; next: ${dueWords(schedule, next)}`}\n`,
  );
}
