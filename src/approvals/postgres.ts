/**
 * The approvals' stores on the shared PostgreSQL ledger (stores.ts; schema 4, journal/postgres/schema.ts):
 * every verdict any machine has seen (`pix_verdicts`, one row per signature) and the policies each account
 * was bound to (`pix_policies`, in order). Loaded only for a profile whose ledger is a database
 * (architecture rule 8). A policy is recorded in one transaction under the account's advisory lock, only
 * while the newest one is still the one it replaces, so two machines enforcing at once record one.
 */
import { hostname } from 'node:os';
import type { Deps } from '../context.js';
import { parseJsonSource } from '../domain/jsonsource.js';
import { openPool, type Pool, type Sql, transaction, unreachable } from '../journal/postgres/connect.js';
import { checkSchema, schemaVersion } from '../journal/postgres/store.js';
import { approvalOf } from './files.js';
import {
  type ApprovalStores,
  enforcedMeanwhile,
  type PolicyRecord,
  type StoredVerdict,
  verdictDigest,
} from './remembered.js';

/** Connections these stores open: a few reads and one insert at a time. */
const POOL = 2;

/** The stores' pool and whether its schema was checked (the steps below share them; rule 14). */
interface Ledger {
  readonly pool: Pool;
  readonly sql: Sql;
  readonly where: string;
  /** This machine, as rows name who wrote them. */
  readonly by: string;
  readiness: Promise<void> | undefined;
}

/** Runs a read or a write once the schema is checked; a failure is exit 6. */
async function using<T>(ledger: Ledger, work: () => Promise<T>): Promise<T> {
  try {
    ledger.readiness ??= schemaVersion(ledger.sql).then((version) => checkSchema(version, ledger.where));
    await ledger.readiness;
    return await work();
  } catch (error) {
    ledger.readiness = undefined;
    throw unreachable(error, ledger.pool);
  }
}

/** Written by whoever holds the role: read as any other signed file, and verified again by the caller. */
function recordsOf(rows: ReadonlyArray<{ record: string; seen_at: Date | string }>): StoredVerdict[] {
  return rows.flatMap((row) => {
    let json: unknown;
    try {
      json = parseJsonSource(row.record).value;
    } catch {
      return [];
    }
    const read = approvalOf(json);
    if ('problem' in read) return [];
    const seenAt = row.seen_at instanceof Date ? row.seen_at.toISOString() : String(row.seen_at);
    return [{ record: read.record, seenAt }];
  });
}

async function remember(
  ledger: Ledger,
  namespace: string,
  subject: string,
  records: Parameters<ApprovalStores['remember']>[2],
): Promise<StoredVerdict[]> {
  const { sql } = ledger;
  for (const record of records) {
    await sql.unsafe(
      `INSERT INTO pix_verdicts (digest, namespace, subject, record, seen_by)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (digest) DO NOTHING`,
      [verdictDigest(record), namespace, subject, JSON.stringify(record), ledger.by],
    );
  }
  const rows = await sql.unsafe(
    'SELECT record, seen_at FROM pix_verdicts WHERE subject = $1 AND namespace = $2 ORDER BY seq',
    [subject, namespace],
  );
  return recordsOf(rows as unknown as Array<{ record: string; seen_at: Date }>);
}

function policyOfRow(row: Record<string, string | null>): PolicyRecord {
  let approvals: PolicyRecord['approvals'] = [];
  try {
    const list = parseJsonSource(String(row.approvals)).value;
    approvals = Array.isArray(list)
      ? list.flatMap((item) => {
          const read = approvalOf(item);
          return 'record' in read ? [read.record] : [];
        })
      : [];
  } catch {
    // Unreadable approvals approve nothing: the record then fails its check (enforced.ts).
  }
  return {
    account: String(row.account),
    digest: String(row.digest),
    ...(row.previous === null ? {} : { previous: String(row.previous) }),
    policy: String(row.policy),
    approvals,
    at: String(row.enforced_at),
    by: String(row.enforced_by),
  };
}

async function policies(ledger: Ledger, account: string): Promise<PolicyRecord[]> {
  const rows = (await ledger.sql.unsafe(
    `SELECT account, digest, previous, policy, approvals, enforced_at, enforced_by
       FROM pix_policies WHERE account = $1 ORDER BY seq`,
    [account],
  )) as unknown as Array<Record<string, string | null>>;
  return rows.map(policyOfRow);
}

/** Recorded only while the account holds `count` policies (the newest is the one it replaces). */
function enforce(ledger: Ledger, record: PolicyRecord, count: number): Promise<void> {
  return transaction(ledger.sql, async (tx) => {
    await tx.unsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `pix policy ${record.account}`,
    ]);
    const [held] = await tx.unsafe('SELECT count(*)::int AS count FROM pix_policies WHERE account = $1', [
      record.account,
    ]);
    if (Number(held?.count ?? 0) !== count) throw enforcedMeanwhile(`the shared ledger ${ledger.where}`);
    await tx.unsafe(
      `INSERT INTO pix_policies (account, digest, previous, policy, approvals, enforced_at, enforced_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        record.account,
        record.digest,
        record.previous ?? null,
        record.policy,
        JSON.stringify(record.approvals),
        record.at,
        record.by,
      ],
    );
  });
}

export function postgresApprovalStores(url: string, deps: Deps): ApprovalStores {
  const pool = openPool(url, deps.env, POOL);
  deps.defer(() => pool.sql.end({ timeout: 5 }).catch(() => {}));
  const ledger: Ledger = {
    pool,
    sql: pool.sql,
    where: pool.where,
    by: `pix on ${hostname()}`,
    readiness: undefined,
  };
  return {
    where: `the shared ledger ${ledger.where}`,
    remember: (namespace, subject, records) =>
      using(ledger, () => remember(ledger, namespace, subject, records)),
    policies: (account) => using(ledger, () => policies(ledger, account)),
    enforce: (record, count) => using(ledger, () => enforce(ledger, record, count)),
  };
}
