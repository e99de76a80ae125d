/**
 * What a payment asks the shared ledger is answered by its indexes, not by reading its rows: on a ledger
 * of 200,000 entries (a year of payments on the account, analysed as autovacuum would), the plan of each
 * question the PostgreSQL store asks for a payment (src/journal/postgres/queries.ts) reads no table whole.
 * A real server started by the test (test/helpers/postgres.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPool, type Pool } from '../../src/journal/postgres/connect.js';
import {
  blockingQuestion,
  paymentsQuestion,
  type Question,
  rowQuestion,
} from '../../src/journal/postgres/queries.js';
import { migrateSchema } from '../../src/journal/postgres/schema.js';
import { type Cluster, postgresMissing, startPostgres } from '../helpers/postgres.js';

const missing = postgresMissing();
let cluster: Cluster | undefined;
let pool: Pool | undefined;

beforeAll(async () => {
  if (missing !== undefined) return;
  cluster = await startPostgres();
  pool = openPool(cluster.createDatabase('plans'), {});
  await migrateSchema(pool.sql, 'test');
  await pool.sql.unsafe(`
    INSERT INTO pix_journal (id, account, kind, at, amount_centavos, row_id, pay_key, emv_hash, state, start)
    SELECT 'h-' || n, 'acct_a', 'payment', now() - (n || ' minutes')::interval, 100 + n % 5000,
      CASE WHEN n % 2 = 0 THEN 'row-' || n END, 'key-' || (n % 1000) || '@example.com',
      CASE WHEN n % 7 = 0 THEN 'code-' || n END,
      CASE WHEN n % 10000 = 0 THEN 'unknown' ELSE 'done' END, '{}'::jsonb
    FROM generate_series(1, 200000) AS n;
    ANALYZE pix_journal;`);
}, 120_000);
afterAll(async () => {
  await pool?.sql.end();
  cluster?.remove();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Every node of the plan PostgreSQL makes for the store's question, with its parameters. */
async function planOf(question: Question): Promise<PlanNode[]> {
  const [row] = await pool!.sql.unsafe(
    `EXPLAIN (FORMAT JSON) SELECT seq FROM pix_journal WHERE ${question.where} ORDER BY seq`,
    question.params as never[],
  );
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk((row!['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
  return nodes;
}

describe.skipIf(missing !== undefined)("a payment's questions on a ledger of 200,000 rows", () => {
  const now = new Date();
  it.each([
    [
      'the duplicate guard, a key',
      blockingQuestion({ method: 'key', key: 'key-5@example.com', amountCentavos: 105 }, now),
    ],
    [
      'the duplicate guard, a code',
      blockingQuestion({ method: 'qr', emvHash: 'code-7', dynamic: true, amountCentavos: 107 }, now),
    ],
    ["the statement guard's explanations", paymentsQuestion(105, new Date(now.getTime() - 25 * 3_600_000))],
    ['a batch row', rowQuestion('row-10')],
  ])('%s: read through indexes', async (_, question) => {
    const nodes = await planOf(question);
    expect(nodes.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
    expect(nodes.some((node) => /Index/.test(node['Node Type']))).toBe(true);
  });
});
