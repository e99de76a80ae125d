/**
 * The one place the PostgreSQL driver is loaded (`postgres`, docs/dependencies.md): only a profile whose
 * ledger is a database reaches this module (architecture rule 8). The URL is read as libpq reads it
 * (url.ts) and handed to the driver as explicit options, so the driver never parses the secret itself and
 * nothing it prints can carry it; notices are dropped (they would go to the console, rule 2).
 *
 * Every setting the driver would otherwise take from the environment (its README, "Environmental
 * variables": PGHOST, PGPORT, PGDATABASE, PGUSER/PGUSERNAME, PGPASSWORD, PGAPPNAME, and PG<OPTION> for
 * each of its options) is given here, so none is read: the ledger's password is the URL's or none, never
 * PGPASSWORD (the driver reads no pgpass file, so PGPASSFILE means nothing to it). What it still reads is
 * PGTARGETSESSIONATTRS, whose documented option has no value meaning "any" (it picks among hosts, and the
 * URL names one), and PGMAX_PIPELINE and PGSSLNEGOTIATION, which its typed options do not offer: none of
 * them carries a credential or changes where pix connects.
 */
import { userInfo } from 'node:os';
import postgres from 'postgres';
import { describeLedger, type LedgerUrl, parseLedgerUrl, tlsOptions } from '../../config/ledger.js';
import type { Env } from '../../context.js';
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

/** libpq's default user: the login name (the environment's, else the system's). */
function loginName(env: Env): string {
  const given = env.USER ?? env.LOGNAME;
  if (given !== undefined && given !== '') return given;
  try {
    return userInfo().username;
  } catch {
    return 'postgres';
  }
}

/**
 * A pool of connections to the ledger's database. `env`: where HOME (libpq's `~/.postgresql/root.crt`)
 * and the login name (libpq's default user) are read; nothing else of it. `onclose`: told when one of its
 * connections closes (the driver's `onclose` option), for a holder of a reserved connection that must not
 * send on it once it is gone (see reserved).
 */
export function openPool(text: string, env: Env, poolSize = DEFAULT_POOL, onclose?: () => void): Pool {
  let url: LedgerUrl;
  try {
    url = parseLedgerUrl(text);
  } catch (error) {
    throw new PixError('usage', `the ledger URL: ${(error as Error).message}`, {
      hint: 'see docs/team.md for the URL pix takes (sslmode=verify-full, sslrootcert=FILE)',
    });
  }
  const ssl = tlsOptions(url, env.HOME);
  const sql = postgres({
    host: url.socket ?? url.host,
    port: url.port,
    database: url.database,
    username: url.user ?? loginName(env),
    // The URL's password, or none: a function, so the driver never falls back to PGPASSWORD.
    password: () => url.password ?? '',
    ssl,
    max: url.poolMax ?? poolSize,
    connect_timeout: url.connectTimeout,
    idle_timeout: 30,
    max_lifetime: 45 * 60,
    keep_alive: 60,
    backoff: (retries: number) => Math.min(3 ** retries / 100, 20),
    prepare: true,
    fetch_types: true,
    debug: false,
    publications: 'alltables',
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

/** What stopped the ledger from being used, told apart by the server's SQLSTATE or the socket's error. */
export type LedgerTrouble =
  | 'authentication'
  | 'permission'
  | 'not_initialised'
  | 'no_database'
  | 'unreachable'
  | 'refused';

export function troubleOf(error: unknown): LedgerTrouble {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === '28P01' || code === '28000') return 'authentication'; // invalid_password, invalid_authorization_specification
  if (code === '42501') return 'permission'; // insufficient_privilege
  if (code === '42P01' || code === '3F000') return 'not_initialised'; // undefined_table, invalid_schema_name
  if (code === '3D000') return 'no_database'; // invalid_catalog_name
  if (isConnectionError(error)) return 'unreachable';
  return 'refused';
}

/**
 * Exit 6, naming the database (never its URL), with what went wrong told apart: the login refused (the
 * password is the URL's alone), a grant missing, the schema not there, the database not there, the server
 * not reached. `hint` overrides the hint of a kind (a command that knows better: `ledger init` run by a role
 * that may not create tables). Nothing was sent because of it.
 */
export function unreachable(
  error: unknown,
  pool: Pool,
  hints: Partial<Record<LedgerTrouble, string>> = {},
): PixError {
  if (error instanceof PixError) return error;
  const trouble = troubleOf(error);
  const role = pool.url.user === undefined ? 'the login name' : `role "${pool.url.user}"`;
  const reason = reasonOf(error, pool.url);
  const [what, hint] = (
    {
      authentication: [
        `refused the login of ${role} (${reason})`,
        "check the user and password in the ledger's URL: pix takes the password from the URL alone, never PGPASSWORD or ~/.pgpass (percent-encode @ : / ? # in it)",
      ],
      permission: [
        `refused ${role} (${reason})`,
        'the role lacks a grant of docs/team.md ("The role pix needs"): the schema\'s owner gives it',
      ],
      not_initialised: [
        `has no pix schema (${reason})`,
        "the schema's owner runs `pix ledger init` once (docs/team.md); everyone else keeps the URL with `pix ledger use`",
      ],
      no_database: [`has no such database (${reason})`, "check the database's name in the ledger's URL"],
      unreachable: [
        `could not be reached (${reason})`,
        'the statement can still be read; payments wait until the database answers (`pix ledger status` checks it)',
      ],
      refused: [`could not be used (${reason})`, 'see `pix ledger status`'],
    } as const
  )[trouble];
  return new PixError('unavailable', `the shared ledger ${pool.where} ${what}; nothing was sent`, {
    hint: hints[trouble] ?? hint,
  });
}
