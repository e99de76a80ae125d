/**
 * Where `pix listen`'s events come from, each read from where the listener had got to (its checkpoint),
 * never from the beginning:
 *
 * - the statement: the window since the read before (shared/newentries.ts newEntries: by time, whatever
 *   order the server lists entries in), and a window of it for --backfill;
 * - the journal, followed as it grows (journal/follow.ts followJournal): the lines appended since the last
 *   read become payment.sent, payment.unknown, payment.resolved and charge.paid; it holds only what can
 *   still change (this account's unresolved payments, and its charges, which the ledger matches
 *   together), so the listener's memory does not grow with a year of paid batches. A profile whose
 *   journal is a shared database (journal/stores.ts) is read again whenever the database's version moves,
 *   and each entry's state is remembered between reads;
 * - time: a pending charge whose expiry passes between two polls is charge.expired.
 */
import type { ApiClient } from '../../api/client.js';
import { type StatementEntry, statementWindow } from '../../api/resources/statement.js';
import type { Deps } from '../../context.js';
import { type EventContext, type PixEvent, recordEvent } from '../../domain/events.js';
import { LATE_TOLERANCE_MS } from '../../domain/matching.js';
import { HELD_PREFIX, MISSED_REASON, parseOccurrenceRow, REFUSED_PREFIX } from '../../domain/schedule.js';
import type { JournalEntry } from '../../journal/entries.js';
import { followJournal } from '../../journal/follow.js';
import { chargeLedger, type LedgerRecord } from '../../journal/ledger.js';
import type { JournalWatch } from '../../journal/parser.js';
import { type Account, isResolvable, ofAccount } from '../../journal/rules.js';
import type { JournalStore } from '../../journal/stores.js';
import { readPrivateFrom } from '../../storage/files.js';
import { ledgerJson, ledgerOf, type ProfileLedger, refreshLedger } from '../shared/chargeledger.js';
import { publicEntry } from '../shared/journal.js';

/** An event made from a source, and when its fact happened (ms): the order they are logged in. */
export interface Fact {
  event: PixEvent;
  at: number;
}

/** Facts oldest first (a stable sort: facts of one instant keep the order found). */
export function oldestFacts(facts: readonly Fact[]): Fact[] {
  return [...facts].sort((a, b) => a.at - b.at);
}

/**
 * Every entry confirmed from `from` to `to` (all pages of that window; --backfill, and a first run picked
 * up again). A window read short of its total is exit 6, `received N of M`: the events of a window are
 * made once, so it is not made from half of it.
 */
export function backfillWindow(client: ApiClient, from: Date, to: Date): Promise<StatementEntry[]> {
  return statementWindow(client, from, to, {
    what: 'the --backfill window of the statement',
    consequence: 'run it again',
  });
}

/** How far a journal file was read: its identity (device and inode) and offset. */
export interface JournalPosition {
  identity: string;
  offset: number;
}

/** The journal as a source of events (see the top of this file). */
export interface JournalSource {
  /**
   * Reads what the journal gained (and, for pending charges, looks at the statement); the facts found,
   * oldest first. `resume`: where a run before this one had read to (its lines are read again, quietly;
   * a journal replaced since is old as a whole); facts before `since` (ms: a first run's start, or its
   * --backfill window's) are old too.
   */
  poll(now: Date, options?: { resume?: JournalPosition; since?: number }): Promise<Fact[]>;
  /** How far the journal was read (undefined: there is none). */
  position(): JournalPosition | undefined;
  /** Lines of the journal that cannot be read (they stop payments until repaired: `pix journal verify`). */
  damage(): number;
}

/**
 * How the source reads the journal: the file of this config directory followed line by line, or a shared
 * database (journal/stores.ts) asked again whenever its version moved.
 */
interface JournalReader {
  /** Reads what is new (after `resume`'s lines, read quietly); where the reading got to. */
  read(resume?: JournalPosition): Promise<JournalPosition | undefined>;
  /** The entries held now, in the order they started. */
  entries(): JournalEntry[];
  damage(): number;
  /** A database has no offset to resume from: a run picked up again takes facts after its checkpoint as new. */
  byTime: boolean;
}

/** Makes the event of a record's fact (`at`: when it happened, from the record) and keeps it. */
type Push = (
  type: Parameters<typeof recordEvent>[0],
  id: string,
  at: string,
  data: Record<string, unknown>,
) => void;

/**
 * The journal of `account` (the profile's: this config directory's file, or a shared database) as a source
 * of its events. `expiredAfter` (ms): the account's time after which an expiry is news (the last poll's,
 * from the checkpoint), unless a poll's `since` says.
 */
export async function journalSource(
  deps: Deps,
  account: Account,
  context: EventContext,
  expiredAfter: number,
): Promise<JournalSource> {
  let found: Fact[] = [];
  let since = Number.NEGATIVE_INFINITY;
  const push: Push = (type, id, at, data) => {
    const event = recordEvent(type, { id, at, data }, context);
    const ms = Date.parse(event.created);
    if (!(ms < since)) found.push({ event, at: ms });
  };
  // Match lines go to the journal through a store that holds nothing: the reader reads them back.
  const writer = await deps.stores.journal(() => false);
  const reader = await readerOf(writer, account, factsOf(account, push), deps);
  let position: JournalPosition | undefined;
  let resume: JournalPosition | undefined;
  // Made after the first read (a ledger reads the journal as it is made).
  let ledger: ProfileLedger | undefined;
  const read = async () => {
    position = await reader.read(resume);
    resume = undefined;
    return reader.entries();
  };
  let lastPoll = expiredAfter;
  return {
    async poll(now, options = {}) {
      resume = options.resume;
      since =
        options.since ??
        (options.resume !== undefined && reader.byTime ? expiredAfter : Number.NEGATIVE_INFINITY);
      try {
        ledger ??= await ledgerOf(writer, read, account, deps);
        const records = await ledger.reload(now);
        const pending = records.filter(
          (record) => record.status === 'pending' || record.status === 'ambiguous',
        );
        const look = pending.length > 0 ? await refreshLedger(ledger, pending, false, deps) : undefined;
        const after = options.since ?? lastPoll;
        for (const record of expiredBetween(look?.records ?? records, after, now)) {
          push('charge.expired', record.id, record.expiresAt!, ledgerJson(record));
        }
        lastPoll = Math.max(after, now.getTime());
        const facts = oldestFacts(found);
        found = [];
        return facts;
      } finally {
        since = Number.NEGATIVE_INFINITY;
      }
    },
    position: () => position,
    damage: () => reader.damage(),
  };
}

/** The reader of the profile's journal: the file of the config directory, or the shared store itself. */
async function readerOf(
  store: JournalStore,
  account: Account,
  watch: JournalWatch,
  deps: Deps,
): Promise<JournalReader> {
  if (store.backend !== 'file') return storeReader(store, account, watch);
  return fileReader((await deps.config()).dir, account, watch);
}

/** The charges whose expiry passed after `after` (ms) and by `now`: each a charge.expired. */
function expiredBetween(records: readonly LedgerRecord[], after: number, now: Date): LedgerRecord[] {
  return records.filter((record) => {
    const expiry = expiryOf(record);
    return record.status === 'expired' && expiry > after && expiry <= now.getTime();
  });
}

/** The journal file of `dir`, followed (journal/follow.ts followJournal): memory bounded by what can change. */
function fileReader(dir: string, account: Account, watch: JournalWatch): JournalReader {
  const follower = followJournal(dir, (entry) => ofAccount(entry, account), watch);
  return {
    read: async (resume) =>
      follower.read(resume === undefined ? undefined : quietUntil(follower.path, resume)),
    entries: () => follower.entries(),
    damage: () => follower.damage().length,
    byTime: false,
  };
}

/**
 * A shared database's journal (journal/stores.ts), read again whenever its version moved: each entry of
 * the account whose state differs from the last read is told to the watch as the lines a file would have
 * had (its outcome, its match, its resolution).
 */
function storeReader(store: JournalStore, account: Account, watch: JournalWatch): JournalReader {
  let version: string | undefined;
  let held: JournalEntry[] = [];
  const states = new Map<string, readonly [string, string, string]>();
  const position = { identity: store.where, offset: 0 };
  return {
    async read() {
      const now = await store.version();
      if (now === version) return position;
      version = now;
      const mine = (await store.read()).filter((entry) => ofAccount(entry, account));
      for (const entry of mine) {
        const before = states.get(entry.id);
        const after = [entry.state, entry.matchedAt ?? '', entry.resolution ?? ''] as const;
        states.set(entry.id, after);
        if (entry.state !== 'sending' && after[0] !== before?.[0]) watch.changed(entry, 'outcome');
        if (after[1] !== '' && after[1] !== before?.[1]) watch.changed(entry, 'match');
        if (after[2] !== '' && after[2] !== before?.[2]) watch.changed(entry, 'resolution');
      }
      held = mine.filter((entry) => !watch.settled(entry));
      return position;
    },
    entries: () => held,
    damage: () => 0,
    byTime: true,
  };
}

/** Where a resumed reading of the journal turns from old lines to news: all of a replaced journal is old. */
function quietUntil(path: string, resume: JournalPosition): number {
  const now = readPrivateFrom(path, 0, 0);
  if (now === undefined) return 0;
  return now.identity === resume.identity && now.size >= resume.offset
    ? resume.offset
    : Number.POSITIVE_INFINITY;
}

/** When a charge counts as expired (ledger.ts statusOf): its expiry and the matcher's late tolerance. */
function expiryOf(record: LedgerRecord): number {
  return record.expiresAt === undefined ? Number.NaN : Date.parse(record.expiresAt) + LATE_TOLERANCE_MS;
}

/**
 * What each journal line of the account means as an event, and when an entry is settled: a payment once
 * it is done, failed or resolved (nothing more comes of it); a charge only once it was never created (the
 * ledger matches the account's charges together, so they stay).
 */
function factsOf(account: Account, push: Push): JournalWatch {
  return {
    changed(entry: JournalEntry, line) {
      if (!ofAccount(entry, account)) return;
      if (entry.kind === 'payment') {
        const at = line === 'resolution' ? (entry.resolvedAt ?? entry.at) : (entry.finishedAt ?? entry.at);
        if (line === 'resolution') push('payment.resolved', entry.id, at, publicEntry(entry));
        else if (entry.state === 'done') push('payment.sent', entry.id, at, publicEntry(entry));
        else if (entry.state === 'unknown') push('payment.unknown', entry.id, at, publicEntry(entry));
        scheduleFact(entry, line, at, push);
        return;
      }
      if (line !== 'match') return;
      const [record] = chargeLedger([entry], new Date(Date.parse(entry.matchedAt ?? entry.at)));
      if (record !== undefined) {
        push('charge.paid', record.id, entry.matchedAt ?? record.createdAt, ledgerJson(record));
      }
    },
    settled(entry) {
      if (entry.kind === 'payment') return !isResolvable(entry) || entry.resolution !== undefined;
      return entry.state === 'failed' || entry.resolution === 'not-paid';
    },
  };
}

/**
 * A schedule's occurrence (a journal row named by its schedule and date: domain/schedule.ts) also makes
 * schedule.paid, schedule.failed (refused before it was sent, or by the server), schedule.held (held by the
 * policy at its moment: docs/schedules.md) and schedule.missed. Each is
 * made from the occurrence's row, not the entry: two runners that both recorded a miss make one event.
 */
function scheduleFact(entry: JournalEntry, line: string, at: string, push: Push): void {
  const row = entry.payment?.batchRow?.row;
  const occurrence = row === undefined ? undefined : parseOccurrenceRow(row);
  if (occurrence === undefined || row === undefined) return;
  const data = { schedule: occurrence.schedule, date: occurrence.date, row, payment: publicEntry(entry) };
  const paid = line === 'resolution' ? entry.resolution === 'paid' : entry.state === 'done';
  if (paid) push('schedule.paid', row, at, data);
  else if (line !== 'resolution' && entry.state === 'failed') {
    if (entry.reason === MISSED_REASON) push('schedule.missed', row, at, data);
    else if (entry.reason?.startsWith(HELD_PREFIX)) push('schedule.held', row, at, data);
    else if (entry.reason?.startsWith(REFUSED_PREFIX) || entry.reason?.startsWith('rejected')) {
      push('schedule.failed', row, at, data);
    }
  }
}
