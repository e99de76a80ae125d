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
  reasonOf,
  reserved,
  type Sql,
  type Tx,
} from '../journal/postgres/connect.js';
import { checkSchema, schemaVersion } from '../journal/postgres/store.js';
import { safeText } from '../output/sanitize.js';
import { type Cursor, ListenerLockLost, moved, startOfCursor } from './cursor.js';
import { type EventFiles, newSecret, signingSecret } from './log.js';
import type { EventStore, History, Restored } from './stores.js';

/** The advisory lock of an account's active listener (as the lock file, keyed by the account alone). */
export const listenLockKey = (account: string) => `pix listen ${account}`;

/** Connections a listener opens beside the one that holds the lock (the secret, the event list). */
const POOL = 1;

export function postgresEventStore(url: string, files: EventFiles, deps: Deps): EventStore {
  const pool = openPool(url, deps.env, POOL);
  const { sql, where } = pool;
  // The lock's connection has a pool of its own, whose one connection closing means the session (and its
  // lock) is gone: nothing may be sent on it after that (the driver would write to a socket it let go of
  // and end the process: porsager/postgres#1208, connect.ts reserved).
  let gone = false;
  const lockPool = openPool(url, deps.env, 1, () => {
    gone = true;
  });
  const account = files.account.id;
  const host = hostname();
  const { pid } = deps.processes;
  /** The connection holding the lock while this listener is the active one, its server process, its note. */
  let held: { tx: Tx; backend: number; note: (error: unknown) => void } | undefined;
  /** The lock's connection, unless it is gone (then reserved() is told, and the caller stops). */
  const lockConnection = (tx: Tx, note: (error: unknown) => void, raise = true): Tx => {
    if (!gone) return tx;
    const error = Object.assign(new Error('the connection holding the lock closed'), {
      code: 'CONNECTION_CLOSED',
    });
    note(error);
    if (raise) throw error;
    return tx;
  };
  let saved: Cursor | undefined;
  let closed = false;

  const failed = (error: unknown): PixError =>
    new PixError(
      'unavailable',
      `the shared ledger ${where} could not be used (${reasonOf(error, pool.url)}); this listener stops, and what it owes stays owed there`,
      { hint: 'run pix listen again once the database answers (a standby, if one runs, takes over)' },
    );
  /** Errors of the database or of the connection to it are exit 6; anything else is what it is. */
  const onDb = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      const name = (error as Error | undefined)?.name;
      throw isConnectionError(error) || name === 'PostgresError' ? failed(error) : error;
    }
  };
  /** The lock's connection, still the session that took the lock (a reconnected one holds nothing). */
  const active = async (): Promise<Tx> => {
    if (held === undefined) throw new PixError('internal', 'the listener wrote before it was active');
    // A connection that cannot say which session it is cannot say it holds the lock either.
    const backend = await Promise.resolve()
      .then(() => lockConnection(held!.tx, held!.note).unsafe('SELECT pg_backend_pid() AS pid'))
      .then(
        ([row]) => Number(row?.pid),
        (error: unknown) => reasonOf(error, pool.url),
      );
    if (backend !== held.backend) {
      const why = typeof backend === 'string' ? ` (${backend})` : '';
      throw new ListenerLockLost(
        `the shared ledger ${where}: this listener lost its connection${why}, and with it the account's listener lock; it stops`,
        'another pix listen of this account takes over (or run this one again)',
      );
    }
    return held.tx;
  };

  /** The schema checked once (exit 6 when it is not the one this pix knows). */
  let checked: Promise<void> | undefined;
  const ready = () => {
    checked ??= schemaVersion(sql).then((version) => checkSchema(version, where));
    return checked;
  };

  const standbyLine = async (tx: Tx, intervalMs: number): Promise<string> => {
    const [row] = await tx.unsafe(
      `SELECT host, pid, profile, destination, since::text AS since FROM pix_listen WHERE account = $1`,
      [account],
    );
    const every = `looking every ${intervalMs / 1000} s`;
    if (row?.host == null) {
      return `standby: another pix listen is this account's active listener; taking over when it stops (${every})\n`;
    }
    return `standby: pix listen (pid ${Number(row.pid)} on ${safeText(String(row.host), 80)}, profile ${safeText(String(row.profile), 40)}, since ${safeText(String(row.since), 40)}) delivers this account's events to ${safeText(String(row.destination), 120)}; taking over when it stops (${every})\n`;
  };

  return {
    backend: 'postgres',
    where,
    hold: (hold, work) =>
      onDb(() =>
        reserved(lockPool.sql, async (tx, note) => {
          checkSchema(await schemaVersion(tx), where);
          const key = listenLockKey(account);
          let waited = false;
          for (;;) {
            const [got] = await lockConnection(tx, note).unsafe(
              'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held, pg_backend_pid() AS pid',
              [key],
            );
            if (got?.held === true) {
              held = { tx, backend: Number(got.pid), note };
              break;
            }
            if (!waited) deps.io.stderr.write(await standbyLine(lockConnection(tx, note), hold.intervalMs));
            waited = true;
            if (!(await deps.pause(hold.intervalMs))) return undefined;
          }
          try {
            await tx.unsafe(
              `INSERT INTO pix_listen (account, host, pid, profile, destination, since, backend_pid)
               VALUES ($1, $2, $3, $4, $5, now(), $6)
               ON CONFLICT (account) DO UPDATE SET host = excluded.host, pid = excluded.pid,
                 profile = excluded.profile, destination = excluded.destination, since = excluded.since,
                 backend_pid = excluded.backend_pid`,
              [account, host, pid, files.profile, hold.destination, held.backend],
            );
            if (waited) deps.io.stderr.write(`active: this listener took over the account's events\n`);
            return await work();
          } finally {
            held = undefined;
            // A session that is gone holds nothing to give back (and its connection takes nothing more).
            if (gone) {
              lockConnection(tx, note, false);
            } else {
              await tx
                .unsafe(
                  `UPDATE pix_listen SET backend_pid = NULL WHERE account = $1 AND backend_pid = pg_backend_pid()`,
                  [account],
                )
                .catch(note);
              await tx.unsafe('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch(note);
            }
          }
        }),
      ),
    restore: () =>
      onDb(async (): Promise<Restored> => {
        const tx = await active();
        const [row] = await tx.unsafe('SELECT cursor::text AS cursor FROM pix_listen WHERE account = $1', [
          account,
        ]);
        const cursor = row?.cursor == null ? undefined : (JSON.parse(String(row.cursor)) as Cursor);
        saved = cursor;
        const owed = await tx.unsafe(
          `SELECT body, attempts FROM pix_events WHERE account = $1 AND state = 'pending' ORDER BY seq`,
          [account],
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
      }),
    record: (events) =>
      onDb(async () => {
        if (events.length === 0) return [];
        const tx = await active();
        const rows = await tx.unsafe(
          `INSERT INTO pix_events (id, account, type, created, body, made_by)
           SELECT e.id, $1, e.type, e.created, e.body, $6
             FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(id, type, created, body, n)
             ORDER BY e.n
           ON CONFLICT (id) DO NOTHING RETURNING id`,
          [
            account,
            events.map((event) => event.id),
            events.map((event) => event.type),
            events.map((event) => event.created),
            events.map((event) => JSON.stringify(event)),
            `${host}:${pid}`,
          ],
        );
        const made = new Set(rows.map((row) => String(row.id)));
        return events.filter((event) => made.has(event.id));
      }),
    // The active listener writes through its lock's connection; `pix events resend` through the pool.
    write: (lines) =>
      onDb(async () => {
        if (lines.length === 0) return;
        const target = held === undefined ? sql : await active();
        for (const line of lines) await writeLine(target, line, host, pid);
      }),
    checkpoint: (cursor) =>
      onDb(async () => {
        // Asked after every poll, moved or not: a listener that lost the lock stops within an interval.
        const tx = await active();
        if (saved !== undefined && !moved(saved, cursor)) return;
        await tx.unsafe('UPDATE pix_listen SET cursor = $2::text::jsonb WHERE account = $1', [
          account,
          JSON.stringify(cursor),
        ]);
        saved = cursor;
      }),
    secret: (rotate = false) =>
      onDb(async () => {
        await ready();
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
          [account, signingSecret(files.secret)],
        );
        return String(row!.secret);
      }),
    history: () =>
      onDb(async (): Promise<History> => {
        await ready();
        const rows = await sql.unsafe(
          `SELECT seq, id, body, state, attempts, last_error FROM pix_events WHERE account = $1 ORDER BY seq`,
          [account],
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
      }),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([
        sql.end({ timeout: 5 }).catch(() => {}),
        lockPool.sql.end({ timeout: 5 }).catch(() => {}),
      ]);
    },
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
