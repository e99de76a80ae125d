/**
 * `pix ledger migrate --from file`: this machine's history into the shared ledger (docs/team.md) — the
 * journal of the config directory, whose charges are the charge ledger, and `pix listen`'s event logs
 * (each event by its id, with its delivery; the cursor and signing secret where the account has none). Idempotent: an entry already in
 * the database (by its id) is left as it is, so a second run imports nothing. The counts are checked
 * after: every entry of the file is in the database, or the command fails (exit 1) saying how many are
 * missing. A file journal with damaged lines is refused (exit 8): what a damaged line said is unknown,
 * and importing around it would make the shared ledger forget a payment.
 */
import { readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { configDir } from '../../config/store.js';
import type { Deps } from '../../context.js';
import type { EventState } from '../../domain/event-log.js';
import type { PixEvent } from '../../domain/events.js';
import { PixError } from '../../errors.js';
import { describeLogDamage, readEventLog } from '../../events/log.js';
import type { ImportedLog } from '../../events/postgres.js';
import { openAccounts } from '../../journal/accounts.js';
import type { JournalEntry } from '../../journal/entries.js';
import type { Pool } from '../../journal/postgres/connect.js';
import { describeDamage } from '../../journal/store.js';
import { fileStore } from '../../journal/stores.js';
import { jsonDocument } from '../../output/format.js';
import { readPrivateFile } from '../../storage/files.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { onLedger, openLedgerPool } from './shared.js';

const migrateOptionsSchema = z.object({ from: z.literal('file') });

export type LedgerMigrateOptions = z.output<typeof migrateOptionsSchema>;

/** How many entries are written in one transaction (pipelined: one round trip's wait for many). */
const CHUNK = 500;

/** The lines of an entry beyond its start, as the file held them (entries.ts). */
export function laterLines(entry: JournalEntry): { outcome?: object; resolved?: object; matched?: object } {
  const lines: { outcome?: object; resolved?: object; matched?: object } = {};
  if (entry.state !== 'sending') {
    const { transferId, chargeId, status, reason, created, anomalies } = entry;
    lines.outcome = {
      id: entry.id,
      at: entry.finishedAt ?? entry.at,
      state: entry.state,
      ...(transferId === undefined ? {} : { transferId }),
      ...(chargeId === undefined ? {} : { chargeId }),
      ...(status === undefined ? {} : { status }),
      ...(reason === undefined ? {} : { reason }),
      ...(created === undefined ? {} : { created }),
      ...(anomalies === undefined ? {} : { anomalies }),
    };
  }
  if (entry.resolution !== undefined) {
    lines.resolved = { id: entry.id, at: entry.resolvedAt ?? entry.at, resolution: entry.resolution };
  }
  if (entry.match !== undefined)
    lines.matched = { id: entry.id, at: entry.matchedAt ?? entry.at, match: entry.match };
  return lines;
}

export async function runLedgerMigrate(_options: LedgerMigrateOptions, deps: Deps): Promise<void> {
  const config = await deps.config();
  const file = fileStore(config.dir, deps);
  const { damage } = await file.verify();
  if (damage.length > 0) {
    throw new PixError(
      'declined',
      `the file journal is damaged: ${describeDamage(file.where, damage)}; nothing was imported`,
      {
        hint: '`pix journal verify` lists every damaged line: repair them (checking `pix statement`), then migrate',
      },
    );
  }
  const entries = await file.read();
  const logs = eventLogsOf(deps);
  const pool = await openLedgerPool(deps);
  const { sql, where } = pool;
  const { checkSchema, schemaVersion } = await import('../../journal/postgres/store.js');
  const { insertEntry } = await import('../../journal/postgres/queries.js');
  const { transaction } = await import('../../journal/postgres/connect.js');
  const { stdout, stderr } = deps.io;
  const imported = await onLedger(pool, async () => {
    checkSchema(await schemaVersion(sql), where);
    let added = 0;
    for (let start = 0; start < entries.length; start += CHUNK) {
      const chunk = entries.slice(start, start + CHUNK);
      const counts = await transaction(sql, (tx) =>
        // An entry still `sending` here keeps no lease: its process is not the database's to wait for.
        Promise.all(chunk.map((entry) => insertEntry(tx, entry, laterLines(entry), undefined))),
      );
      added += counts.reduce((sum, count) => sum + count, 0);
    }
    return added;
  });
  // The counts checked: every id of the file is in the database now.
  const present = await onLedger(pool, async () => {
    let found = 0;
    for (let start = 0; start < entries.length; start += 10_000) {
      const ids = entries.slice(start, start + 10_000).map((entry) => entry.id);
      const [row] = await sql.unsafe(
        'SELECT count(*)::int AS n FROM pix_journal WHERE id = ANY($1::text[])',
        [ids],
      );
      found += Number(row?.n ?? 0);
    }
    return found;
  });
  if (present !== entries.length) {
    throw new PixError(
      'internal',
      `${where}: ${entries.length - present} of ${entries.length} entries of ${file.where} are missing after the import`,
      {
        hint: 'run it again: entries already imported are left as they are',
      },
    );
  }
  const events = await importEvents(pool, logs, deps);
  const accounts = await importAccounts(pool, deps);
  stderr.write(
    `ledger ${where}: ${imported} of ${entries.length} entries of ${file.where} imported (${entries.length - imported} were there already); ${events.imported} of ${events.events} events of ${logs.length} event log${logs.length === 1 ? '' : 's'} imported; ${accounts.credentials} set${accounts.credentials === 1 ? '' : 's'} of credentials of ${accounts.accounts} account${accounts.accounts === 1 ? '' : 's'} imported; counts checked\n`,
  );
  if (deps.globals.json) {
    stdout.write(
      jsonDocument(
        { ledger: where, from: file.where, entries: entries.length, imported, present, events, accounts },
        stdout.isTTY,
      ),
    );
  }
}

/**
 * `pix listen`'s event logs of this config directory, one per account (src/events/log.ts), each read whole
 * and checked as the listener checks it: a damaged one is refused (exit 8) before anything is imported.
 */
function eventLogsOf(deps: Deps): ImportedLog[] {
  const dir = join(configDir(deps.env), 'events');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const logs: ImportedLog[] = [];
  for (const name of names.filter((file) => /^acct_[^.]+\.jsonl$/.test(file)).sort()) {
    const account = name.slice(0, -'.jsonl'.length);
    const files = { log: join(dir, name), checkpoint: join(dir, `${account}.checkpoint`) };
    const log = readEventLog(files, 'all');
    const damage = describeLogDamage(files, log);
    if (damage !== undefined) {
      throw new PixError('declined', `the event log is damaged: ${damage}; nothing was imported`, {
        hint: '`pix events verify` names every damaged line: settle them, then migrate',
      });
    }
    const events = [...log.states.values()].filter(
      (state): state is EventState & { event: PixEvent } => state.event !== undefined,
    );
    const { checkpoint } = log;
    const secret = readPrivateFile(join(dir, `${account}.secret`))?.trim();
    logs.push({
      account,
      events,
      ...(checkpoint === undefined || checkpoint.catchUp !== undefined
        ? {}
        : { cursor: { statement: checkpoint.statement, journal: checkpoint.journal, at: checkpoint.at } }),
      ...(secret ? { secret } : {}),
    });
  }
  return logs;
}

/**
 * The accounts this directory learned (journal/accounts.ts), each with the credentials seen to reach it,
 * into the ledger's accounts: merged as a learning is (former names joined, never lost).
 */
async function importAccounts(pool: Pool, deps: Deps): Promise<{ accounts: number; credentials: number }> {
  const local = openAccounts((await deps.config()).dir, deps);
  const { postgresAccounts } = await import('../../journal/postgres/accounts.js');
  const ledger = postgresAccounts(
    pool.sql,
    pool.where,
    `migrated by ${hostname()}:${deps.processes.pid}`,
    (work) => onLedger(pool, work),
  );
  const accounts = new Map((await local.accounts()).map((account) => [account.id, account]));
  const credentials = local.credentials().filter((credential) => accounts.has(credential.account));
  for (const credential of credentials) {
    const account = accounts.get(credential.account)!;
    await ledger.record({
      account: { id: account.id, bank: account.bank, owner: account.owner, basis: account.basis },
      fingerprint: credential.fingerprint,
      credential: credential.credential,
      keyIds: credential.keyIds,
      formerIds: account.formerIds,
      legacy: account.legacy,
      now: new Date(credential.checkedAt),
    });
  }
  return {
    accounts: new Set(credentials.map((credential) => credential.account)).size,
    credentials: credentials.length,
  };
}

/** The event logs into the shared ledger (idempotent by event id), the counts checked after. */
async function importEvents(pool: Pool, logs: readonly ImportedLog[], deps: Deps) {
  const { importEventLog, eventsPresent } = await import('../../events/postgres.js');
  const { transaction } = await import('../../journal/postgres/connect.js');
  const ids = logs.flatMap((log) => log.events.map((state) => state.id));
  const by = `migrated by ${hostname()}:${deps.processes.pid}`;
  const imported = await onLedger(pool, async () => {
    let added = 0;
    for (const log of logs) added += await transaction(pool.sql, (tx) => importEventLog(tx, log, by));
    return added;
  });
  const present = await onLedger(pool, () => eventsPresent(pool.sql, ids));
  if (present !== ids.length) {
    throw new PixError(
      'internal',
      `${pool.where}: ${ids.length - present} of ${ids.length} events of this config directory's event logs are missing after the import`,
      { hint: 'run it again: events already imported are left as they are' },
    );
  }
  return { logs: logs.length, events: ids.length, imported, present };
}

export const verb = describeVerb({
  summary: "import this machine's journal and charge ledger into the shared ledger",
  examples: ['pix ledger migrate --from file', 'pix ledger migrate --from file --json'],
  exits: ['usage', 'unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .requiredOption(
      '--from <SOURCE>',
      'file: the journal, charge ledger and event logs of this config directory',
    )
    .action(async (_options, self: Command) => {
      await runLedgerMigrate(parseOptions(migrateOptionsSchema, self.opts()), deps);
    });
}
