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
import { type Clock, DEFAULT_TIMEOUT_MS, type Env, type Processes } from '../../context.js';
import { PixError } from '../../errors.js';
import type { JournalEntry, StartFields } from '../entries.js';
import { createJournalParser } from '../parser.js';
import { type Account, type DuplicateQuery, findBlocking, rowBlocker, type Scope } from '../rules.js';
import type { JournalScope } from '../store.js';
import { type Claim, type Holder, type JournalStore, judgeClaim, OutcomeSpilled } from '../stores.js';
import { postgresAccounts } from './accounts.js';
import { postgresCloses } from './closes.js';
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
import { createLeases, LEASE_TTL_MS, SEND_MARGIN_MS } from './leases.js';
import {
  blockingQuestion,
  COLUMNS,
  entriesOf,
  insertEntry,
  paymentsQuestion,
  type Question,
  type Row,
  rowQuestion,
  writeChange,
} from './queries.js';
import { checkSchema, schemaVersion } from './schema.js';
import { drain, judgeSpilled, type SpilledChange, type SpillProblem, spill } from './spill.js';

export { LEASE_BEAT_MS, LEASE_TTL_MS, SEND_MARGIN_MS } from './leases.js';

/** The steps of a claimed payment, where a test may pause it (storeSeams). */
export type ClaimStep = 'claimed' | 'sending' | 'sent' | 'recorded';

/**
 * The store's test seam: `pause` is awaited at each step of claim → send → record, so a test pauses a
 * claimant deterministically where SIGSTOP could (test/journal/claim-pause.test.ts), never by sleeping.
 * Unset outside tests.
 */
export const storeSeams: {
  pause?: ((step: ClaimStep, id: string) => Promise<void>) | undefined;
  /** The monotonic clock leases are measured by, so a test's pause can last longer than it takes. */
  monotonic?: (() => number) | undefined;
} = {};

export interface PostgresJournalOptions {
  url: string;
  /** The config directory: where the spill file is kept. */
  dir: string;
  clock: Clock;
  processes: Processes;
  /** This machine's name, as leases carry it (os.hostname() unless given). */
  host?: string | undefined;
  /** The claimant's request timeout (`--timeout`): what its claims' send deadlines allow a request. */
  requestTimeoutMs?: number | undefined;
  /**
   * This machine as the wiring hands it (src/system.ts; architecture rule 2): the locks' jitter, the
   * monotonic clock in ms leases are measured by (leases.ts; a test's storeSeams.monotonic before it), and
   * how this process stops itself (PIX_TEST_STOP_AT).
   */
  system: { random(): number; monotonic(): number; stopSelf(): void };
  /**
   * A step at which this process stops itself as SIGSTOP would (PIX_TEST_STOP_AT, read by the wiring):
   * the end-to-end reproduction of a pause (test/reliability/claim-pause.test.ts). Unset outside tests.
   */
  stopAt?: string | undefined;
  /** Where HOME (a CA file) and the login name (the default user) are read: nothing else of it. */
  env?: Env | undefined;
}

export { checkSchema, schemaVersion } from './schema.js';

export function openPostgresJournal(options: PostgresJournalOptions): JournalStore {
  const pool: Pool = openPool(options.url, options.env ?? {});
  const { sql, where } = pool;
  const { clock, processes, dir } = options;
  const host = options.host ?? hostname();
  const { system } = options;
  const monotonic = () => (storeSeams.monotonic ?? system.monotonic)();
  const leases = createLeases(sql, { host, pid: processes.pid }, monotonic);
  const leaseOf = {
    host,
    pid: processes.pid,
    timeoutMs: options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    ttlMs: LEASE_TTL_MS,
    marginMs: SEND_MARGIN_MS,
  };
  let closed = false;
  /** A step of claim → send → record: a test's pause, or the reproduction's stop. */
  const step = async (at: ClaimStep, id: string) => {
    if (options.stopAt === at) system.stopSelf();
    await storeSeams.pause?.(at, id);
  };

  const applyChange = (change: Pick<SpilledChange, 'op' | 'id' | 'line'>, target: Sql | Tx = sql) =>
    writeChange(target, change);

  const lockHost = { clock, random: system.random, processes };
  /** A spilled outcome the database contradicts, or a damaged spill file: money stops (spill.ts). */
  let spillProblem: SpillProblem | undefined;
  /** A spilled outcome, written only where the database agrees it is still awaited (judgeSpilled). */
  const applySpilled = (change: SpilledChange) =>
    transaction(sql, async (tx) => {
      const [row] = await tx.unsafe('SELECT state, resolution FROM pix_journal WHERE id = $1 FOR UPDATE', [
        change.id,
      ]);
      const said = judgeSpilled(
        change,
        row === undefined ? undefined : { state: String(row.state), resolution: row.resolution ?? null },
      );
      if (said === 'apply') await applyChange(change, tx);
      return said === 'apply' ? 'applied' : said;
    });

  /** Connected, the schema checked, and this machine's spilled outcomes written first. */
  let readiness: Promise<void> | undefined;
  const ready = () => {
    readiness ??= (async () => {
      try {
        checkSchema(await schemaVersion(sql), where);
        spillProblem = (await drain(dir, where, lockHost, applySpilled)).problem;
      } catch (error) {
        readiness = undefined;
        throw unreachable(error, pool);
      }
    })();
    return readiness;
  };
  /** Ready, and nothing spilled that stops money (exit 8, naming the file and line). */
  const sound = async () => {
    await ready();
    if (spillProblem === undefined) return;
    throw new PixError(
      'declined',
      `the ledger spill file cannot be trusted: ${spillProblem.message}; nothing was sent`,
      {
        hint: `\`pix ledger status\` names it; settle the entry (\`pix statement\`, then \`pix journal resolve\`), then move ${spillProblem.file} and its .checkpoint aside`,
      },
    );
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
    leases.drop(change.id);
    try {
      await ready();
      await applyChange(change);
    } catch (error) {
      const file = await spill(dir, { db: where, ...change }, lockHost);
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
    damageWarning: async () => {
      await ready();
      return (
        spillProblem &&
        `warning: the ledger spill file cannot be trusted (${spillProblem.message}): payments and charges are stopped`
      );
    },
    checkSound: sound,
    async claim(fields, question): Promise<Claim> {
      await sound();
      const entry = newEntry(fields);
      let claim: Claim;
      // Measured before the transaction begins: never later than its now(), the lease's stamp.
      const sentAt = monotonic();
      try {
        claim = await transaction(sql, async (tx): Promise<Claim> => {
          // One claim at a time per account, across every machine: the rules then see every earlier entry.
          await tx.unsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
            `pix claim ${fields.account}`,
          ]);
          const blocked = await judgeClaim(questions(tx), question);
          if (blocked !== undefined) return { blocked };
          await insertEntry(tx, entry, {}, leaseOf);
          return { entry };
        });
      } catch (error) {
        throw unreachable(error, pool);
      }
      if (claim.entry !== undefined) {
        leases.take(claim.entry.id, sentAt);
        await step('claimed', claim.entry.id);
      }
      return claim;
    },
    async begin(fields) {
      await sound();
      const entry = newEntry(fields);
      const sentAt = monotonic();
      try {
        await insertEntry(sql, entry, {}, leaseOf);
      } catch (error) {
        throw unreachable(error, pool);
      }
      leases.take(entry.id, sentAt);
      return entry;
    },
    async beforeSend(entry) {
      await step('sending', entry.id);
      leases.checkSend(entry.id);
    },
    async finish(id, outcome) {
      await step('sent', id);
      await afterSend({ op: 'finish', id, line: { id, at: clock.now().toISOString(), ...outcome } });
      await step('recorded', id);
    },
    sendDeadline: (entry) =>
      using(async () => {
        const [row] = await sql.unsafe(
          `SELECT extract(epoch FROM send_deadline) * 1000 AS until,
             extract(epoch FROM send_deadline - now()) * 1000 AS remaining
           FROM pix_journal WHERE id = $1 AND send_deadline > now()`,
          [entry.id],
        );
        if (row === undefined) return undefined;
        return {
          until: new Date(Math.ceil(Number(row.until))),
          remainingMs: Math.ceil(Number(row.remaining)),
        };
      }),
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
        // Only while it is still so (the process may have finished it meanwhile, or beaten again). A process
        // of this machine known gone sends nothing more: its send deadline goes with it.
        await sql.unsafe(
          `UPDATE pix_journal SET state = 'unknown', outcome = coalesce(outcome, '{}'::jsonb) || $2::text::jsonb,
             lease_host = NULL, lease_pid = NULL, lease_beat = NULL, changed = nextval('pix_journal_changes'),
             send_deadline = CASE WHEN lease_host = $4 AND lease_pid = $5 AND $6::boolean THEN NULL
               ELSE send_deadline END
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
    accounts: () => postgresAccounts(sql, where, `${host} pid ${processes.pid}`, using),
    closes: () => postgresCloses(sql, where, `${host} pid ${processes.pid}`, using),
    async close() {
      if (closed) return;
      closed = true;
      leases.close();
      // A database that went away mid-command may fail its own goodbye: nothing is left to record by then
      // (every outcome was written or spilled), so the command's exit is what it already decided.
      await sql.end({ timeout: 5 }).catch(() => {});
    },
  };
  return store;
}

export { isConnectionError };
