/**
 * The shared ledger's accounts (journal/accounts.ts, schema 3): what one machine learned of an account —
 * its bank details, the credentials seen to reach it, its former names — every other machine reads, so
 * each names the account alike and none asks the DICT again for credentials another asked for today.
 * Written in one transaction under an advisory lock (two machines learning at once merge, never lose a
 * former name), by the same rule as the file (mergeAccount).
 */
import {
  type AccountDirectory,
  type AccountRecord,
  type CredentialRecord,
  type Learning,
  type LegacyClaim,
  mergeAccount,
  type PendingAccount,
  type Recorded,
  sharedNames,
} from '../accounts.js';
import { type Sql, type Tx, transaction } from './connect.js';

const ACCOUNTS_LOCK = 'pix accounts';

interface AccountRow {
  id: string;
  participant: string;
  branch: string;
  number: string;
  owner: string | null;
  basis: string;
  learned_at: string;
  legacy: string;
  names: string[] | null;
}

const ACCOUNT_COLUMNS = `a.id, a.participant, a.branch, a.number, a.owner::text AS owner, a.basis,
  to_char(a.learned_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS learned_at, a.legacy::text AS legacy,
  (SELECT array_agg(n.name ORDER BY n.attached_at, n.name) FROM pix_account_names n WHERE n.account = a.id) AS names`;

function accountOfRow(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    bank: { participant: row.participant, branch: row.branch, number: row.number },
    ...(row.owner === null ? {} : { owner: JSON.parse(row.owner) }),
    basis: row.basis === 'bound' ? 'bound' : 'dict',
    learnedAt: row.learned_at,
    formerIds: row.names ?? [],
    legacy: JSON.parse(row.legacy) as LegacyClaim[],
  };
}

interface CredentialRow {
  fingerprint: string;
  credential: string;
  account: string;
  key_ids: string;
  checked_at: string;
  pending: string | null;
}

const CREDENTIAL_COLUMNS = `fingerprint, credential, account, key_ids::text AS key_ids,
  to_char(checked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS checked_at, pending::text AS pending`;

function credentialOfRow(row: CredentialRow): CredentialRecord {
  return {
    fingerprint: row.fingerprint,
    credential: row.credential,
    account: row.account,
    keyIds: JSON.parse(row.key_ids) as string[],
    checkedAt: row.checked_at,
    ...(row.pending === null ? {} : { pending: JSON.parse(row.pending) as PendingAccount }),
  };
}

async function accountById(target: Sql | Tx, id: string): Promise<AccountRecord | undefined> {
  const [row] = (await target.unsafe(`SELECT ${ACCOUNT_COLUMNS} FROM pix_accounts a WHERE a.id = $1`, [
    id,
  ])) as unknown as AccountRow[];
  return row === undefined ? undefined : accountOfRow(row);
}

async function credentialOf(sql: Sql, fingerprint: string, credential: string) {
  const [row] = (await sql.unsafe(
    `SELECT ${CREDENTIAL_COLUMNS} FROM pix_account_credentials
       WHERE fingerprint = $1 OR credential = $2
       ORDER BY fingerprint = $1 DESC, checked_at DESC LIMIT 1`,
    [fingerprint, credential],
  )) as unknown as CredentialRow[];
  return row === undefined ? undefined : credentialOfRow(row);
}

async function allAccounts(sql: Sql): Promise<AccountRecord[]> {
  const rows = (await sql.unsafe(
    `SELECT ${ACCOUNT_COLUMNS} FROM pix_accounts a ORDER BY a.learned_at`,
  )) as unknown as AccountRow[];
  return rows.map(accountOfRow);
}

/** The account as merged (mergeAccount), written over what was there. */
async function writeAccount(tx: Tx, record: AccountRecord, by: string): Promise<void> {
  const { bank } = record;
  await tx.unsafe(
    `INSERT INTO pix_accounts (id, participant, branch, number, owner, basis, learned_at, learned_by, legacy)
     VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, $7, $8, $9::text::jsonb)
     ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, basis = excluded.basis, legacy = excluded.legacy`,
    [
      record.id,
      bank.participant,
      bank.branch,
      bank.number,
      record.owner === undefined ? null : JSON.stringify(record.owner),
      record.basis,
      record.learnedAt,
      by,
      JSON.stringify(record.legacy),
    ],
  );
}

/** Former names attached to the account, and what pix listen kept under them moved to it. */
async function attachNames(tx: Tx, id: string, attached: readonly string[], by: string): Promise<void> {
  for (const name of attached) {
    await tx.unsafe(
      `INSERT INTO pix_account_names (name, account, attached_by) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [name, id, by],
    );
  }
  if (attached.length === 0) return;
  // pix listen's events, cursor and secret of a former name are the account's (its listener
  // resumes where that one was, with its secret), unless the account has its own already.
  await tx.unsafe(`UPDATE pix_events SET account = $1 WHERE account = ANY($2::text[])`, [id, attached]);
  await tx.unsafe(
    `UPDATE pix_listen SET account = $1 WHERE account = (SELECT account FROM pix_listen
       WHERE account = ANY($2::text[]) ORDER BY account LIMIT 1)
       AND NOT EXISTS (SELECT 1 FROM pix_listen WHERE account = $1)`,
    [id, attached],
  );
}

/** The credential seen to reach the account, checked now (no longer pending). */
async function writeCredential(tx: Tx, learning: Learning, id: string): Promise<void> {
  await tx.unsafe(
    `INSERT INTO pix_account_credentials (fingerprint, credential, account, key_ids, checked_at, pending)
     VALUES ($1, $2, $3, $4::text::jsonb, $5, NULL)
     ON CONFLICT (fingerprint) DO UPDATE SET credential = excluded.credential, account = excluded.account,
       key_ids = excluded.key_ids, checked_at = excluded.checked_at, pending = NULL`,
    [
      learning.fingerprint,
      learning.credential,
      id,
      JSON.stringify(learning.keyIds),
      learning.now.toISOString(),
    ],
  );
}

/** Of the names just attached, those another account also holds (sharedNames), and what they held. */
async function heldByAttached(tx: Tx, attached: readonly string[]) {
  if (attached.length === 0) return { shared: sharedNames([], attached), counted: undefined };
  const holders = (await tx.unsafe(
    `SELECT account AS id, array_agg(name) AS names FROM pix_account_names
       WHERE name = ANY($1::text[]) GROUP BY account`,
    [attached as string[]],
  )) as unknown as Array<{ id: string; names: string[] }>;
  const shared = sharedNames(
    holders.map((holder) => ({ id: holder.id, formerIds: holder.names })),
    attached,
  );
  // What they held, counted where it is (a million rows are not read to count them).
  const [held] = await tx.unsafe(
    `SELECT count(*) FILTER (WHERE kind = 'payment')::int AS payments, count(*)::int AS entries
       FROM pix_journal WHERE account = ANY($1::text[])`,
    [attached as string[]],
  );
  const counted = held && { payments: Number(held.payments), entries: Number(held.entries) };
  return { shared, counted };
}

/** What one machine learned, merged with what the ledger holds, in one transaction under ACCOUNTS_LOCK. */
function recordLearning(sql: Sql, learning: Learning, by: string): Promise<Recorded> {
  return transaction(sql, async (tx) => {
    await tx.unsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [ACCOUNTS_LOCK]);
    const id = learning.account.id;
    const [claim] = learning.baseUrl
      ? await tx.unsafe(`SELECT 1 FROM pix_accounts WHERE id <> $1 AND legacy @> $2::text::jsonb LIMIT 1`, [
          id,
          JSON.stringify([{ baseUrl: learning.baseUrl.baseUrl }]),
        ])
      : [undefined];
    const { record, attached } = mergeAccount(await accountById(tx, id), learning, claim !== undefined);
    await writeAccount(tx, record, by);
    await attachNames(tx, id, attached, by);
    await writeCredential(tx, learning, id);
    const { shared, counted } = await heldByAttached(tx, attached);
    return { account: record, attached, shared, ...(counted ? { counted } : {}) };
  });
}

/** A credential kept with the account it reached before, and what it seems to reach now (pending). */
async function holdCredential(
  sql: Sql,
  known: CredentialRecord,
  fingerprint: string,
  pending: PendingAccount,
) {
  await sql.unsafe(
    `INSERT INTO pix_account_credentials (fingerprint, credential, account, key_ids, checked_at, pending)
     VALUES ($1, $2, $3, $4::text::jsonb, $5, $6::text::jsonb)
     ON CONFLICT (fingerprint) DO UPDATE SET pending = excluded.pending`,
    [
      fingerprint,
      known.credential,
      known.account,
      JSON.stringify(known.keyIds),
      known.checkedAt,
      JSON.stringify(pending),
    ],
  );
}

/**
 * The accounts of the ledger at `sql`. `using`: runs a query once the store is ready (its schema checked),
 * a failure exit 6; `by`: this machine, as rows name who wrote them.
 */
export function postgresAccounts(
  sql: Sql,
  where: string,
  by: string,
  using: <T>(work: () => Promise<T>) => Promise<T>,
): AccountDirectory {
  return {
    where,
    credential: (fingerprint, credential) => using(() => credentialOf(sql, fingerprint, credential)),
    account: (id) => using(() => accountById(sql, id)),
    accounts: () => using(() => allAccounts(sql)),
    record: (learning) => using(() => recordLearning(sql, learning, by)),
    hold: (known, fingerprint, pending) => using(() => holdCredential(sql, known, fingerprint, pending)),
  };
}
