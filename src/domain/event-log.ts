/**
 * The event log of `pix listen` and its checkpoint, pure: what their lines and fields are, how a line
 * carries its own checksum, what a log adds up to, and what counts as damage. The files themselves are
 * src/events/log.ts's.
 *
 * The log (`<config dir>/events/<account>.jsonl`) is append-only: an `event` line when an event is made,
 * an `attempt` line per delivery, `delivered` or `dead` when it ends, `resend` to deliver one again.
 * Earlier versions also wrote `seen` (the statement entries there before their first listen); they are
 * read, never written. Each line this version writes ends with `"sum"`, 8 hex of the SHA-256 of the line
 * without it: a changed byte anywhere in a line is named with its line number, never read as something
 * else.
 *
 * The checkpoint (`<account>.checkpoint`, replaced atomically) says how many lines and bytes the log had
 * at the last poll, and where the listener had got to: the newest statement entries seen and how far the
 * journal was read. A log shorter than its checkpoint says, missing while the checkpoint names lines, or
 * not ending a line where it says, was cut, emptied or replaced: damage, never a fresh start.
 */
import { createHash } from 'node:crypto';
import type { EventType, PixEvent } from './events.js';
import { createLineReader, type LineDamage, NOT_JSON, TORN_MARK } from './lines.js';

export { TORN_MARK };

export type LogLine =
  | { t: 'event'; event: PixEvent }
  | { t: 'attempt'; id: string; at: string; ok: boolean; status?: number; error?: string }
  | { t: 'delivered'; id: string; at: string }
  | { t: 'dead'; id: string; at: string }
  | { t: 'resend'; id: string; at: string }
  | { t: 'seen'; ids: string[] };

/** A line the reader could not take; `line` counts from 1, as an editor numbers them. */
export type LogDamage = LineDamage;

const EVENT_TYPES: ReadonlySet<string> = new Set<EventType>([
  'entry.income',
  'entry.outcome',
  'charge.paid',
  'charge.expired',
  'payment.sent',
  'payment.unknown',
  'payment.resolved',
  'schedule.paid',
  'schedule.failed',
  'schedule.held',
  'schedule.missed',
]);

const SUM = /,"sum":"([0-9a-f]{8})"\}$/;

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** The line as written: its JSON, with `"sum"` last (over the JSON without it). */
export function encodeLine(line: LogLine): string {
  const body = JSON.stringify(line);
  return `${body.slice(0, -1)},"sum":"${digest(body)}"}`;
}

/** 8 hex of a whole line's SHA-256, as the checkpoint names the line it ends at. */
export function lineDigest(text: string): string {
  return digest(text);
}

/** What one delivery adds to the log: its attempt, and `delivered` when it succeeded. */
export function attemptLines(
  id: string,
  at: string,
  result: { ok: boolean; status?: number | undefined; error?: string | undefined },
): LogLine[] {
  const attempt: LogLine = {
    t: 'attempt',
    id,
    at,
    ok: result.ok,
    ...(result.status === undefined ? {} : { status: result.status }),
    ...(result.error === undefined ? {} : { error: result.error }),
  };
  return result.ok ? [attempt, { t: 'delivered', id, at }] : [attempt];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';

/** The line's value as a LogLine, or why it is not one. */
function asLogLine(value: Record<string, unknown>): LogLine | string {
  const { t } = value;
  switch (t) {
    case 'event': {
      const event = value.event;
      if (!isRecord(event)) return 'an event line without its event';
      const { id, type, created, profile, data } = event;
      if (!isString(id) || !isString(type) || !EVENT_TYPES.has(type))
        return 'an event line without id or type';
      if (!isString(created) || !isString(profile) || !isRecord(data)) return `event ${id}: missing fields`;
      return value as LogLine;
    }
    case 'attempt':
      if (!isString(value.id) || !isString(value.at) || typeof value.ok !== 'boolean')
        return 'an attempt line without id, time or outcome';
      if (value.status !== undefined && typeof value.status !== 'number')
        return 'an attempt line: bad status';
      if (value.error !== undefined && !isString(value.error)) return 'an attempt line: bad error';
      return value as LogLine;
    case 'delivered':
    case 'dead':
    case 'resend':
      return isString(value.id) && isString(value.at) ? (value as LogLine) : `a ${t} line without id or time`;
    case 'seen':
      return Array.isArray(value.ids) && value.ids.every(isString)
        ? (value as LogLine)
        : 'a seen line without its ids';
    default:
      return 'not an event log line';
  }
}

export interface LogReaderOptions {
  /**
   * Lines numbered below this were written by an earlier version, without a checksum; from it on every line
   * must carry one (a checksum lost to a damaged byte is damage, not an old line).
   */
  checkedFrom: number;
}

/**
 * Reads the log a line at a time (strictly: nothing is skipped without a word). `onLine` gets each line
 * taken, with its number. An unreadable line followed by TORN_MARK is a torn write (a writer killed
 * mid-line; the next one marked it): harmless, its event is made again from its source. Anything else
 * that cannot be taken is damage.
 */
export function createLogReader(
  onLine: (line: LogLine, number: number, offset: number) => void,
  options: LogReaderOptions = { checkedFrom: 1 },
) {
  let summed = 0;
  let offset = 0;
  const take = (text: string, number: number): string | undefined => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return NOT_JSON;
    }
    if (!isRecord(value)) return 'not an event log line';
    const sum = SUM.exec(text);
    if (sum) {
      summed++;
      if (digest(`${text.slice(0, sum.index)}}`) !== sum[1])
        return 'its checksum does not match (a changed byte)';
      delete value.sum;
    } else if (number >= options.checkedFrom) {
      return 'no checksum (every line this version writes has one)';
    }
    const line = asLogLine(value);
    if (typeof line === 'string') return line;
    onLine(line, number, offset);
    return undefined;
  };
  const reader = createLineReader(take);
  return {
    ...reader,
    /** One whole line, without its newline, and the byte offset it starts at. */
    feed(raw: string, at = 0): void {
      offset = at;
      reader.feed(raw);
    },
    /** How many lines carried a checksum (written by this version). */
    summed: () => summed,
  };
}

export type LogReader = ReturnType<typeof createLogReader>;

export interface EventState {
  id: string;
  type: EventType;
  created: string;
  attempts: number;
  state: 'pending' | 'delivered' | 'dead';
  lastError?: string;
  /** When the next attempt may start (ms), for a pending event that failed before. */
  nextAt: number;
  /** The line of its `event` and the byte offset it starts at; the event itself when the replay keeps it. */
  line: number;
  offset: number;
  event?: PixEvent;
}

/**
 * What the log adds up to, line after line: every event's delivery state, in the order made. `bodies`:
 * which events keep their body (all of them, for `pix events list`; the owed ones, for `pix listen`,
 * whose memory must not grow with the log: it reads the others' bodies back by line when a resend
 * revives them). A line about an event the log never made is damage.
 */
export function createReplay(bodies: 'all' | 'owed', report: (problem: LogDamage) => void) {
  const states = new Map<string, EventState>();
  /** Earlier versions' `seen` ids (statement entries and facts there before their first listen). */
  const seen = new Set<string>();
  const keep = (state: EventState) => bodies === 'all' || state.state !== 'delivered';
  const apply = (line: LogLine, number: number, offset: number): void => {
    if (line.t === 'seen') {
      for (const id of line.ids) seen.add(id);
      return;
    }
    if (line.t === 'event') {
      const { event } = line;
      if (states.has(event.id)) return; // made again after a crash: the first is the event
      states.set(event.id, {
        id: event.id,
        type: event.type,
        created: event.created,
        attempts: 0,
        state: 'pending',
        nextAt: 0,
        line: number,
        offset,
        event,
      });
      return;
    }
    const state = states.get(line.id);
    if (state === undefined) {
      report({
        line: number,
        reason: `${line.t === 'attempt' ? 'an' : 'a'} ${line.t} line for event ${line.id}, whose event line is missing`,
      });
      return;
    }
    if (line.t === 'attempt') {
      state.attempts++;
      if (!line.ok && line.error !== undefined) state.lastError = line.error;
    } else if (line.t === 'resend') {
      state.state = 'pending';
      state.attempts = 0;
    } else {
      state.state = line.t;
    }
    if (!keep(state)) delete state.event;
  };
  return { apply, states, seen };
}

/** How many of the newest statement entry ids the checkpoint keeps: two pages of the listener's polls. */
export const CHECKPOINT_ENTRIES = 200;

export interface Checkpoint {
  version: 1;
  /**
   * The log at the last checkpoint: its lines and bytes (the log only grows: it never has fewer), the
   * digest of the line that ended there, and how many of its first lines an earlier version wrote
   * (without a checksum).
   */
  log: { lines: number; bytes: number; last: string; legacyLines: number };
  /** The newest statement entries seen, newest first: the next poll reads back to one of them, no further. */
  statement: { recent: string[] };
  /** How far the journal was read (its identity: another file there is read as a new one). */
  journal: { identity: string; offset: number } | null;
  /** The account's time of the last poll: charges that expire after it are news. */
  at: string;
  /**
   * Written before a first run, or the adoption of an earlier version's log, makes its first events:
   * a run stopped midway does it again (what it made is in the log, and is not made twice). `since`: a
   * first run's start, or its --backfill window's (what the statement and the journal had before is old).
   */
  catchUp?: { legacy: true } | { legacy: false; since: string };
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** The checkpoint's text → the checkpoint, or why it is not one. */
export function parseCheckpoint(text: string): Checkpoint | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (!isRecord(value) || value.version !== 1) return 'not a checkpoint of this version';
  const { log, statement, journal, at } = value;
  if (!isRecord(log) || !isCount(log.lines) || !isCount(log.bytes) || !isCount(log.legacyLines))
    return 'no log counts';
  if (!isString(log.last)) return 'no log digest';
  if (!isRecord(statement) || !Array.isArray(statement.recent) || !statement.recent.every(isString))
    return 'no statement position';
  if (journal !== null && (!isRecord(journal) || !isString(journal.identity) || !isCount(journal.offset)))
    return 'no journal position';
  if (!isString(at) || Number.isNaN(Date.parse(at))) return 'no time';
  const { catchUp } = value;
  if (
    catchUp !== undefined &&
    !(
      isRecord(catchUp) &&
      (catchUp.legacy === true || (isString(catchUp.since) && !Number.isNaN(Date.parse(catchUp.since))))
    )
  )
    return 'a first run without its start';
  return value as unknown as Checkpoint;
}

/** The checkpoint of a log that has none yet: `size` (an earlier version's lines, if any) and no position. */
export function emptyLogCheckpoint(
  size: { lines: number; bytes: number; last: string },
  now: Date,
): Checkpoint {
  return {
    version: 1,
    log: { ...size, legacyLines: size.lines },
    statement: { recent: [] },
    journal: null,
    at: now.toISOString(),
  };
}
