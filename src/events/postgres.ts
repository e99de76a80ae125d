/**
 * `pix listen`'s state on the shared PostgreSQL ledger (docs/team.md), behind the listener's one interface
 * (stores.ts); loaded only for a profile whose ledger is a database (architecture rule 8).
 *
 * - Events are rows keyed by their id (`pix_events`): recording one that is there already does nothing,
 *   so an event id is made once whoever makes it, and its body is the one first recorded (kept as the text
 *   delivered, byte for byte). Its delivery state and attempts are rows beside it.
 * - One active listener per account, across machines: a session advisory lock, taken on a connection
 *   reserved for the whole run (connect.ts reserved). A second listener is a standby: it says so once,
 *   looks at the lock every interval, and takes over when the active one's connection ends (PostgreSQL
 *   frees the lock of a session that is gone), resuming from the cursor it left and delivering what it
 *   owed. Every write goes through that connection, after checking it is still the session that took the
 *   lock: a listener that lost it stops (exit 6) instead of writing beside the one that took over.
 */
import { hostname } from 'node:os';
import type { Deps } from '../context.js';
import type { EventState, LogLine } from '../domain/event-log.js';
import type { PixEvent } from '../domain/events.js';
import { PixError } from '../errors.js';
import {
  isConnectionError,
  openPool,
  type Pool,
  reasonOf,
  reserved,
  type Sql,
  type Tx,
} from '../journal/postgres/connect.js';
import { checkSchema, schemaVersion } from '../journal/postgres/store.js';
import { safeText } from '../output/sanitize.js';
import { type Cursor, ListenerLockLost, moved, startOfCursor } from './cursor.js';
import { type EventFiles, newSecret, signingSecret } from './log.js';
import type { EventStore, History, Hold, Restored } from './stores.js';

/** The advisory lock of an account's active listener (as the lock file, keyed by the account alone). */
export const listenLockKey = (account: string) => `pix listen ${account}`;

/** Connections a listener opens beside the one that holds the lock (the secret, the event list). */
const POOL = 1;

/** A listener's connections and what its steps share (below, one module-level function a step; rule 14). */
interface Listener {
  readonly pool: Pool;
  readonly sql: Sql;
  readonly where: string;
  /**
   * The lock's connection has a pool of its own, whose one connection closing means the session (and its
   * lock) is gone (`gone`): nothing may be sent on it after that (the driver would write to a socket it let
   * go of and end the process: porsager/postgres#1208, connect.ts reserved).
   */
  readonly lockPool: Pool;
  gone: boolean;
  readonly account: string;
  readonly host: string;
  readonly pid: number;
  readonly files: EventFiles;
  readonly deps: Deps;
  /** The connection holding the lock while this listener is the active one, its server process, its note. */
  held: { tx: Tx; backend: number; note: (error: unknown) => void } | undefined;
  /** The cursor last saved (checkpoint writes only one that moved). */
  saved: Cursor | undefined;
  /** The schema checked once (exit 6 when it is not the one this pix knows). */
  checked: Promise<void> | undefined;
  closed: boolean;
}

/** The lock's connection, unless it is gone (then reserved() is told, and the caller stops). */
function lockConnection(listener: Listener, tx: Tx, note: (error: unknown) => void, raise = true): Tx {
  if (!listener.gone) return tx;
  const error = Object.assign(new Error('the connection holding the lock closed'), {
    code: 'CONNECTION_CLOSED',
  });
  note(error);
  if (raise) throw error;
  return tx;
}

/** Errors of the database or of the connection to it are exit 6; anything else is what it is. */
async function onDb<T>(listener: Listener, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const name = (error as Error | undefined)?.name;
    if (!isConnectionError(error) && name !== 'PostgresError') throw error;
    throw new PixError(
      'unavailable',
      `the shared ledger ${listener.where} could not be used (${reasonOf(error, listener.pool.url)}); this listener stops, and what it owes stays owed there`,
      { hint: 'run pix listen again once the database answers (a standby, if one runs, takes over)' },
    );
  }
}

/** The lock's connection, still the session that took the lock (a reconnected one holds nothing). */
async function active(listener: Listener): Promise<Tx> {
  const { held } = listener;
  if (held === undefined) throw new PixError('internal', 'the listener wrote before it was active');
  // A connection that cannot say which session it is cannot say it holds the lock either.
  const backend = await Promise.resolve()
    .then(() => lockConnection(listener, held.tx, held.note).unsafe('SELECT pg_backend_pid() AS pid'))
    .then(
      ([row]) => Number(row?.pid),
      (error: unknown) => reasonOf(error, listener.pool.url),
    );
  if (backend !== held.backend) {
    const why = typeof backend === 'string' ? ` (${backend})` : '';
    throw new ListenerLockLost(
      `the shared ledger ${listener.where}: this listener lost its connection${why}, and with it the account's listener lock; it stops`,
      'another pix listen of this account takes over (or run this one again)',
    );
  }
  return held.tx;
}

/** The schema checked once (exit 6 when it is not the one this pix knows). */
function ready(listener: Listener): Promise<void> {
  listener.checked ??= schemaVersion(listener.sql).then((version) => checkSchema(version, listener.where));
  return listener.checked;
}

async function standbyLine(listener: Listener, tx: Tx, intervalMs: number): Promise<string> {
  const [row] = await tx.unsafe(
    `SELECT host, pid, profile, destination, since::text AS since FROM pix_listen WHERE account = $1`,
    [listener.account],
  );
  const every = `looking every ${intervalMs / 1000} s`;
  if (row?.host == null) {
    return `standby: another pix listen is this account's active listener; taking over when it stops (${every})\n`;
  }
  return `standby: pix listen (pid ${Number(row.pid)} on ${safeText(String(row.host), 80)}, profile ${safeText(String(row.profile), 40)}, since ${safeText(String(row.since), 40)}) delivers this account's events to ${safeText(String(row.destination), 120)}; taking over when it stops (${every})\n`;
}

/**
 * Waits for the account's listener lock on the reserved connection, a standby meanwhile (said once):
 * whether it was held (`waited`: only after a wait), or undefined when stopped (Ctrl-C) before.
 */
async function takeLock(
  listener: Listener,
  tx: Tx,
  note: (error: unknown) => void,
  hold: Hold,
): Promise<{ waited: boolean } | undefined> {
  const key = listenLockKey(listener.account);
  let waited = false;
  for (;;) {
    const [got] = await lockConnection(listener, tx, note).unsafe(
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held, pg_backend_pid() AS pid',
      [key],
    );
    if (got?.held === true) {
      listener.held = { tx, backend: Number(got.pid), note };
      return { waited };
    }
    if (!waited) {
      listener.deps.io.stderr.write(
        await standbyLine(listener, lockConnection(listener, tx, note), hold.intervalMs),
      );
    }
    waited = true;
    if (!(await listener.deps.pause(hold.intervalMs))) return undefined;
  }
}

/**
 * Gives the lock back, unless its session is gone: a session that is gone holds nothing to give back (and
 * its connection takes nothing more).
 */
async function releaseLock(listener: Listener, tx: Tx, note: (error: unknown) => void): Promise<void> {
  listener.held = undefined;
  if (listener.gone) {
    lockConnection(listener, tx, note, false);
    return;
  }
  await tx
    .unsafe(
      `UPDATE pix_listen SET backend_pid = NULL WHERE account = $1 AND backend_pid = pg_backend_pid()`,
      [listener.account],
    )
    .catch(note);
  await tx
    .unsafe('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [listenLockKey(listener.account)])
    .catch(note);
}

/** Runs `work` as the account's one active listener, on the lock's reserved connection (the header). */
function holdLock<T>(listener: Listener, hold: Hold, work: () => Promise<T>): Promise<T | undefined> {
  const { account, host, pid, files } = listener;
  return onDb(listener, () =>
    reserved(listener.lockPool.sql, async (tx, note) => {
      checkSchema(await schemaVersion(tx), listener.where);
      const taken = await takeLock(listener, tx, note, hold);
      if (taken === undefined) return undefined;
      try {
        await tx.unsafe(
          `INSERT INTO pix_listen (account, host, pid, profile, destination, since, backend_pid)
           VALUES ($1, $2, $3, $4, $5, now(), $6)
           ON CONFLICT (account) DO UPDATE SET host = excluded.host, pid = excluded.pid,
             profile = excluded.profile, destination = excluded.destination, since = excluded.since,
             backend_pid = excluded.backend_pid`,
          [account, host, pid, files.profile, hold.destination, listener.held!.backend],
        );
        if (taken.waited)
          listener.deps.io.stderr.write(`active: this listener took over the account's events\n`);
        return await work();
      } finally {
        await releaseLock(listener, tx, note);
      }
    }),
  );
}

async function restore(listener: Listener): Promise<Restored> {
  const tx = await active(listener);
  const [row] = await tx.unsafe('SELECT cursor::text AS cursor FROM pix_listen WHERE account = $1', [
    listener.account,
  ]);
  const cursor = row?.cursor == null ? undefined : (JSON.parse(String(row.cursor)) as Cursor);
  listener.saved = cursor;
  const owed = await tx.unsafe(
    `SELECT body, attempts FROM pix_events WHERE account = $1 AND state = 'pending' ORDER BY seq`,
    [listener.account],
  );
  return {
    start: cursor === undefined ? { kind: 'first' } : startOfCursor(cursor),
    owed: owed.map((event) => ({
      event: JSON.parse(String(event.body)) as PixEvent,
      attempts: Number(event.attempts),
    })),
    // The database refuses an id made before (record): nothing to remember here.
    made: [],
    recent: cursor === undefined || cursor.catchUp !== undefined ? [] : cursor.statement.recent,
    journal: cursor?.journal ?? null,
  };
}

async function record(listener: Listener, events: readonly PixEvent[]): Promise<PixEvent[]> {
  if (events.length === 0) return [];
  const tx = await active(listener);
  const rows = await tx.unsafe(
    `INSERT INTO pix_events (id, account, type, created, body, made_by)
     SELECT e.id, $1, e.type, e.created, e.body, $6
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(id, type, created, body, n)
       ORDER BY e.n
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [
      listener.account,
      events.map((event) => event.id),
      events.map((event) => event.type),
      events.map((event) => event.created),
      events.map((event) => JSON.stringify(event)),
      `${listener.host}:${listener.pid}`,
    ],
  );
  const made = new Set(rows.map((row) => String(row.id)));
  return events.filter((event) => made.has(event.id));
}

/** Asked after every poll, moved or not: a listener that lost the lock stops within an interval. */
async function checkpoint(listener: Listener, cursor: Cursor): Promise<void> {
  const tx = await active(listener);
  if (listener.saved !== undefined && !moved(listener.saved, cursor)) return;
  await tx.unsafe('UPDATE pix_listen SET cursor = $2::text::jsonb WHERE account = $1', [
    listener.account,
    JSON.stringify(cursor),
  ]);
  listener.saved = cursor;
}

async function secret(listener: Listener, rotate: boolean): Promise<string> {
  const { sql, account } = listener;
  await ready(listener);
  if (rotate) {
    const made = newSecret();
    await sql.unsafe(
      `INSERT INTO pix_listen (account, secret) VALUES ($1, $2)
       ON CONFLICT (account) DO UPDATE SET secret = excluded.secret`,
      [account, made],
    );
    return made;
  }
  // The first machine's secret (this directory's, made if need be) becomes the account's.
  const [row] = await sql.unsafe(
    `INSERT INTO pix_listen (account, secret) VALUES ($1, $2)
     ON CONFLICT (account) DO UPDATE SET secret = coalesce(pix_listen.secret, excluded.secret)
     RETURNING secret`,
    [account, signingSecret(listener.files.secret)],
  );
  return String(row!.secret);
}

async function history(listener: Listener): Promise<History> {
  await ready(listener);
  const rows = await listener.sql.unsafe(
    `SELECT seq, id, body, state, attempts, last_error FROM pix_events WHERE account = $1 ORDER BY seq`,
    [listener.account],
  );
  return {
    events: rows.map((row) => {
      const event = JSON.parse(String(row.body)) as PixEvent;
      return {
        id: event.id,
        type: event.type,
        created: event.created,
        attempts: Number(row.attempts),
        state: String(row.state) as EventState['state'],
        ...(row.last_error == null ? {} : { lastError: String(row.last_error) }),
        nextAt: 0,
        line: Number(row.seq),
        offset: 0,
        event,
      };
    }),
  };
}

async function close(listener: Listener): Promise<void> {
  if (listener.closed) return;
  listener.closed = true;
  await Promise.all([
    listener.sql.end({ timeout: 5 }).catch(() => {}),
    listener.lockPool.sql.end({ timeout: 5 }).catch(() => {}),
  ]);
}

export function postgresEventStore(url: string, files: EventFiles, deps: Deps): EventStore {
  const pool = openPool(url, deps.env, POOL);
  const listener: Listener = {
    pool,
    sql: pool.sql,
    where: pool.where,
    lockPool: openPool(url, deps.env, 1, () => {
      listener.gone = true;
    }),
    gone: false,
    account: files.account.id,
    host: hostname(),
    pid: deps.processes.pid,
    files,
    deps,
    held: undefined,
    saved: undefined,
    checked: undefined,
    closed: false,
  };
  const db = <T>(work: () => Promise<T>) => onDb(listener, work);
  return {
    backend: 'postgres',
    where: listener.where,
    hold: (hold, work) => holdLock(listener, hold, work),
    restore: () => db(() => restore(listener)),
    record: (events) => db(() => record(listener, events)),
    // The active listener writes through its lock's connection; `pix events resend` through the pool.
    write: (lines) =>
      db(async () => {
        if (lines.length === 0) return;
        const target = listener.held === undefined ? listener.sql : await active(listener);
        for (const line of lines) await writeLine(target, line, listener.host, listener.pid);
      }),
    checkpoint: (cursor) => db(() => checkpoint(listener, cursor)),
    secret: (rotate = false) => db(() => secret(listener, rotate)),
    history: () => db(() => history(listener)),
    close: () => close(listener),
  };
}

/** One line of the file log, as the rows say it (domain/event-log.ts createReplay reads it the same way). */
async function writeLine(tx: Sql | Tx, line: LogLine, host: string, pid: number): Promise<void> {
  if (line.t === 'attempt' || line.t === 'resend') {
    const attempt = line.t === 'attempt';
    await tx.unsafe(
      `WITH tried AS (
         INSERT INTO pix_event_attempts (event_id, at, ok, status, error, kind, by_host, by_pid)
         VALUES ($1, $2, $3::boolean, $4::integer, $5::text, $6, $7, $8))
       UPDATE pix_events SET
         attempts = CASE WHEN $6 = 'resend' THEN 0 ELSE attempts + 1 END,
         state = CASE WHEN $6 = 'resend' THEN 'pending' ELSE state END,
         last_error = CASE WHEN NOT $3::boolean AND $5::text IS NOT NULL THEN $5::text ELSE last_error END
       WHERE id = $1`,
      [
        line.id,
        line.at,
        attempt ? line.ok : true,
        attempt ? (line.status ?? null) : null,
        attempt ? (line.error ?? null) : null,
        line.t,
        host,
        pid,
      ],
    );
  } else if (line.t === 'delivered' || line.t === 'dead') {
    await tx.unsafe('UPDATE pix_events SET state = $2 WHERE id = $1', [line.id, line.t]);
  }
}

/** One account's event log of a config directory, as `pix ledger migrate --from file` imports it. */
export interface ImportedLog {
  account: string;
  events: ReadonlyArray<EventState & { event: PixEvent }>;
  /** Its checkpoint's cursor, when its listener had finished a first run. */
  cursor?: Cursor;
  secret?: string;
}

/**
 * Imports a file event log into the shared ledger: each event by its id (one there already is left as it
 * is: the same id is the same event), with its delivery state and attempt count; the cursor and the signing
 * secret only where the account has none yet. Returns how many events were added.
 */
export async function importEventLog(tx: Sql | Tx, log: ImportedLog, by: string): Promise<number> {
  let added = 0;
  for (let start = 0; start < log.events.length; start += 1_000) {
    const chunk = log.events.slice(start, start + 1_000);
    const rows = await tx.unsafe(
      `INSERT INTO pix_events (id, account, type, created, body, state, attempts, last_error, made_by)
       SELECT e.id, $1, e.type, e.created, e.body, e.state, e.attempts, e.last_error, $9
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[])
           WITH ORDINALITY AS e(id, type, created, body, state, attempts, last_error, n)
         ORDER BY e.n
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        log.account,
        chunk.map((state) => state.id),
        chunk.map((state) => state.type),
        chunk.map((state) => state.created),
        chunk.map((state) => JSON.stringify(state.event)),
        chunk.map((state) => state.state),
        chunk.map((state) => state.attempts),
        chunk.map((state) => state.lastError ?? null),
        by,
      ] as never[],
    );
    added += rows.length;
  }
  await tx.unsafe(
    `INSERT INTO pix_listen (account, cursor, secret) VALUES ($1, $2::text::jsonb, $3)
     ON CONFLICT (account) DO UPDATE SET cursor = coalesce(pix_listen.cursor, excluded.cursor),
       secret = coalesce(pix_listen.secret, excluded.secret)`,
    [log.account, log.cursor === undefined ? null : JSON.stringify(log.cursor), log.secret ?? null],
  );
  return added;
}

/** How many of these event ids the shared ledger holds (the import's counts, checked). */
export async function eventsPresent(tx: Sql | Tx, ids: readonly string[]): Promise<number> {
  let found = 0;
  for (let start = 0; start < ids.length; start += 10_000) {
    const [row] = await tx.unsafe('SELECT count(*)::int AS n FROM pix_events WHERE id = ANY($1::text[])', [
      ids.slice(start, start + 10_000) as string[],
    ]);
    found += Number(row?.n ?? 0);
  }
  return found;
}
