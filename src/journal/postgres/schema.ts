/**
 * The shared ledger's schema, as versioned migrations shipped in the package (docs/team.md). `pix ledger
 * init` applies those not yet applied, each in its own transaction under an advisory lock, so two machines
 * initialising at once apply each once; it is idempotent, and refuses a schema newer than this pix knows.
 * Every other command only checks the version (`pix ledger init` is the one that changes the schema).
 *
 * The journal is one row per entry: the start line (`start`), the latest outcome merged over the earlier
 * ones (`outcome`, as the file's reader merges outcome lines), the operator's finding (`resolved`) and the
 * charge's match (`matched`), each kept as the line the file would hold, so one reader (parser.ts)
 * reads both stores. The columns beside them are what the rules ask by (row id, key, code, amount and
 * time, state) and the lease of a `sending` claim (host, pid, heartbeat: the database's clock).
 */
import { PixError } from '../../errors.js';
import { isConnectionError, reserved, type Sql, type Tx } from './connect.js';

export interface Migration {
  version: number;
  what: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    what: 'the journal (payments, charges, batch and plan rows) with claims and leases',
    sql: `
      CREATE SEQUENCE pix_journal_changes;
      CREATE TABLE pix_journal (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        account text,
        kind text NOT NULL,
        at timestamptz NOT NULL,
        amount_centavos bigint NOT NULL,
        row_id text,
        pay_key text,
        emv_hash text,
        state text NOT NULL,
        resolution text,
        start jsonb NOT NULL,
        outcome jsonb,
        resolved jsonb,
        matched jsonb,
        lease_host text,
        lease_pid integer,
        lease_beat timestamptz,
        changed bigint NOT NULL DEFAULT nextval('pix_journal_changes')
      );
      CREATE INDEX pix_journal_row ON pix_journal (row_id) WHERE row_id IS NOT NULL;
      CREATE INDEX pix_journal_key ON pix_journal (pay_key) WHERE pay_key IS NOT NULL;
      CREATE INDEX pix_journal_code ON pix_journal (emv_hash) WHERE emv_hash IS NOT NULL;
      CREATE INDEX pix_journal_amount ON pix_journal (amount_centavos, at);
      CREATE INDEX pix_journal_open ON pix_journal (seq)
        WHERE state IN ('sending', 'unknown') AND resolution IS NULL;
      CREATE INDEX pix_journal_changed ON pix_journal (changed);
    `,
  },
  {
    version: 2,
    what: "pix listen's events, deliveries and cursor, per account",
    // An event's body is kept as the text delivered (jsonb would reorder its keys: the bytes signed would
    // differ between deliveries). The id is the primary key: an event is made once, whoever makes it.
    sql: `
      CREATE TABLE pix_events (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        account text NOT NULL,
        type text NOT NULL,
        created text NOT NULL,
        body text NOT NULL,
        state text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        made_at timestamptz NOT NULL DEFAULT now(),
        made_by text NOT NULL
      );
      CREATE INDEX pix_events_owed ON pix_events (account, seq) WHERE state = 'pending';
      CREATE TABLE pix_event_attempts (
        seq bigserial PRIMARY KEY,
        event_id text NOT NULL REFERENCES pix_events (id),
        at text NOT NULL,
        ok boolean NOT NULL,
        status integer,
        error text,
        kind text NOT NULL DEFAULT 'attempt',
        by_host text NOT NULL,
        by_pid integer NOT NULL
      );
      CREATE INDEX pix_event_attempts_event ON pix_event_attempts (event_id);
      CREATE TABLE pix_listen (
        account text PRIMARY KEY,
        cursor jsonb,
        host text,
        pid integer,
        profile text,
        destination text,
        since timestamptz,
        backend_pid integer,
        secret text
      );
    `,
  },
  {
    version: 3,
    what: 'accounts by their bank details, claims that cannot be outlived, closed days',
    // Accounts (journal/accounts.ts): the bank account, the credentials seen to reach it (digests, never a
    // secret), the names records were written under before. A claim's send deadline (store.ts): the
    // database's time after which its claimant will not send, the request's timeout included. Closed days
    // (commands/shared/books/store.ts): each close as the line the file would hold, the latest of a day
    // its close.
    sql: `
      CREATE TABLE pix_accounts (
        id text PRIMARY KEY,
        participant text NOT NULL,
        branch text NOT NULL,
        number text NOT NULL,
        owner jsonb,
        basis text NOT NULL,
        learned_at timestamptz NOT NULL,
        learned_by text NOT NULL,
        legacy jsonb NOT NULL DEFAULT '[]'
      );
      CREATE TABLE pix_account_names (
        name text NOT NULL,
        account text NOT NULL REFERENCES pix_accounts (id),
        attached_at timestamptz NOT NULL DEFAULT now(),
        attached_by text NOT NULL,
        PRIMARY KEY (name, account)
      );
      CREATE TABLE pix_account_credentials (
        fingerprint text PRIMARY KEY,
        credential text NOT NULL,
        account text NOT NULL REFERENCES pix_accounts (id),
        key_ids jsonb NOT NULL DEFAULT '[]',
        checked_at timestamptz NOT NULL,
        pending jsonb
      );
      CREATE INDEX pix_account_credentials_id ON pix_account_credentials (credential, checked_at);
      ALTER TABLE pix_journal ADD COLUMN lease_timeout_ms integer, ADD COLUMN send_deadline timestamptz;
      CREATE TABLE pix_closes (
        seq bigserial PRIMARY KEY,
        account text NOT NULL,
        day text NOT NULL,
        line text NOT NULL,
        closed_at timestamptz NOT NULL DEFAULT now(),
        closed_by text NOT NULL
      );
      CREATE INDEX pix_closes_day ON pix_closes (account, day, seq);
    `,
  },
  {
    version: 4,
    what: 'payment approvals: every verdict seen, and the policy in force of each account',
    // A verdict is kept once, by its signature's digest, as the record that was signed; the policies an
    // account was bound to are kept in order, each with the approvals of its digest (pix re-verifies both
    // when it reads them: a row written by hand counts for nothing, or stops payments, never loosens them).
    sql: `
      CREATE TABLE pix_verdicts (
        seq bigserial PRIMARY KEY,
        digest text NOT NULL UNIQUE,
        namespace text NOT NULL,
        subject text NOT NULL,
        record text NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now(),
        seen_by text NOT NULL
      );
      CREATE INDEX pix_verdicts_subject ON pix_verdicts (subject, namespace);
      CREATE TABLE pix_policies (
        seq bigserial PRIMARY KEY,
        account text NOT NULL,
        digest text NOT NULL,
        previous text,
        policy text NOT NULL,
        approvals text NOT NULL,
        enforced_at text NOT NULL,
        enforced_by text NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX pix_policies_account ON pix_policies (account, seq);
    `,
  },
  {
    version: 5,
    what: 'scheduled payments (their occurrences are journal rows)',
    sql: `
      CREATE SEQUENCE pix_schedules_changes;
      CREATE TABLE pix_schedules (
        id text PRIMARY KEY,
        account text NOT NULL,
        created_at timestamptz NOT NULL,
        body jsonb NOT NULL,
        state text NOT NULL,
        state_at timestamptz,
        settled text,
        changed bigint NOT NULL DEFAULT nextval('pix_schedules_changes')
      );
      CREATE INDEX pix_schedules_changed ON pix_schedules (changed);
    `,
  },
];

/** The newest schema this pix knows. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** The table that records which migrations were applied (created by `pix ledger init`). */
export const SCHEMA_TABLE = `
  CREATE TABLE IF NOT EXISTS pix_schema (
    version integer PRIMARY KEY,
    what text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    applied_by text NOT NULL
  )
`;

/** The advisory lock `pix ledger init` holds while it migrates (one key for the whole schema). */
export const MIGRATION_LOCK = 'pix ledger schema';

/** What `migrateSchema` did: the version before and after, and the migrations it applied. */
export interface MigrationReport {
  from: number;
  to: number;
  applied: number[];
}

/**
 * Applies the migrations this database has not had, each in its own transaction, under an advisory lock
 * (two machines initialising at once: the second waits, then finds nothing to do). Refuses a schema newer
 * than this pix knows (it would not know what the newer one means): nothing is changed then.
 */
export async function migrateSchema(
  sql: Sql,
  appliedBy: string,
  where = 'the ledger',
): Promise<MigrationReport> {
  return reserved(sql, async (tx, note) => {
    await tx.unsafe('SELECT pg_advisory_lock(hashtextextended($1, 0))', [MIGRATION_LOCK]);
    try {
      await tx.unsafe(SCHEMA_TABLE);
      const [row] = await tx.unsafe('SELECT coalesce(max(version), 0) AS version FROM pix_schema');
      const from = Number(row?.version ?? 0);
      if (from > SCHEMA_VERSION) throw new NewerSchema(from, where);
      const applied: number[] = [];
      for (const migration of MIGRATIONS) {
        if (migration.version <= from) continue;
        await tx.unsafe('BEGIN');
        try {
          await tx.unsafe(migration.sql);
          await tx.unsafe('INSERT INTO pix_schema (version, what, applied_by) VALUES ($1, $2, $3)', [
            migration.version,
            migration.what,
            appliedBy,
          ]);
          await tx.unsafe('COMMIT');
        } catch (error) {
          // A dropped connection needs no ROLLBACK (connect.ts transaction says why it must not get one).
          if (!isConnectionError(error)) await tx.unsafe('ROLLBACK').catch(note);
          throw error;
        }
        applied.push(migration.version);
      }
      return { from, to: Math.max(from, SCHEMA_VERSION), applied };
    } finally {
      await tx.unsafe('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [MIGRATION_LOCK]).catch(note);
    }
  });
}

/** The database's schema is newer than this pix: it refuses to touch it (exit 8). */
export class NewerSchema extends PixError {
  constructor(
    readonly version: number,
    where: string,
  ) {
    super(
      'declined',
      `${where}: schema ${version} is newer than this pix knows (${SCHEMA_VERSION}); nothing was changed`,
      {
        hint: 'upgrade pix on this machine: another machine runs a newer one',
      },
    );
  }
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
