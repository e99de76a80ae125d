/**
 * The PostgreSQL store's rows (store.ts): pix_journal's rows read as entries through the file's own reader,
 * the rules' questions as SQL conditions each answered by an index, and an entry inserted as its row.
 */
import { type JournalEntry, startLine } from '../entries.js';
import { createJournalParser } from '../parser.js';
import { DUPLICATE_WINDOW_MS, type DuplicateQuery } from '../rules.js';
import type { Sql, Tx } from './connect.js';
import { SEND_MARGIN_MS } from './leases.js';

export const COLUMNS =
  'seq, start::text AS start, outcome::text AS outcome, resolved::text AS resolved, matched::text AS matched';

export interface Row {
  seq: string;
  start: string;
  outcome: string | null;
  resolved: string | null;
  matched: string | null;
}

/** Rows → entries, through the file's own reader (parser.ts): one format, one reading of it. */
export function entriesOf(rows: readonly Row[]): JournalEntry[] {
  const parser = createJournalParser();
  const seqs = new Map<string, number>();
  for (const row of rows) {
    const lines = [row.start, row.outcome, row.resolved, row.matched].filter((line) => line !== null);
    parser.feed(`${lines.join('\n')}\n`);
    seqs.set((JSON.parse(row.start) as { id: string }).id, Number(row.seq));
  }
  const entries = parser.entries();
  for (const entry of entries) entry.seq = seqs.get(entry.id) ?? entry.seq;
  return entries;
}

/** The columns the rules ask by, from an entry's start. */
function indexed(entry: JournalEntry) {
  const { payment } = entry;
  return {
    row: payment?.batchRow?.row ?? null,
    key: payment?.key ?? null,
    code: payment?.emvHash ?? null,
  };
}

/** A question of the rules as SQL: the condition on pix_journal's rows and its parameters. */
export interface Question {
  where: string;
  params: unknown[];
}

/**
 * The entries the duplicate guard may find blocking `query` at `now` (rules.ts blocks): a payment of the
 * same amount (to the same key, code or receiver: samePayee asks the amount first) started within the
 * window or still unresolved, and for a code the same code whatever the amount or age (a dynamic code
 * is one payment forever). Each part is answered by an index — (amount, at), the open entries' partial
 * index, the code's — so a payment costs the same on a ledger of a million rows (test/journal/postgres-queries.test.ts).
 */
export function blockingQuestion(query: DuplicateQuery, now: Date): Question {
  const window = new Date(now.getTime() - DUPLICATE_WINDOW_MS).toISOString();
  const same = `amount_centavos = $1 AND (at >= $2 OR (state IN ('sending', 'unknown') AND resolution IS NULL))`;
  if (query.emvHash === undefined)
    return { where: `kind = 'payment' AND ${same}`, params: [query.amountCentavos, window] };
  return {
    where: `kind = 'payment' AND (emv_hash = $3 OR (${same}))`,
    params: [query.amountCentavos, window, query.emvHash],
  };
}

/** Payments of `amount` started at or after `since` (the statement guard's explanations). */
export function paymentsQuestion(amount: number, since: Date): Question {
  return {
    where: `kind = 'payment' AND amount_centavos = $1 AND at >= $2`,
    params: [amount, since.toISOString()],
  };
}

/** The entries of a batch row id. */
export function rowQuestion(row: string): Question {
  return { where: 'row_id = $1', params: [row] };
}

/**
 * Inserts an entry's start (a migration gives its outcome, finding and match too). A claim's `lease`: who
 * holds it, its heartbeat from now (the transaction's start: never later than its claimant measured it
 * from), and the send deadline after which its claimant will not be sending (leaseEnd: the lease's time
 * to live, the claimant's request timeout, a margin), on the database's clock.
 */
export async function insertEntry(
  sql: Sql | Tx,
  entry: JournalEntry,
  lines: { outcome?: object; resolved?: object; matched?: object },
  lease: { host: string; pid: number; timeoutMs: number; ttlMs: number; marginMs: number } | undefined,
): Promise<number> {
  const { row, key, code } = indexed(entry);
  // JSON goes as text cast to jsonb: a text parameter is never serialised a second time by the driver.
  const json = (value: object | undefined) => (value === undefined ? null : JSON.stringify(value));
  const recorded = lines.outcome === undefined ? 'sending' : entry.state;
  const resolution = lines.resolved === undefined ? null : (entry.resolution ?? null);
  const result = await sql.unsafe(
    `INSERT INTO pix_journal (id, account, kind, at, amount_centavos, row_id, pay_key, emv_hash, state,
       resolution, start, outcome, resolved, matched, lease_host, lease_pid, lease_beat, lease_timeout_ms, send_deadline)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::text::jsonb, $12::text::jsonb, $13::text::jsonb, $14::text::jsonb,
       $15, $16, CASE WHEN $15::text IS NULL THEN NULL ELSE now() END, $17::integer,
       CASE WHEN $15::text IS NULL THEN NULL ELSE now() + $18::integer * interval '1 millisecond' END)
     ON CONFLICT (id) DO NOTHING`,
    [
      entry.id,
      entry.account ?? null,
      entry.kind,
      entry.at,
      entry.amountCentavos,
      row,
      key,
      code,
      recorded,
      resolution,
      // The start line as first written (an imported entry carries its later state in `outcome`).
      JSON.stringify({ ...startLine(entry), state: 'sending' }),
      json(lines.outcome),
      json(lines.resolved),
      json(lines.matched),
      lease?.host ?? null,
      lease?.pid ?? null,
      lease?.timeoutMs ?? null,
      lease === undefined ? null : lease.ttlMs + lease.timeoutMs + lease.marginMs,
    ],
  );
  return result.count;
}

/**
 * A change of an entry after its start (entries.ts): its outcome merged over the earlier ones (its lease
 * ends), the operator's finding, or a charge's match, each kept as the line the file would hold.
 */
export async function writeChange(
  target: Sql | Tx,
  change: { op: 'finish' | 'resolve' | 'match'; id: string; line: Record<string, unknown> },
): Promise<void> {
  const line = JSON.stringify(change.line);
  if (change.op === 'finish') {
    const state = String(change.line.state);
    await target.unsafe(
      // Its request ended: nothing more can be sent for it after a margin (leases.ts SEND_MARGIN_MS).
      `UPDATE pix_journal SET state = $2, outcome = coalesce(outcome, '{}'::jsonb) || $3::text::jsonb,
         lease_host = NULL, lease_pid = NULL, lease_beat = NULL, changed = nextval('pix_journal_changes'),
         send_deadline = least(send_deadline, now() + $4::integer * interval '1 millisecond')
       WHERE id = $1`,
      [change.id, state, line, SEND_MARGIN_MS],
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
}
