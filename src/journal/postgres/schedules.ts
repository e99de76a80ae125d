/**
 * The shared ledger's schedules (journal/schedules.ts ScheduleStore): one row per schedule in
 * `pix_schedules` (schema 5), its body the schedule as confirmed, its state and bookmark in columns.
 * `changed` moves with every write, so a runner asks one number to know whether to read them again.
 */
import type { Env } from '../../context.js';
import type { Schedule, ScheduleState, ScheduleStore } from '../schedules.js';
import { openPool, unreachable } from './connect.js';
import { checkSchema, schemaVersion } from './store.js';

/** A runner's few queries: two connections are plenty. */
const POOL = 2;

export function openPostgresSchedules(url: string, env: Env): ScheduleStore {
  const pool = openPool(url, env, POOL);
  const { sql, where } = pool;
  let readiness: Promise<void> | undefined;
  const using = async <T>(work: () => Promise<T>): Promise<T> => {
    readiness ??= (async () => checkSchema(await schemaVersion(sql), where))().catch((error) => {
      readiness = undefined;
      throw error;
    });
    try {
      await readiness;
      return await work();
    } catch (error) {
      throw unreachable(error, pool);
    }
  };
  return {
    backend: 'postgres',
    where,
    read: () =>
      using(async () => {
        const rows = await sql.unsafe(
          'SELECT body, state, state_at, settled FROM pix_schedules ORDER BY created_at, id',
        );
        return rows.map((row) => ({
          ...(row.body as Schedule),
          state: row.state as ScheduleState,
          ...(row.state_at === null ? {} : { stateAt: (row.state_at as Date).toISOString() }),
          ...(row.settled === null ? {} : { settled: row.settled as string }),
        }));
      }),
    version: () =>
      using(async () => {
        const [row] = await sql.unsafe('SELECT coalesce(max(changed), 0) AS changed FROM pix_schedules');
        return String(row?.changed ?? 0);
      }),
    add: (schedule) =>
      using(async () => {
        const { state, stateAt: _at, settled: _settled, ...body } = schedule;
        // The primary key decides between two activations of one plan at once: the second adds nothing.
        const added = await sql.unsafe(
          `INSERT INTO pix_schedules (id, account, created_at, body, state) VALUES ($1, $2, $3, $4::text::jsonb, $5)
             ON CONFLICT (id) DO NOTHING RETURNING id`,
          [schedule.id, schedule.account, schedule.createdAt, JSON.stringify(body), state],
        );
        return added.length > 0;
      }),
    setState: (id, state, at) =>
      using(async () => {
        const rows = await sql.unsafe(
          `UPDATE pix_schedules SET state = $2, state_at = $3, changed = nextval('pix_schedules_changes') WHERE id = $1 RETURNING id`,
          [id, state, at],
        );
        return rows.length > 0;
      }),
    settle: (id, date) =>
      using(async () => {
        await sql.unsafe(
          `UPDATE pix_schedules SET settled = $2, changed = nextval('pix_schedules_changes')
             WHERE id = $1 AND (settled IS NULL OR settled < $2)`,
          [id, date],
        );
      }),
    close: () => sql.end({ timeout: 5 }),
  };
}
