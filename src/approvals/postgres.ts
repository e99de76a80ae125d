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
import { openPool, transaction, unreachable } from '../journal/postgres/connect.js';
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

export function postgresApprovalStores(url: string, deps: Deps): ApprovalStores {
  const pool = openPool(url, deps.env, POOL);
  deps.defer(() => pool.sql.end({ timeout: 5 }).catch(() => {}));
  const { sql, where } = pool;
  const by = `pix on ${hostname()}`;
  let readiness: Promise<void> | undefined;
  const using = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      readiness ??= schemaVersion(sql).then((version) => checkSchema(version, where));
      await readiness;
      return await work();
    } catch (error) {
      readiness = undefined;
      throw unreachable(error, pool);
    }
  };
  const recordsOf = (rows: ReadonlyArray<{ record: string; seen_at: Date | string }>): StoredVerdict[] =>
    rows.flatMap((row) => {
      // Written by whoever holds the role: read as any other signed file, and verified again by the caller.
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
  return {
    where: `the shared ledger ${where}`,
    remember: (namespace, subject, records) =>
      using(async () => {
        for (const record of records) {
          await sql.unsafe(
            `INSERT INTO pix_verdicts (digest, namespace, subject, record, seen_by)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (digest) DO NOTHING`,
            [verdictDigest(record), namespace, subject, JSON.stringify(record), by],
          );
        }
        const rows = await sql.unsafe(
          'SELECT record, seen_at FROM pix_verdicts WHERE subject = $1 AND namespace = $2 ORDER BY seq',
          [subject, namespace],
        );
        return recordsOf(rows as unknown as Array<{ record: string; seen_at: Date }>);
      }),
    policies: (account) =>
      using(async () => {
        const rows = (await sql.unsafe(
          `SELECT account, digest, previous, policy, approvals, enforced_at, enforced_by
             FROM pix_policies WHERE account = $1 ORDER BY seq`,
          [account],
        )) as unknown as Array<Record<string, string | null>>;
        return rows.map((row): PolicyRecord => {
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
        });
      }),
    enforce: (record, count) =>
      using(() =>
        transaction(sql, async (tx) => {
          await tx.unsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
            `pix policy ${record.account}`,
          ]);
          const [held] = await tx.unsafe(
            'SELECT count(*)::int AS count FROM pix_policies WHERE account = $1',
            [record.account],
          );
          if (Number(held?.count ?? 0) !== count) throw enforcedMeanwhile(`the shared ledger ${where}`);
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
        }),
      ),
  };
}
