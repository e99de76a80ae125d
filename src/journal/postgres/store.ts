/**
 * The PostgreSQL store of the journal (docs/team.md), behind the one interface (journal/stores.ts): the
 * same rules (rules.ts) over the entries its queries select, and claims made by the database.
 *
 * - A claim (a payment, a batch or plan row) is one transaction under the account's advisory lock: the
 *   entries the rules ask about are read, judged, and the `sending` entry is inserted only if none blocks
 *   it, before the transfer is sent. Two machines claiming the same row: the second waits for the first's
 *   commit, then sees its entry and stops.
 * - A `sending` claim carries a lease (host, pid, heartbeat on the database's clock), beaten while the
 *   process lives. Another machine sees it "in progress on HOST" while it beats; one that stopped beating
 *   (or whose process on this machine is gone) becomes `unknown`: held until `pix journal resolve`, from
 *   any machine, never in progress forever and never silently unpaid.
 * - The database unreachable before a claim: exit 6, nothing sent. Lost after the transfer left: the
 *   outcome goes to the spill file (spill.ts) and the command exits 7; the next command here that reaches
 *   the database writes it first.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock, Env, Processes } from '../../context.js';
import { PixError } from '../../errors.js';
import { SYSTEM } from '../../system.js';
import type { JournalEntry, StartFields } from '../entries.js';
import { createJournalParser } from '../parser.js';
import { type Account, type DuplicateQuery, findBlocking, rowBlocker, type Scope } from '../rules.js';
import type { JournalScope } from '../store.js';
import { type Claim, type Holder, type JournalStore, judgeClaim, OutcomeSpilled } from '../stores.js';
import {
  isConnectionError,
  openPool,
  type Pool,
  reasonOf,
  type Sql,
  type Tx,
  transaction,
  unreachable,
} from './connect.js';
import {
  blockingQuestion,
  COLUMNS,
  entriesOf,
  insertEntry,
  paymentsQuestion,
  type Question,
  type Row,
  rowQuestion,
} from './queries.js';
import { SCHEMA_VERSION } from './schema.js';
import { drain, type SpilledChange, spill } from './spill.js';

/** How often a live claim's lease is beaten, and how long one that stopped beating stays "in progress". */
export const LEASE_BEAT_MS = 5_000;
export const LEASE_TTL_MS = 30_000;

export interface PostgresJournalOptions {
  url: string;
  /** The config directory: where the spill file is kept. */
  dir: string;
  clock: Clock;
  processes: Processes;
  /** This machine's name, as leases carry it (os.hostname() unless given). */
  host?: string | undefined;
  /** Where HOME (a CA file) and the login name (the default user) are read: nothing else of it. */
  env?: Env | undefined;
}

/** The schema's version, or undefined when pix's tables are not there (`pix ledger init` makes them). */
export async function schemaVersion(sql: Sql | Tx): Promise<number | undefined> {
  const [exists] = await sql.unsafe(`SELECT to_regclass('pix_schema') IS NOT NULL AS present`);
  if (!exists?.present) return undefined;
  const [row] = await sql.unsafe('SELECT coalesce(max(version), 0) AS version FROM pix_schema');
  return Number(row?.version ?? 0);
}

/** Exit 6 unless the schema is the one this pix knows. */
export function checkSchema(version: number | undefined, where: string): void {
  if (version === undefined || version === 0) {
    throw new PixError('unavailable', `the shared ledger ${where} has no pix schema; nothing was sent`, {
      hint: 'run `pix ledger init` once (with a role that may create tables: docs/team.md)',
    });
  }
  if (version > SCHEMA_VERSION) {
    throw new PixError(
      'unavailable',
      `the shared ledger ${where} has schema ${version}, newer than this pix knows (${SCHEMA_VERSION}); nothing was sent`,
      { hint: 'upgrade pix on this machine: another machine runs a newer one' },
    );
  }
  if (version < SCHEMA_VERSION) {
    throw new PixError(
      'unavailable',
      `the shared ledger ${where} has schema ${version}; this pix needs ${SCHEMA_VERSION}; nothing was sent`,
      { hint: 'run `pix ledger init` to migrate it' },
    );
  }
}

export function openPostgresJournal(options: PostgresJournalOptions): JournalStore {
  const pool: Pool = openPool(options.url, options.env ?? {});
  const { sql, where } = pool;
  const { clock, processes, dir } = options;
  const host = options.host ?? hostname();
  const leases = new Set<string>();
  let beating: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const beat = async () => {
    if (leases.size === 0) return;
    try {
      await sql.unsafe(
        `UPDATE pix_journal SET lease_beat = now() WHERE id = ANY($1::text[]) AND state = 'sending'`,
        [[...leases]],
      );
    } catch {
      // The database lost: the lease stops beating, so other machines come to hold these as unknown.
    }
  };
  const lease = (id: string) => {
    leases.add(id);
    beating ??= setInterval(() => void beat(), LEASE_BEAT_MS);
    // A lease never keeps a finished command alive.
    beating.unref?.();
  };

  const applyChange = async (change: Pick<SpilledChange, 'op' | 'id' | 'line'>, target: Sql | Tx = sql) => {
    const line = JSON.stringify(change.line);
    if (change.op === 'finish') {
      const state = String(change.line.state);
      await target.unsafe(
        `UPDATE pix_journal SET state = $2, outcome = coalesce(outcome, '{}'::jsonb) || $3::text::jsonb,
           lease_host = NULL, lease_pid = NULL, lease_beat = NULL, changed = nextval('pix_journal_changes')
         WHERE id = $1`,
        [change.id, state, line],
      );
    } else if (change.op === 'resolve') {
      await target.unsafe(
        `UPDATE pix_journal SET resolution = $2, resolved = $3::text::jsonb, changed = nextval('pix_journal_changes')
         WHERE id = $1`,
        [change.id, String(change.line.resolution), line],
      );
    } else {
      await target.unsafe(
        `UPDATE pix_journal SET matched = $2::text::jsonb, changed = nextval('pix_journal_changes') WHERE id = $1`,
        [change.id, line],
      );
    }
  };

  /** Connected, the schema checked, and this machine's spilled outcomes written first. */
  let readiness: Promise<void> | undefined;
  const ready = () => {
    readiness ??= (async () => {
      try {
        checkSchema(await schemaVersion(sql), where);
        await drain(dir, where, { clock, random: SYSTEM.random, processes }, (change) => applyChange(change));
      } catch (error) {
        readiness = undefined;
        throw unreachable(error, pool);
      }
    })();
    return readiness;
  };
  /** Runs a read or a write once ready; a failure is exit 6 (nothing was sent because of it). */
  const using = async <T>(work: () => Promise<T>): Promise<T> => {
    await ready();
    try {
      return await work();
    } catch (error) {
      throw unreachable(error, pool);
    }
  };

  const select = async (target: Sql | Tx, { where, params }: Question): Promise<JournalEntry[]> =>
    entriesOf(
      (await target.unsafe(
        `SELECT ${COLUMNS} FROM pix_journal WHERE ${where} ORDER BY seq`,
        params as never[],
      )) as unknown as Row[],
    );

  const seqOf = async (target: Sql | Tx, scope: JournalScope = {}): Promise<Scope> => {
    const { before, ...rest } = scope;
    if (before === undefined) return rest;
    const [row] = await target.unsafe('SELECT seq FROM pix_journal WHERE id = $1', [before]);
    return { ...rest, before: row === undefined ? Number.POSITIVE_INFINITY : Number(row.seq) };
  };

  /** The rules' questions, asked of `target` (the pool, or a claim's transaction). */
  const questions = (target: Sql | Tx) => ({
    async rowBlocker(row: string, account: Account, scope?: JournalScope) {
      return rowBlocker(await select(target, rowQuestion(row)), account, await seqOf(target, scope));
    },
    async findBlocking(query: DuplicateQuery, account: Account, scope?: JournalScope) {
      const now = clock.now();
      const candidates = await select(target, blockingQuestion(query, now));
      return findBlocking(candidates, query, now, account, await seqOf(target, scope));
    },
  });

  const newEntry = (fields: StartFields & { account: string }): JournalEntry => ({
    ...fields,
    pid: processes.pid,
    id: randomUUID(),
    seq: Number.POSITIVE_INFINITY,
    at: clock.now().toISOString(),
    state: 'sending',
  });

  /** A change after the transfer left: written, or kept in the spill file when the database is lost. */
  const afterSend = async (change: Pick<SpilledChange, 'op' | 'id' | 'line'>) => {
    leases.delete(change.id);
    try {
      await ready();
      await applyChange(change);
    } catch (error) {
      const file = spill(dir, { db: where, ...change });
      const why = error instanceof PixError ? error.message : reasonOf(error, pool.url);
      throw new OutcomeSpilled(why, file);
    }
  };

  const store: JournalStore = {
    backend: 'postgres',
    where,
    read: () => using(() => select(sql, { where: 'true', params: [] })),
    payments: (amount, since) => using(() => select(sql, paymentsQuestion(amount, since))),
    version: () =>
      using(async () => {
        const [row] = await sql.unsafe('SELECT coalesce(max(changed), 0)::text AS changed FROM pix_journal');
        return String(row?.changed ?? '0');
      }),
    async verify() {
      // Rows are written whole by transactions: there is no torn or damaged line to find, only entries
      // the reader cannot take (written by hand), named by their place.
      const rows = await using(
        async () => (await sql.unsafe(`SELECT ${COLUMNS} FROM pix_journal ORDER BY seq`)) as unknown as Row[],
      );
      const damage = [];
      for (const row of rows) {
        const parser = createJournalParser();
        parser.feed(
          `${[row.start, row.outcome, row.resolved, row.matched].filter((l) => l !== null).join('\n')}\n`,
        );
        for (const found of parser.damage()) damage.push({ line: Number(row.seq), reason: found.reason });
      }
      return { damage, torn: [] };
    },
    // Nothing to accept: the reader's complaints about a row written by hand are for its operator to mend.
    accept: async () => [],
    damageWarning: async () => undefined,
    checkSound: () => ready(),
    async claim(fields, question): Promise<Claim> {
      await ready();
      const entry = newEntry(fields);
      let claim: Claim;
      try {
        claim = await transaction(sql, async (tx): Promise<Claim> => {
          // One claim at a time per account, across every machine: the rules then see every earlier entry.
          await tx.unsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
            `pix claim ${fields.account}`,
          ]);
          const blocked = await judgeClaim(questions(tx), question);
          if (blocked !== undefined) return { blocked };
          await insertEntry(tx, entry, {}, { host, pid: processes.pid });
          return { entry };
        });
      } catch (error) {
        throw unreachable(error, pool);
      }
      if (claim.entry !== undefined) lease(claim.entry.id);
      return claim;
    },
    async begin(fields) {
      await ready();
      const entry = newEntry(fields);
      try {
        await insertEntry(sql, entry, {}, { host, pid: processes.pid });
      } catch (error) {
        throw unreachable(error, pool);
      }
      lease(entry.id);
      return entry;
    },
    finish: (id, outcome) =>
      afterSend({ op: 'finish', id, line: { id, at: clock.now().toISOString(), ...outcome } }),
    resolve: (id, resolution) =>
      using(() =>
        applyChange({ op: 'resolve', id, line: { id, at: clock.now().toISOString(), resolution } }),
      ),
    match: (id, match) =>
      using(() => applyChange({ op: 'match', id, line: { id, at: clock.now().toISOString(), match } })),
    findBlocking: (query, account, scope) => using(() => questions(sql).findBlocking(query, account, scope)),
    rowBlocker: (row, account, scope) => using(() => questions(sql).rowBlocker(row, account, scope)),
    rowEntries: (row) => using(() => select(sql, rowQuestion(row))),
    async holder(entry): Promise<Holder | undefined> {
      if (entry.state !== 'sending' || entry.resolution !== undefined) return undefined;
      return using(async () => {
        const [row] = await sql.unsafe(
          `SELECT lease_host, lease_pid, lease_beat, now() - lease_beat < $2::interval AS live
             FROM pix_journal WHERE id = $1 AND state = 'sending'`,
          [entry.id, `${LEASE_TTL_MS} milliseconds`],
        );
        if (row === undefined) {
          // Finished (or resolved) since it was read, maybe by another machine: the entry is brought up to
          // date, as the file store's entries are by its reads, so the caller judges it as it is now.
          const [now] = await select(sql, { where: 'id = $1', params: [entry.id] });
          if (now !== undefined) Object.assign(entry, now, { seq: entry.seq });
          return undefined;
        }
        const pid = row.lease_pid === null ? undefined : Number(row.lease_pid);
        const here = row.lease_host === host;
        if (here && pid === processes.pid) return undefined;
        const live = row.live === true && pid !== undefined && (!here || processes.alive(pid));
        if (live) return { host: String(row.lease_host), pid: pid!, here };
        // Its process is gone, or its lease stopped beating: the outcome is unknown, held until resolved.
        // Only while it is still so (the process may have finished it meanwhile, or beaten again).
        await sql.unsafe(
          `UPDATE pix_journal SET state = 'unknown', outcome = coalesce(outcome, '{}'::jsonb) || $2::text::jsonb,
             lease_host = NULL, lease_pid = NULL, lease_beat = NULL, changed = nextval('pix_journal_changes')
           WHERE id = $1 AND state = 'sending' AND (lease_beat IS NULL OR now() - lease_beat >= $3::interval
             OR (lease_host = $4 AND lease_pid = $5 AND $6::boolean))`,
          [
            entry.id,
            JSON.stringify({
              id: entry.id,
              at: clock.now().toISOString(),
              state: 'unknown',
              reason: 'lease expired',
            }),
            `${LEASE_TTL_MS} milliseconds`,
            host,
            pid ?? -1,
            here && pid !== undefined && !processes.alive(pid),
          ],
        );
        return undefined;
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      if (beating !== undefined) clearInterval(beating);
      // A database that went away mid-command may fail its own goodbye: nothing is left to record by then
      // (every outcome was written or spilled), so the command's exit is what it already decided.
      await sql.end({ timeout: 5 }).catch(() => {});
    },
  };
  return store;
}

export { isConnectionError };
