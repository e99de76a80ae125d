/**
 * `pix ledger status`: where the profile's ledger is and what it holds (docs/team.md) — the backend, the
 * schema's version, counts of entries, the oldest unresolved payment, the live leases (who is sending
 * what, on which machine), outcomes of this machine still waiting in the spill file, and `pix listen`'s
 * events and the active listener of each account. Exit 6 when the database cannot be reached.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { formatBRL } from '../../domain/money.js';
import { PixError } from '../../errors.js';
import { openAccounts } from '../../journal/accounts.js';
import { shortId } from '../../journal/entries.js';
import { isUnresolved } from '../../journal/rules.js';
import { jsonDocument } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { onLedger, openLedgerPool } from './shared.js';

const statusOptionsSchema = z.object({});

export interface LedgerStatus {
  backend: 'file' | 'postgres';
  where: string;
  schema: number | null;
  entries: number;
  payments: number;
  charges: number;
  unresolved: number;
  oldestUnresolved: { id: string; at: string; amountCentavos: number; receiver: string | null } | null;
  leases: Array<{ id: string; host: string; pid: number; beatSecondsAgo: number }>;
  /** Outcomes of this machine waiting in the spill file for this database. */
  spilled: number;
  /** Why the spill file cannot be written to the database (damaged, or contradicted by it): exit 8. */
  spillProblem: string | null;
  /** Accounts known by their bank details (journal/accounts.ts); null where the schema predates them. */
  accounts: number | null;
  /** `pix listen`'s events in the database: how many, how many still owed. */
  events: { made: number; owed: number; dead: number };
  /** The active `pix listen` of each account (the one holding its advisory lock). */
  listeners: Array<{
    account: string;
    host: string;
    pid: number;
    profile: string;
    destination: string;
    since: string;
  }>;
}

async function fileStatus(deps: Deps): Promise<LedgerStatus> {
  const journal = await deps.stores.journal();
  const entries = await journal.read();
  const open = entries.filter((entry) => entry.kind === 'payment' && isUnresolved(entry));
  const oldest = open[0];
  return {
    backend: 'file',
    where: journal.where,
    schema: null,
    entries: entries.length,
    payments: entries.filter((entry) => entry.kind === 'payment').length,
    charges: entries.filter((entry) => entry.kind === 'charge').length,
    unresolved: open.length,
    oldestUnresolved:
      oldest === undefined
        ? null
        : {
            id: oldest.id,
            at: oldest.at,
            amountCentavos: oldest.amountCentavos,
            receiver: oldest.receiver ?? null,
          },
    leases: [],
    spilled: 0,
    spillProblem: null,
    accounts: (await openAccounts((await deps.config()).dir, deps).accounts()).length,
    events: { made: 0, owed: 0, dead: 0 },
    listeners: [],
  };
}

/** A row of pix_journal's leases as the status shows it. */
function leaseOf(row: Record<string, unknown>): LedgerStatus['leases'][number] {
  return {
    id: String(row.id),
    host: String(row.host),
    pid: Number(row.pid),
    beatSecondsAgo: Math.round(Number(row.ago)),
  };
}

/** A row of pix_listen as the status shows it. */
function listenerOf(row: Record<string, unknown>): LedgerStatus['listeners'][number] {
  return {
    account: String(row.account),
    host: String(row.host),
    pid: Number(row.pid),
    profile: String(row.profile),
    destination: String(row.destination),
    since: String(row.since),
  };
}

async function postgresStatus(deps: Deps): Promise<LedgerStatus> {
  const pool = await openLedgerPool(deps);
  const { sql, where } = pool;
  const { schemaVersion } = await import('../../journal/postgres/store.js');
  const { inspectSpill, judgeSpilled } = await import('../../journal/postgres/spill.js');
  const spill = inspectSpill((await deps.config()).dir, where);
  const spilled = spill.waiting.length;
  let spillProblem = spill.damage ?? null;
  return onLedger(pool, async () => {
    const schema = (await schemaVersion(sql)) ?? null;
    if (schema === null || schema === 0) {
      return {
        backend: 'postgres',
        where,
        schema: null,
        entries: 0,
        payments: 0,
        charges: 0,
        unresolved: 0,
        oldestUnresolved: null,
        leases: [],
        spilled,
        spillProblem,
        accounts: null,
        events: { made: 0, owed: 0, dead: 0 },
        listeners: [],
      };
    }
    const [counts] = await sql.unsafe(
      `SELECT count(*)::int AS entries, count(*) FILTER (WHERE kind = 'payment')::int AS payments,
         count(*) FILTER (WHERE kind = 'charge')::int AS charges,
         count(*) FILTER (WHERE kind = 'payment' AND state IN ('sending', 'unknown') AND resolution IS NULL)::int AS unresolved
       FROM pix_journal`,
    );
    const [oldest] = await sql.unsafe(
      `SELECT id, start->>'at' AS at, amount_centavos::int AS amount, start->>'receiver' AS receiver
         FROM pix_journal WHERE kind = 'payment' AND state IN ('sending', 'unknown') AND resolution IS NULL
         ORDER BY seq LIMIT 1`,
    );
    const leases = await sql.unsafe(
      `SELECT id, lease_host AS host, lease_pid AS pid, extract(epoch FROM now() - lease_beat)::float AS ago
         FROM pix_journal WHERE state = 'sending' AND lease_beat IS NOT NULL ORDER BY seq`,
    );
    // Each waiting outcome against the entry as the database has it now: one it contradicts is named.
    for (const change of spillProblem === null ? spill.waiting : []) {
      const [row] = await sql.unsafe('SELECT state, resolution FROM pix_journal WHERE id = $1', [change.id]);
      const said = judgeSpilled(
        change,
        row === undefined ? undefined : { state: String(row.state), resolution: row.resolution ?? null },
      );
      if (said !== 'apply' && said !== 'done') {
        spillProblem = said;
        break;
      }
    }
    const [accounts] =
      schema >= 3 ? await sql.unsafe('SELECT count(*)::int AS count FROM pix_accounts') : [undefined];
    const [events] = await sql.unsafe(
      `SELECT count(*)::int AS made, count(*) FILTER (WHERE state = 'pending')::int AS owed,
         count(*) FILTER (WHERE state = 'dead')::int AS dead FROM pix_events`,
    );
    // Active: its session still holds an advisory lock (PostgreSQL frees it when the session ends).
    const listeners = await sql.unsafe(
      `SELECT account, host, pid, profile, destination, since::text AS since FROM pix_listen l
         WHERE backend_pid IS NOT NULL AND EXISTS (SELECT 1 FROM pg_locks k
           WHERE k.locktype = 'advisory' AND k.granted AND k.pid = l.backend_pid)
         ORDER BY account`,
    );
    return {
      backend: 'postgres',
      where,
      schema,
      entries: Number(counts?.entries ?? 0),
      payments: Number(counts?.payments ?? 0),
      charges: Number(counts?.charges ?? 0),
      unresolved: Number(counts?.unresolved ?? 0),
      oldestUnresolved:
        oldest === undefined
          ? null
          : {
              id: String(oldest.id),
              at: String(oldest.at),
              amountCentavos: Number(oldest.amount),
              receiver: oldest.receiver ?? null,
            },
      leases: leases.map(leaseOf),
      spilled,
      spillProblem,
      accounts: accounts === undefined ? null : Number(accounts.count),
      events: {
        made: Number(events?.made ?? 0),
        owed: Number(events?.owed ?? 0),
        dead: Number(events?.dead ?? 0),
      },
      listeners: listeners.map(listenerOf),
    };
  });
}

export async function runLedgerStatus(deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const status = settings.ledger.kind === 'file' ? await fileStatus(deps) : await postgresStatus(deps);
  const { stdout } = deps.io;
  if (deps.globals.json) {
    stdout.write(jsonDocument(status, stdout.isTTY));
    refuseSpill(status);
    return;
  }
  const lines: Array<[string, string]> = [
    ['backend', status.backend],
    ['where', status.where],
  ];
  if (status.backend === 'postgres')
    lines.push(['schema', status.schema === null ? 'none (run `pix ledger init`)' : String(status.schema)]);
  lines.push(['entries', `${status.entries} (${status.payments} payments, ${status.charges} charges)`]);
  lines.push(['unresolved', String(status.unresolved)]);
  lines.push([
    'accounts',
    status.accounts === null ? 'not kept here yet (run `pix ledger init`)' : String(status.accounts),
  ]);
  const oldest = status.oldestUnresolved;
  if (oldest !== null) {
    const to = oldest.receiver === null ? '' : ` to ${safeText(oldest.receiver, 60)}`;
    lines.push([
      'oldest unresolved',
      `${shortId(oldest.id)} ${formatBRL(oldest.amountCentavos)}${to} at ${oldest.at}`,
    ]);
  }
  if (status.backend === 'postgres') {
    lines.push(['live leases', String(status.leases.length)]);
    for (const lease of status.leases) {
      lines.push([
        '  sending',
        `${shortId(lease.id)} by pix process ${lease.pid} on ${safeText(lease.host, 80)}, beat ${lease.beatSecondsAgo}s ago`,
      ]);
    }
    lines.push(['spilled here', String(status.spilled)]);
    if (status.spillProblem !== null) lines.push(['spill problem', safeText(status.spillProblem, 300)]);
    const { events } = status;
    lines.push(['events', `${events.made} (${events.owed} owed, ${events.dead} dead letters)`]);
    lines.push(['active listeners', String(status.listeners.length)]);
    for (const listener of status.listeners) {
      lines.push([
        '  pix listen',
        `${safeText(listener.account, 60)}: pid ${listener.pid} on ${safeText(listener.host, 80)} (profile ${safeText(listener.profile, 40)}) to ${safeText(listener.destination, 120)} since ${safeText(listener.since, 40)}`,
      ]);
    }
  }
  const width = Math.max(...lines.map(([label]) => label.length)) + 2;
  for (const [label, value] of lines) {
    stdout.write(stdout.isTTY ? `${label.padEnd(width)}${value}\n` : `${label}\t${value}\n`);
  }
  refuseSpill(status);
}

/** Exit 8 once the status is out, when the spill file cannot be written to the database. */
function refuseSpill(status: LedgerStatus): void {
  if (status.spillProblem === null) return;
  throw new PixError(
    'declined',
    `the ledger spill file cannot be trusted: ${safeText(status.spillProblem, 300)}`,
    {
      hint: 'payments and charges are stopped: settle the entry (`pix statement`, then `pix journal resolve`), then move the spill file and its .checkpoint aside',
    },
  );
}

export const verb = describeVerb({
  summary: 'backend, schema version, counts, the oldest unresolved payment, live leases',
  examples: ['pix ledger status', 'pix ledger status --json'],
  exits: ['unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command.action(async (_options, self: Command) => {
    parseOptions(statusOptionsSchema, self.opts());
    await runLedgerStatus(deps);
  });
}
