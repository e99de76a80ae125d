/**
 * The one place the PostgreSQL driver is loaded (`postgres`, docs/dependencies.md): only a profile whose
 * ledger is a database reaches this module (architecture rule 8). The URL is read as libpq reads it
 * (url.ts) and handed to the driver as explicit options, so the driver never parses the secret itself and
 * nothing it prints can carry it; notices are dropped (they would go to the console, rule 2).
 */
import postgres from 'postgres';
import { describeLedger, type LedgerUrl, parseLedgerUrl, tlsOptions } from '../../config/ledger.js';
import { PixError } from '../../errors.js';

export type Sql = postgres.Sql;
export type Tx = postgres.ReservedSql;

/** How many connections one pix process opens by default (a batch's claims and its heartbeat). */
export const DEFAULT_POOL = 4;

export interface Pool {
  sql: Sql;
  url: LedgerUrl;
  /** `postgres://HOST:PORT/DB`: what people are shown. */
  where: string;
}

/**
 * A pool of connections to the ledger's database. `onclose`: told when one of its connections closes (the
 * driver's `onclose` option), for a holder of a reserved connection that must not send on it once it is
 * gone (see reserved).
 */
export function openPool(
  text: string,
  home: string | undefined,
  poolSize = DEFAULT_POOL,
  onclose?: () => void,
): Pool {
  let url: LedgerUrl;
  try {
    url = parseLedgerUrl(text);
  } catch (error) {
    throw new PixError('usage', `the ledger URL: ${(error as Error).message}`, {
      hint: 'see docs/team.md for the URL pix takes (sslmode=verify-full, sslrootcert=FILE)',
    });
  }
  const ssl = tlsOptions(url, home);
  const sql = postgres({
    host: url.socket ?? url.host,
    port: url.port,
    database: url.database,
    ...(url.user === undefined ? {} : { username: url.user }),
    ...(url.password === undefined ? {} : { password: url.password }),
    ssl,
    max: url.poolMax ?? poolSize,
    connect_timeout: url.connectTimeout,
    idle_timeout: 30,
    onnotice: () => {},
    ...(onclose === undefined ? {} : { onclose }),
    connection: { application_name: 'pix' },
  });
  return { sql, url, where: describeLedger(url) };
}

/**
 * `work` on a connection of the pool reserved for it; `note` is handed the errors `work` swallows. A
 * connection the server dropped is not released: the driver took it back from the reservation when it
 * closed, and releasing it again would put a connection with no socket among the open ones, whose next
 * query throws from a timer and ends the process (porsager/postgres#1208: seen here as exit 1 with
 * PostgreSQL stopped mid-batch, test/journal/postgres-connect.test.ts). Left unreleased, the pool connects
 * it again when it is next needed.
 */
export async function reserved<T>(
  sql: Sql,
  work: (tx: Tx, note: (error: unknown) => void) => Promise<T>,
): Promise<T> {
  const tx = await sql.reserve();
  let dropped = false;
  const note = (error: unknown) => {
    if (isConnectionError(error)) dropped = true;
  };
  try {
    return await work(tx, note);
  } catch (error) {
    note(error);
    throw error;
  } finally {
    if (!dropped) tx.release();
  }
}

/**
 * `work` in one transaction on a connection of its own. Written with BEGIN and COMMIT on a reserved
 * connection rather than the driver's `begin`: that one sends ROLLBACK after any failure, and on a
 * connection the server has just dropped the driver then writes to a socket it has let go of, an error
 * thrown from a timer that would end the process as a crash. A dropped connection needs no ROLLBACK (the
 * server rolls back what it did not commit); only an error the server answered gets one.
 */
export function transaction<T>(sql: Sql, work: (tx: Tx) => Promise<T>): Promise<T> {
  return reserved(sql, async (tx, note) => {
    await tx.unsafe('BEGIN');
    try {
      const result = await work(tx);
      await tx.unsafe('COMMIT');
      return result;
    } catch (error) {
      if (!isConnectionError(error)) await tx.unsafe('ROLLBACK').catch(note);
      throw error;
    }
  });
}

/** Driver errors that mean the database could not be reached or the connection was lost. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return false;
  return (
    code.startsWith('E') || // ECONNREFUSED, ECONNRESET, ETIMEDOUT, EHOSTUNREACH, ENOTFOUND…
    code.startsWith('CONNECT') || // CONNECT_TIMEOUT
    code.startsWith('CONNECTION_') || // CONNECTION_CLOSED, CONNECTION_ENDED, CONNECTION_DESTROYED
    code === '57P01' || // admin_shutdown
    code === '57P02' ||
    code === '57P03' // cannot_connect_now (starting up, shutting down)
  );
}

/** What went wrong, in a few words and without the URL: the driver's message, its password cut out. */
export function reasonOf(error: unknown, url: LedgerUrl): string {
  let message = (error as Error | undefined)?.message ?? String(error);
  if (url.password) message = message.split(url.password).join('***');
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}

/** Exit 6: the ledger could not be reached or answered; nothing was sent. */
export function unreachable(error: unknown, pool: Pool): PixError {
  if (error instanceof PixError) return error;
  return new PixError(
    'unavailable',
    `the shared ledger ${pool.where} could not be used (${reasonOf(error, pool.url)}); nothing was sent`,
    {
      hint: 'the statement can still be read; payments wait until the database answers (`pix ledger status` checks it)',
    },
  );
}
