/**
 * `pix listen`'s state behind one small interface, as the journal's is (journal/stores.ts): the events an
 * account's listener made, what it still owes and how each delivery went, where it had got to (its
 * cursor), and the lock that keeps one listener per account. Two stores implement it:
 *
 * - the file store: the event log and checkpoint of the config directory (shared.ts, domain/event-log.ts)
 *   and a lock file (a second listener exits 8, or waits with --wait-lock);
 * - the PostgreSQL store of a profile whose ledger is a database (postgres.ts, loaded only then:
 *   architecture rule 8): the same events as rows, an event id made once by any machine, and a session
 *   advisory lock: a second listener, on any machine, is a standby that takes over when the active one's
 *   connection ends (docs/team.md).
 *
 * The wiring chooses which (src/wiring-stores.ts); the listener (commands/listen/) asks the store it is
 * handed, never which one it has.
 */
import type { Deps } from '../context.js';
import { type Checkpoint, type EventState, emptyLogCheckpoint, type LogLine } from '../domain/event-log.js';
import type { PixEvent } from '../domain/events.js';
import { PixError } from '../errors.js';
import { safeText } from '../output/sanitize.js';
import { type Cursor, moved, type Start, startOfCursor } from './cursor.js';
import {
  appendLog,
  checkSound,
  type EventFiles,
  type EventLog,
  eventAt,
  measureLog,
  readEventLog,
  signingSecret,
  takeListenerLock,
  writeCheckpoint,
} from './log.js';

/** What an earlier version's log says was made: by source (type and record id), by id, or as seen. */
export interface LegacyLog {
  sources: Set<string>;
  ids: Set<string>;
  seen: Set<string>;
  baseUrls: string[];
}

/** What a listener resumes from. */
export interface Restored {
  start: Start;
  /** The events owed, in the order made, with their attempts so far. */
  owed: Array<{ event: PixEvent; attempts: number }>;
  /** Ids made that a fact read again must not make again (the store may also refuse them: record). */
  made: string[];
  /** The newest statement entries seen, newest first. */
  recent: string[];
  /** How far the journal was read at the last cursor. */
  journal: Cursor['journal'];
  /** An earlier version's log being adopted (the file store's only). */
  legacy?: LegacyLog;
}

/** The account's listener, held while `work` runs (the lock is released after it). */
export interface Hold {
  /** Where this listener delivers, as people are told (deliver.ts destinationOf). */
  destination: string;
  /** With another listener active: exit 8 (false) or wait for it (true). A database's store always waits. */
  wait: boolean;
  /** How often a standby looks at a database's lock again (`--interval`; a lock file is looked at every second). */
  intervalMs: number;
}

export interface EventStore {
  readonly backend: 'file' | 'postgres';
  /** Where the events are, for people: the log's path, or `postgres://HOST/DATABASE`. */
  readonly where: string;
  /**
   * Runs `work` as the account's one active listener; undefined when stopped (Ctrl-C) before it became
   * active. Only the active listener writes (record, write, checkpoint).
   */
  hold<T>(hold: Hold, work: () => Promise<T>): Promise<T | undefined>;
  /** What the last run left (exit 8 when the file log is damaged: never a fresh start). */
  restore(): Promise<Restored>;
  /** Makes the events not made before, in order; returns those this call made (each id is made once). */
  record(events: readonly PixEvent[]): Promise<PixEvent[]>;
  /** A delivery's lines (attempt, delivered, dead). */
  write(lines: readonly LogLine[]): Promise<void>;
  /** Records the cursor when it moved (or the log grew since the last one). */
  checkpoint(cursor: Cursor): Promise<void>;
  /**
   * The account's signing secret (`whsec_…`), made on first use; a new one with `rotate`. A database's is
   * the one every machine signs with (a receiver checks one secret, whichever listener is active).
   */
  secret(rotate?: boolean): Promise<string>;
  /**
   * Every event made, oldest first, with its delivery (`pix events list`, `resend`); a damaged file log is
   * said on stderr and what can be read of it is given. `problem`: the log's damage, for `pix events verify`.
   */
  history(): Promise<History>;
  close(): Promise<void>;
}

/** The events a store holds, with their delivery, and what is wrong with it (a file log's damage). */
export interface History {
  events: Array<EventState & { event: PixEvent }>;
  /** The file log read as `pix listen` reads it; undefined for a database (rows are written whole). */
  log?: EventLog;
}

/** How often a listener waiting with --wait-lock looks at a lock file again. */
const LOCK_RETRY_MS = 1_000;

/** The account's events in the config directory (shared.ts): the file store. */
export function fileEventStore(files: EventFiles, deps: Deps): EventStore {
  let saved: Checkpoint | undefined;
  return {
    backend: 'file',
    where: files.log,
    async hold(hold, work) {
      const lock = await lockFile(files, hold, deps);
      if (lock === undefined) return undefined; // stopped while waiting for the lock
      try {
        return await work();
      } finally {
        lock.release();
      }
    },
    async restore() {
      const peek = readEventLog(files, 'owed');
      checkSound(files, peek);
      const adopting = peek.legacy || peek.checkpoint?.catchUp?.legacy === true;
      // An earlier version's log is read again with every body: what it made is recognised by its source.
      const log = adopting ? readEventLog(files, 'all') : peek;
      const start = startOf(log);
      const { checkpoint } = log;
      saved = checkpoint ?? emptyLogCheckpoint(log.size, deps.clock.now());
      // A fact read again after the checkpoint (a run stopped between its log and its checkpoint) is in
      // the log after it; a first run picked up again may have made any of the log's.
      const after = start.kind === 'resume' ? (checkpoint?.log.lines ?? 0) : 0;
      const made: string[] = [];
      const owed: Restored['owed'] = [];
      for (const state of log.states.values()) {
        if (state.line > after || state.state !== 'delivered') made.push(state.id);
        if (state.state !== 'pending') continue;
        // The bodies of events a resend made owed again are read back by line.
        const event = state.event ?? eventAt(files, state.offset, state.id);
        if (event !== undefined) owed.push({ event, attempts: state.attempts });
      }
      return {
        start,
        owed,
        made,
        recent: checkpoint?.catchUp === undefined ? (checkpoint?.statement.recent ?? []) : [],
        journal: checkpoint?.journal ?? null,
        ...(adopting ? { legacy: legacyOf(log, files.baseUrls) } : {}),
      };
    },
    async record(events) {
      appendLog(
        files,
        events.map((event) => ({ t: 'event', event })),
      );
      return [...events];
    },
    async write(lines) {
      appendLog(files, lines);
    },
    async checkpoint(cursor) {
      const before = saved ?? emptyLogCheckpoint({ lines: 0, bytes: 0, last: '' }, new Date(cursor.at));
      const size = measureLog(files, before.log);
      const next: Checkpoint = {
        version: 1,
        log: { ...size, legacyLines: before.log.legacyLines },
        ...cursor,
      };
      if (!moved(before, next) && size.bytes === before.log.bytes) return;
      writeCheckpoint(files, next);
      saved = next;
    },
    secret: async (rotate) => signingSecret(files.secret, rotate),
    async history() {
      const log = readEventLog(files, 'all');
      const events = [...log.states.values()].filter(
        (state): state is EventState & { event: PixEvent } => !!state.event,
      );
      return { events, log };
    },
    close: async () => {},
  };
}

function startOf(log: EventLog): Start {
  const { checkpoint } = log;
  if (checkpoint === undefined) return log.legacy ? { kind: 'adopt' } : { kind: 'first' };
  return startOfCursor(checkpoint);
}

function legacyOf(log: EventLog, baseUrls: string[]): LegacyLog {
  const legacy: LegacyLog = { sources: new Set(), ids: new Set(), seen: log.seen, baseUrls };
  for (const state of log.states.values()) {
    legacy.ids.add(state.id);
    const source = state.event?.data.id;
    if (typeof source === 'string') {
      legacy.sources.add(`${state.type}\n${source}`);
      if (state.type.startsWith('entry.')) legacy.seen.add(source);
    }
  }
  return legacy;
}

/**
 * The account's listener lock file (shared.ts), or exit 8 naming the listener that holds it; with
 * --wait-lock, the lock once that listener stops (undefined: stopped while waiting).
 */
async function lockFile(files: EventFiles, hold: Hold, deps: Deps): Promise<{ release(): void } | undefined> {
  let said = false;
  for (;;) {
    const lock = takeListenerLock(files, hold.destination, deps);
    if (lock.held) return lock;
    const { pid, at, profile, destination } = lock.holder;
    const who = `pix listen (pid ${pid}, profile ${safeText(String(profile), 40)}, since ${safeText(at, 40)}) delivers this account's events to ${safeText(String(destination), 120)}`;
    if (!hold.wait) {
      throw new PixError('declined', `another ${who}: one listener per account`, {
        hint: `stop it first, or add --wait-lock to take over when it stops; if no listener runs, remove ${files.lock}`,
      });
    }
    if (!said) deps.io.stderr.write(`waiting: ${who}\n`);
    said = true;
    if (!(await deps.pause(LOCK_RETRY_MS))) return undefined;
  }
}
