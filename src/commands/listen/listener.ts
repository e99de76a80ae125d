/**
 * The state of a running `pix listen`, and the steps that move it: restored from the account's event store
 * (src/events/stores.ts: the event log and checkpoint of the config directory, or the shared database), caught up with what happened while it was stopped, then a poll
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
import { CHECKPOINT_ENTRIES } from '../../domain/event-log.js';
import { type EventContext, entryEvent, legacyEventIds, type PixEvent } from '../../domain/events.js';
import type { Cursor, Start } from '../../events/cursor.js';
import type { EventFiles } from '../../events/log.js';
import type { EventStore, LegacyLog } from '../../events/stores.js';
import { nowOnBothClocks } from '../shared/clocks.js';
import type { Owed } from '../shared/deliver.js';
import { newEntries, newestFirst, oldestFirst, RecentIds } from '../shared/newentries.js';
import { backfillWindow, type Fact, type JournalSource, journalSource, oldestFacts } from './sources.js';

export type { Start };

export interface Listener {
  files: EventFiles;
  /** Where the events, their deliveries and the cursor are kept (src/src/events/stores.ts). */
  store: EventStore;
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
  /**
   * When the statement was last read (ms, the earlier clock: shared/clocks.ts): the next read is the window
   * from there on (shared/newentries.ts newEntries).
   */
  readAt: number;
  journal: JournalSource;
  /** How far the journal was read at the last cursor recorded. */
  position: Cursor['journal'];
}

/**
 * The listener of the account's store: what the last run left (exit 8 when the file log is damaged), what
 * it owes, how this run starts. The journal source reads nothing yet (catchUp does).
 */
export async function restoreListener(
  files: EventFiles,
  store: EventStore,
  deps: Deps,
): Promise<{ listener: Listener; start: Start }> {
  const restored = await store.restore();
  const { start } = restored;
  const client = await deps.api();
  const context = { account: files.account.id, profile: files.profile };
  // A first run's expiries are news from its `since` on (catchUp says), an adopted log's all of them.
  const expiredAfter = start.kind === 'resume' ? Date.parse(start.cursor.at) : Number.NEGATIVE_INFINITY;
  const owed = new Map<string, Owed>();
  for (const { event, attempts } of restored.owed) owed.set(event.id, { event, attempts, nextAt: 0 });
  const listener: Listener = {
    files,
    store,
    client,
    context,
    owed,
    made: new RecentIds(),
    seen: new RecentIds(),
    recent: restored.recent,
    // A run picked up reads from its checkpoint's time (the margin of newEntries covers the clocks).
    readAt: start.kind === 'resume' ? Date.parse(start.cursor.at) : nowOnBothClocks(client).early,
    journal: await journalSource(deps, files.account, context, expiredAfter),
    position: restored.journal,
  };
  for (const id of restored.made) listener.made.add(id);
  for (const id of [...listener.recent].reverse()) listener.seen.add(id);
  if (restored.legacy !== undefined) listener.legacy = restored.legacy;
  return { listener, start };
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

/**
 * Records the events not made before, in one write, and owes those the store made (a database's store
 * makes an id once across every listener: one made there already is not owed again here).
 */
export async function record(listener: Listener, events: readonly PixEvent[]): Promise<void> {
  const fresh = new Map<string, PixEvent>();
  for (const event of events) {
    if (fresh.has(event.id) || listener.owed.has(event.id) || listener.made.has(event.id)) continue;
    if (listener.legacy && legacyMade(listener.legacy, event)) continue;
    fresh.set(event.id, event);
  }
  const made = await listener.store.record([...fresh.values()]);
  for (const id of fresh.keys()) listener.made.add(id);
  for (const event of made) listener.owed.set(event.id, { event, attempts: 0, nextAt: 0 });
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
 * Records where the listener got to (the newest entries seen, how far the journal was read, the account's
 * time), when any of it moved (the store judges: src/events/stores.ts). `catchUp`: a first run's marker.
 */
export async function checkpoint(listener: Listener, now: Date, catchUp?: Cursor['catchUp']): Promise<void> {
  const journal = listener.journal.position() ?? listener.position;
  await listener.store.checkpoint({
    statement: { recent: listener.recent },
    journal,
    at: now.toISOString(),
    ...(catchUp === undefined ? {} : { catchUp }),
  });
  listener.position = journal;
}

/**
 * What happened while no listener ran, made into events: on a first run, nothing before now but the
 * --backfill window (the newest page is where the next poll starts: no walk through history); after a
 * stop, everything since the checkpoint; for an earlier version's log, everything it had not made.
 */
export async function catchUp(listener: Listener, start: Start, backfillMs: number | undefined, deps: Deps) {
  if (start.kind === 'resume') await resumeRun(listener, start.cursor);
  else if (start.kind === 'first') await firstRun(listener, start.since, backfillMs);
  else await adoptLog(listener);
  delete listener.legacy;
  await checkpoint(listener, listener.client.clock.now());
  const damaged = listener.journal.damage();
  if (damaged > 0) {
    deps.io.stderr.write(
      `warning: the journal has ${damaged} damaged line${damaged === 1 ? '' : 's'}: their payments and charges make no events (see \`pix journal verify\`)\n`,
    );
  }
}

/** The statement's entries not seen before, from where the last read got to (newest first). */
async function readNew(listener: Listener, seen = listener.seen): Promise<StatementEntry[]> {
  const { fresh, readAt } = await newEntries(listener.client, seen, listener.readAt);
  listener.readAt = readAt;
  return fresh;
}

/** After a stop: the statement since the checkpoint, the journal from where it was read. */
async function resumeRun(listener: Listener, saved: Cursor): Promise<void> {
  const { client } = listener;
  const fresh = await readNew(listener);
  see(listener, fresh);
  const facts = await listener.journal.poll(client.clock.now(), {
    ...(saved.journal === null ? {} : { resume: saved.journal }),
  });
  await record(listener, [...entryEvents(listener, fresh), ...factEvents(facts)]);
}

/**
 * A first run (`since`: one picked up again after a crash, from its marker): the statement of the last
 * moments is seen, not delivered; only the --backfill window, and the journal's facts from its start, are
 * events.
 */
async function firstRun(listener: Listener, since: number | undefined, backfillMs: number | undefined) {
  const { client } = listener;
  const page = await readNew(listener);
  const now = client.clock.now();
  const from = since ?? now.getTime() - (backfillMs ?? 0);
  await checkpoint(listener, now, { legacy: false, since: new Date(from).toISOString() });
  const window =
    since !== undefined || backfillMs !== undefined ? await backfillWindow(client, new Date(from), now) : [];
  see(listener, page);
  const facts = await listener.journal.poll(now, { since: from });
  await record(listener, [...entryEvents(listener, window), ...factEvents(facts)]);
}

/** How far back an earlier version's log is looked for in the statement when it is adopted. */
const ADOPT_WINDOW_MS = 30 * 86_400_000;

/**
 * An earlier version's log: everything it had not made (it is recognised by its source: legacyMade). The
 * statement's entries it had not seen, from the newest one it had seen on (by time: the order the server
 * lists entries in is not shown), within ADOPT_WINDOW_MS.
 */
async function adoptLog(listener: Listener): Promise<void> {
  const { client } = listener;
  await checkpoint(listener, client.clock.now(), { legacy: true });
  const legacy = listener.legacy!;
  listener.readAt -= ADOPT_WINDOW_MS;
  const window = await readNew(listener, new RecentIds());
  let seenLast = Number.NEGATIVE_INFINITY;
  for (const entry of window) {
    if (legacy.seen.has(entry.id)) seenLast = Math.max(seenLast, Date.parse(entry.confirmedAt));
  }
  const fresh = window.filter(
    (entry) => !legacy.seen.has(entry.id) && Date.parse(entry.confirmedAt) >= seenLast,
  );
  const facts = await listener.journal.poll(client.clock.now());
  await record(listener, [...entryEvents(listener, fresh), ...factEvents(facts)]);
  see(listener, newestFirst(window));
}

/** One poll: the statement's new entries and the journal's new facts, logged, owed and checkpointed. */
export async function poll(listener: Listener): Promise<void> {
  const fresh = await readNew(listener);
  see(listener, fresh);
  const now = listener.client.clock.now();
  const facts = await listener.journal.poll(now);
  await record(listener, [...entryEvents(listener, fresh), ...factEvents(facts)]);
  await checkpoint(listener, now);
}
