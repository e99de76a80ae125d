/**
 * What a run of the schedules finds (`pix schedule run-due`, and each tick of `pix schedule run`): for
 * every schedule of the account, the occurrences whose day and time have come and that its bookmark does
 * not say are settled, each judged by its journal row (domain/schedule.ts occurrenceState): due (to pay),
 * missed (its window ended with nothing sent: recorded, never paid late on its own), held (sent with no
 * known outcome, or in flight), or settled. The bookmark then moves over every settled one, so the next
 * run reads the schedules and nothing else until another occurrence's time comes.
 */
import { MISSED_REASON } from '../../domain/schedule.js';
import type { Account } from '../../journal/rules.js';
import type { Schedule, ScheduleStore } from '../../journal/schedules.js';
import type { JournalStore } from '../../journal/stores.js';
import { type OccurrenceView, openOccurrences, viewOccurrenceLines } from './shared.js';

/**
 * How long after an occurrence's window ends it is recorded as missed: a runner that checked the window
 * just before it ended claims the row within this time (pay.ts checks the window right before the claim),
 * and the miss is judged after that claim, never beside it.
 */
export const MISSED_GRACE_MS = 60_000;

export interface Survey {
  due: OccurrenceView[];
  /** Window ended with nothing sent, not recorded yet. */
  missed: OccurrenceView[];
  /** Sent with no known outcome, or in flight. */
  held: OccurrenceView[];
  /** How far each schedule's bookmark may move. */
  settle: Map<string, string>;
}

/** The schedules that have an occurrence to look at now (no journal read: the schedules alone say). */
export function schedulesToLook(schedules: readonly Schedule[], account: Account, now: Date): Schedule[] {
  return schedules.filter(
    (schedule) => schedule.account === account.id && openOccurrences(schedule, now).length > 0,
  );
}

export async function survey(
  journal: JournalStore,
  account: Account,
  schedules: readonly Schedule[],
  now: Date,
): Promise<Survey> {
  const found: Survey = { due: [], missed: [], held: [], settle: new Map() };
  for (const schedule of schedules) {
    let contiguous = true;
    for (const occurrence of openOccurrences(schedule, now)) {
      // A batch file's occurrence is settled once every one of its rows is.
      for (const view of await viewOccurrenceLines(journal, account, schedule, occurrence, now)) {
        const ended = now.getTime() >= view.window.end;
        let settled = false;
        switch (view.state) {
          case 'paid':
          case 'failed':
          case 'held':
            settled = true;
            break;
          case 'missed':
            if (view.entry?.reason === MISSED_REASON) settled = true;
            // Settled once recorded (by whoever records it: the bookmark never passes a miss not yet told).
            else if (now.getTime() >= view.window.end + MISSED_GRACE_MS) found.missed.push(view);
            break;
          case 'paused':
          case 'cancelled':
            // Not paid while paused or once cancelled: skipped, not missed, once its window is over.
            settled = ended;
            break;
          case 'due':
            found.due.push(view);
            break;
          case 'sending':
            // Asking who sends it also makes an entry whose sender died unknown, on every machine
            // (journal/stores.ts holder): held for `pix journal resolve`, never in progress forever.
            if (view.entry !== undefined) await journal.holder(view.entry);
            found.held.push(view);
            break;
          case 'unknown':
            found.held.push(view);
            break;
          case 'scheduled':
            break;
        }
        contiguous &&= settled;
      }
      if (contiguous) found.settle.set(schedule.id, occurrence.date);
    }
  }
  return found;
}

/** Moves each bookmark the survey allows (after the missed ones are recorded). */
export async function settleBookmarks(store: ScheduleStore, survey: Survey, schedules: readonly Schedule[]) {
  const byId = new Map(schedules.map((schedule) => [schedule.id, schedule]));
  for (const [id, date] of survey.settle) {
    const before = byId.get(id)?.settled;
    if (before === undefined || date > before) await store.settle(id, date);
  }
}
