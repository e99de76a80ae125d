/**
 * The state of a running `pix listen`, and the steps that move it: restored from the account's event log
 * and checkpoint (commands/events/shared.ts), caught up with what happened while it was stopped, then a poll
 * at a time. Each step reads from where the last one got to and records it in the checkpoint, so nothing
 * is read twice from the beginning, nothing is made twice, and a log that lost lines is never mistaken
 * for a first run (it is damage: exit 8).
 *
 * Memory: the events owed (their bodies), a bounded window of ids made lately and of statement entries
 * seen (RecentIds), and what the journal source holds (sources.ts). Nothing grows with the log, the
 * statement or the journal.
 */
import type { ApiClient } from '../../api/client.js';
import type { StatementEntry } from '../../api/resources/statement.js';
import type { Deps } from '../../context.js';
import { CHECKPOINT_ENTRIES, type Checkpoint, type LogLine } from '../../domain/event-log.js';
import { type EventContext, entryEvent, legacyEventIds, type PixEvent } from '../../domain/events.js';
import {
  appendLog,
  checkSound,
  type EventFiles,
  type EventLog,
  eventAt,
  measureLog,
  readEventLog,
  writeCheckpoint,
} from '../events/shared.js';
import { newEntries, oldestFirst, RecentIds } from '../statement/follow.js';
import type { Owed } from './deliver.js';
import {
  type Fact,
  type JournalSource,
  journalSource,
  newestPage,
  oldestFacts,
  statementWindow,
} from './sources.js';

/** What an earlier version's log says was made: by source (type and record id), by id, or as seen. */
interface LegacyLog {
  sources: Set<string>;
  ids: Set<string>;
  seen: Set<string>;
  baseUrls: string[];
}

export interface Listener {
  files: EventFiles;
  client: ApiClient;
  context: EventContext;
  /** The events owed, in the order made. */
  owed: Map<string, Owed>;
  /** Ids made lately, or found in the log after its checkpoint: a fact read again is not made again. */
  made: RecentIds;
  legacy?: LegacyLog;
  /** Statement entries seen lately, and the newest of them, newest first (the checkpoint's). */
  seen: RecentIds;
  recent: string[];
  journal: JournalSource;
  /** The log as the last checkpoint recorded it, and the checkpoint. */
  saved: Checkpoint;
}

/** How a run starts: its first, an earlier version's log adopted, or where the last run stopped. */
export type Start =
  | { kind: 'first'; since?: number }
  | { kind: 'adopt' }
  | { kind: 'resume'; checkpoint: Checkpoint };

/**
 * The listener of the account's files: the log read (exit 8 when it is damaged), what it owes, how this
 * run starts. The journal source reads nothing yet (catchUp does).
 */
export async function restoreListener(
  files: EventFiles,
  deps: Deps,
): Promise<{ listener: Listener; start: Start }> {
  const peek = readEventLog(files, 'owed');
  checkSound(files, peek);
  const adopting = peek.legacy || peek.checkpoint?.catchUp?.legacy === true;
  // An earlier version's log is read again with every body: what it made is recognised by its source.
  const log = adopting ? readEventLog(files, 'all') : peek;
  const start = startOf(log);
  const client = await deps.api();
  const context = { account: files.account.id, profile: files.profile };
  const checkpoint = log.checkpoint;
  // A first run's expiries are news from its `since` on (catchUp says), an adopted log's all of them.
  const expiredAfter = start.kind === 'resume' ? Date.parse(start.checkpoint.at) : Number.NEGATIVE_INFINITY;
  const listener: Listener = {
    files,
    client,
    context,
    owed: owedOf(files, log),
    made: new RecentIds(),
    seen: new RecentIds(),
    recent: checkpoint?.catchUp === undefined ? (checkpoint?.statement.recent ?? []) : [],
    journal: await journalSource(deps, files.account, context, expiredAfter),
    saved: checkpoint ?? emptyCheckpoint(log, deps.clock.now()),
  };
  // A fact read again after the checkpoint (a run stopped between its log and its checkpoint) is in the
  // log after it; a first run picked up again may have made any of the log's.
  const after = start.kind === 'resume' ? start.checkpoint.log.lines : 0;
  for (const state of log.states.values()) {
    if (state.line > after || state.state !== 'delivered') listener.made.add(state.id);
  }
  for (const id of [...listener.recent].reverse()) listener.seen.add(id);
  if (adopting) listener.legacy = legacyOf(log, files.baseUrls);
  return { listener, start };
}

function startOf(log: EventLog): Start {
  const { checkpoint } = log;
  if (checkpoint === undefined) return log.legacy ? { kind: 'adopt' } : { kind: 'first' };
  const { catchUp } = checkpoint;
  if (catchUp === undefined) return { kind: 'resume', checkpoint };
  return catchUp.legacy ? { kind: 'adopt' } : { kind: 'first', since: Date.parse(catchUp.since) };
}

/** The owed events, with their bodies (read back by line for the ones a resend made owed again). */
function owedOf(files: EventFiles, log: EventLog): Map<string, Owed> {
  const owed = new Map<string, Owed>();
  for (const state of log.states.values()) {
    if (state.state !== 'pending') continue;
    const event = state.event ?? eventAt(files, state.offset, state.id);
    if (event !== undefined) owed.set(state.id, { event, attempts: state.attempts, nextAt: 0 });
  }
  return owed;
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

function emptyCheckpoint(log: EventLog, now: Date): Checkpoint {
  return {
    version: 1,
    log: { ...log.size, legacyLines: log.size.lines },
    statement: { recent: [] },
    journal: null,
    at: now.toISOString(),
  };
}

/** Whether an earlier version's log made this event already (under the base URL's id, or as seen). */
function legacyMade(legacy: LegacyLog, event: PixEvent): boolean {
  const source = String(event.data.id);
  if (legacy.sources.has(`${event.type}\n${source}`)) return true;
  const kind = event.type.startsWith('entry.') ? 'entry' : event.type;
  return legacyEventIds(legacy.baseUrls, kind, source).some(
    (id) => legacy.ids.has(id) || legacy.seen.has(id),
  );
}

/** Logs the events not made before, in one write, and owes them. */
export function record(listener: Listener, events: readonly PixEvent[]): void {
  const lines: LogLine[] = [];
  for (const event of events) {
    if (listener.owed.has(event.id) || listener.made.has(event.id)) continue;
    if (listener.legacy && legacyMade(listener.legacy, event)) continue;
    lines.push({ t: 'event', event });
    listener.made.add(event.id);
    listener.owed.set(event.id, { event, attempts: 0, nextAt: 0 });
  }
  appendLog(listener.files, lines);
}

const entryEvents = (listener: Listener, entries: readonly StatementEntry[]) =>
  oldestFirst(entries).map((entry) =>
    entryEvent(entry as StatementEntry & Record<string, unknown>, listener.context),
  );

const factEvents = (facts: readonly Fact[]) => oldestFacts(facts).map((fact) => fact.event);

/** Entries seen: remembered, the newest first in `recent` (at most CHECKPOINT_ENTRIES). */
function see(listener: Listener, newestFirst: readonly StatementEntry[]): void {
  for (const entry of [...newestFirst].reverse()) listener.seen.add(entry.id);
  const ids = newestFirst.map((entry) => entry.id);
  listener.recent = [...new Set([...ids, ...listener.recent])].slice(0, CHECKPOINT_ENTRIES);
}

/**
 * Records where the listener got to (the log's length as it is now, the newest entries seen, how far the
 * journal was read, the account's time), when any of it moved. `catchUp`: a first run's marker.
 */
export function checkpoint(listener: Listener, now: Date, catchUp?: Checkpoint['catchUp']): void {
  const { saved } = listener;
  const size = measureLog(listener.files, saved.log);
  const journal = listener.journal.position() ?? saved.journal;
  const next: Checkpoint = {
    version: 1,
    log: { ...size, legacyLines: saved.log.legacyLines },
    statement: { recent: listener.recent },
    journal,
    at: now.toISOString(),
    ...(catchUp === undefined ? {} : { catchUp }),
  };
  const moved =
    catchUp !== undefined ||
    saved.catchUp !== undefined ||
    size.bytes !== saved.log.bytes ||
    journal?.offset !== saved.journal?.offset ||
    journal?.identity !== saved.journal?.identity ||
    next.statement.recent.join() !== saved.statement.recent.join();
  if (!moved) return;
  writeCheckpoint(listener.files, next);
  listener.saved = next;
}

/**
 * What happened while no listener ran, made into events: on a first run, nothing before now but the
 * --backfill window (the newest page is where the next poll starts: no walk through history); after a
 * stop, everything since the checkpoint; for an earlier version's log, everything it had not made.
 */
export async function catchUp(listener: Listener, start: Start, backfillMs: number | undefined, deps: Deps) {
  if (start.kind === 'resume') await resumeRun(listener, start.checkpoint);
  else if (start.kind === 'first') await firstRun(listener, start.since, backfillMs);
  else await adoptLog(listener);
  delete listener.legacy;
  checkpoint(listener, listener.client.clock.now());
  const damaged = listener.journal.damage();
  if (damaged > 0) {
    deps.io.stderr.write(
      `warning: the journal has ${damaged} damaged line${damaged === 1 ? '' : 's'}: their payments and charges make no events (see \`pix journal verify\`)\n`,
    );
  }
}

/** After a stop: the statement back to the entries the checkpoint saw, the journal from where it was read. */
async function resumeRun(listener: Listener, saved: Checkpoint): Promise<void> {
  const { client } = listener;
  const fresh = await newEntries(client, listener.seen);
  see(listener, fresh);
  const facts = await listener.journal.poll(client.clock.now(), {
    ...(saved.journal === null ? {} : { resume: saved.journal }),
  });
  record(listener, [...entryEvents(listener, fresh), ...factEvents(facts)]);
}

/**
 * A first run (`since`: one picked up again after a crash, from its marker): the newest page is seen, not
 * delivered; only the --backfill window, and the journal's facts from its start, are events.
 */
async function firstRun(listener: Listener, since: number | undefined, backfillMs: number | undefined) {
  const { client } = listener;
  const page = await newestPage(client);
  const now = client.clock.now();
  const from = since ?? now.getTime() - (backfillMs ?? 0);
  checkpoint(listener, now, { legacy: false, since: new Date(from).toISOString() });
  const window =
    since !== undefined || backfillMs !== undefined ? await statementWindow(client, new Date(from), now) : [];
  see(listener, page);
  const facts = await listener.journal.poll(now, { since: from });
  record(listener, [...entryEvents(listener, window), ...factEvents(facts)]);
}

/** An earlier version's log: everything it had not made (it is recognised by its source: legacyMade). */
async function adoptLog(listener: Listener): Promise<void> {
  const { client } = listener;
  checkpoint(listener, client.clock.now(), { legacy: true });
  const fresh = await newEntries(client, listener.legacy!.seen);
  const facts = await listener.journal.poll(client.clock.now());
  record(listener, [...entryEvents(listener, fresh), ...factEvents(facts)]);
  see(listener, await newestPage(client));
}

/** One poll: the statement's new entries and the journal's new facts, logged, owed and checkpointed. */
export async function poll(listener: Listener): Promise<void> {
  const fresh = await newEntries(listener.client, listener.seen);
  see(listener, fresh);
  const now = listener.client.clock.now();
  const facts = await listener.journal.poll(now);
  record(listener, [...entryEvents(listener, fresh), ...factEvents(facts)]);
  checkpoint(listener, now);
}
