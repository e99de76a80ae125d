/**
 * Where schedules are kept, beside the journal that pays their occurrences (docs/schedules.md): the
 * config directory's `schedules.jsonl` on a file ledger, the shared ledger's `pix_schedules` table on a
 * database (postgres/schedules.ts, loaded only then: architecture rule 8). Both behind one small
 * interface, as the journal's stores are (stores.ts).
 *
 * A schedule is what the operator confirmed when making it: the account, the key and amount, the rule,
 * and the receiver as the consultation answered then (its name, masked document and institution: the
 * one each occurrence must still pay). It is never edited: a change is a new schedule (a new
 * confirmation, or under a policy a new approval); its state (active, paused, cancelled) and how far its
 * occurrences are settled are the only things that move.
 *
 * The occurrences themselves are journal rows (domain/schedule.ts occurrenceRow): paid once per account
 * by the journal's row rules, whatever pays them. `settled` is only a bookmark — the last date up to
 * which every occurrence is paid, refused or missed in the journal — so a run with nothing due reads the
 * schedules and nothing else.
 */
import { join } from 'node:path';
import type { Centavos } from '../domain/money.js';
import type { PayeeExpectation } from '../domain/payee.js';
import type { ApprovalRecord, Plan } from '../domain/plan.js';
import type { Recurrence } from '../domain/schedule.js';
import { PixError } from '../errors.js';
import { appendPrivateLine } from '../storage/append.js';
import { ensurePrivateDir } from '../storage/dirs.js';
import { readPrivateFile, stampOf } from '../storage/files.js';
import { type LockHost, withFileLock } from '../storage/locks.js';

export const SCHEDULES_FILE = 'schedules.jsonl';

export type ScheduleState = 'active' | 'paused' | 'cancelled';

/** The receiver as the consultation answered when the schedule was made: what each occurrence must pay. */
export interface ApprovedReceiver {
  name: string;
  /** Masked, as pix shows documents. */
  document?: string | undefined;
  institution?: string | undefined;
}

/**
 * What a schedule pays: a key; a BR Code (kept whole: it is sent again to be consulted on the day); or a
 * batch file's rows, read and consulted when it was made and kept in `lines` with the file's digest, so the
 * file changing afterwards changes nothing that is paid (docs/schedules.md "A BR Code, a batch file").
 */
export type ScheduleTarget =
  | { key: string; keyType?: string | undefined }
  | { code: string; dynamic: boolean }
  | { file: string; digest: string };

/** One payment of each occurrence: a key's or a code's, or a batch file's row (its `id`). */
export interface ScheduleLine {
  /** The file's row id; absent for a key or a code (the occurrence's row is the schedule's and date). */
  id?: string | undefined;
  target: { key: string; keyType?: string | undefined } | { code: string; dynamic: boolean };
  amountCentavos: Centavos;
  description?: string | undefined;
  receiver: ApprovedReceiver;
  expect?: PayeeExpectation | undefined;
}

export interface Schedule {
  /** `s-` and 12 hex. */
  id: string;
  /** The account, as the API identifies it (journal/accounts.ts). */
  account: string;
  /** The profile that made it: for people. */
  profile: string;
  createdAt: string;
  target: ScheduleTarget;
  /** What each occurrence pays (a batch file's: the sum of its rows). */
  amountCentavos: Centavos;
  /** A batch file's rows, as read and consulted when it was made (absent for a key or a code). */
  lines?: ScheduleLine[] | undefined;
  description?: string | undefined;
  recurrence: Recurrence;
  /** `HH:MM`: when on its day an occurrence becomes due. */
  time: string;
  /** The zone its days and times are in (the profile's, America/Sao_Paulo by default). */
  timeZone: string;
  /** A key's or a code's receiver; a batch file's rows have their own (`lines`), this names the file. */
  receiver: ApprovedReceiver;
  /** Who the operator said they pay (`--expect-document`, `--expect-name`): checked at every occurrence. */
  expect?: PayeeExpectation | undefined;
  state: ScheduleState;
  stateAt?: string | undefined;
  /** Every occurrence dated up to this one is settled in the journal. */
  settled?: string | undefined;
  /**
   * Made under a policy (`pix schedule activate`): the standing plan its approvers signed and the
   * verdicts of it read then. Nothing here is trusted as stored: each occurrence verifies them again
   * (commands/schedule/standing.ts), with the verdicts remembered since.
   */
  standing?: { plan: Plan; approvals: ApprovalRecord[] } | undefined;
}

export interface ScheduleStore {
  readonly backend: 'file' | 'postgres';
  readonly where: string;
  /** Every schedule (of every account), oldest first. */
  read(): Promise<Schedule[]>;
  /** Changes whenever a schedule is added or changed (a runner reads them again only then). */
  version(): Promise<string>;
  /** Adds it; false (and nothing changed) when a schedule of its id is there already: two activations at once. */
  add(schedule: Schedule): Promise<boolean>;
  /** Sets the state; false when the schedule is not there. */
  setState(id: string, state: ScheduleState, at: string): Promise<boolean>;
  /** Moves the bookmark forward (never back). */
  settle(id: string, date: string): Promise<void>;
  close(): Promise<void>;
}

type Line =
  | { schedule: Schedule }
  | { id: string; state: ScheduleState; at: string }
  | { id: string; settled: string };

/** The lines of the file folded into schedules; a line that cannot be read is damage (exit 8). */
export function foldSchedules(text: string, path: string): Schedule[] {
  const byId = new Map<string, Schedule>();
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      // A torn last line (a writer killed mid-write) is no schedule yet; anything else is damage.
      if (index === lines.length - 1) return;
      throw new PixError('declined', `${path} line ${index + 1} cannot be read; no schedule was run`, {
        hint: 'restore the file from a copy, or move the line aside once you have looked at it',
      });
    }
    if ('schedule' in line) {
      byId.set(line.schedule.id, { ...line.schedule });
      return;
    }
    const schedule = byId.get(line.id);
    if (schedule === undefined) return;
    if ('state' in line) {
      schedule.state = line.state;
      schedule.stateAt = line.at;
    } else if (schedule.settled === undefined || line.settled > schedule.settled) {
      schedule.settled = line.settled;
    }
  });
  return [...byId.values()];
}

/** The config directory's schedules: one line per schedule made and per change, appended under a lock. */
export function fileSchedules(dir: string, host: LockHost): ScheduleStore {
  const path = join(dir, SCHEDULES_FILE);
  const read = () => foldSchedules(readPrivateFile(path) ?? '', path);
  const append = (line: Line) => appendPrivateLine(path, `${JSON.stringify(line)}\n`, { torn: 'cut' });
  const locked = <T>(work: () => T) => {
    ensurePrivateDir(dir);
    return withFileLock(path, 'the schedules file', host, work);
  };
  return {
    backend: 'file',
    where: path,
    read: async () => read(),
    version: async () => stampOf(path)?.stamp ?? 'none',
    add: (schedule) =>
      locked(() => {
        if (read().some((known) => known.id === schedule.id)) return false;
        append({ schedule });
        return true;
      }),
    setState: (id, state, at) =>
      locked(() => {
        if (!read().some((schedule) => schedule.id === id)) return false;
        append({ id, state, at });
        return true;
      }),
    settle: (id, date) => locked(() => void append({ id, settled: date })),
    close: async () => {},
  };
}
