/**
 * The shared ledger's closed days (schema 3, pix_closes): each close as the line the file would hold
 * (commands/shared/books/store.ts), the latest line of a day its close, so every machine on the ledger
 * sees the days another closed, and two closes of one account never run at once (a session advisory lock
 * held on a connection of its own for the whole close).
 */
import type { ClosesStore } from '../stores.js';
import { reserved, type Sql } from './connect.js';

export function postgresCloses(
  sql: Sql,
  where: string,
  by: string,
  using: <T>(work: () => Promise<T>) => Promise<T>,
): ClosesStore {
  return {
    where,
    lines: (accounts) =>
      using(async () =>
        (
          await sql.unsafe('SELECT line FROM pix_closes WHERE account = ANY($1::text[]) ORDER BY seq', [
            [...accounts],
          ])
        ).map((row) => String(row.line)),
      ),
    append: (account, day, line) =>
      using(async () => {
        await sql.unsafe('INSERT INTO pix_closes (account, day, line, closed_by) VALUES ($1, $2, $3, $4)', [
          account,
          day,
          line,
          by,
        ]);
      }),
    async locked(account, work) {
      const key = `pix close ${account}`;
      return reserved(sql, async (tx, note) => {
        await using(() => tx.unsafe('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]));
        try {
          return await work();
        } finally {
          await tx.unsafe('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch(note);
        }
      });
    },
  };
}
