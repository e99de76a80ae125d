/**
 * The driver's connections when PostgreSQL goes away (src/journal/postgres/connect.ts), against a real
 * server this file starts and stops: a transaction cut by the server is a connection error its caller can
 * handle, and the pool answers again once the server is back — never a crash from a timer.
 */
import { expect, it } from 'vitest';
import { isConnectionError, openPool, transaction } from '../../src/journal/postgres/connect.js';
import { migrateSchema } from '../../src/journal/postgres/schema.js';
import { clusterPerFile } from '../helpers/postgres.js';

const { suite, cluster } = clusterPerFile();

suite('a connection the server dropped', () => {
  it('a transaction cut by a stop is a connection error; the pool answers again once the server is back', async () => {
    const pool = openPool(cluster().url(), {}, 2);
    try {
      await migrateSchema(pool.sql, 'test');
      const cut = await transaction(pool.sql, async (tx) => {
        await tx.unsafe('SELECT 1');
        cluster().stop('immediate');
        return tx.unsafe('SELECT 2');
      }).catch((error: unknown) => error);
      expect(isConnectionError(cut), String(cut)).toBe(true);
      // The schema's lock on a server that is down: refused, not a crash.
      const down = await migrateSchema(pool.sql, 'test').catch((error: unknown) => error);
      expect(isConnectionError(down), String(down)).toBe(true);
      cluster().start();
      // Before the mend, the connection the transaction had reserved was handed back to the pool with no
      // socket, and this query ended the process (TypeError: Cannot read properties of null (reading 'write')).
      const [row] = await pool.sql.unsafe('SELECT 3 AS three');
      expect(row?.three).toBe(3);
      const again = await transaction(pool.sql, (tx) => tx.unsafe('SELECT 4 AS four'));
      expect(again[0]?.four).toBe(4);
    } finally {
      cluster().start();
      await pool.sql.end({ timeout: 1 });
    }
  });
});
