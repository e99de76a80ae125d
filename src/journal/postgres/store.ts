/**
 * The PostgreSQL store of the journal (docs/team.md), behind the one interface (journal/stores.ts): the
 * same rules (rules.ts) over the entries its queries select, and claims made by the database.
 *
 * - A claim (a payment, a batch or plan row) is one transaction under the account's advisory lock: the
 *   entries the rules ask about are read, judged, and the `sending` entry is inserted only if none blocks
 *   it, before the transfer is sent. Two machines claiming the same row: the second waits for the first's
 *   commit, then sees its entry and stops.
 * - A `sending` claim carries a lease (host, pid, heartbeat on the database's clock), beaten while the
 *   process lives. Another machine sees it "in progress on HOST" while it beats; one that stopped beating
 *   (or whose process on this machine is gone) becomes `unknown`: held until `pix journal resolve`, from
 *   any machine, never in progress forever and never silently unpaid.
 * - The database unreachable before a claim: exit 6, nothing sent. Lost after the transfer left: the
 *   outcome goes to the spill file (spill.ts) and the command exits 7; the next command here that reaches
 *   the database writes it first.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Clock, DEFAULT_TIMEOUT_MS, type Env, type Processes } from '../../context.js';
import { PixError } from '../../errors.js';
import type { JournalEntry, StartFields } from '../entries.js';
import { createJournalParser } from '../parser.js';
import { type Account, type DuplicateQuery, findBlocking, rowBlocker, type Scope } from '../rules.js';
import type { JournalScope } from '../store.js';
import { type Claim, type Holder, type JournalStore, judgeClaim, OutcomeSpilled } from '../stores.js';
import { postgresAccounts } from './accounts.js';
import { postgresCloses } from './closes.js';
import {
  isConnectionError,
  openPool,
  type Pool,
  reasonOf,
  type Sql,
  type Tx,
  transaction,
  unreachable,
} from './connect.js';
import { createLeases, LEASE_TTL_MS, SEND_MARGIN_MS } from './leases.js';
import {
  blockingQuestion,
  COLUMNS,
  entriesOf,
  insertEntry,
  paymentsQuestion,
  type Question,
  type Row,
  rowQuestion,
  writeChange,
} from './queries.js';
import { checkSchema, schemaVersion } from './schema.js';
import { drain, judgeSpilled, type SpilledChange, type SpillProblem, spill } from './spill.js';

export { LEASE_BEAT_MS, LEASE_TTL_MS, SEND_MARGIN_MS } from './leases.js';

/** The steps of a claimed payment, where a test may pause it (storeSeams). */
export type ClaimStep = 'claimed' | 'sending' | 'sent' | 'recorded';

/**
 * The store's test seam: `pause` is awaited at each step of claim → send → record, so a test pauses a
 * claimant deterministically where SIGSTOP could (test/journal/claim-pause.test.ts), never by sleeping.
 * Unset outside tests.
 */
export const storeSeams: {
  pause?: ((step: ClaimStep, id: string) => Promise<void>) | undefined;
  /** The monotonic clock leases are measured by, so a test's pause can last longer than it takes. */
  monotonic?: (() => number) | undefined;
} = {};

export interface PostgresJournalOptions {
  url: string;
  /** The config directory: where the spill file is kept. */
  dir: string;
  clock: Clock;
  processes: Processes;
  /** This machine's name, as leases carry it (os.hostname() unless given). */
  host?: string | undefined;
  /** The claimant's request timeout (`--timeout`): what its claims' send deadlines allow a request. */
  requestTimeoutMs?: number | undefined;
  /**
   * This machine as the wiring hands it (src/system.ts; architecture rule 2): the locks' jitter, the
   * monotonic clock in ms leases are measured by (leases.ts; a test's storeSeams.monotonic before it), and
   * how this process stops itself (PIX_TEST_STOP_AT).
   */
  system: { random(): number; monotonic(): number; stopSelf(): void };
  /**
   * A step at which this process stops itself as SIGSTOP would (PIX_TEST_STOP_AT, read by the wiring):
   * the end-to-end reproduction of a pause (test/reliability/claim-pause.test.ts). Unset outside tests.
   */
  stopAt?: string | undefined;
  /** Where HOME (a CA file) and the login name (the default user) are read: nothing else of it. */
  env?: Env | undefined;
}

export { checkSchema, schemaVersion } from './schema.js';

/**
 * One open PostgreSQL journal: its pool, this machine's leases and the state its steps share (below, one
 * module-level function a step, as journal/opened.ts does for the file store; architecture rule 14).
 */
interface OpenedPostgresJournal {
  readonly pool: Pool;
  readonly sql: Sql;
  readonly where: string;
  readonly clock: Clock;
  readonly processes: Processes;
  /** The config directory: where the spill file is kept. */
  readonly dir: string;
  readonly host: string;
  readonly system: PostgresJournalOptions['system'];
  readonly stopAt: string | undefined;
  readonly leases: ReturnType<typeof createLeases>;
  /** What a claim's lease and send deadline are made of (queries.ts insertEntry). */
  readonly leaseOf: Parameters<typeof insertEntry>[3];
  readonly lockHost: { clock: Clock; random(): number; processes: Processes };
  /** A spilled outcome the database contradicts, or a damaged spill file: money stops (spill.ts). */
  spillProblem: SpillProblem | undefined;
  /** Connected, the schema checked, and this machine's spilled outcomes written first. */
  readiness: Promise<void> | undefined;
  closed: boolean;
}

/** The monotonic clock leases are measured by: a test's (storeSeams) before the machine's. */
function monotonicOf(system: PostgresJournalOptions['system']): number {
  return (storeSeams.monotonic ?? system.monotonic)();
}

/** A step of claim → send → record: a test's pause, or the reproduction's stop. */
async function step(journal: OpenedPostgresJournal, at: ClaimStep, id: string): Promise<void> {
  if (journal.stopAt === at) journal.system.stopSelf();
  await storeSeams.pause?.(at, id);
}

/** A spilled outcome, written only where the database agrees it is still awaited (judgeSpilled). */
function applySpilled(journal: OpenedPostgresJournal, change: SpilledChange) {
  return transaction(journal.sql, async (tx) => {
    const [row] = await tx.unsafe('SELECT state, resolution FROM pix_journal WHERE id = $1 FOR UPDATE', [
      change.id,
    ]);
    const said = judgeSpilled(
      change,
      row === undefined ? undefined : { state: String(row.state), resolution: row.resolution ?? null },
    );
    if (said === 'apply') await writeChange(tx, change);
    return said === 'apply' ? 'applied' : said;
  });
}

/** Connected, the schema checked, and this machine's spilled outcomes written first (once). */
function ready(journal: OpenedPostgresJournal): Promise<void> {
  journal.readiness ??= (async () => {
    try {
      checkSchema(await schemaVersion(journal.sql), journal.where);
      const drained = await drain(journal.dir, journal.where, journal.lockHost, (change) =>
        applySpilled(journal, change),
      );
      journal.spillProblem = drained.problem;
    } catch (error) {
      journal.readiness = undefined;
      throw unreachable(error, journal.pool);
    }
  })();
  return journal.readiness;
}

/** Ready, and nothing spilled that stops money (exit 8, naming the file and line). */
async function sound(journal: OpenedPostgresJournal): Promise<void> {
  await ready(journal);
  const problem = journal.spillProblem;
  if (problem === undefined) return;
  throw new PixError(
    'declined',
    `the ledger spill file cannot be trusted: ${problem.message}; nothing was sent`,
    {
      hint: `\`pix ledger status\` names it; settle the entry (\`pix statement\`, then \`pix journal resolve\`), then move ${problem.file} and its .checkpoint aside`,
    },
  );
}

/** Runs a read or a write once ready; a failure is exit 6 (nothing was sent because of it). */
async function using<T>(journal: OpenedPostgresJournal, work: () => Promise<T>): Promise<T> {
  await ready(journal);
  try {
    return await work();
  } catch (error) {
    throw unreachable(error, journal.pool);
  }
}

async function select(target: Sql | Tx, { where, params }: Question): Promise<JournalEntry[]> {
  return entriesOf(
    (await target.unsafe(
      `SELECT ${COLUMNS} FROM pix_journal WHERE ${where} ORDER BY seq`,
      params as never[],
    )) as unknown as Row[],
  );
}

async function seqOf(target: Sql | Tx, scope: JournalScope = {}): Promise<Scope> {
  const { before, ...rest } = scope;
  if (before === undefined) return rest;
  const [row] = await target.unsafe('SELECT seq FROM pix_journal WHERE id = $1', [before]);
  return { ...rest, before: row === undefined ? Number.POSITIVE_INFINITY : Number(row.seq) };
}

/** The rules' questions, asked of `target` (the pool, or a claim's transaction). */
function questions(clock: Clock, target: Sql | Tx) {
  return {
    async rowBlocker(row: string, account: Account, scope?: JournalScope) {
      return rowBlocker(await select(target, rowQuestion(row)), account, await seqOf(target, scope));
    },
    async findBlocking(query: DuplicateQuery, account: Account, scope?: JournalScope) {
      const now = clock.now();
      const candidates = await select(target, blockingQuestion(query, now));
      return findBlocking(candidates, query, now, account, await seqOf(target, scope));
    },
  };
}

function newEntry(journal: OpenedPostgresJournal, fields: StartFields & { account: string }): JournalEntry {
  return {
    ...fields,
    pid: journal.processes.pid,
    id: randomUUID(),
    seq: Number.POSITIVE_INFINITY,
    at: journal.clock.now().toISOString(),
    state: 'sending',
  };
}

/** A change after the transfer left: written, or kept in the spill file when the database is lost. */
async function afterSend(journal: OpenedPostgresJournal, change: Pick<SpilledChange, 'op' | 'id' | 'line'>) {
  journal.leases.drop(change.id);
  try {
    await ready(journal);
    await writeChange(journal.sql, change);
  } catch (error) {
    const file = await spill(journal.dir, { db: journal.where, ...change }, journal.lockHost);
    const why = error instanceof PixError ? error.message : reasonOf(error, journal.pool.url);
    throw new OutcomeSpilled(why, file);
  }
}

/**
 * Rows are written whole by transactions: there is no torn or damaged line to find, only entries the reader
 * cannot take (written by hand), named by their place.
 */
async function verify(journal: OpenedPostgresJournal) {
  const { sql } = journal;
  const rows = await using(
    journal,
    async () => (await sql.unsafe(`SELECT ${COLUMNS} FROM pix_journal ORDER BY seq`)) as unknown as Row[],
  );
  const damage = [];
  for (const row of rows) {
    const parser = createJournalParser();
    parser.feed(
      `${[row.start, row.outcome, row.resolved, row.matched].filter((l) => l !== null).join('\n')}\n`,
    );
    for (const found of parser.damage()) damage.push({ line: Number(row.seq), reason: found.reason });
  }
  return { damage, torn: [] };
}

async function damageWarning(journal: OpenedPostgresJournal): Promise<string | undefined> {
  await ready(journal);
  const problem = journal.spillProblem;
  return (
    problem &&
    `warning: the ledger spill file cannot be trusted (${problem.message}): payments and charges are stopped`
  );
}

async function claim(
  journal: OpenedPostgresJournal,
  fields: StartFields & { account: string },
  question: Parameters<typeof judgeClaim>[1],
): Promise<Claim> {
  await sound(journal);
  const entry = newEntry(journal, fields);
  let claimed: Claim;
  // Measured before the transaction begins: never later than its now(), the lease's stamp.
  const sentAt = monotonicOf(journal.system);
  try {
    claimed = await transaction(journal.sql, async (tx): Promise<Claim> => {
      // One claim at a time per account, across every machine: the rules then see every earlier entry.
      await tx.unsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `pix claim ${fields.account}`,
      ]);
      const blocked = await judgeClaim(questions(journal.clock, tx), question);
      if (blocked !== undefined) return { blocked };
      await insertEntry(tx, entry, {}, journal.leaseOf);
      return { entry };
    });
  } catch (error) {
    throw unreachable(error, journal.pool);
  }
  if (claimed.entry !== undefined) {
    journal.leases.take(claimed.entry.id, sentAt);
    await step(journal, 'claimed', claimed.entry.id);
  }
  return claimed;
}

async function begin(journal: OpenedPostgresJournal, fields: StartFields & { account: string }) {
  await sound(journal);
  const entry = newEntry(journal, fields);
  const sentAt = monotonicOf(journal.system);
  try {
    await insertEntry(journal.sql, entry, {}, journal.leaseOf);
  } catch (error) {
    throw unreachable(error, journal.pool);
  }
  journal.leases.take(entry.id, sentAt);
  return entry;
}

async function finish(
  journal: OpenedPostgresJournal,
  id: string,
  outcome: Parameters<JournalStore['finish']>[1],
) {
  await step(journal, 'sent', id);
  await afterSend(journal, {
    op: 'finish',
    id,
    line: { id, at: journal.clock.now().toISOString(), ...outcome },
  });
  await step(journal, 'recorded', id);
}

function sendDeadline(journal: OpenedPostgresJournal, entry: JournalEntry) {
  return using(journal, async () => {
    const [row] = await journal.sql.unsafe(
      `SELECT extract(epoch FROM send_deadline) * 1000 AS until,
         extract(epoch FROM send_deadline - now()) * 1000 AS remaining
       FROM pix_journal WHERE id = $1 AND send_deadline > now()`,
      [entry.id],
    );
    if (row === undefined) return undefined;
    return {
      until: new Date(Math.ceil(Number(row.until))),
      remainingMs: Math.ceil(Number(row.remaining)),
    };
  });
}

/** Who holds a `sending` entry now: a live lease of another process, or nobody (then it is judged `unknown`). */
async function holder(journal: OpenedPostgresJournal, entry: JournalEntry): Promise<Holder | undefined> {
  if (entry.state !== 'sending' || entry.resolution !== undefined) return undefined;
  const { sql, host, processes } = journal;
  return using(journal, async () => {
    const [row] = await sql.unsafe(
      `SELECT lease_host, lease_pid, lease_beat, now() - lease_beat < $2::interval AS live
         FROM pix_journal WHERE id = $1 AND state = 'sending'`,
      [entry.id, `${LEASE_TTL_MS} milliseconds`],
    );
    if (row === undefined) {
      // Finished (or resolved) since it was read, maybe by another machine: the entry is brought up to
      // date, as the file store's entries are by its reads, so the caller judges it as it is now.
      const [now] = await select(sql, { where: 'id = $1', params: [entry.id] });
      if (now !== undefined) Object.assign(entry, now, { seq: entry.seq });
      return undefined;
    }
    const pid = row.lease_pid === null ? undefined : Number(row.lease_pid);
    const here = row.lease_host === host;
    if (here && pid === processes.pid) return undefined;
    const live = row.live === true && pid !== undefined && (!here || processes.alive(pid));
    if (live) return { host: String(row.lease_host), pid: pid!, here };
    await expireLease(journal, entry, pid, here && pid !== undefined && !processes.alive(pid));
    return undefined;
  });
}

/**
 * Its process is gone, or its lease stopped beating: the outcome is unknown, held until resolved. Only while
 * it is still so (the process may have finished it meanwhile, or beaten again). A process of this machine
 * known gone (`gone`) sends nothing more: its send deadline goes with it.
 */
async function expireLease(
  journal: OpenedPostgresJournal,
  entry: JournalEntry,
  pid: number | undefined,
  gone: boolean,
): Promise<void> {
  await journal.sql.unsafe(
    `UPDATE pix_journal SET state = 'unknown', outcome = coalesce(outcome, '{}'::jsonb) || $2::text::jsonb,
       lease_host = NULL, lease_pid = NULL, lease_beat = NULL, changed = nextval('pix_journal_changes'),
       send_deadline = CASE WHEN lease_host = $4 AND lease_pid = $5 AND $6::boolean THEN NULL
         ELSE send_deadline END
     WHERE id = $1 AND state = 'sending' AND (lease_beat IS NULL OR now() - lease_beat >= $3::interval
       OR (lease_host = $4 AND lease_pid = $5 AND $6::boolean))`,
    [
      entry.id,
      JSON.stringify({
        id: entry.id,
        at: journal.clock.now().toISOString(),
        state: 'unknown',
        reason: 'lease expired',
      }),
      `${LEASE_TTL_MS} milliseconds`,
      journal.host,
      pid ?? -1,
      gone,
    ],
  );
}

async function close(journal: OpenedPostgresJournal): Promise<void> {
  if (journal.closed) return;
  journal.closed = true;
  journal.leases.close();
  // A database that went away mid-command may fail its own goodbye: nothing is left to record by then
  // (every outcome was written or spilled), so the command's exit is what it already decided.
  await journal.sql.end({ timeout: 5 }).catch(() => {});
}

/** The journal's pool opened (not yet connected: the first read or claim connects, ready above). */
function openedPostgresJournal(options: PostgresJournalOptions): OpenedPostgresJournal {
  const pool: Pool = openPool(options.url, options.env ?? {});
  const { clock, processes, system } = options;
  const host = options.host ?? hostname();
  return {
    pool,
    sql: pool.sql,
    where: pool.where,
    clock,
    processes,
    dir: options.dir,
    host,
    system,
    stopAt: options.stopAt,
    leases: createLeases(pool.sql, { host, pid: processes.pid }, () => monotonicOf(system)),
    leaseOf: {
      host,
      pid: processes.pid,
      timeoutMs: options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      ttlMs: LEASE_TTL_MS,
      marginMs: SEND_MARGIN_MS,
    },
    lockHost: { clock, random: system.random, processes },
    spillProblem: undefined,
    readiness: undefined,
    closed: false,
  };
}

export function openPostgresJournal(options: PostgresJournalOptions): JournalStore {
  const journal = openedPostgresJournal(options);
  const { sql, where, clock, host, processes } = journal;
  const run = <T>(work: () => Promise<T>) => using(journal, work);
  const stamp = () => clock.now().toISOString();
  return {
    backend: 'postgres',
    where,
    read: () => run(() => select(sql, { where: 'true', params: [] })),
    payments: (amount, since) => run(() => select(sql, paymentsQuestion(amount, since))),
    version: () =>
      run(async () => {
        const [row] = await sql.unsafe('SELECT coalesce(max(changed), 0)::text AS changed FROM pix_journal');
        return String(row?.changed ?? '0');
      }),
    verify: () => verify(journal),
    // Nothing to accept: the reader's complaints about a row written by hand are for its operator to mend.
    accept: async () => [],
    damageWarning: () => damageWarning(journal),
    checkSound: () => sound(journal),
    claim: (fields, question) => claim(journal, fields, question),
    begin: (fields) => begin(journal, fields),
    async beforeSend(entry) {
      await step(journal, 'sending', entry.id);
      journal.leases.checkSend(entry.id);
    },
    finish: (id, outcome) => finish(journal, id, outcome),
    sendDeadline: (entry) => sendDeadline(journal, entry),
    resolve: (id, resolution) =>
      run(() => writeChange(sql, { op: 'resolve', id, line: { id, at: stamp(), resolution } })),
    match: (id, match) => run(() => writeChange(sql, { op: 'match', id, line: { id, at: stamp(), match } })),
    findBlocking: (query, account, scope) =>
      run(() => questions(clock, sql).findBlocking(query, account, scope)),
    rowBlocker: (row, account, scope) => run(() => questions(clock, sql).rowBlocker(row, account, scope)),
    rowEntries: (row) => run(() => select(sql, rowQuestion(row))),
    holder: (entry) => holder(journal, entry),
    accounts: () => postgresAccounts(sql, where, `${host} pid ${processes.pid}`, run),
    closes: () => postgresCloses(sql, where, `${host} pid ${processes.pid}`, run),
    close: () => close(journal),
  };
}

export { isConnectionError };
