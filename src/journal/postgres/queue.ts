/**
 * The job queue of `pix schedule run` on the shared ledger: pg-boss (docs/dependencies.md), in a schema of
 * its own (`pix_boss`) of the same database, loaded only by `pix schedule run` and `pix ledger init`
 * (architecture rule 8). pg-boss is taken as it is, through its documented options: it is handed pix's own
 * connection (`db`: an object with `executeSql(text, values)`) over the driver pix already uses
 * (connect.ts openPool), so the URL is read once, by pix, with its TLS modes; no second driver opens a
 * connection, and nothing reads PGPASSWORD or ~/.pgpass behind pix's back.
 *
 * What it gives the runners: one job per occurrence (a `stately` queue keyed by the occurrence's row: at
 * most one waiting and one running per occurrence, whatever number of runners send it), one claim per job
 * across runners (its fetch takes jobs with SKIP LOCKED), a job taken over when its runner died (its
 * expiry) and tried again when it failed (retries). What pays an occurrence once is the journal, not the
 * queue: a job run twice finds the row paid.
 */
import PgBoss from 'pg-boss';
import type { Env } from '../../context.js';
import { openPool, type Pool, reserved } from './connect.js';

/** A text that is a transaction of its own. */
const TRANSACTION = /^\s*BEGIN\b/i;

export const QUEUE_SCHEMA = 'pix_boss';
export const OCCURRENCES = 'pix-schedule-occurrences';

/** pix's connection as pg-boss's `db` (its documented interface): parameters kept apart from the SQL. */
function bossDb(pool: Pool) {
  return {
    async executeSql(text: string, values?: unknown[]) {
      // The driver refuses undefined parameters; pg-boss leaves its optional ones undefined (SQL NULL).
      const params = (values ?? []).map((value) => (value === undefined ? null : value));
      // Its transactions are one text (BEGIN; …; COMMIT;): the driver takes those on a connection of their own.
      const rows = TRANSACTION.test(text)
        ? await reserved(pool.sql, (tx) => tx.unsafe(text))
        : params.length === 0
          ? await pool.sql.unsafe(text)
          : await pool.sql.unsafe(text, params as never[]);
      return { rows: Array.from(rows as Iterable<unknown>) };
    },
  };
}

/** What a runner asks of the queue. */
export interface OccurrenceQueue {
  /** Sends a job for the occurrence's row unless one is waiting already (false then). */
  send(row: string): Promise<boolean>;
  /** Runs `handle` for each job this runner claims, one at a time. */
  work(handle: (row: string) => Promise<void>): Promise<void>;
  /** Makes the worker fetch now rather than at its next poll. */
  wake(): void;
  stop(): Promise<void>;
}

export interface QueueOptions {
  /** How long a claimed job may run before another runner takes it over (its runner presumed dead). */
  takeoverSeconds: number;
  /** How often the worker asks for jobs. */
  pollSeconds: number;
  /** Errors pg-boss reports from its own background work (maintenance, polling). */
  onError(error: unknown): void;
}

function boss(pool: Pool, migrate: boolean, options?: QueueOptions): PgBoss {
  const instance = new PgBoss({
    db: bossDb(pool),
    schema: QUEUE_SCHEMA,
    migrate,
    // pix's own rules say when an occurrence is due (business days, the account's clock): no cron here.
    schedule: false,
    supervise: options !== undefined,
    ...(options === undefined
      ? {}
      : { maintenanceIntervalSeconds: Math.max(1, Math.min(60, options.takeoverSeconds)) }),
  });
  instance.on('error', (error) => options?.onError(error));
  return instance;
}

/**
 * Creates pg-boss's schema and the occurrences' queue, or brings them to this pg-boss's version, on `pool`
 * (`pix ledger init`: the one command that changes the schema; pg-boss migrates under its own lock).
 */
export async function installQueue(pool: Pool): Promise<void> {
  const instance = boss(pool, true);
  try {
    await instance.start();
    if ((await instance.getQueue(OCCURRENCES)) === null) {
      await instance.createQueue(OCCURRENCES, { name: OCCURRENCES, policy: 'stately' });
    }
  } finally {
    await instance.stop({ graceful: false, close: false }).catch(() => {});
  }
}

/** The queue of a running `pix schedule run`: its schema must be there (`pix ledger init` makes it). */
export async function openQueue(url: string, env: Env, options: QueueOptions): Promise<OccurrenceQueue> {
  const pool = openPool(url, env, 3);
  const instance = boss(pool, false, options);
  await instance.start();
  let worker: string | undefined;
  return {
    async send(row) {
      const id = await instance.send(
        OCCURRENCES,
        { row },
        {
          singletonKey: row,
          expireInSeconds: options.takeoverSeconds,
          retryLimit: 3,
          retryDelay: Math.max(1, Math.round(options.pollSeconds)),
        },
      );
      return id !== null;
    },
    async work(handle) {
      worker = await instance.work<{ row: string }>(
        OCCURRENCES,
        { batchSize: 1, pollingIntervalSeconds: options.pollSeconds },
        async ([job]) => {
          if (job !== undefined) await handle(job.data.row);
        },
      );
    },
    wake() {
      if (worker !== undefined) instance.notifyWorker(worker);
    },
    async stop() {
      await instance.stop({ graceful: true, close: false, timeout: 30_000, wait: true });
      await pool.sql.end({ timeout: 5 });
    },
  };
}
